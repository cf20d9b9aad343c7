package interp

import (
	"encoding/binary"
	"unsafe"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Record is a data record as an Interp reads it: its time and a view of
// its value sets, decoded in place from the record's bytes (which it
// aliases). A Source fills one with Decode (or Mark) and hands it out
// until its next read. Decode reads the header alone; the value sets are
// scanned the first time they are needed, only as far as needed, and
// only those of the metrics being interpolated are noted (hits), so that
// a record the interpolation passes over costs little more than its
// header, and one it looks into little more than a pass over its value
// set headers.
type Record struct {
	Stamp   pmapi.Timestamp
	Handle  Handle // where to read the record again (Source.Reread)
	raw     []byte
	version int
	hits    []hit  // the value sets of wanted metrics scanned so far, in order
	nextK   int32  // value sets scanned so far
	nextP   int32  // offset in raw of the next value set
	gen     uint64 // the Interp generation (Interp.gen) hits are for; 0: none
	mark    bool
	walked  bool // every value set has been scanned
	sound   bool // and the value sets are well formed
}

// hit is a value set of a metric being interpolated.
type hit struct {
	m  *metric
	vs vsetRef
}

// Handle is where a record can be read again: opaque to an Interp, set
// by the Source (OK false: it cannot be).
type Handle struct {
	OK      bool
	Archive int
	Vol     int
	Off     int64
	Len     int64
}

type vsetRef struct {
	pmid   pmapi.PMID
	numval int32
	valfmt int32
	off    int32 // offset in raw of the first (inst, value) pair
}

// Header sizes of data records, from the first length word to numpmid
// inclusive (as in package archive).
const (
	dataHeaderV2 = 16
	dataHeaderV3 = 20
)

// Mark makes r a <mark> record at t.
func (r *Record) Mark(t pmapi.Timestamp) {
	r.Stamp, r.raw, r.hits, r.mark = t, nil, r.hits[:0], true
	r.walked, r.sound, r.Handle, r.gen = true, true, Handle{}, 0
	r.nextK, r.nextP = 0, 0
}

// Decode makes r a view of raw, one whole data record (both length words
// included) of an archive of the given format version, and reports
// whether its header is sound (the caller has checked the length words).
// The value sets are checked when they are first scanned: their counts
// and formats, as archive.Cursor checks them when it decodes a record,
// and the value blocks of the metrics interpolated; a record that fails
// then gives pmapi.ErrLogRec. The Handle is left as it is.
func (r *Record) Decode(raw []byte, version int) bool {
	r.raw, r.version, r.mark, r.walked = raw, version, false, false
	r.hits, r.gen, r.nextK = r.hits[:0], 0, 0
	hdr := dataHeaderV2
	if version == 3 {
		hdr = dataHeaderV3
	}
	n := len(raw)
	if n < hdr+4 {
		return false
	}
	if version == 3 {
		lo := binary.BigEndian.Uint32(raw[4:])
		hi := binary.BigEndian.Uint32(raw[8:])
		r.Stamp = pmapi.Timestamp{Sec: int64(uint64(hi)<<32 | uint64(lo)), Nsec: int32(binary.BigEndian.Uint32(raw[12:]))}
	} else {
		r.Stamp = pmapi.Timestamp{Sec: int64(int32(binary.BigEndian.Uint32(raw[4:]))), Nsec: int32(binary.BigEndian.Uint32(raw[8:])) * 1000}
	}
	numpmid := int32(binary.BigEndian.Uint32(raw[hdr-4:]))
	end := n - 4
	if numpmid < 0 || int64(numpmid)*8 > int64(end-hdr) {
		return false
	}
	r.nextP = int32(hdr)
	if numpmid == 0 {
		r.mark, r.walked, r.sound = true, true, true
	}
	return true
}

func (r *Record) hdr() int {
	if r.version == 3 {
		return dataHeaderV3
	}
	return dataHeaderV2
}

// numPMID is the number of value sets the header announces.
func (r *Record) numPMID() int {
	if r.mark {
		return 0
	}
	return int(binary.BigEndian.Uint32(r.raw[r.hdr()-4:]))
}

// scan goes on scanning the value sets of r for ip (nil: for none) from
// where the last scan stopped, checking each (its counts and format, as
// archive.Cursor checks them when it decodes a record), and noting in
// r.hits those of the metrics ip interpolates (ip.lookupAt). It stops
// after noting one (reporting true) if one is true, else at the end of
// the value sets, or at a malformed one; walked is then set, and sound
// reports which. The scan is the same whether made in one go or in
// pieces, or replayed from a copy (Interp.recall).
func (r *Record) scan(ip *Interp, one bool) bool {
	if ip != nil && r.gen != ip.gen {
		// Not scanned yet for ip's metrics (a fresh Decode), or for
		// an earlier set of them: start.
		r.hits, r.nextK, r.nextP, r.gen = r.hits[:0], 0, int32(r.hdr()), ip.gen
		if !r.mark {
			r.walked = false
		}
	}
	if r.walked {
		return false
	}
	raw := r.raw
	end := len(raw) - 4
	numpmid := r.numPMID()
	p := int(r.nextP)
	var lay []layoutSet
	if ip != nil {
		if len(ip.layout) < numpmid {
			ip.layout = append(ip.layout, make([]layoutSet, numpmid-len(ip.layout))...)
		}
		lay = ip.layout[:numpmid]
	}
	for k := int(r.nextK); k < numpmid; k++ {
		if ip != nil {
			// Move fast over value sets as the last record had them.
			var bad bool
			if p, k, bad = skipSets(raw[:end], p, k, lay); bad {
				r.walked, r.sound = true, false
				return false
			}
			if k >= numpmid {
				break
			}
		}
		if p < 0 || p+8 > end {
			r.walked, r.sound = true, false
			return false
		}
		x := binary.BigEndian.Uint64(raw[p:])
		pmid, numval := pmapi.PMID(x>>32), int32(uint32(x))
		var valfmt, off int32
		sz := 8
		if numval > 0 {
			if p+12 > end || int64(numval)*8 > int64(end-p-12) {
				r.walked, r.sound = true, false
				return false
			}
			valfmt = int32(binary.BigEndian.Uint32(raw[p+8:]))
			off = int32(p + 12)
			// ValFmtInsitu, ValFmtDptr or ValFmtSptr (0, 1, 2)
			if uint32(valfmt) > pmapi.ValFmtSptr {
				r.walked, r.sound = true, false
				return false
			}
			sz = 12 + 8*int(numval)
		}
		p += sz
		if ip == nil {
			continue
		}
		m := ip.lookup(k, pmid)
		lay[k] = layoutSet{x: x, sz: int32(sz), skip: m == nil}
		if m == nil {
			continue
		}
		r.hits = append(r.hits, hit{m, vsetRef{pmid: pmid, numval: numval, valfmt: valfmt, off: off}})
		if one {
			r.nextK, r.nextP = int32(k+1), int32(p)
			return true
		}
	}
	r.nextK, r.nextP = int32(numpmid), int32(p)
	r.walked, r.sound = true, true
	return false
}

// scanAll scans the rest of the value sets for ip and reports whether
// they are well formed.
func (r *Record) scanAll(ip *Interp) bool {
	r.scan(ip, false)
	return r.sound
}

// blocksOK checks the value blocks of value set vs (see blocksFit).
func (r *Record) blocksOK(vs *vsetRef) bool {
	if vs.valfmt == pmapi.ValFmtInsitu || vs.numval <= 0 {
		return true
	}
	return blocksFit(r.raw, int(vs.off), int(vs.numval), r.hdr(), len(r.raw)-4)
}

// blocksFit checks the value blocks of the nv (inst, offset) pairs at p:
// each must lie inside the record (after the header, before the trailer)
// and be at least its own header long.
func blocksFit(raw []byte, p, nv, hdr, end int) bool {
	pairs := raw[p : p+8*nv]
	for len(pairs) >= 8 {
		bp := int64(binary.BigEndian.Uint32(pairs[4:]))*4 - 8
		pairs = pairs[8:]
		if bp < int64(hdr) || bp+4 > int64(end) {
			return false
		}
		bl := int64(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)
		if bl < 4 || bp+bl > int64(end) {
			return false
		}
	}
	return true
}

// FromArchive makes r a view of ar, a record package archive has decoded
// (and checked); it cannot be read again by Handle.
func (r *Record) FromArchive(ar *archive.Record) {
	if ar.IsMark() {
		r.Mark(ar.Stamp)
		return
	}
	r.Handle = Handle{}
	if !r.Decode(ar.Raw(), ar.Version) || !r.scanAll(nil) {
		// Cannot happen: archive made the same checks.
		r.Mark(ar.Stamp)
	} else if !r.mark {
		// Checked: scan again for the Interp.
		r.walked, r.nextK, r.nextP = false, 0, int32(r.hdr())
	}
	r.Stamp = ar.Stamp
}

// IsMark reports whether the record is a <mark>.
func (r *Record) IsMark() bool { return r.mark }

// inst is the instance of value j of value set vs.
func (r *Record) inst(vs *vsetRef, j int) int32 {
	return int32(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j:]))
}

// value sets *v to value j of value set vs; a block aliases the record.
func (r *Record) value(vs *vsetRef, j int, v *pmapi.Value) {
	p := int(vs.off) + 8*j
	v.Inst = int32(binary.BigEndian.Uint32(r.raw[p:]))
	w := binary.BigEndian.Uint32(r.raw[p+4:])
	if vs.valfmt == pmapi.ValFmtInsitu {
		v.Insitu, v.BlockType, v.Block = int32(w), 0, nil
		return
	}
	bp := int(w)*4 - 8
	h := binary.BigEndian.Uint32(r.raw[bp:])
	v.Insitu = 0
	v.BlockType = pmapi.Type(h >> 24)
	v.Block = r.raw[bp+4 : bp+int(h&0xffffff)]
}

// scanned is what a full scan of a record found (Record.scan), kept by
// where the record is: records after a requested time that update scans
// are read again, as a run collapse reads back, at the next fetch.
type scanned struct {
	h            Handle
	gen          uint64
	hits         []hit
	nextK, nextP int32
	sound        bool
}

// scanSlots is the number of records whose scans are kept (a power of 2).
const scanSlots = 64

func scanSlot(h Handle) int {
	k := uint64(h.Off) ^ uint64(h.Vol)<<40 ^ uint64(h.Archive)<<52
	return int(k * 0x9e3779b97f4a7c15 >> (64 - 6))
}

// remember keeps the full scan of r, a record that can be read again.
func (ip *Interp) remember(r *Record) {
	if !r.Handle.OK || !r.walked || r.mark || r.gen != ip.gen {
		return
	}
	e := &ip.scans[scanSlot(r.Handle)]
	e.h, e.gen, e.nextK, e.nextP, e.sound = r.Handle, r.gen, r.nextK, r.nextP, r.sound
	e.hits = append(e.hits[:0], r.hits...)
}

// recall gives r, a record just read, the full scan remember kept of it,
// if any, and reports whether it did.
func (ip *Interp) recall(r *Record) bool {
	if !r.Handle.OK || r.mark || r.gen == ip.gen {
		return false
	}
	e := &ip.scans[scanSlot(r.Handle)]
	if e.gen != ip.gen || e.h != r.Handle {
		return false
	}
	r.hits = append(r.hits[:0], e.hits...)
	r.nextK, r.nextP, r.sound, r.walked, r.gen = e.nextK, e.nextP, e.sound, true, ip.gen
	return true
}

// layoutSet is a value set as the last record scanned had it at its
// position: its first 8 bytes (PMID and count), its size, and whether
// its metric is not wanted (false: not known).
type layoutSet struct {
	x    uint64
	sz   int32
	skip bool // known, and not wanted
}

// skipSets moves over the value sets of raw (a record without its
// trailer) from position k at offset p that are as lay has them (the
// same PMID and count) and not wanted, checking them as Record.scan
// does, and returns where it stopped; bad: the value set at k is
// malformed. Each next offset is known from lay before the count is
// loaded, so the loads do not wait for each other.
func skipSets(raw []byte, p, k int, lay []layoutSet) (int, int, bool) {
	end := len(raw)
	if end < 8 {
		return p, k, k < len(lay)
	}
	base := unsafe.Pointer(unsafe.SliceData(raw))
	for ; k < len(lay); k++ {
		e := &lay[k]
		if uint(p) > uint(end-8) {
			return p, k, true
		}
		// raw[p:p+8] and, below, raw[p+8:p+12], inside raw as checked
		x := binary.BigEndian.Uint64((*[8]byte)(unsafe.Add(base, p))[:])
		if x != e.x || !e.skip {
			return p, k, false
		}
		if e.sz > 8 {
			if p+int(e.sz) > end {
				return p, k, true
			}
			if binary.BigEndian.Uint32((*[4]byte)(unsafe.Add(base, p+8))[:]) > pmapi.ValFmtSptr {
				return p, k, true
			}
		}
		p += int(e.sz)
	}
	return p, k, false
}

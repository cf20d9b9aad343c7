package interp

import (
	"encoding/binary"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Record is a data record as an Interp reads it: its time and a view of
// its value sets, decoded in place from the record's bytes (which it
// aliases). A Source fills one with Decode (or Mark) and hands it out
// until its next read. Decode reads the header alone; the value sets are
// walked the first time they are needed, and the values only of the
// metrics being interpolated are looked at, so that a record the
// interpolation passes over costs little more than its header.
type Record struct {
	Stamp   pmapi.Timestamp
	Handle  Handle // where to read the record again (Source.Reread)
	raw     []byte
	version int
	vsets   []vsetRef
	mark    bool
	walked  bool // vsets is filled in
	sound   bool // and the value sets are well formed
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
	end    int32 // offset in raw just after the value set
}

// Header sizes of data records, from the first length word to numpmid
// inclusive (as in package archive).
const (
	dataHeaderV2 = 16
	dataHeaderV3 = 20
)

// Mark makes r a <mark> record at t.
func (r *Record) Mark(t pmapi.Timestamp) {
	r.Stamp, r.raw, r.vsets, r.mark = t, nil, r.vsets[:0], true
	r.walked, r.sound, r.Handle = true, true, Handle{}
}

// Decode makes r a view of raw, one whole data record (both length words
// included) of an archive of the given format version, and reports
// whether its header is sound (the caller has checked the length words).
// The value sets are checked when they are first walked: their counts
// and formats, as archive.Cursor checks them when it decodes a record,
// and the value blocks of the metrics interpolated; a record that fails
// then gives pmapi.ErrLogRec. The Handle is left as it is.
func (r *Record) Decode(raw []byte, version int) bool {
	r.raw, r.version, r.mark, r.walked = raw, version, false, false
	r.vsets = r.vsets[:0]
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

// walk fills in the value sets, once, and reports whether they are well
// formed.
func (r *Record) walk() bool {
	if r.walked {
		return r.sound
	}
	r.walkTo(int(^uint(0) >> 1))
	return r.sound
}

// numPMID is the number of value sets the header announces.
func (r *Record) numPMID() int {
	if r.mark {
		return 0
	}
	return int(binary.BigEndian.Uint32(r.raw[r.hdr()-4:]))
}

// walkTo fills in the value sets up to the n-th (from 0), reporting false
// if it cannot (past the last, or a malformed one: walk then reports the
// record unsound).
func (r *Record) walkTo(n int) bool {
	if n < len(r.vsets) {
		return true
	}
	if r.walked {
		return false
	}
	raw := r.raw
	hdr := r.hdr()
	end := len(raw) - 4
	numpmid := r.numPMID()
	if cap(r.vsets) < numpmid {
		v := make([]vsetRef, len(r.vsets), numpmid)
		copy(v, r.vsets)
		r.vsets = v
	}
	p := hdr
	if k := len(r.vsets); k > 0 {
		last := r.vsets[k-1]
		p = int(last.end)
	}
	for i := len(r.vsets); i < numpmid; i++ {
		if i > n {
			return true
		}
		if p+8 > end {
			r.walked, r.sound = true, false
			return false
		}
		v := vsetRef{
			pmid:   pmapi.PMID(binary.BigEndian.Uint32(raw[p:])),
			numval: int32(binary.BigEndian.Uint32(raw[p+4:])),
		}
		p += 8
		if v.numval > 0 {
			if p+4 > end || int64(v.numval)*8 > int64(end-p-4) {
				r.walked, r.sound = true, false
				return false
			}
			v.valfmt = int32(binary.BigEndian.Uint32(raw[p:]))
			p += 4
			v.off = int32(p)
			if v.valfmt != pmapi.ValFmtInsitu && v.valfmt != pmapi.ValFmtDptr && v.valfmt != pmapi.ValFmtSptr {
				r.walked, r.sound = true, false
				return false
			}
			p += 8 * int(v.numval)
		}
		v.end = int32(p)
		r.vsets = append(r.vsets, v)
	}
	r.walked, r.sound = true, true
	return n < len(r.vsets)
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
	if !r.Decode(ar.Raw(), ar.Version) || !r.walk() {
		// Cannot happen: archive made the same checks.
		r.Mark(ar.Stamp)
	}
	r.Stamp = ar.Stamp
}

// IsMark reports whether the record is a <mark>.
func (r *Record) IsMark() bool { return r.mark }

// inst is the instance of value j of value set vs.
func (r *Record) inst(vs *vsetRef, j int) int32 {
	return int32(binary.BigEndian.Uint32(r.raw[int(vs.off)+8*j:]))
}

// value is value j of value set vs; a block aliases the record.
func (r *Record) value(vs *vsetRef, j int) pmapi.Value {
	p := int(vs.off) + 8*j
	v := pmapi.Value{Inst: int32(binary.BigEndian.Uint32(r.raw[p:]))}
	w := binary.BigEndian.Uint32(r.raw[p+4:])
	if vs.valfmt == pmapi.ValFmtInsitu {
		v.Insitu = int32(w)
		return v
	}
	bp := int(w)*4 - 8
	h := binary.BigEndian.Uint32(r.raw[bp:])
	v.BlockType = pmapi.Type(h >> 24)
	v.Block = r.raw[bp+4 : bp+int(h&0xffffff)]
	return v
}

package interp

import (
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Record is a data record as an Interp reads it: its time and a view of
// its value sets (package archive's, which aliases the record's bytes).
// A Source fills one with Decode (or Mark, or FromArchive) and hands it
// out until its next read. Decode checks the record whole, as libpcp's
// reads do (the value sets' headers and block pointers, not the values);
// the value sets are scanned the first time they are needed, only as far
// as needed, and only those of the metrics being interpolated are noted
// (hits), so that a record the interpolation passes over costs little
// more than that check, and one it looks into little more than a pass
// over its value set headers.
type Record struct {
	Stamp  pmapi.Timestamp
	Handle Handle // where to read the record again (Source.Reread)
	rec    archive.Record
	hits   []hit          // the value sets of wanted metrics scanned so far, in order
	pos    archive.SetPos // where the scan is
	gen    uint64         // the Interp generation (Interp.gen) hits are for; 0: none
	walked bool           // every value set has been scanned
	sound  bool           // and the value sets are well formed
	// checked: the record was checked whole (Decode, or package
	// archive's read), its value blocks among them, so that the
	// interpolation need not check the blocks of the value sets it uses
	checked bool
}

// hit is a value set of a metric being interpolated.
type hit struct {
	m  *metric
	vs archive.VSet
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

// Mark makes r a <mark> record at t.
func (r *Record) Mark(t pmapi.Timestamp) {
	r.rec = archive.Record{}
	r.Stamp, r.hits = t, r.hits[:0]
	r.walked, r.sound, r.Handle, r.gen = true, true, Handle{}, 0
	r.pos, r.checked = archive.SetPos{}, true
}

// Decode makes r a view of raw, one whole data record (both length words
// included) of an archive of the given format version, and reports
// whether the record is sound (the caller has checked the length words):
// its header, every value set and every value block, as archive.Cursor
// checks a record it reads (libpcp decodes every record it reads, and
// refuses one whose value sets or blocks are damaged, whichever metrics
// are asked for). The check reads the value sets' headers and block
// pointers, not the values. The Handle is left as it is.
func (r *Record) Decode(raw []byte, version int) bool {
	if !r.view(raw, version) {
		return false
	}
	if r.rec.Check() != nil {
		r.rec = archive.Record{}
		return false
	}
	r.checked = true
	return true
}

// Redecode is Decode for a record Decode has found sound, read again
// (the same bytes): it reads the header alone, and takes the rest as
// checked.
func (r *Record) Redecode(raw []byte, version int) bool {
	ok := r.view(raw, version)
	r.checked = ok
	return ok
}

// view makes r a view of raw, as Decode does, and reports whether its
// header is sound. The value sets are read when they are first scanned,
// only as far as needed, and checked as they are: their counts and
// formats, and the value blocks of the metrics interpolated.
func (r *Record) view(raw []byte, version int) bool {
	r.hits, r.gen, r.pos = r.hits[:0], 0, archive.SetPos{}
	if r.rec.View(raw, version) != nil {
		r.rec = archive.Record{}
		return false
	}
	r.Stamp = r.rec.Stamp
	r.walked, r.sound, r.checked = r.rec.IsMark(), true, false
	return true
}

// scan goes on scanning the value sets of r for ip (nil: for none) from
// where the last scan stopped, checking each (its counts and format, as
// archive.Cursor checks them when it reads a record), and noting in
// r.hits those of the metrics ip interpolates (ip.lookup). It stops
// after noting one (reporting true) if one is true, else at the end of
// the value sets, or at a malformed one; walked is then set, and sound
// reports which. The scan is the same whether made in one go or in
// pieces, or replayed from a copy (Interp.recall).
func (r *Record) scan(ip *Interp, one bool) bool {
	if ip != nil && r.gen != ip.gen {
		// Not scanned yet for ip's metrics (a fresh Decode), or for
		// an earlier set of them: start.
		r.hits, r.pos, r.gen = r.hits[:0], archive.SetPos{}, ip.gen
		r.walked = r.rec.IsMark()
	}
	for !r.walked {
		if ip == nil {
			_, err := r.rec.NextSet(&r.pos)
			if err != nil {
				r.walked, r.sound = true, err == io.EOF
			}
			continue
		}
		// Move fast over value sets as the last record had them.
		vs, err := r.rec.NextSetIn(&r.pos, &ip.layout)
		if err != nil {
			r.walked, r.sound = true, err == io.EOF
			return false
		}
		m := ip.lookup(r.pos.Index()-1, vs.PMID)
		if m == nil {
			ip.layout.Pass(r.pos)
			continue
		}
		r.hits = append(r.hits, hit{m, vs})
		if one {
			return true
		}
	}
	return false
}

// scanAll scans the rest of the value sets for ip and reports whether
// they are well formed.
func (r *Record) scanAll(ip *Interp) bool {
	r.scan(ip, false)
	return r.sound
}

// blocksOK checks the value blocks of value set vs.
func (r *Record) blocksOK(vs *archive.VSet) bool { return r.rec.CheckVSet(vs) == nil }

// FromArchive makes r a view of ar, a record package archive has read
// (and checked), with no Handle (the Source sets one if it can read the
// record again).
func (r *Record) FromArchive(ar *archive.Record) {
	if ar.IsMark() || !r.view(ar.Raw(), ar.Version) {
		// (A record archive read is sound.)
		r.Mark(ar.Stamp)
		return
	}
	r.Handle, r.checked = Handle{}, true
}

// IsMark reports whether the record is a <mark>.
func (r *Record) IsMark() bool { return r.rec.IsMark() }

// inst is the instance of value j of value set vs.
func (r *Record) inst(vs *archive.VSet, j int) int32 { return r.rec.VSetInst(vs, j) }

// value sets *v to value j of value set vs; a block aliases the record.
func (r *Record) value(vs *archive.VSet, j int, v *pmapi.Value) { r.rec.LoadValue(vs, j, v) }

// scanned is what a full scan of a record found (Record.scan), kept by
// where the record is: records after a requested time that update scans
// are read again, as a run collapse reads back, at the next fetch.
type scanned struct {
	h     Handle
	gen   uint64
	hits  []hit
	pos   archive.SetPos
	sound bool
}

// scanSlots is the number of records whose scans are kept (a power of 2).
const scanSlots = 64

func scanSlot(h Handle) int {
	k := uint64(h.Off) ^ uint64(h.Vol)<<40 ^ uint64(h.Archive)<<52
	return int(k * 0x9e3779b97f4a7c15 >> (64 - 6))
}

// remember keeps the full scan of r, a record that can be read again.
func (ip *Interp) remember(r *Record) {
	if !r.Handle.OK || !r.walked || r.IsMark() || r.gen != ip.gen {
		return
	}
	e := &ip.scans[scanSlot(r.Handle)]
	e.h, e.gen, e.pos, e.sound = r.Handle, r.gen, r.pos, r.sound
	e.hits = append(e.hits[:0], r.hits...)
}

// recall gives r, a record just read, the full scan remember kept of it,
// if any, and reports whether it did.
func (ip *Interp) recall(r *Record) bool {
	if !r.Handle.OK || r.IsMark() || r.gen == ip.gen {
		return false
	}
	e := &ip.scans[scanSlot(r.Handle)]
	if e.gen != ip.gen || e.h != r.Handle {
		return false
	}
	r.hits = append(r.hits[:0], e.hits...)
	r.pos, r.sound, r.walked, r.gen = e.pos, e.sound, true, ip.gen
	return true
}

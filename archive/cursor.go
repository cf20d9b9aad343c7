package archive

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"

	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Cursor reads an archive's data records in order, forwards or backwards,
// across data volumes (missing volumes, and empty ones, are skipped). It sits between two
// records: Next returns the record after it, Prev the record before it.
// Records returned alias the cursor's buffer and stay valid until the next
// call. Memory use does not grow with the archive's length.
type Cursor struct {
	a     *Archive
	vols  []int // existing volumes, ascending
	vi    int   // index in vols of the current volume
	off   int64 // offset within that volume
	rec   Record
	recno int // ordinal of the next record read forwards in its volume, for errors (0 = unknown)
	held  held
}

// held says which record rec holds, decoded and indexed: the one at
// offset off of volume vol, len bytes long (ok false: none). Reading it
// again (a replay fetching from the same origin once per metric, as
// pminfo -f does) reuses the decoding, as libpcp's cache of records by
// position does: a record at an offset of a volume does not change.
type held struct {
	vol int
	off int64
	len int
	ok  bool
}

// decode makes c.rec the record raw, at offset off of volume v, unless
// it holds that record already.
func (c *Cursor) decode(v *volume, raw []byte, off int64, recno int) error {
	if h := c.held; h.ok && h.vol == v.num && h.off == off && h.len == len(raw) {
		c.rec.raw, c.rec.recno = raw, recno
		return nil
	}
	c.held.ok = false
	if err := c.rec.decode(v.path, raw, c.a.Version(), v.num, off, recno); err != nil {
		return err
	}
	c.held = held{vol: v.num, off: off, len: len(raw), ok: true}
	return nil
}

// NewCursor returns a cursor positioned at the start of the archive.
func (a *Archive) NewCursor() *Cursor {
	c := &Cursor{a: a, vols: a.files.volumes()}
	c.SeekStart()
	return c
}

// SeekStart positions the cursor before the first record.
func (c *Cursor) SeekStart() {
	c.vi = 0
	c.off = -1 // resolved to the label end when the volume is opened
	c.recno = 2
}

// SeekEnd positions the cursor after the last complete record of the
// last volume that has one (a damaged tail is left behind it; it need not
// be the end libpcp finds, End).
func (c *Cursor) SeekEnd() {
	c.vi = len(c.vols) - 1
	c.off = -2 // resolved to the physical end of the volume
	c.recno = 0
	for i := len(c.vols) - 1; i >= 0; i-- {
		v, err := c.a.volume(c.vols[i])
		if err != nil || v.refreshSize() != nil {
			continue
		}
		if e, ok := c.a.tailOf(v); ok {
			c.SetPosition(e.vol, e.off)
			return
		}
	}
}

// Position reports the volume and byte offset the cursor is at.
func (c *Cursor) Position() (vol int, off int64) { return c.vols[c.vi], c.off }

// SetPosition puts the cursor at a byte offset of a volume, which must be
// a record boundary (the end of a label, the end of a record).
func (c *Cursor) SetPosition(vol int, off int64) error {
	for i, v := range c.vols {
		if v == vol {
			c.vi, c.off, c.recno = i, off, 0
			return nil
		}
	}
	return io.ErrUnexpectedEOF
}

// SkipFrames moves the cursor forwards over n whole records of its
// volume, read before, to off (the end of the last of them), as n calls
// of NextFrame would. It fails, leaving the cursor as it was, unless
// the cursor is in volume vol at or before off.
func (c *Cursor) SkipFrames(vol int, off int64, n int) error {
	if c.vols[c.vi] != vol || c.off < 0 || off < c.off || n < 0 {
		return io.ErrUnexpectedEOF
	}
	c.off = off
	if c.recno > 0 {
		c.recno += n
	}
	return nil
}

// resolve turns the symbolic offsets into real ones for the current volume.
func (c *Cursor) resolve() (*volume, error) {
	v, err := c.a.volume(c.vols[c.vi])
	if err != nil {
		return nil, err
	}
	switch c.off {
	case -1:
		c.off = v.lowest
	case -2:
		if err := v.refreshSize(); err != nil {
			return nil, err
		}
		c.off = v.size
	}
	return v, nil
}

// Next returns the next record, or io.EOF after the last one. A damaged
// record gives an error wrapping pmapi.ErrLogRec; every good record before
// it has been returned.
func (c *Cursor) Next() (*Record, error) {
	for {
		v, err := c.resolve()
		if errors.Is(err, pmapi.ErrNoData) {
			// An empty later volume is passed over, as libpcp
			// passes over a volume it cannot change to.
			if c.vi+1 >= len(c.vols) {
				return nil, io.EOF
			}
			c.vi++
			c.off, c.recno = -1, 2
			continue
		}
		if err != nil {
			return nil, err
		}
		if c.off >= v.size {
			if err := v.refreshSize(); err != nil {
				return nil, err
			}
		}
		raw, err := v.next(&c.a.win, c.off, c.recno)
		if err == io.EOF {
			if c.vi+1 >= len(c.vols) {
				return nil, io.EOF
			}
			v.data.Release()
			c.vi++
			c.off, c.recno = -1, 2
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := c.decode(v, raw, c.off, c.recno); err != nil {
			return nil, err
		}
		c.off += int64(len(raw))
		if c.recno > 0 {
			c.recno++
		}
		return &c.rec, nil
	}
}

// ErrPastEnd is what Cursor.Prev returns when the cursor lies past the
// end of the archive's last volume (SetPosition at an index entry that
// points beyond a truncated or damaged volume): libpcp's backward read
// there cannot read the trailer word whole, takes the short read for the
// end of the volume as a forward read does, and so finds the end of the
// archive (PM_ERR_EOL when no archive follows), not a damaged record.
// The cursor does not move.
var ErrPastEnd = errors.New("read position past the end of the last volume")

// errPastEnd is volume.prev's report of a position past the end of
// its volume.
var errPastEnd = errors.New("read position past the end of the volume")

// Prev returns the record before the cursor, or io.EOF before the first.
// Past the end of a volume it reads as libpcp does (pastEnd); past the
// end of the last volume it returns ErrPastEnd.
func (c *Cursor) Prev() (*Record, error) {
	for {
		v, err := c.resolve()
		if errors.Is(err, pmapi.ErrNoData) {
			if c.vi == 0 {
				return nil, io.EOF
			}
			c.vi--
			c.off = -2
			continue
		}
		if err != nil {
			return nil, err
		}
		raw, err := v.prev(&c.a.win, c.off)
		if err == io.EOF {
			if c.vi == 0 {
				return nil, io.EOF
			}
			v.data.Release()
			c.vi--
			c.off = -2
			continue
		}
		if err == errPastEnd {
			return c.pastEnd()
		}
		if err != nil {
			return nil, err
		}
		start := c.off - int64(len(raw))
		if err := c.decode(v, raw, start, 0); err != nil {
			return nil, err
		}
		c.off = start
		c.recno = 0
		return &c.rec, nil
	}
}

// pastEnd is Prev from past the end of a volume. libpcp's backward read
// there cannot read the trailer word whole, takes the short read for the
// end of the volume and goes on, as a forward read does, to the next
// volume it can open, with the read still backwards: it reads the header
// word at that volume's label end as the record's length and seeks back
// over the record from there. When the record is longer than the label,
// the seek would go before the start of the file and fails, so the read
// gives the volume's first record whole, and leaves the position at the
// label end (from which the next read backwards goes to the end of the
// volume before). Otherwise it reads the label's bytes as a record,
// which pcpkit takes for damage, as it takes a length longer than the
// offset the read started from (libpcp's check of a backward read). An
// empty volume is passed over; with no volume after, the read finds the
// end of the archive (ErrPastEnd).
func (c *Cursor) pastEnd() (*Record, error) {
	from := c.off
	for i := c.vi + 1; i < len(c.vols); i++ {
		v, err := c.a.volume(c.vols[i])
		if err != nil {
			continue
		}
		if v.lowest+4 > v.size {
			continue
		}
		h, err := c.a.win.bytes(v, v.lowest, 4, true)
		if err != nil {
			return nil, v.readErr(v.lowest, 0, err, "cannot read record header")
		}
		n := int64(binary.BigEndian.Uint32(h))
		if n-8 <= v.lowest || n-8 > from {
			return nil, formatErr(v.path, v.lowest, 0, pmapi.ErrLogRec,
				"reading backwards from offset %d past the end of volume %d: record length %d at the label end of volume %d", from, c.vols[c.vi], n, v.num)
		}
		raw, err := v.next(&c.a.win, v.lowest, 2)
		if err == io.EOF {
			err = formatErr(v.path, v.lowest, 2, pmapi.ErrLogRec, "unexpected EOF in record header")
		}
		if err != nil {
			return nil, err
		}
		if err := c.decode(v, raw, v.lowest, 0); err != nil {
			return nil, err
		}
		c.vi, c.off, c.recno = i, v.lowest, 0
		return &c.rec, nil
	}
	return nil, ErrPastEnd
}

// NextFrame returns the bytes of the record after the cursor (both
// length words included) and moves over it, when the record lies whole
// in the current volume and its length words agree; otherwise (at the
// end of a volume, at damage) it reports false and moves nothing: Next
// then moves on, or says what is wrong. The record is not decoded. The
// bytes stay valid until the volume's reads replace them: at the
// earliest, the second read after this one that needs bytes its two
// windows do not hold.
func (c *Cursor) NextFrame() (raw []byte, vol int, off int64, ok bool) {
	v, err := c.resolve()
	if err != nil || c.off >= v.size {
		return nil, 0, 0, false
	}
	raw, err = v.next(&c.a.win, c.off, c.recno)
	if err != nil {
		return nil, 0, 0, false
	}
	off = c.off
	c.off += int64(len(raw))
	if c.recno > 0 {
		c.recno++
	}
	return raw, v.num, off, true
}

// PrevFrame is NextFrame backwards: the record before the cursor.
func (c *Cursor) PrevFrame() (raw []byte, vol int, off int64, ok bool) {
	v, err := c.resolve()
	if err != nil || c.off > v.size {
		return nil, 0, 0, false
	}
	raw, err = v.prev(&c.a.win, c.off)
	if err != nil {
		return nil, 0, 0, false
	}
	c.off -= int64(len(raw))
	c.recno = 0
	return raw, v.num, c.off, true
}

// AfterBadNext moves the cursor where libpcp's read position is left
// after Next failed with a damaged record (pmapi.ErrLogRec), so that the
// next read, in either direction, goes on from there as libpcp's does:
// after the record's header word when its length is less than 8, where
// it was when the record runs past the end of the volume, and after the
// record otherwise.
func (c *Cursor) AfterBadNext() { c.afterBad((*volume).afterBadNext) }

// AfterBadPrev moves the cursor where libpcp's read position is left
// after Prev failed with a damaged record (pmapi.ErrLogRec): libpcp takes
// the trailer word before the position as the record's length, reads
// the header word that far back and, when the two differ, is left just
// after that header word, inside (or before) the damaged record, so that
// the next read backwards goes on from there. When the length reaches
// before the start of the volume the cursor stays where it is.
func (c *Cursor) AfterBadPrev() { c.afterBad((*volume).afterBadPrev) }

// afterBad moves the cursor to where move puts it in its volume.
func (c *Cursor) afterBad(move func(v *volume, ws *windows, off int64) int64) {
	v, err := c.resolve()
	if err != nil {
		return
	}
	c.off = move(v, &c.a.win, c.off)
	c.recno = 0
}

// SeekTime positions the cursor so that Next returns the first record at
// or after t, and Prev the last record before t. As libpcp does, it starts
// from whichever temporal index entry (if any) is nearer to t, before or
// after it, and reads from there towards t, so damage far from t is not
// read.
func (c *Cursor) SeekTime(t pmapi.Timestamp) error {
	c.SeekStart()
	idx := c.a.index
	j := sort.Search(len(idx), func(i int) bool { return t.Before(idx[i].Stamp) })
	best, bestDist := -1, 0.0
	for _, k := range []int{j - 1, j} {
		if k < 0 || k >= len(idx) || !c.usable(idx[k]) {
			continue
		}
		dist := math.Abs(pcptime.Sub(idx[k].Stamp, t))
		if best < 0 || dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best >= 0 {
		c.SetPosition(int(idx[best].Vol), idx[best].DataOff)
	}
	// Back up over records at or after t. Damage met on the way is not
	// an error here: the cursor stops in front of it, and the read that
	// crosses it reports it.
	for {
		vol, off := c.Position()
		r, err := c.Prev()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.SetPosition(vol, off)
		}
		if r.Stamp.Before(t) {
			if _, err := c.Next(); err != nil {
				return err
			}
			break
		}
	}
	// Then walk forwards to the first record at or after t.
	for {
		vol, off := c.Position()
		r, err := c.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil || !r.Stamp.Before(t) {
			return c.SetPosition(vol, off)
		}
	}
}

// usable reports whether an index entry points inside an existing volume.
func (c *Cursor) usable(e IndexEntry) bool {
	v, err := c.a.volume(int(e.Vol))
	if err != nil {
		return false
	}
	if e.DataOff < v.lowest {
		return false
	}
	// A volume only grows: its size is read again (an fstat) only when
	// the entry lies beyond the size known, not on every positioning
	// (pminfo -f positions once per metric).
	if e.DataOff > v.size {
		if err := v.refreshSize(); err != nil {
			return false
		}
	}
	return e.DataOff <= v.size
}

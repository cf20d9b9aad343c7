package replay

import (
	"errors"
	"io"
	"os"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The virtual <mark> state of a reader at the boundary between two
// archives (libpcp's ac_mark_done): the mark was given reading forwards
// (at the end of the earlier archive) or backwards (at the start of the
// later one), and the archive has not been changed yet.
const (
	markNone = iota
	markForw
	markBack
)

// reader reads the records of a Set in either direction, one archive
// after another, keeping the state libpcp keeps for an archive context:
// the current archive and its read position, the virtual <mark> state,
// and a saved position in the current archive (ac_vol and ac_offset)
// that reads return to.
//
// Between two archives there is a virtual <mark>: reading forwards off
// the end of an archive gives a <mark> stamped 1 ms after its end, and
// the next read changes to the next archive (saving its start as the
// position); reading backwards off the start gives a <mark> 1 ms before
// the start, and the next read changes to the archive before (saving
// its end). For interpolation (Read), a change of direction right after
// the <mark> gives it again, with the same stamp. A set of one archive is
// read as that archive.
type reader struct {
	set   *archive.Set
	curs  []*archive.Cursor // one per archive, made on first use
	ai    int               // current archive
	mark  int               // markNone, markForw or markBack
	vm    archive.Record    // the virtual mark last given
	vmAt  pmapi.Timestamp
	acVol int   // saved position in the current archive
	acOff int64 //
	// endKnown: the current archive's end has been read since it became
	// current (libpcp caches it; reading it clears the mark state).
	endKnown bool
	reads    int // records read from the archives (for tests)
	ends     []pmapi.Timestamp
	endOK    []bool
	endEr    []error
	rec      interp.Record // what Read returns
	sound    soundRun      // records fastRead found sound
}

// soundRun is a run of records, one right after the other in volume vol
// of archive ai (the bytes [lo, hi)), that fastRead has checked whole
// and found sound. The forward searches of interpolation read the same
// records again fetch after fetch; one inside the run is read again
// without checking it again.
type soundRun struct {
	ok      bool
	ai, vol int
	lo, hi  int64
}

// holds reports whether the record of the bytes [off, end) of volume
// vol of archive ai is in the run.
func (s *soundRun) holds(ai, vol int, off, end int64) bool {
	return s.ok && s.ai == ai && s.vol == vol && off >= s.lo && end <= s.hi
}

// add adds a record found sound: to the run when it is right before or
// after it, else as the start of a new run.
func (s *soundRun) add(ai, vol int, off, end int64) {
	switch {
	case s.ok && s.ai == ai && s.vol == vol && off == s.hi:
		s.hi = end
	case s.ok && s.ai == ai && s.vol == vol && end == s.lo:
		s.lo = off
	default:
		*s = soundRun{ok: true, ai: ai, vol: vol, lo: off, hi: end}
	}
}

func newReader(s *archive.Set) *reader {
	n := s.Len()
	r := &reader{set: s, curs: make([]*archive.Cursor, n),
		ends: make([]pmapi.Timestamp, n), endOK: make([]bool, n), endEr: make([]error, n)}
	r.SaveOffset()
	return r
}

// cursor returns archive i's cursor.
func (r *reader) cursor(i int) *archive.Cursor {
	if r.curs[i] == nil {
		r.curs[i] = r.set.Archive(i).NewCursor()
	}
	return r.curs[i]
}

// end is archive i's end (pmGetArchiveEnd), cached.
func (r *reader) end(i int) (pmapi.Timestamp, error) {
	if !r.endOK[i] {
		r.ends[i], r.endEr[i] = r.set.Archive(i).End()
		r.endOK[i] = true
	}
	return r.ends[i], r.endEr[i]
}

func (r *reader) virtualMark(t pmapi.Timestamp) *archive.Record {
	r.vm = archive.Record{Vol: -1, Offset: -1, Stamp: t, Version: r.set.Archive(r.ai).Version()}
	r.vmAt = t
	return &r.vm
}

// markAfter and markBefore are the stamps of the virtual marks after the
// end of the current archive and before its start. As in libpcp, adding
// the millisecond leaves exactly 1e9 nanoseconds unnormalised.
func (r *reader) markAfter() (pmapi.Timestamp, error) {
	end, err := r.curEnd()
	if err != nil {
		return end, err
	}
	end.Nsec += 1e6
	if end.Nsec > 1e9 {
		end.Nsec -= 1e9
		end.Sec++
	}
	return end, nil
}

func (r *reader) markBefore() pmapi.Timestamp {
	t := r.set.Archive(r.ai).Label().Start
	if t.Nsec >= 1e6 {
		t.Nsec -= 1e6
	} else {
		t.Nsec += 1e9 - 1e6
		t.Sec--
	}
	return t
}

// curEnd is the end of the current archive as libpcp's
// __pmGetArchiveEnd gives it; the first time after the archive became
// current it is read from the archive, and that read clears the virtual
// mark state.
func (r *reader) curEnd() (pmapi.Timestamp, error) {
	if !r.endKnown {
		r.endKnown = true
		r.mark = markNone
	}
	return r.end(r.ai)
}

// changeArchive makes archive i current, at its start (forw) or its
// end, and saves that position.
func (r *reader) changeArchive(i int, forw bool) {
	if i != r.ai {
		r.set.Archive(r.ai).Release()
	}
	r.ai = i
	r.endKnown = false
	c := r.cursor(i)
	if forw {
		c.SeekStart()
	} else {
		a := r.set.Archive(i)
		vols := a.Volumes()
		vol := vols[len(vols)-1]
		size, _ := a.VolumeSize(vol)
		c.SetPosition(vol, size)
	}
	r.SaveOffset()
}

// Read returns the next record forwards or backwards, <mark>s included,
// as interpolation reads them; io.EOF past either end of the set.
//
// A whole record (its length words agree) inside a volume is taken as
// it is from the archive's Cursor (NextFrame, PrevFrame) and decoded
// lazily (interp.Record); anything else (the end of a volume, damage,
// the virtual <mark>s) goes through the Cursor's Next and Prev, which
// give the errors. Both leave the Cursor at the same position.
func (r *reader) Read(forw bool) (*interp.Record, error) {
	if r.mark == markBack && forw || r.mark == markForw && !forw {
		// The direction changed right after the mark: it comes again.
		r.mark = markNone
		r.rec.Mark(r.virtualMark(r.vmAt).Stamp)
		return &r.rec, nil
	}
	if r.fastRead(forw) {
		r.mark = markNone
		r.reads++
		return &r.rec, nil
	}
	ar, err := r.readRaw(forw)
	if err != nil {
		return nil, err
	}
	r.rec.FromArchive(ar)
	if !ar.IsMark() && ar.Vol >= 0 {
		// A record of the archive's (not a virtual mark): it aliases
		// the windows the fast reads share, so it must be read again
		// by its place, as they are, once other reads have moved on.
		r.rec.Handle = interp.Handle{OK: true, Archive: r.ai, Vol: ar.Vol, Off: ar.Offset, Len: int64(ar.Len())}
	}
	return &r.rec, nil
}

// Peek reads the next record forwards or backwards as readRaw does
// and returns its time (interp.Source).
func (r *reader) Peek(forw bool) (pmapi.Timestamp, error) {
	ar, err := r.readRaw(forw)
	if err != nil {
		return pmapi.Timestamp{}, err
	}
	return ar.Stamp, nil
}

// fastRead reads the record after (forw) or before the current archive's
// cursor into r.rec without decoding it, and moves the cursor over it.
// It reports false, having changed nothing, when the record is not
// whole inside its volume or is damaged (interp.Record.Decode checks it
// whole): the Cursor's read then reports the damage.
func (r *reader) fastRead(forw bool) bool {
	c := r.cursor(r.ai)
	pvol, poff := c.Position()
	var raw []byte
	var vol int
	var off int64
	var ok bool
	if forw {
		raw, vol, off, ok = c.NextFrame()
	} else {
		raw, vol, off, ok = c.PrevFrame()
	}
	if !ok {
		return false
	}
	end := off + int64(len(raw))
	version := r.set.Archive(r.ai).Version()
	if r.sound.holds(r.ai, vol, off, end) {
		ok = r.rec.Redecode(raw, version)
	} else if ok = r.rec.Decode(raw, version); ok {
		r.sound.add(r.ai, vol, off, end)
	}
	if !ok {
		c.SetPosition(pvol, poff)
		return false
	}
	r.rec.Handle = interp.Handle{OK: true, Archive: r.ai, Vol: vol, Off: off, Len: int64(len(raw))}
	return true
}

// Reread reads the record at h again into rec; the read position does
// not move (interp.Rereader).
func (r *reader) Reread(h interp.Handle, rec *interp.Record) bool {
	if !h.OK {
		return false
	}
	a := r.set.Archive(h.Archive)
	raw, ok := a.Frame(h.Vol, h.Off, h.Len)
	if !ok || !rec.Redecode(raw, a.Version()) {
		return false
	}
	rec.Handle = h
	return true
}

// SkipTo moves the read position to just after the record at h, n
// records on in the current volume of the current archive
// (interp.Skipper).
func (r *reader) SkipTo(h interp.Handle, n int) bool {
	if !h.OK || h.Archive != r.ai || r.mark != markNone {
		return false
	}
	return r.cursor(r.ai).SkipFrames(h.Vol, h.Off+h.Len, n) == nil
}

// release drops the memory the archives hold for reading.
func (r *reader) release() {
	for i := 0; i < r.set.Len(); i++ {
		r.set.Archive(i).Release()
	}
}

// readRaw is Read without giving a virtual mark again when the direction
// changes (pmFetch reads this way).
func (r *reader) readRaw(forw bool) (*archive.Record, error) {
	if forw {
		return r.next()
	}
	return r.prev()
}

func (r *reader) next() (*archive.Record, error) {
	for {
		rec, err := r.cursor(r.ai).Next()
		if errors.Is(err, io.EOF) {
			if r.ai+1 >= r.set.Len() {
				return nil, io.EOF
			}
			if r.mark != markForw {
				t, err := r.markAfter()
				if err != nil {
					return nil, err
				}
				r.mark = markForw
				return r.virtualMark(t), nil
			}
			prevEnd, eerr := r.end(r.ai)
			r.changeArchive(r.ai+1, true)
			if eerr == nil && r.set.Archive(r.ai).Label().Start.Before(prevEnd) {
				return nil, pmapi.ErrLogOverlap
			}
			continue
		}
		if err != nil {
			if errors.Is(err, pmapi.ErrLogRec) {
				r.cursor(r.ai).AfterBadNext()
			}
			return nil, err
		}
		r.mark = markNone
		r.reads++
		return rec, nil
	}
}

func (r *reader) prev() (*archive.Record, error) {
	for {
		rec, err := r.cursor(r.ai).Prev()
		if errors.Is(err, io.EOF) {
			if r.ai == 0 {
				return nil, io.EOF
			}
			if r.mark != markBack {
				r.mark = markBack
				return r.virtualMark(r.markBefore()), nil
			}
			start := r.set.Archive(r.ai).Label().Start
			r.changeArchive(r.ai-1, false)
			end, eerr := r.curEnd()
			if eerr != nil {
				return nil, eerr
			}
			if start.Before(end) {
				return nil, pmapi.ErrLogOverlap
			}
			continue
		}
		if errors.Is(err, archive.ErrPastEnd) {
			// Past the end of the last volume (an index entry beyond
			// it), libpcp's backward read finds the end of the
			// archive as a forward read would, and then the archive
			// after it; with none, the end of the data.
			if r.ai+1 >= r.set.Len() {
				return nil, io.EOF
			}
			// With one, it gives a <mark> and reads the next
			// archive's first record as if backwards: not followed.
			vol, off := r.cursor(r.ai).Position()
			a := r.set.Archive(r.ai)
			return nil, &archive.FormatError{File: a.VolumePath(vol), Offset: off, Code: pmapi.ErrLogRec,
				Detail: "reading backwards from past the end of an archive that is not the last"}
		}
		if err != nil {
			if errors.Is(err, pmapi.ErrLogRec) {
				r.cursor(r.ai).AfterBadPrev()
			}
			return nil, err
		}
		r.mark = markNone
		r.reads++
		return rec, nil
	}
}

// SaveOffset saves the read position in the current archive (libpcp's
// ac_offset = ftell()).
func (r *reader) SaveOffset() {
	r.acVol, r.acOff = r.cursor(r.ai).Position()
}

// RestoreOffset returns the current archive to the saved position; the
// virtual mark state is left as it is, as libpcp leaves it.
func (r *reader) RestoreOffset() error {
	return r.cursor(r.ai).SetPosition(r.acVol, r.acOff)
}

// chooseArchive picks the archive libpcp's __pmLogSetTime reads from for
// time t: the first archive starting at or after t, or the one before
// it when reading forwards; the last one if none starts that late.
func (r *reader) chooseArchive(t pmapi.Timestamp, forw bool) int {
	n := r.set.Len()
	i := 0
	for ; i < n; i++ {
		if !r.set.Archive(i).Label().Start.Before(t) {
			break
		}
	}
	if i == n {
		return n - 1
	}
	if forw && i > 0 {
		i--
	}
	return i
}

// SetTime is the gross positioning libpcp does for interpolation
// (__pmLogSetTime in PM_MODE_INTERP): in the archive chooseArchive picks,
// at the temporal index entry at t, else the nearer of the entries
// either side of t (the one after only if it is no farther and lies
// within the last volume), else the first or the last entry. Entries in
// missing volumes are passed over. When the entry before t is taken for
// reading forwards, the reader backs up over one record from it (libpcp
// takes index entries to mark the ends of records). It reports exact
// false when the entry lies on the wrong side of t for reading in the
// direction asked (after t going forwards; at or before it going
// backwards, unless t precedes every entry). Without an index the reader goes to the start of the
// archive (forwards) or its end, and SetTime reports indexed false.
func (r *reader) SetTime(t pmapi.Timestamp, forw bool) (exact, indexed bool) {
	return r.place(t, forw)
}

// setTimeFetch is __pmLogSetTime for pmFetch in PM_MODE_FORW or
// PM_MODE_BACK: the positioning of SetTime. It reports whether reads may
// go on from there; if not, the caller reads against the direction until
// it passes t first. As in libpcp 6.0.3, an index entry at t is read from
// as it is, so that the archive's last entry (which points at its end)
// hides the last record from a forward read starting at its time.
func (r *reader) setTimeFetch(t pmapi.Timestamp, forw bool) (serial bool) {
	serial, indexed := r.place(t, forw)
	return serial && indexed
}

// place does the positioning of SetTime.
func (r *reader) place(t pmapi.Timestamp, forw bool) (exact, indexed bool) {
	i := r.chooseArchive(t, forw)
	curVol := -1
	if i == r.ai {
		// The virtual mark state stays as it is: a read in the other
		// direction right after one gives it again.
		curVol, _ = r.cursor(i).Position()
	} else {
		r.changeArchive(i, true)
		r.mark = markNone
	}
	a := r.set.Archive(i)
	idx := a.Index()
	vols := a.Volumes()
	if len(idx) == 0 || len(vols) == 0 {
		if forw {
			r.cursor(i).SeekStart()
		} else {
			vol := vols[len(vols)-1]
			size, _ := a.VolumeSize(vol)
			r.cursor(i).SetPosition(vol, size)
		}
		return false, false
	}
	minVol, maxVol := vols[0], vols[len(vols)-1]
	if curVol < 0 {
		curVol = minVol
	}
	// The last volume's size, to tell entries past its end: libpcp
	// takes the size of the volume it has open, or else the size of
	// the file on disk, which for a compressed volume is the
	// compressed size.
	// The open volume's size is read again (an fstat) only for an entry
	// beyond the size known, not on every positioning (pminfo -f
	// positions once per metric).
	var maxSize int64
	fresh := true // maxSize is the size now
	if curVol == maxVol {
		maxSize, _ = a.KnownVolumeSize(maxVol)
		fresh = false
	} else if fi, err := os.Stat(a.VolumePath(maxVol)); err == nil {
		maxSize = fi.Size()
	}
	j, toobig, match := -1, false, false
	k := 0
	for ; k < len(idx); k++ {
		e := idx[k]
		if int(e.Vol) < minVol {
			continue
		}
		if int(e.Vol) == maxVol && e.DataOff > maxSize && !fresh {
			maxSize, _ = a.VolumeSize(maxVol)
			fresh = true
		}
		if int(e.Vol) == maxVol && e.DataOff > maxSize {
			j, toobig = k, true
			break
		}
		if d := pcptime.Sub(e.Stamp, t); d > 0 {
			j = k
			break
		} else if d == 0 {
			j, match = k, true
			break
		}
	}
	if k == len(idx) {
		j = len(idx)
	}
	c := r.cursor(i)
	at := func(k int, forw bool) {
		if k = volSkip(a, k, forw); k >= 0 {
			if c.SetPosition(int(idx[k].Vol), idx[k].DataOff) == nil {
				return
			}
		}
		c.SeekStart()
	}
	switch {
	case match:
		at(j, true)
		return forw, true
	case j < 1:
		at(0, true)
		return true, true
	case j == len(idx):
		at(len(idx)-1, false)
		return forw, true
	}
	hi := pcptime.Sub(idx[j].Stamp, t)
	lo := pcptime.Sub(t, idx[j-1].Stamp)
	if hi <= lo && !toobig {
		at(j, true)
		return !forw, true
	}
	at(j-1, true)
	if forw {
		// libpcp takes an index entry to mark the end of a record,
		// and backs up over one (into the volume before, if need be)
		// with an ordinary read: at the start of an archive after the
		// first, that read gives the virtual <mark> (and the next one
		// backwards goes to the archive before). A record whose
		// length words are damaged leaves the position where it was;
		// one that is framed but cannot be decoded leaves it at the
		// record's start (libpcp's backward read seeks there before it
		// decodes), so that reading forwards meets the damage.
		vol, off := c.Position()
		if _, err := r.prev(); err != nil {
			c.SetPosition(vol, off)
			if errors.Is(err, pmapi.ErrLogRec) {
				if _, _, _, ok := c.PrevFrame(); !ok {
					c.SetPosition(vol, off)
				}
			}
		}
	}
	return forw, true
}

// volSkip returns the first index entry from k on (forwards) or back
// whose volume exists, or -1.
func volSkip(a *archive.Archive, k int, forw bool) int {
	idx := a.Index()
	vols := a.Volumes()
	for k >= 0 && k < len(idx) {
		// libpcp's VolSkip gives up at a volume number outside the
		// archive's range (a damaged entry), skipping only missing
		// volumes within it.
		if v := int(idx[k].Vol); len(vols) == 0 || v < vols[0] || v > vols[len(vols)-1] {
			return -1
		}
		if a.VolumePath(int(idx[k].Vol)) != "" {
			return k
		}
		v := idx[k].Vol
		for k >= 0 && k < len(idx) && idx[k].Vol == v {
			if forw {
				k++
			} else {
				k--
			}
		}
	}
	return -1
}

// Meta, Start and End complete interp.Source.
func (r *reader) Meta() *archive.Meta    { return r.set.Meta() }
func (r *reader) Start() pmapi.Timestamp { return r.set.Label().Start }
func (r *reader) End() (pmapi.Timestamp, bool, error) {
	e, err := r.curEnd()
	return e, r.ai == r.set.Len()-1, err
}

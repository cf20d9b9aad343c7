package interp

import "os"

// Skipper is a Source that can pass over records it has given before.
// The searches for upper bounds read forwards until every instance
// searched for has a value (or a <mark>, or the end): in an archive where
// an instance stops reporting, or a metric is logged rarely, each search
// reads far ahead, and the next search, a fetch or two later, reads the
// same records again. An Interp notes the runs of records its forward
// searches read (skip blocks) with the instances that have values in
// them, and a later search passes over a run (SkipTo) when no record of
// it can change any instance's bounds: the bounds are then those reading
// it would have left.
type Skipper interface {
	// SkipTo moves the read position forwards to just after the record
	// at h, n records on in the same volume (records read before, the
	// first of them right after the last record read), so that the next
	// forward Read gives the record after h. It reports false, having
	// changed nothing, if it cannot.
	SkipTo(h Handle, n int) bool
}

// Skip blocks.
const (
	// blockRecords is the most records a skip block holds: a search
	// that must read one record of a block reads the whole block.
	blockRecords = 32
	// maxSkipInsts and maxSkipBlocks bound the memory of the skip
	// blocks: the instance entries of all of them (8 bytes each), and
	// the blocks (about 100 bytes each). Past either they are dropped
	// and noted again from scratch, so that memory does not grow with
	// the archive's length.
	maxSkipInsts  = 1 << 20
	maxSkipBlocks = 1 << 16
)

// noSkip turns skipping off (PCPKIT_INTERP_NOSKIP=1), to compare.
var noSkip = os.Getenv("PCPKIT_INTERP_NOSKIP") != ""

// SetSkip turns the passing over of records forward searches read before
// on (the default, with a Source that is a Skipper) or off: the results
// are the same either way; off, every search reads every record it needs
// to, as libpcp does.
func (ip *Interp) SetSkip(on bool) { ip.skipOff = !on }

// skipPos is where a record starts: its archive, volume and offset.
type skipPos struct {
	archive, vol int
	off          int64
}

// posOf is where the record at h starts; afterOf is where the record after
// it starts, in the same volume.
func posOf(h Handle) skipPos   { return skipPos{h.Archive, h.Vol, h.Off} }
func afterOf(h Handle) skipPos { return skipPos{h.Archive, h.Vol, h.Off + h.Len} }

// skipBlock is a run of consecutive records of one volume, none a <mark>,
// that a forward search took in (update) one after the other.
type skipBlock struct {
	last       Handle  // its last record
	n          int     // its records
	tMin, tMax float64 // the earliest and the latest of their times
	insts      []*inst // the instances with a value in one of them
}

// skipIndex holds the skip blocks by where their first record starts.
// They are for one set of metrics (Interp.gen): instances of metrics
// added later are not in them, so they are dropped when it changes.
//
// The blocks a search notes follow one another: it notes a block right
// after the end of one it read through, or once it has read blockRecords
// records without coming to the start of one (it began in a stretch no
// search has noted, or in the middle of a block, whose end is then
// within that many records).
type skipIndex struct {
	gen     uint64
	blocks  map[skipPos]*skipBlock
	entries int        // instance entries in blocks
	cur     *skipBlock // the block being noted (nil: none)
	curAt   skipPos    // where cur's first record starts
	through *skipBlock // the block being read through, not noted again
	unknown int        // records read since the search began, none noted or in a block
	stamp   uint64     // inst.noted of cur's instances
}

// skipper returns the source as a Skipper if this search may pass over
// skip blocks, with the index ready for ip's metrics; nil otherwise.
func (ip *Interp) skipper() Skipper {
	sk, ok := ip.src.(Skipper)
	if !ok || noSkip || ip.skipOff || !ip.forw() {
		return nil
	}
	x := &ip.skips
	if x.blocks == nil || x.gen != ip.gen || x.entries > maxSkipInsts || len(x.blocks) > maxSkipBlocks {
		x.blocks, x.gen, x.entries = map[skipPos]*skipBlock{}, ip.gen, 0
	}
	x.cur, x.through, x.unknown = nil, nil, 0
	return sk
}

// skip passes over the blocks that start right after the record at h
// while none of their records can change a bound of this search (at
// treq, of the instances in unbound), and returns the handle of the last
// record passed over (h if none).
func (ip *Interp) skip(sk Skipper, h Handle, treq float64, unbound []*inst) Handle {
	for h.OK {
		b := ip.skips.blocks[afterOf(h)]
		if b == nil || !b.passable(treq, unbound) || !sk.SkipTo(b.last, b.n) {
			return h
		}
		ip.lastT = max(ip.lastT, b.tMax)
		h = b.last
	}
	return h
}

// passable reports whether taking in the records of b (update, reading
// forwards for a search at treq) would change no bound, nor the saved
// position: each is later than treq, so no prior changes and the search
// saves no position at one; each instance with a value in one has a next
// no earlier than treq and earlier than all of them, which none
// replaces; no search (of unbound) ends in b by its tLast.
func (b *skipBlock) passable(treq float64, unbound []*inst) bool {
	if b.tMin <= treq {
		return false
	}
	for _, ic := range b.insts {
		if ic.tNext < treq || ic.tNext >= b.tMin {
			return false
		}
	}
	for _, ic := range unbound {
		if ic.search && ic.tLast >= 0 && ic.tLast <= b.tMax {
			return false
		}
	}
	return true
}

// beginNote is called before a forward search takes in r, at t: it
// starts or goes on noting a block with r, or stops noting (a <mark>, a
// record that cannot be read again, one that does not follow the last,
// or one of a block noted already). It reports whether r is noted: the
// instances update finds values of go into the block.
func (ip *Interp) beginNote(r *Record, t float64) bool {
	x := &ip.skips
	h := r.Handle
	if r.IsMark() || !h.OK {
		// no block holds it: the record after it starts one, or
		// none holds that either
		x.cur, x.through, x.unknown = nil, nil, blockRecords
		return false
	}
	at := posOf(h)
	if b := x.blocks[at]; b != nil {
		x.cur, x.through = nil, b
	}
	if x.through != nil {
		if x.through.last == h {
			// the record after it starts the next block, or none
			x.through, x.unknown = nil, blockRecords
		}
		return false
	}
	if x.cur != nil && (afterOf(x.cur.last) != at || x.cur.n >= blockRecords) {
		x.cur = nil
	}
	if x.cur == nil {
		if x.unknown < blockRecords {
			// where a block may be under way: wait for its end
			x.unknown++
			return false
		}
		x.cur, x.curAt = &skipBlock{tMin: t, tMax: t}, at
		x.stamp++
	}
	return true
}

// endNote adds r, at t, to the block being noted once update has taken
// it in; ok false (update failed) drops the block.
func (ip *Interp) endNote(r *Record, t float64, ok bool) {
	x := &ip.skips
	b := x.cur
	if b == nil {
		return
	}
	if !ok {
		x.cur = nil
		return
	}
	if b.n == 0 {
		x.blocks[x.curAt] = b
	}
	b.last = r.Handle
	b.n++
	b.tMin, b.tMax = min(b.tMin, t), max(b.tMax, t)
}

// note adds ic to the block being noted (update: ic has a value in the
// record).
func (x *skipIndex) note(ic *inst) {
	if ic.noted != x.stamp {
		ic.noted = x.stamp
		x.cur.insts = append(x.cur.insts, ic)
		x.entries++
	}
}

// Package replay reads PCP archives the way a libpcp archive context
// does (PCP 6.0.3, or 6.3.8: Options.Version): one archive, or a set of archives (a directory, or a
// comma-separated list) read as one, in one of three modes set by
// SetMode, as pmSetMode(3) sets them.
//
//   - Forw: each Fetch returns the next record at or after the origin
//     that holds any of the requested metrics, skipping <mark> records;
//     the origin then moves to that record's time and later fetches read
//     on serially.
//   - Back: the same backwards: the record at or before the origin.
//   - Interp: each Fetch returns values interpolated at the origin (see
//     package interp), which then advances by the delta (negative to go
//     backwards).
//
// A Fetch result has exactly one value set per requested PMID, in the
// order requested; in Forw and Back a metric the record does not hold
// has no values (NumVal 0). FetchArchive returns whole records, <mark>s
// included (a <mark> is a Result with no value sets), and is refused in
// Interp mode (pmapi.ErrMode). Past the end (or the start) of the data a
// fetch returns pmapi.ErrEOL.
//
// A new Context is in Forw mode with its origin at the start of the first
// archive. The metadata (names, descriptors, instance domains, labels,
// help text) of every archive of a set is in Meta.
//
// Between two archives of a set there is a virtual <mark>, 1 ms after
// the end of the earlier one reading forwards, 1 ms before the start of
// the later one reading backwards: FetchArchive returns it and
// interpolation does not cross it, as libpcp does.
//
// A damaged record gives an error wrapping pmapi.ErrLogRec; the origin
// does not move, and the read position is left where libpcp leaves it, so
// that the fetches after it give what libpcp's give (the same error
// again, or, reading backwards past a record whose length words
// disagree, the records libpcp then finds or ErrEOL).
//
// Derived metrics (UseDerived, in derived.go) are looked up, described
// and fetched like the archive's own metrics, in every mode.
//
// Every fetch reads on from where the previous one left the archive, so
// a replay reads each record a bounded number of times and holds no more
// than one record and the interpolation bounds in memory.
package replay

import (
	"errors"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Mode is a replay mode (PM_MODE_FORW, PM_MODE_BACK, PM_MODE_INTERP).
type Mode int

// The replay modes.
const (
	Forw Mode = iota + 1
	Back
	Interp
)

// String names the mode as PCP does ("forw", "back", "interp").
func (m Mode) String() string {
	switch m {
	case Forw:
		return "forw"
	case Back:
		return "back"
	case Interp:
		return "interp"
	}
	return "mode?"
}

// Profile selects instances (pmAddProfile, pmDelProfile): it reports
// whether instance inst of instance domain indom is wanted.
type Profile = interp.Profile

// Context is an archive replay context. It is not safe for concurrent
// use.
type Context struct {
	set     *archive.Set
	rd      *reader
	ip      *interp.Interp
	mode    Mode
	origin  pmapi.Timestamp
	serial  bool
	placed  placement // what ArchiveLabel's positioning left for the next fetch
	profile Profile
	dm      *derived // derived metrics (derived.go), nil without
	version string
	stderr  io.Writer // SetStderr
	prog    string
}

// The PCP versions a Context can behave as (Options.Version).
const (
	Version603 = pcpconf.Version603
	Version638 = pcpconf.Version638
)

// Options are the choices of a replay context.
type Options struct {
	// Version is the PCP version whose libpcp the context behaves as
	// where versions differ: Version603 ("6.0.3", or any 6.0 release)
	// or Version638 ("6.3.8", or any 6.3 release). Under 6.3.8
	// interpolation takes the nearest value of INSTANT and DISCRETE
	// metrics (interp.NearestRule), under 6.0.3 the prior one
	// (interp.PriorRule). "" (or anything else) is the version pcpkit's
	// tools behave as: $PCPKIT_PCP_VERSION, else the host's PCP
	// configuration, else 6.0.3.
	Version string
	// IgnoreMarks, when not nil, is whether interpolation looks through
	// <mark>s; nil takes it from $PCP_IGNORE_MARK_RECORDS, read (and a
	// bad value warned about, see SetStderr) when interpolation first
	// meets a <mark> in the process, as libpcp does (IgnoreMarksEnv).
	IgnoreMarks *interp.MarkPolicy
}

// Open opens an archive replay context for name: an archive (its base
// name or any of its files), a directory of archives, or a
// comma-separated list of these, as archive.OpenSet takes them. It
// behaves as the PCP version of pcpkit's tools (Options).
func Open(name string) (*Context, error) { return OpenOptions(name, Options{}) }

// OpenOptions is Open with options.
func OpenOptions(name string, o Options) (*Context, error) {
	s, err := archive.OpenSet(name)
	if err != nil {
		return nil, err
	}
	return NewContextOptions(s, o), nil
}

// NewContext returns a replay context reading the set s, in Forw mode at
// the start of its first archive, behaving as the PCP version of
// pcpkit's tools (Options).
func NewContext(s *archive.Set) *Context { return NewContextOptions(s, Options{}) }

// NewContextOptions is NewContext with options.
func NewContextOptions(s *archive.Set, o Options) *Context {
	c := &Context{set: s, rd: newReader(s), mode: Forw}
	c.origin = s.Label().Start
	c.ip = interp.New(c.rd)
	c.version = pcpconf.Version()
	if v, ok := pcpconf.Release(o.Version); ok {
		c.version = v
	}
	if c.version == Version638 {
		c.ip.SetRule(interp.NearestRule)
	}
	if o.IgnoreMarks != nil {
		p := *o.IgnoreMarks
		c.ip.SetMarkPolicy(func() interp.MarkPolicy { return p })
	} else {
		c.ip.SetMarkPolicy(func() interp.MarkPolicy { return markPolicy(c.stderr, c.prog) })
	}
	return c
}

// Version is the PCP version the context behaves as (Version603 or
// Version638; see Options).
func (c *Context) Version() string { return c.version }

// Close closes the archives.
func (c *Context) Close() error {
	c.rd.release()
	return c.set.Close()
}

// Release drops the memory the context holds for reading (the archives'
// window buffers and decoded blocks); the archives stay open, and the
// next fetch takes what it needs again.
func (c *Context) Release() { c.rd.release() }

// Set is the set of archives the context reads.
func (c *Context) Set() *archive.Set { return c.set }

// Meta is the metadata of the archives.
func (c *Context) Meta() *archive.Meta { return c.set.Meta() }

// Label is the label of the first archive (pmGetArchiveLabel).
func (c *Context) Label() *archive.Label { return c.set.Label() }

// Start is the start of the first archive, from its label.
func (c *Context) Start() pmapi.Timestamp { return c.set.Label().Start }

// End is the time of the last record of the last archive, which may be a
// <mark> (pmGetArchiveEnd).
func (c *Context) End() (pmapi.Timestamp, error) { return c.rd.end(c.set.Len() - 1) }

// Mode is the current mode.
func (c *Context) Mode() Mode { return c.mode }

// Origin is the time the next fetch starts from: in Forw and Back the
// time of the last record returned (or the origin given to SetMode), in
// Interp the time of the next interpolation.
func (c *Context) Origin() pmapi.Timestamp {
	if c.mode == Interp {
		return c.ip.Origin()
	}
	return c.origin
}

// SetWrap turns counter wrap handling of interpolation on or off (what
// PCP_COUNTER_WRAP in the environment does for libpcp).
func (c *Context) SetWrap(on bool) { c.ip.SetWrap(on) }

// SetReuse makes each interpolated Fetch fill the memory of the result
// the one before returned (interp.Interp.SetReuse): for a caller done
// with a result before it fetches the next.
func (c *Context) SetReuse(on bool) { c.ip.SetReuse(on) }

// SetReuseAfter makes each interpolated Fetch fill the memory of the
// result returned n fetches before (interp.Interp.SetReuseAfter): 2 for a
// caller that reads the previous result beside the current one.
func (c *Context) SetReuseAfter(n int) { c.ip.SetReuseAfter(n) }

// SetProfile sets the instance profile: Fetch returns only the instances
// p wants (nil: all). FetchArchive ignores it.
func (c *Context) SetProfile(p Profile) {
	c.profile = p
	c.ip.SetProfile(p)
}

// SetMode sets the mode and the origin; delta (nanoseconds, negative to
// go backwards) is the step between interpolations and is ignored in
// Forw and Back. The next fetch positions the archive anew.
func (c *Context) SetMode(m Mode, origin pmapi.Timestamp, delta int64) error {
	switch m {
	case Forw, Back:
		c.mode, c.origin, c.serial, c.placed = m, origin, false, notPlaced
		c.ip.Reset(origin)
	case Interp:
		c.mode = m
		c.ip.SetMode(origin, delta)
	default:
		return pmapi.ErrMode
	}
	return nil
}

// Fetch returns the values of pmids (see the package comment).
func (c *Context) Fetch(pmids []pmapi.PMID) (*pmapi.Result, error) {
	if c.hasDerived(pmids) {
		return c.fetchDerived(pmids)
	}
	if c.mode == Interp {
		return c.ip.Fetch(pmids)
	}
	r, err := c.next(pmids, true)
	if err != nil {
		return nil, err
	}
	res := &pmapi.Result{Timestamp: r.Stamp, VSets: make([]pmapi.ValueSet, len(pmids))}
	for j, p := range pmids {
		vs := &res.VSets[j]
		vs.PMID = p
		k := find(r, p)
		if k < 0 {
			continue
		}
		vs.NumVal, vs.ValFmt = r.NumVal(k), r.ValFmt(k)
		if vs.ValFmt == pmapi.ValFmtSptr {
			vs.ValFmt = pmapi.ValFmtDptr
		}
		var indom pmapi.InDom = pmapi.InDomNull
		if c.profile != nil {
			if d, ok := c.Meta().Desc(p); ok {
				indom = d.InDom
			}
		}
		if vs.NumVal > 0 {
			vs.Values = make([]pmapi.Value, 0, vs.NumVal)
		}
		for i := 0; i < int(vs.NumVal); i++ {
			v := r.Value(k, i)
			if indom != pmapi.InDomNull && !c.profile(indom, v.Inst) {
				continue
			}
			if v.Block != nil {
				// (an empty block stays a block: sample.aggregate.null)
				v.Block = append(make([]byte, 0, len(v.Block)), v.Block...)
			}
			vs.Values = append(vs.Values, v)
		}
		if vs.NumVal > 0 {
			vs.NumVal = int32(len(vs.Values))
		}
		if len(vs.Values) == 0 {
			vs.Values = nil // every instance left out (-p profile): none, as before
		}
	}
	return res, nil
}

// FetchArchive returns the next record (Forw) or the one before (Back),
// <mark>s included, whatever metrics it holds.
func (c *Context) FetchArchive() (*pmapi.Result, error) {
	r, err := c.FetchRecord()
	if err != nil {
		return nil, err
	}
	res := r.Result()
	for i := range res.VSets {
		if res.VSets[i].ValFmt == pmapi.ValFmtSptr {
			res.VSets[i].ValFmt = pmapi.ValFmtDptr
		}
	}
	return res, nil
}

// FetchRecord is FetchArchive without the copy: the record itself,
// <mark>s included (the virtual ones between the archives of a set too),
// decoded in place. It stays valid until the next fetch.
func (c *Context) FetchRecord() (*archive.Record, error) {
	if c.mode == Interp {
		return nil, pmapi.ErrMode
	}
	return c.next(nil, false)
}

// placement is what positioning done ahead of a fetch (ArchiveLabel)
// left for the next fetch to do.
type placement int

const (
	notPlaced    placement = iota // position for the origin
	placedSerial                  // read on from the position
	placedAgain                   // position again for the origin, then back up past it
)

// ArchiveLabel returns the label of the first archive as
// pmGetArchiveLabel(3) does, with libpcp's effect on a multi-archive
// context in Forw or Back mode: to read the label libpcp switches to the
// first archive and back again, which sets the origin to the start of
// the archive the context is in (where SetMode's positioning put it).
// The records between that start and the origin SetMode gave are then
// fetched too; where that positioning left the next fetch to position
// again, it positions for the new origin. In the first archive it
// changes nothing.
func (c *Context) ArchiveLabel() *archive.Label {
	if c.mode != Interp && c.set.Len() > 1 && !c.serial {
		if c.placed == notPlaced {
			// The positioning libpcp's pmSetMode did, done now.
			c.rd.RestoreOffset()
			if c.rd.setTimeFetch(c.origin, c.mode == Forw) {
				c.placed = placedSerial
			} else {
				c.placed = placedAgain
			}
			c.rd.SaveOffset()
		}
		if c.rd.ai != 0 {
			c.origin = c.set.Archive(c.rd.ai).Label().Start
		}
	}
	return c.set.Label()
}

// next reads on in the direction of the mode to the next record at or
// after (Forw) or at or before (Back) the origin, as libpcp's
// __pmLogFetch does; with filter, <mark>s and records holding none of
// pmids are passed over (the origin still moves to them).
func (c *Context) next(pmids []pmapi.PMID, filter bool) (*archive.Record, error) {
	forw := c.mode == Forw
	if err := c.rd.RestoreOffset(); err != nil {
		return nil, err
	}
	// Remember the position for the next fetch, whatever happens.
	defer c.rd.SaveOffset()
	if !c.serial {
		// Position as libpcp does: by the temporal index, then, if
		// that left the reader on the wrong side of the origin, back
		// against the direction until the origin is reached or passed
		// (damage on the way ends that quietly, as it does for
		// libpcp).
		back := false
		switch c.placed {
		case notPlaced:
			back = !c.rd.setTimeFetch(c.origin, forw)
		case placedAgain:
			c.rd.setTimeFetch(c.origin, forw)
			back = true
		}
		for back {
			r, err := c.rd.readRaw(!forw)
			if err != nil {
				break
			}
			if cmp := r.Stamp.Compare(c.origin); forw && cmp <= 0 || !forw && cmp >= 0 {
				break
			}
		}
		c.serial, c.placed = true, notPlaced
	}
	for {
		r, err := c.rd.readRaw(forw)
		if errors.Is(err, io.EOF) {
			return nil, pmapi.ErrEOL
		}
		if err != nil {
			return nil, err
		}
		if cmp := r.Stamp.Compare(c.origin); forw && cmp < 0 || !forw && cmp > 0 {
			continue
		}
		c.origin = r.Stamp
		if filter {
			if r.IsMark() {
				continue
			}
			found := false
			for _, p := range pmids {
				if find(r, p) >= 0 {
					found = true
					break
				}
			}
			if !found {
				continue
			}
		}
		return r, nil
	}
}

// find returns the index of pmid's value set in r, or -1.
func find(r *archive.Record, p pmapi.PMID) int {
	for k := 0; k < r.NumPMID(); k++ {
		if r.PMID(k) == p {
			return k
		}
	}
	return -1
}

// RawCursor positions the context's current archive for reading forwards
// from t as pmSetMode(PM_MODE_FORW, t) leaves a libpcp context for its raw
// reads (__pmLogRead_ctx, as pmlogcheck reads): __pmLogSetTime's
// positioning alone, at or near a temporal index entry, without the
// adjustments a fetch makes afterwards. It returns that archive's cursor,
// to read on with; the context's own fetches position anew. An index
// entry that points inside the label leaves the cursor at the label's
// end, where libpcp's read goes from such a position; so does one that
// points past the end of its volume.
func (c *Context) RawCursor(t pmapi.Timestamp) *archive.Cursor {
	c.rd.place(t, true)
	c.placed = notPlaced
	cur := c.rd.cursor(c.rd.ai)
	a := c.set.Archive(c.rd.ai)
	vol, off := cur.Position()
	if off >= 0 && off < int64(a.Label().Size()) {
		cur.SetPosition(vol, int64(a.Label().Size()))
	} else if size, err := a.VolumeSize(vol); err == nil && off > size {
		// and one past the volume's end reads from its start (seen
		// with index entries whose offset is damaged)
		cur.SetPosition(vol, int64(a.Label().Size()))
	}
	return cur
}

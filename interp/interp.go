// Package interp computes interpolated metric values from PCP archives as
// PCP 6.0.3's libpcp (or 6.3.8's: Rule) does in PM_MODE_INTERP
// (pmSetMode(3), pmFetch(3)).
//
// An Interp answers fetches at an origin that advances by a fixed delta
// (negative to go backwards). For every metric and every instance ever
// seen in the metric's instance domain it keeps the closest record at or
// before the requested time (the prior) and at or after it (the next),
// each a value or a <mark>, and finds them by reading the archive from
// where the previous fetch left it: rolling forwards (or backwards, for a
// negative delta) up to the requested time, then scanning back for
// missing lower bounds and on for missing upper bounds. A long replay so
// reads each record a bounded number of times and keeps nothing but the
// bounds in memory.
//
// The values follow libpcp 6.0.3, or 6.3.8 where they differ (the Rule:
// SetRule; docs/interpolation.md has both, with a worked example):
//
//   - DISCRETE metrics take the prior value (PriorRule; under NearestRule
//     the nearer of the two bounds when the next one is a value); it needs
//     no upper bound, so the last value lasts to the end of the archive.
//   - INSTANT metrics need a value on both sides and take the prior one
//     (PriorRule: 6.0.3's step function), or the nearer one (NearestRule:
//     PCP 6.3.2 and later).
//   - COUNTER metrics need a value on both sides and are interpolated
//     linearly, with libpcp's rounding and conversions for each type
//     (see counterValue); a non-numeric counter gives PM_ERR_TYPE.
//   - STRING, AGGREGATE and event metrics take a copy of the prior value
//     under the rules of their semantics.
//   - A <mark> (a gap in the recording, real or the virtual one between
//     two archives of a set) bounds every instance: no instant or counter
//     value is interpolated across it, and a discrete value disappears
//     after it until the next sample. A counter that had values at the
//     previous fetch has none at the first fetch after crossing a <mark>
//     (so that no rate is computed across the gap).
//   - A request more than 1 ms before the start of the first archive, or
//     more than 1 ms after the end of the last, gives PM_ERR_EOL; the
//     origin advances by the delta after every fetch, EOL included.
//   - A metric not in the archive gives the value set the error
//     PM_ERR_PMID_LOG.
//
// Instances appear in a result in the order of libpcp's hash table: by
// instance number modulo the number of instances ever in the domain, and
// within one bucket the one added last first.
package interp

import (
	"errors"
	"io"
	"math"
	"slices"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Source is what an Interp reads: the records of an archive, or of a set
// of archives one after the other with a virtual <mark> between two
// archives, in either direction from a position that can be saved and
// restored. replay.Context provides one.
type Source interface {
	// Meta is the metadata (of every archive of a set).
	Meta() *archive.Meta
	// Start is the time base: the label start of the first archive.
	Start() pmapi.Timestamp
	// End is the time of the last record of the archive being read (of
	// a set: the one the last read was in), as libpcp's
	// __pmGetArchiveEnd gives it, and whether that archive is the last.
	End() (end pmapi.Timestamp, last bool, err error)
	// Read returns the next record forwards (forw) or backwards, <mark>s
	// included; io.EOF past either end. The record is valid until the
	// next call. Right after a virtual <mark> between two archives, a
	// read in the other direction gives that <mark> again.
	Read(forw bool) (*Record, error)
	// Peek is Read as libpcp's __pmLogRead reads, without the read
	// cache's rule that a change of direction right after a virtual
	// <mark> gives it again, returning the record's time only; it
	// leaves the record Read returned as it was. The <mark> checks of
	// $PCP_IGNORE_MARK_RECORDS read this way (MarkPolicy).
	Peek(forw bool) (pmapi.Timestamp, error)
	// SaveOffset saves the read position in the current archive, and
	// RestoreOffset goes back to it (libpcp's ac_offset). Changing
	// archive saves the new position (the start or the end).
	SaveOffset()
	RestoreOffset() error
	// SetTime positions the source for reading from t onwards (forw) or
	// backwards, as libpcp's __pmLogSetTime does for interpolation: near
	// t, on either side of it, by the temporal index, reporting (with
	// indexed true) whether that is a place reads in that direction may
	// start from (exact) or the first fetch must read towards t first.
	// Without an index it goes to the start of the archive (forwards) or
	// its end, and reports indexed false.
	SetTime(t pmapi.Timestamp, forw bool) (exact, indexed bool)
}

// Profile selects the instances to return: it reports whether instance
// inst of instance domain indom is wanted. A nil Profile wants them all.
type Profile func(indom pmapi.InDom, inst int32) bool

// Bound states (libpcp's S_UNDEFINED, S_MARK, S_VALUE and S_SCANNED).
const (
	sUndefined = 1
	sMark      = 2
	sValue     = 4
	sScanned   = 16
)

func isUndefined(s uint8) bool { return s&sUndefined != 0 }
func isMark(s uint8) bool      { return s&sMark != 0 }
func isScanned(s uint8) bool   { return s&sScanned != 0 }
func isValue(s uint8) bool     { return s&sValue != 0 }

// How update treats <mark>s and searches (libpcp's UPD_MARK_*).
const (
	updNone = iota // fine positioning: marks are ignored
	updForw        // rolling or scanning forwards
	updBack        // rolling or scanning backwards
)

// value is a held value: an insitu word, or a copy of a value block.
type value struct {
	insitu int32
	btype  pmapi.Type
	block  []byte
	isBlk  bool
}

func (v *value) set(rv *pmapi.Value) {
	if rv.Block == nil {
		v.insitu, v.isBlk = rv.Insitu, false
		return
	}
	v.btype, v.isBlk = rv.BlockType, true
	v.block = append(v.block[:0], rv.Block...)
}

// inst is the state of one instance of one metric (libpcp's instcntl_t).
type inst struct {
	m        *metric
	id       int32
	inresult bool
	search   bool

	tPrior, tNext float64
	sPrior, sNext uint8
	vPrior, vNext value
	tFirst, tLast float64 // no records before / after these (-1: unknown)

	tBirth, tDeath float64 // the instance's life, for the caliper
	settled        uint64  // the collapse (Interp.epoch) that took it in
	noted          uint64  // the skip block (skipIndex.stamp) last noting it

}

// metric is the state of one metric (libpcp's pmidcntl_t).
type metric struct {
	pmid       pmapi.PMID
	desc       pmapi.Desc
	inArchive  bool
	valfmt     int32
	numval     int32
	lastNumval int32
	insts      []*inst         // in the order of the instance union
	byInst     map[int32]*inst // nil for a singular metric
	slot       []*inst         // instOf's cache: by position in a value set
	fetch      uint64          // the last Fetch (Interp.fetches) asking for it
	order      []*inst         // result order (hash buckets)
	caliper    bool
}

// Interp is an interpolating reader of a Source. It is not safe for
// concurrent use.
type Interp struct {
	src     Source
	start   pmapi.Timestamp
	origin  pmapi.Timestamp
	delta   int64 // nanoseconds; its sign is the direction
	serial  bool
	metrics map[pmapi.PMID]*metric
	mlist   []*metric // the metrics' values, in the order they were made
	// priorHi is at or above every instance's tPrior (every change of
	// one raises it to the new one; rereader makes it exact again).
	priorHi float64
	// lookupSlow's cache: the metric (or nil) of the PMID last seen at
	// each position of a record's value sets; records of one archive
	// mostly repeat the same layout.
	slotPMID []pmapi.PMID
	slotM    []*metric
	gen      uint64         // changes when metrics does (Record.scan)
	layout   archive.Layout // Record.scan's last value sets by position
	unbound  []*inst        // Fetch's instances searched for
	scans    [scanSlots]scanned
	want     []*inst
	profile  Profile
	wrap     bool
	rule     Rule
	// markPolicy gives marks when the first <mark> is met (markKnown).
	markPolicy func() MarkPolicy
	marks      MarkPolicy
	markKnown  bool
	end        float64   // the end of the archive, once read (libpcp's ac_end)
	pend       []pending // roll's run of records passed over
	reread     Record    // a record read again
	epoch      uint64    // collapses made
	lastT      float64   // the latest time pass has seen in this read
	fetches    uint64    // Fetch calls made
	ms         []*metric // Fetch's metrics, by position in its request
	// reqMetric's memo: the PMID at each position of the last requests
	// and its metric (a tool asks for the same PMIDs fetch after fetch)
	reqPMID   []pmapi.PMID
	reqM      []*metric
	arena     []byte // the value blocks of the current result (block)
	arenaHint int    // the size of the next arena
	arenaUsed int    // the bytes of blocks of the current result
	// SetReuseAfter's: the memory of the last results Fetch returned
	// (their value sets, values and first arena of blocks), filled again
	// in turn
	recycled []recycled
	turn     int
	skips    skipIndex // the forward searches' skip blocks
	noting   bool      // update notes instances in skips.cur
	skipOff  bool      // SetSkip(false)
}

// New returns an Interp reading src, with its origin at the start of the
// first archive and a delta of one second.
func New(src Source) *Interp {
	ip := &Interp{
		src:     src,
		start:   src.Start(),
		metrics: map[pmapi.PMID]*metric{},
		gen:     1,
		priorHi: math.Inf(-1),
	}
	ip.origin = ip.start
	ip.delta = 1e9
	return ip
}

// SetReuse makes each Fetch fill the memory of the result the one before
// returned (its value sets, values and value blocks) instead of new
// memory: a caller that is done with a result before it fetches the next
// (a copying tool) saves their allocation and collection. Off by
// default: a result then stays valid for good. SetReuse(true) is
// SetReuseAfter(1).
func (ip *Interp) SetReuse(on bool) {
	n := 0
	if on {
		n = 1
	}
	ip.SetReuseAfter(n)
}

// SetReuseAfter makes each Fetch fill the memory of the result returned
// n fetches before: a result stays valid through the next n-1 fetches. A
// caller that reads the previous result beside the current one (a rate
// conversion) uses 2. 0 turns reuse off.
func (ip *Interp) SetReuseAfter(n int) {
	ip.recycled = make([]recycled, max(n, 0))
	ip.turn = 0
}

// recycled is the memory of a result SetReuseAfter has Fetch fill again.
type recycled struct {
	res   *pmapi.Result
	slab  []pmapi.Value
	arena []byte
}

// SetWrap turns counter wrap handling on or off: libpcp turns it on when
// PCP_COUNTER_WRAP is in the environment. With wrap on, a counter that
// goes down is taken to have wrapped once.
func (ip *Interp) SetWrap(on bool) { ip.wrap = on }

// Rule is how an Interp chooses the value of an INSTANT or DISCRETE
// metric between two recorded values (COUNTER metrics are interpolated
// linearly under every rule). It is where libpcp versions differ.
type Rule uint8

const (
	// PriorRule takes the value recorded at or before the requested
	// time, as libpcp did up to PCP 6.3.1 (6.0.3 included): a step
	// function that changes at each recorded value.
	PriorRule Rule = iota
	// NearestRule takes the value recorded nearest the requested time,
	// the earlier one on a tie, as libpcp does since PCP 6.3.2 (6.3.8
	// included; PCP issue #433). A DISCRETE metric with no value after
	// the requested time (at the end of the archive, or before a
	// <mark>) keeps the value before it.
	NearestRule
)

// SetRule sets the rule for INSTANT and DISCRETE metrics (PriorRule for
// a new Interp). The bounds held are the same under every rule, so it
// may change between fetches.
func (ip *Interp) SetRule(r Rule) { ip.rule = r }

// Rule is the rule set by SetRule.
func (ip *Interp) Rule() Rule { return ip.rule }

// SetProfile sets the instance profile of later fetches.
func (ip *Interp) SetProfile(p Profile) { ip.profile = p }

// SetMode sets the origin and the delta (in nanoseconds; negative to go
// backwards) as pmSetMode(PM_MODE_INTERP) does: bounds that still bracket
// the new origin are kept, the others forgotten, and the source is
// positioned by its temporal index (or at its start or end if it has
// none). The first fetch reads to the origin first when the index entry
// lies on the wrong side of it, or when there is no index and this
// Interp has not fetched yet.
func (ip *Interp) SetMode(origin pmapi.Timestamp, delta int64) {
	ip.origin, ip.delta = origin, delta
	exact, indexed := ip.src.SetTime(origin, ip.forw())
	ip.src.SaveOffset()
	if indexed {
		ip.serial = exact
	}
	ip.Reset(origin)
}

// Reset forgets the bounds that do not bracket origin, as libpcp's
// pmSetMode does in every mode: call it when the archive context is set
// to another mode.
func (ip *Interp) Reset(origin pmapi.Timestamp) {
	treq := pcptime.Sub(origin, ip.start)
	for _, m := range ip.mlist {
		for _, ic := range m.insts {
			if ic.tPrior > treq || ic.tNext < treq {
				ic.tPrior, ic.tNext = -1, -1
				ic.sPrior, ic.sNext = sUndefined, sUndefined
				ic.vPrior.block, ic.vNext.block = ic.vPrior.block[:0], ic.vNext.block[:0]
			}
		}
	}
}

// Origin is the time of the next fetch.
func (ip *Interp) Origin() pmapi.Timestamp { return ip.origin }

// Delta is the interval between fetches, in nanoseconds.
func (ip *Interp) Delta() int64 { return ip.delta }

func (ip *Interp) forw() bool { return ip.delta > 0 }

// t is a record's time on the interpolation time base.
func (ip *Interp) t(r *Record) float64 { return pcptime.Sub(r.Stamp, ip.start) }

// Fetch returns the values of pmids at the origin, then advances the
// origin by the delta. The result has one value set per PMID, in order;
// PMIDNull gives an empty value set. Past either end of the archive it
// returns pmapi.ErrEOL (the origin still advances). Damage met while
// reading (a corrupt or truncated record, a value format that changes
// between records) gives an error wrapping pmapi.ErrLogRec, and the
// origin stays where it is.
func (ip *Interp) Fetch(pmids []pmapi.PMID) (res *pmapi.Result, err error) {
	at := ip.origin
	defer func() {
		// A damaged archive stops the origin; EOL does not.
		if err == nil || errors.Is(err, pmapi.ErrEOL) {
			ip.origin = AddDelta(ip.origin, ip.delta)
		}
	}()
	treq := pcptime.Sub(at, ip.start)
	if debug {
		debugf("Fetch @ %d.%09d t_req=%.6f serial=%v\n", at.Sec, at.Nsec, treq, ip.serial)
	}
	if treq < -0.001 {
		return nil, pmapi.ErrEOL
	}
	// The end is known as 0 until a request passes it by more than the
	// slop; it is then read (the end of the archive being read), and
	// compared without the slop: past the end of the last archive is
	// the end of the data.
	if treq > ip.end+0.001 {
		e, last, err := ip.src.End()
		if err == nil {
			ip.end = pcptime.Sub(e, ip.start)
		}
		if treq > ip.end && last {
			return nil, pmapi.ErrEOL
		}
	}

	// Pick the wanted instances. libpcp keeps them in a list each is
	// pushed onto, metric by metric and each metric's instances in its
	// hash table's order, and works down that list; want holds them in
	// that (reversed) order.
	ip.want = ip.want[:0]
	ip.fetches++
	ms := ip.ms[:0]
	for range pmids {
		ms = append(ms, nil)
	}
	ip.ms = ms
	for j, p := range pmids {
		if p == pmapi.PMIDNull {
			continue
		}
		m := ip.reqMetric(j, p)
		ms[j] = m
		if m.fetch == ip.fetches {
			continue // asked for twice: once is enough
		}
		m.fetch = ip.fetches
		m.numval = 0
		switch {
		case !m.inArchive || m.desc.Type == pmapi.TypeNoSupport:
			// libpcp marks a metric it has no descriptor for with the
			// type NOSUPPORT, so a NOSUPPORT metric is not in the
			// archive either.
			m.numval = int32(pmapi.ErrPMIDLog)
		case m.desc.InDom != pmapi.InDomNull:
			for _, ic := range m.order {
				ic.search = false
				ic.inresult = ip.profile == nil || ip.profile(m.desc.InDom, ic.id)
				if ic.inresult {
					ip.want = append(ip.want, ic)
					m.numval++
				}
			}
		default:
			ic := m.insts[0]
			ic.inresult, ic.search = true, false
			ip.want = append(ip.want, ic)
			m.numval = 1
		}
	}
	slices.Reverse(ip.want)

	if !ip.serial {
		if err := ip.position(treq); err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m != nil {
				m.lastNumval = -1
			}
		}
	}
	if err := ip.src.RestoreOffset(); err != nil {
		return nil, err
	}

	seenMark := false
	doneRoll := false
	unbound := ip.unbound[:0]
	defer func() { ip.unbound = unbound[:0] }()

	// Lower bounds.
	back := 0
	for _, ic := range ip.want {
		if ic.tFirst >= 0 && treq < ic.tFirst {
			continue
		}
		if !ic.alive(treq) {
			continue
		}
		if ic.tPrior < 0 || ic.tPrior > treq {
			if back == 0 && !doneRoll {
				doneRoll = true
				if ip.forw() {
					if err := ip.roll(treq, &seenMark); err != nil {
						return nil, err
					}
				}
			}
		}
		if isUndefined(ic.sPrior) && !isScanned(ic.sPrior) ||
			ic.tPrior > treq && (!ip.forw() || !isScanned(ic.sPrior)) ||
			isMark(ic.sNext) && ic.tPrior == treq {
			back++
			if debug {
				debugf("search back: %v\n", ic)
			}
			ic.search = true
			unbound = append(unbound, ic)
		}
	}
	if back > 0 {
		if err := ip.src.RestoreOffset(); err != nil {
			return nil, err
		}
		// Likewise no search back ends by its tFirst after the latest.
		maxFirst := math.Inf(-1)
		for _, ic := range unbound {
			maxFirst = max(maxFirst, ic.tFirst)
		}
		done := 0
		for done < back {
			r, err := ip.src.Read(false)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				break
			}
			t := ip.t(r)
			if !ip.forw() && t >= treq {
				ip.src.SaveOffset()
			}
			if err := ip.update(treq, t, r, updBack, &done, &seenMark); err != nil {
				return nil, err
			}
			for _, ic := range unbound {
				if t > maxFirst {
					break
				}
				if ic.search && t <= ic.tFirst {
					ic.search = false
					ic.sPrior |= sScanned
					done++
				}
			}
		}
		// Instances still searched for when the start was reached
		// have nothing before treq.
		for _, ic := range unbound {
			if ic.search && (isUndefined(ic.sPrior) || ic.tPrior > treq) && ic.tFirst < treq {
				ic.tFirst = treq
				ic.sPrior |= sScanned
			}
			ic.search = false
		}
	}

	// Upper bounds.
	unbound = unbound[:0]
	forw := 0
	for _, ic := range ip.want {
		if ic.tLast >= 0 && treq > ic.tLast {
			continue
		}
		if !ic.alive(treq) {
			continue
		}
		if ic.tNext < 0 || ic.tNext < treq {
			if forw == 0 && !doneRoll {
				doneRoll = true
				if !ip.forw() {
					if err := ip.roll(treq, &seenMark); err != nil {
						return nil, err
					}
				}
			}
		}
		if isUndefined(ic.sNext) && !isScanned(ic.sNext) ||
			ic.tNext < treq && (ip.forw() || !isScanned(ic.sNext)) ||
			isMark(ic.sPrior) && ic.tNext == treq {
			forw++
			if debug {
				debugf("search forw: %v\n", ic)
			}
			ic.search = true
			unbound = append(unbound, ic)
		}
	}
	if forw > 0 {
		if err := ip.src.RestoreOffset(); err != nil {
			return nil, err
		}
		// Records before treq are passed over lazily, as roll does.
		rr := ip.rereader(treq)
		// No instance's search ends by its tLast before the earliest
		// of them (searches only end as records are read).
		minLast := math.Inf(1)
		for _, ic := range unbound {
			if ic.tLast >= 0 {
				minLast = min(minLast, ic.tLast)
			}
		}
		// Runs of records earlier searches read that cannot change a
		// bound are passed over (skip.go).
		sk := ip.skipper()
		var last Handle // the last record read
		done := 0
		for done < forw {
			if sk != nil && last.OK && len(ip.pend) == 0 {
				last = ip.skip(sk, last, treq, unbound)
			}
			r, err := ip.src.Read(true)
			if err != nil {
				if cerr := ip.collapse(rr, treq); cerr != nil {
					return nil, cerr
				}
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				break
			}
			t := ip.t(r)
			last = r.Handle
			if ip.forw() && t <= treq {
				ip.src.SaveOffset()
			}
			if r, err = ip.pass(rr, r, t, treq); err != nil {
				return nil, err
			}
			if r != nil {
				ip.noting = sk != nil && ip.beginNote(r, t)
				err := ip.update(treq, t, r, updForw, &done, &seenMark)
				if ip.noting {
					ip.noting = false
					ip.endNote(r, t, err == nil)
				}
				if err != nil {
					return nil, err
				}
			}
			for _, ic := range unbound {
				if t < minLast {
					break
				}
				if ic.search && ic.tLast >= 0 && t >= ic.tLast {
					ic.search = false
					ic.sNext |= sScanned
					done++
				}
			}
		}
		if err := ip.collapse(rr, treq); err != nil {
			return nil, err
		}
		for _, ic := range unbound {
			if ic.search && ic.tNext < treq && (ic.tLast < 0 || treq < ic.tLast) {
				ic.tLast = treq
				ic.sNext |= sScanned
			}
			ic.search = false
		}
	}

	// Which instances have values.
	for _, ic := range ip.want {
		m := ic.m
		if m.desc.Sem == pmapi.SemDiscrete {
			if isMark(ic.sPrior) || isUndefined(ic.sPrior) || ic.tPrior > treq ||
				ic.tBirth != -1 && ic.tBirth > treq || ic.tDeath != -1 && treq > ic.tDeath {
				m.numval--
				ic.inresult = false
			}
			continue
		}
		if isMark(ic.sPrior) || isUndefined(ic.sPrior) || ic.tPrior > treq ||
			isMark(ic.sNext) || isUndefined(ic.sNext) || ic.tNext < treq {
			m.numval--
			ic.inresult = false
		} else if m.desc.Sem == pmapi.SemCounter {
			switch m.desc.Type {
			case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
				if seenMark && m.lastNumval > 0 {
					m.numval--
					ic.inresult = false
				}
			default:
				m.numval = int32(pmapi.ErrType)
			}
		}
	}

	if debug {
		for _, ic := range ip.want {
			debugf("result %v in=%v seenMark=%v\n", ic, ic.inresult, seenMark)
		}
	}
	nvals := 0
	for _, m := range ms {
		if m != nil && m.numval > 0 {
			nvals += int(m.numval)
		}
	}
	res, slab := ip.newResult(len(pmids), nvals)
	res.Timestamp = at
	for j, p := range pmids {
		vs := &res.VSets[j]
		vs.PMID = p
		m := ms[j]
		if m == nil {
			continue
		}
		vs.NumVal = m.numval
		vs.ValFmt = m.valfmt
		if m.numval > 0 {
			n := int(m.numval)
			vs.Values, slab = slab[:0:n], slab[n:]
			for _, ic := range m.order {
				if !ic.inresult {
					continue
				}
				// (made in place: a Value returned was copied
				// through the stack, which stalled the copy)
				vs.Values = vs.Values[:len(vs.Values)+1]
				v := &vs.Values[len(vs.Values)-1]
				if !ip.valueOf(v, m, ic, treq) {
					vs.Values = vs.Values[:len(vs.Values)-1]
					continue
				}
				if v.Block != nil {
					vs.ValFmt = pmapi.ValFmtDptr
				}
			}
			vs.NumVal = int32(len(vs.Values))
		}
		m.lastNumval = m.numval
	}
	return res, nil
}

// newResult returns the memory of a result of n value sets (zeroed)
// and a slab of nvals values, and readies the arena of its blocks: new
// memory, or with SetReuse that of the last result when it is large
// enough.
func (ip *Interp) newResult(n, nvals int) (*pmapi.Result, []pmapi.Value) {
	ip.arena = nil           // a new result: blocks of its own
	ip.arenaHint = 8 * nvals // enough for the blocks of 64-bit values
	used := ip.arenaUsed
	ip.arenaUsed = 0
	if len(ip.recycled) > 0 {
		// (as large as the last result's blocks, strings included)
		ip.arenaHint = max(ip.arenaHint, used)
		r := &ip.recycled[ip.turn]
		ip.turn = (ip.turn + 1) % len(ip.recycled)
		if r.res == nil || cap(r.res.VSets) < n {
			r.res = &pmapi.Result{VSets: make([]pmapi.ValueSet, n)}
		}
		res := r.res
		*res = pmapi.Result{VSets: res.VSets[:n]}
		clear(res.VSets)
		if cap(r.slab) < nvals {
			r.slab = make([]pmapi.Value, nvals)
		}
		slab := r.slab[:nvals]
		clear(slab)
		if cap(r.arena) < ip.arenaHint {
			r.arena = make([]byte, max(ip.arenaHint, 64))
		}
		ip.arena = r.arena[:cap(r.arena)]
		return res, slab
	}
	// One allocation for the result and its value sets (of one metric,
	// as pmval asks), one for all the values.
	var res *pmapi.Result
	if n == 1 {
		box := &struct {
			res pmapi.Result
			vs  [1]pmapi.ValueSet
		}{}
		res = &box.res
		res.VSets = box.vs[:]
	} else {
		res = &pmapi.Result{VSets: make([]pmapi.ValueSet, n)}
	}
	var slab []pmapi.Value
	if nvals > 0 {
		slab = make([]pmapi.Value, nvals)
	}
	return res, slab
}

// position does the gross positioning with the source, then reads
// against the direction of the delta up to the requested time, taking in
// values (not <mark>s) on the way.
func (ip *Interp) position(treq float64) error {
	ip.src.SetTime(ip.origin, ip.forw())
	ip.src.SaveOffset()
	for {
		r, err := ip.src.Read(!ip.forw())
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			break
		}
		t := ip.t(r)
		if ip.forw() && t <= treq || !ip.forw() && t > treq {
			break
		}
		ip.src.SaveOffset()
		if err := ip.update(treq, t, r, updNone, nil, nil); err != nil {
			return err
		}
	}
	ip.serial = true
	return nil
}

func (ip *Interp) dirUpd() int {
	if ip.forw() {
		return updForw
	}
	return updBack
}

// update takes in record r (at time t) for every metric and instance ever
// asked for: a value closer to the requested time than a bound replaces
// it; a <mark> does so for the instances of this fetch.
func (ip *Interp) update(treq, t float64, r *Record, how int, done *int, seenMark *bool) error {
	if r.IsMark() {
		if ip.ignoreMark() || how == updNone {
			return nil
		}
		for _, ic := range ip.want {
			if t <= treq && (t >= ic.tPrior || ic.tPrior > treq) {
				ic.tPrior = t
				ip.priorHi = max(ip.priorHi, t)
				ic.sPrior = sMark
				if how == updBack {
					if ic.search && done != nil {
						ic.search = false
						*done++
						ic.sPrior |= sScanned
					}
				} else if seenMark != nil {
					*seenMark = true
				}
			}
			if t >= treq && (t <= ic.tNext || ic.tNext < 0 || ic.tNext < treq) {
				ic.tNext = t
				ic.sNext = sMark
				if how == updForw {
					if ic.search && done != nil {
						ic.search = false
						*done++
						ic.sNext |= sScanned
					}
				} else if seenMark != nil {
					*seenMark = true
				}
			}
		}
		return nil
	}
	var v pmapi.Value
	recalled := ip.recall(r)
	if !r.scanAll(ip) {
		return pmapi.ErrLogRec
	}
	if !recalled {
		ip.remember(r)
	}
	for i := range r.hits {
		m, vs := r.hits[i].m, &r.hits[i].vs
		nv := int(vs.NumVal)
		if err := m.checkFmt(r, vs); err != nil {
			return err
		}
		if len(m.insts) == 0 || nv <= 0 {
			continue
		}
		if m.byInst == nil {
			// Singular: the first value, whatever its instance.
			ic := m.insts[0]
			if ip.noting {
				ip.skips.note(ic)
			}
			if ic.takes(treq, t) {
				r.value(vs, 0, &v)
				ip.take(ic, treq, t, &v, how, done)
			}
			continue
		}
		for j := 0; j < nv; j++ {
			ic := m.instOf(j, r.inst(vs, j))
			if ic == nil {
				continue
			}
			if ip.noting {
				ip.skips.note(ic)
			}
			if !ic.takes(treq, t) {
				continue
			}
			r.value(vs, j, &v)
			ip.take(ic, treq, t, &v, how, done)
		}
	}
	return nil
}

// checkFmt checks value set vs of r, of metric m: its value format must
// suit the type, and may not change; its value blocks must lie in the
// record (known already of a record checked whole).
func (m *metric) checkFmt(r *Record, vs *archive.VSet) error {
	if vs.NumVal <= 0 {
		return nil
	}
	vf := vs.ValFmt
	if m.valfmt == -1 {
		if !typeFitsFmt(m.desc.Type, vf) {
			return pmapi.ErrLogRec
		}
		m.valfmt = vf
	} else if m.valfmt != vf {
		return pmapi.ErrLogRec
	}
	if !r.checked && !r.blocksOK(vs) {
		return pmapi.ErrLogRec
	}
	return nil
}

// lookup returns the state of metric p if it has been asked for, else
// nil, for the value set at position k of a record, by a cache by
// position (records of one archive mostly repeat the same layout).
func (ip *Interp) lookup(k int, p pmapi.PMID) *metric {
	if k < len(ip.slotPMID) && ip.slotPMID[k] == p {
		return ip.slotM[k]
	}
	m := ip.metrics[p]
	for len(ip.slotPMID) <= k {
		ip.slotPMID = append(ip.slotPMID, pmapi.PMIDNull)
		ip.slotM = append(ip.slotM, nil)
	}
	ip.slotPMID[k], ip.slotM[k] = p, m
	return m
}

// instOf returns the state of instance id, the j-th value of a value
// set, or nil if it is not in the instance union.
func (m *metric) instOf(j int, id int32) *inst {
	if j < len(m.slot) {
		if ic := m.slot[j]; ic != nil && ic.id == id {
			return ic
		}
	}
	ic := m.byInst[id]
	if ic != nil {
		for len(m.slot) <= j {
			m.slot = append(m.slot, nil)
		}
		m.slot[j] = ic
	}
	return ic
}

// typeFitsFmt reports whether values of type typ may have value format
// vf: 32-bit integers are insitu, floats either, the rest in blocks.
func typeFitsFmt(typ pmapi.Type, vf int32) bool {
	switch typ {
	case pmapi.Type32, pmapi.TypeU32:
		return vf == pmapi.ValFmtInsitu
	case pmapi.TypeFloat:
		return vf == pmapi.ValFmtInsitu || vf == pmapi.ValFmtDptr || vf == pmapi.ValFmtSptr
	}
	return vf == pmapi.ValFmtDptr || vf == pmapi.ValFmtSptr
}

// takes reports whether take would change the bounds of ic with a
// value at time t: a value neither nearer than the prior nor than the
// next (most, when a search reads far past treq) need not be loaded.
func (ic *inst) takes(treq, t float64) bool {
	return t <= treq && (ic.tPrior > treq || t >= ic.tPrior) ||
		t >= treq && (ic.tNext < treq || t <= ic.tNext)
}

// take updates an instance's bounds with a value at time t (nothing
// when takes is false).
func (ip *Interp) take(ic *inst, treq, t float64, v *pmapi.Value, how int, done *int) {
	if t <= treq && (ic.tPrior > treq || t >= ic.tPrior) {
		if ic.tPrior < ic.tNext && ic.tPrior >= treq {
			// The prior becomes the next.
			ic.tNext, ic.sNext = ic.tPrior, ic.sPrior&^sScanned
			ic.vNext, ic.vPrior = ic.vPrior, ic.vNext
		}
		ic.tPrior, ic.sPrior = t, sValue
		ip.priorHi = max(ip.priorHi, t)
		ic.vPrior.set(v)
		if how == updBack && ic.search && done != nil {
			ic.search = false
			*done++
			ic.sPrior |= sScanned
		}
	}
	if t >= treq && (ic.tNext < treq || t <= ic.tNext) {
		if ic.tPrior < ic.tNext && ic.tNext <= treq {
			// The next becomes the prior.
			ic.tPrior, ic.sPrior = ic.tNext, ic.sNext&^sScanned
			ip.priorHi = max(ip.priorHi, ic.tPrior)
			ic.vPrior, ic.vNext = ic.vNext, ic.vPrior
		}
		ic.tNext, ic.sNext = t, sValue
		ic.vNext.set(v)
		if how == updForw && ic.search && done != nil {
			ic.search = false
			*done++
			ic.sNext |= sScanned
		}
	}
}

// reqMetric is metric(p) for p at position j of a request, from the
// memo of the last requests at that position when it holds p.
func (ip *Interp) reqMetric(j int, p pmapi.PMID) *metric {
	if j < len(ip.reqPMID) && ip.reqPMID[j] == p {
		return ip.reqM[j]
	}
	m := ip.metric(p)
	for len(ip.reqPMID) <= j {
		ip.reqPMID = append(ip.reqPMID, pmapi.PMIDNull)
		ip.reqM = append(ip.reqM, nil)
	}
	ip.reqPMID[j], ip.reqM[j] = p, m
	return m
}

// metric returns the state of pmid, made on first use: one instance for
// every instance ever in the metric's instance domain.
func (ip *Interp) metric(p pmapi.PMID) *metric {
	if m := ip.metrics[p]; m != nil {
		return m
	}
	m := &metric{pmid: p, valfmt: -1, lastNumval: -1}
	ip.metrics[p] = m
	ip.mlist = append(ip.mlist, m)
	ip.slotPMID, ip.slotM = ip.slotPMID[:0], ip.slotM[:0]
	ip.gen++ // what records were scanned for has changed
	ip.layout.Reset()
	meta := ip.src.Meta()
	d, ok := meta.Desc(p)
	if !ok {
		return m
	}
	m.desc, m.inArchive = *d, true
	newInst := func(id int32) *inst {
		return &inst{m: m, id: id, tPrior: -1, tNext: -1, tFirst: -1, tLast: -1,
			sPrior: sUndefined, sNext: sUndefined, tBirth: -1, tDeath: -1}
	}
	if d.InDom == pmapi.InDomNull {
		m.insts = []*inst{newInst(pmapi.InstNull)}
	} else {
		// The union as pmGetInDomArchive lists it: the snapshots newest
		// first, each in instance order.
		hist := meta.InDomHistory(d.InDom)
		m.byInst = map[int32]*inst{}
		var ids []int32
		for i := len(hist) - 1; i >= 0; i-- {
			ids = append(ids[:0], hist[i].Insts...)
			slices.Sort(ids)
			for _, id := range ids {
				if m.byInst[id] == nil {
					ic := newInst(id)
					m.byInst[id] = ic
					m.insts = append(m.insts, ic)
				}
			}
		}
		for i := range hist {
			if len(hist[i].Insts) >= caliperThreshold {
				m.caliper = true
			}
		}
		if m.caliper {
			ip.calipers(m, hist)
		}
	}
	// The result order: libpcp's hash table of as many buckets as
	// instances, each bucket newest first.
	n := uint32(len(m.insts))
	if n > 0 {
		buckets := make([][]*inst, n)
		for _, ic := range m.insts {
			b := uint32(ic.id) % n
			buckets[b] = append([]*inst{ic}, buckets[b]...)
		}
		for _, b := range buckets {
			m.order = append(m.order, b...)
		}
	}
	return m
}

// caliperThreshold is the instance domain size (in some snapshot) from
// which libpcp 6.0.3 limits each instance to its life.
const caliperThreshold = 16

// calipers sets each instance's life from the instance domain history
// (oldest first), as libpcp's time_caliper does: born at the first
// snapshot holding it, dead at the snapshot after the last one holding
// it (-1: it is in the last snapshot).
func (ip *Interp) calipers(m *metric, hist []archive.InDomSnapshot) {
	birth := map[int32]float64{}
	death := map[int32]float64{}
	tLater := -1.0
	for i := len(hist) - 1; i >= 0; i-- {
		t := pcptime.Sub(hist[i].Stamp, ip.start)
		for _, id := range hist[i].Insts {
			if _, ok := birth[id]; !ok {
				death[id] = tLater
			}
			birth[id] = t
		}
		tLater = t
	}
	for _, ic := range m.insts {
		if b, ok := birth[ic.id]; ok {
			ic.tBirth, ic.tDeath = b, death[ic.id]
		}
	}
}

// alive reports whether the requested time is within the instance's life
// (always, for instances of small instance domains).
func (ic *inst) alive(treq float64) bool {
	return !(ic.tBirth >= 0 && treq < ic.tBirth) && !(ic.tDeath >= 0 && treq > ic.tDeath)
}

// nan-safe conversions of a double to integers, as x86-64 does them.
func toInt32(x float64) int32 {
	if x != x || x >= 2147483648 || x <= -2147483649 {
		return math.MinInt32
	}
	return int32(x)
}

func toInt64(x float64) int64 {
	if x != x || x >= 9223372036854775808 || x < -9223372036854775808 {
		return math.MinInt64
	}
	return int64(x)
}

// toUint32 is C's (uint32_t)double on x86-64: the low 32 bits of the
// conversion to a 64-bit integer.
func toUint32(x float64) uint32 { return uint32(toInt64(x)) }

// toUint64 is C's (uint64_t)double on x86-64 as gcc compiles it.
func toUint64(x float64) uint64 {
	if x >= 9223372036854775808 {
		return uint64(toInt64(x-9223372036854775808)) ^ (1 << 63)
	}
	return uint64(toInt64(x))
}

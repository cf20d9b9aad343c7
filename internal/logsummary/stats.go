package logsummary

import (
	"encoding/binary"
	"math"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// tv is a struct timeval: the real tool keeps its times at microsecond
// precision (nanoseconds are truncated) and does its arithmetic on them.
type tv struct{ sec, usec int64 }

func tvOf(t pmapi.Timestamp) tv { return tv{t.Sec, int64(t.Nsec) / 1000} }

// minus is a-b, clipped at zero when negative (the tool's tsub).
func (a tv) minus(b tv) tv {
	r := tv{a.sec - b.sec, a.usec - b.usec}
	if r.usec < 0 {
		r.usec += 1e6
		r.sec--
	}
	if r.sec < 0 {
		return tv{}
	}
	return r
}

// plus is a+b (the tool's tadd).
func (a tv) plus(b tv) tv {
	r := tv{a.sec + b.sec, a.usec + b.usec}
	if r.usec >= 1e6 {
		r.usec -= 1e6
		r.sec++
	}
	return r
}

// real is the time in seconds, as pmtimevalToReal computes it.
func (a tv) real() float64 {
	return pcptime.ToReal(pmapi.Timestamp{Sec: a.sec, Nsec: int32(a.usec * 1000)})
}

// notBefore reports whether a >= b.
func (a tv) notBefore(b tv) bool { return a.sec > b.sec || a.sec == b.sec && a.usec >= b.usec }

// instStats accumulates one instance of one metric.
type instStats struct {
	// what every value reads or writes first, together
	inst      int32
	count     uint32
	marked    bool
	lastval   float64
	lasttime  tv
	stocave   float64 // sum for the stochastic average
	timeave   float64 // sum for the time average
	min, max  float64
	sum       float64
	firsttime tv
	mintime   tv
	maxtime   tv
	markcount int32
	bintotal  uint32 // the first pass's count, once the second pass saw the instance
	bins      binCounts
}

// binCounts counts the values of -B per bin: in a slice, or for very many
// bins (which the real tool allocates in full, however many) in a map of
// the bins in use, so that memory follows the values, not the option.
type binCounts struct {
	dense  []uint32
	sparse map[int]uint32
}

func newBinCounts(n int) binCounts {
	if n <= 1<<12 {
		return binCounts{dense: make([]uint32, n)}
	}
	return binCounts{sparse: map[int]uint32{}}
}

func (b *binCounts) inc(i int) {
	if b.dense != nil {
		b.dense[i]++
	} else {
		b.sparse[i]++
	}
}

func (b *binCounts) get(i int) uint32 {
	if b.dense != nil {
		return b.dense[i]
	}
	return b.sparse[i]
}

// metricStats accumulates one metric: its descriptor (counters with their
// units converted to a rate), the time scale of a counter, and its
// instances in the order they were first seen.
type metricStats struct {
	desc    pmapi.Desc
	scale   float64
	insts   []instStats // by value, for locality
	printed bool
}

// stats is the state of both passes.
type stats struct {
	s       *summary
	metrics map[pmapi.PMID]*metricStats // nil value: skipped (not numeric)
	order   []*metricStats
	slots   []slot // by value set position, see find
	wrap    int    // PCP_COUNTER_WRAP: -1 not looked up yet, 0 off, 1 on
}

func newStats(s *summary) *stats {
	return &stats{s: s, metrics: map[pmapi.PMID]*metricStats{}, wrap: -1}
}

// valueAt converts the value whose (inst, value) pair starts at byte vp of
// a record's raw bytes to a double as pmExtractValue does for the metric's
// type t. The record was validated when it was decoded (archive.Record),
// so the pair and its block are in range.
//
// The block must have the type's size and its type or none. libpcp turns
// a typed block to host order when it reads it; an untyped one (old
// archives) is read as it is, in the reference machine's little-endian
// order.
func valueAt(t pmapi.Type, insitu bool, raw []byte, vp int) (float64, error) {
	w := binary.BigEndian.Uint32(raw[vp+4:])
	if insitu {
		switch t {
		case pmapi.Type32:
			return float64(int32(w)), nil
		case pmapi.TypeU32:
			return float64(w), nil
		case pmapi.TypeFloat:
			return float64(math.Float32frombits(w)), nil
		}
		return 0, pmapi.ErrConv
	}
	bp := int(w)*4 - 8
	h := binary.BigEndian.Uint32(raw[bp:])
	bt, n := pmapi.Type(h>>24), int(h&0xffffff)-4
	if bt != t && bt != 0 {
		return 0, pmapi.ErrConv
	}
	b := raw[bp+4 : bp+4+n]
	var u64 uint64
	var u32 uint32
	switch {
	case n == 8 && bt == 0:
		u64 = binary.LittleEndian.Uint64(b)
	case n == 8:
		u64 = binary.BigEndian.Uint64(b)
	case n == 4 && bt == 0:
		u32 = binary.LittleEndian.Uint32(b)
	case n == 4:
		u32 = binary.BigEndian.Uint32(b)
	}
	switch t {
	case pmapi.Type64:
		if n == 8 {
			return float64(int64(u64)), nil
		}
	case pmapi.TypeU64:
		if n == 8 {
			return float64(u64), nil
		}
	case pmapi.TypeDouble:
		if n == 8 {
			return math.Float64frombits(u64), nil
		}
	case pmapi.TypeFloat:
		if n == 4 {
			return float64(math.Float32frombits(u32)), nil
		}
	}
	return 0, pmapi.ErrConv
}

// vset is one value set of a record, read from its raw bytes: the
// record's accessors, without their per-call indexing.
type vset struct {
	pmid   pmapi.PMID
	numval int32
	insitu bool
	off    int // byte offset of the first (inst, value) pair
}

// rec is a data record as the passes see it: its time and its bytes on
// disk, as archive.Record decoded and validated them (a <mark> has no
// value sets, and may have no bytes: the mark between two archives of a
// set is virtual).
type rec struct {
	stamp   pmapi.Timestamp
	version int
	mark    bool
	raw     []byte
}

func recOf(r *archive.Record) rec {
	return rec{stamp: r.Stamp, version: r.Version, mark: r.IsMark(), raw: r.Raw()}
}

// vsetWalker walks the value sets of a record in order.
type vsetWalker struct {
	raw     []byte
	p       int
	numpmid int
}

func newVsetWalker(r *rec) vsetWalker {
	p := 16 // length, sec, usec, numpmid
	if r.version == 3 {
		p = 20 // length, sec (2 words), nsec, numpmid
	}
	return vsetWalker{raw: r.raw, p: p, numpmid: int(binary.BigEndian.Uint32(r.raw[p-4:]))}
}

// next reads the next value set; the caller calls it numpmid times.
func (w *vsetWalker) next() vset {
	raw := w.raw
	v := vset{
		pmid:   pmapi.PMID(binary.BigEndian.Uint32(raw[w.p:])),
		numval: int32(binary.BigEndian.Uint32(raw[w.p+4:])),
	}
	w.p += 8
	if v.numval > 0 {
		v.insitu = int32(binary.BigEndian.Uint32(raw[w.p:])) == pmapi.ValFmtInsitu
		w.p += 4
		v.off = w.p
		w.p += 8 * int(v.numval)
	}
	return v
}

// inst is the instance of value j.
func (w *vsetWalker) inst(v *vset, j int) int32 {
	return int32(binary.BigEndian.Uint32(w.raw[v.off+8*j:]))
}

// diffCache remembers the intervals from the record's time t converted to
// seconds: within a record, the instances were last seen at a few times
// (one per logging interval), and the long double conversion is the
// costly part of the arithmetic.
type diffCache struct {
	t     tv
	last  tv // the last interval asked for, and its length
	lastD float64
	n     int // entries used
	next  int // entry to replace when full
	from  [8]tv
	d     [8]float64
}

// newDiffCache is the cache for a record's time t. Its last is a time no
// record has (microseconds from a 32-bit nanosecond field stay within
// +-2^31/1000).
func newDiffCache(t tv) diffCache {
	return diffCache{t: t, last: tv{usec: math.MinInt64}}
}

// since is t.minus(from).real() for the record's time t.
func (c *diffCache) since(from tv) float64 {
	if from == c.last && c.n > 0 {
		return c.lastD
	}
	d := c.lookup(from)
	c.last, c.lastD = from, d
	return d
}

func (c *diffCache) lookup(from tv) float64 {
	for i := 0; i < c.n; i++ {
		if c.from[i] == from {
			return c.d[i]
		}
	}
	d := c.t.minus(from).real()
	i := c.n
	if i < len(c.from) {
		c.n++
	} else {
		i = c.next
		c.next = (c.next + 1) % len(c.from)
	}
	c.from[i], c.d[i] = from, d
	return d
}

// isNumeric reports whether a metric of type t can be summarised.
func isNumeric(t pmapi.Type) bool {
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
		return true
	}
	return false
}

// unwrap adds 2^32 or 2^64 to a counter value that went down, when
// PCP_COUNTER_WRAP is set.
func (st *stats) unwrap(cur, prev float64, t pmapi.Type) float64 {
	if cur-prev >= 0 {
		return cur
	}
	if st.wrap < 0 {
		st.wrap = 0
		if st.s.counterWrap {
			st.wrap = 1
		}
	}
	if st.wrap == 1 {
		switch t {
		case pmapi.Type32, pmapi.TypeU32:
			cur += 4294967296.0
		case pmapi.Type64, pmapi.TypeU64:
			cur += 18446744073709551616.0
		}
	}
	return cur
}

// newMetric starts the statistics of a metric from its first value set.
// A value that cannot be extracted is fatal, as in the real tool.
func (st *stats) newMetric(desc pmapi.Desc, w *vsetWalker, v *vset, t tv) (*metricStats, error) {
	m := &metricStats{desc: desc}
	if desc.Sem == pmapi.SemCounter && !st.s.sumflag {
		u := &m.desc.Units
		switch {
		case u.DimTime == 0:
			m.scale = 1
		case u.ScaleTime > pmapi.TimeSec:
			m.scale = math.Pow(60, float64(pmapi.TimeSec-int(u.ScaleTime)))
		default:
			m.scale = math.Pow(1000, float64(pmapi.TimeSec-int(u.ScaleTime)))
		}
		if u.DimTime == 0 {
			u.ScaleTime = pmapi.TimeSec
		}
		u.DimTime--
	} else if desc.Sem == pmapi.SemCounter {
		m.scale = 1
	}
	for j := 0; j < int(v.numval); j++ {
		if err := st.newInst(m, w, v, j, t); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// newInst adds the instance of value j of value set vs to m.
func (st *stats) newInst(m *metricStats, w *vsetWalker, vs *vset, j int, t tv) error {
	v, err := valueAt(m.desc.Type, vs.insitu, w.raw, vs.off+8*j)
	if err != nil {
		st.s.pmidErr(m.desc.PMID, "failed to extract value: %s\n", archive.ErrText(err))
		return err
	}
	in := instStats{inst: w.inst(vs, j), lastval: v, firsttime: t, lasttime: t, mintime: t, maxtime: t}
	if st.s.nbins > 0 {
		in.bins = newBinCounts(st.s.nbins)
	}
	if m.desc.Sem != pmapi.SemCounter {
		in.min, in.max, in.sum, in.stocave, in.count = v, v, v, v, 1
	}
	m.insts = append(m.insts, in)
	return nil
}

// mark flags every instance seen so far, and extends discrete values to
// the mark.
func (st *stats) mark(t tv) {
	for _, m := range st.order {
		for k := range m.insts {
			in := &m.insts[k]
			if m.desc.Sem == pmapi.SemDiscrete {
				d := t.minus(in.lasttime).real()
				in.stocave += in.lastval
				in.timeave += in.lastval * d
				in.lasttime = t
				in.count++
			}
			in.marked = true
			in.markcount++
		}
	}
}

// lookupInst finds the instance of value j of value set v in m, as the
// real tool does: by position first, then by a search. It returns the
// index, or len(m.insts) for an instance not seen before.
func lookupInst(m *metricStats, w *vsetWalker, v *vset, j int) int {
	k := j
	if v.numval > 1 || m.desc.InDom != pmapi.InDomNull {
		id := w.inst(v, j)
		if k < len(m.insts) && m.insts[k].inst != id {
			for k = 0; k < len(m.insts); k++ {
				if m.insts[k].inst == id {
					break
				}
			}
		} else if k >= len(m.insts) {
			k = len(m.insts)
		}
	}
	return k
}

// slot caches the metric of a value set position: records usually hold
// the same metrics in the same order, so this spares the map lookup.
type slot struct {
	pmid pmapi.PMID
	m    *metricStats
	ok   bool
}

// find is st.metrics[pmid] for the value set at position i.
func (st *stats) find(i int, pmid pmapi.PMID) (*metricStats, bool) {
	if i < len(st.slots) {
		if sl := &st.slots[i]; sl.ok && sl.pmid == pmid {
			return sl.m, true
		}
	}
	m, seen := st.metrics[pmid]
	if seen && i < 1<<16 {
		for len(st.slots) <= i {
			st.slots = append(st.slots, slot{})
		}
		st.slots[i] = slot{pmid, m, true}
	}
	return m, seen
}

// average is the first pass over one record. A non-nil error is fatal.
func (st *stats) average(r *rec) error {
	t := tvOf(r.stamp)
	if r.mark {
		st.mark(t)
		return nil
	}
	w := newVsetWalker(r)
	dc := newDiffCache(t)
	for i := 0; i < w.numpmid; i++ {
		v := w.next()
		n := v.numval
		if n == 0 {
			continue
		}
		pmid := v.pmid
		if n < 0 {
			st.s.pmidErr(pmid, "failed in archive value fetch: %s\n", pmapi.Error(n).Error())
			continue
		}
		m, seen := st.find(i, pmid)
		if !seen {
			desc, ok := st.s.meta.Desc(pmid)
			if !ok {
				st.s.pmidErr(pmid, "cannot find descriptor: %s\n", pmapi.ErrPMIDLog.Error())
				continue
			}
			if !isNumeric(desc.Type) {
				st.metrics[pmid] = nil
				continue
			}
			m, err := st.newMetric(*desc, &w, &v, t)
			if err != nil {
				return err
			}
			st.metrics[pmid] = m
			st.order = append(st.order, m)
			continue
		}
		if m == nil {
			continue
		}
		if err := st.values(m, &w, &v, t, &dc); err != nil {
			return err
		}
	}
	return nil
}

// values is the first pass over value set v of a metric already seen.
func (st *stats) values(m *metricStats, w *vsetWalker, v *vset, t tv, dc *diffCache) error {
	typ := m.desc.Type
	counter := m.desc.Sem == pmapi.SemCounter
	// lookupInst, in line: by position alone for one value of a singular
	// metric
	byPos := v.numval == 1 && m.desc.InDom == pmapi.InDomNull
	raw := w.raw
	for j := 0; j < int(v.numval); j++ {
		vp := v.off + 8*j
		k := j
		if !byPos {
			id := int32(binary.BigEndian.Uint32(raw[vp:]))
			if k >= len(m.insts) {
				k = len(m.insts)
			} else if m.insts[k].inst != id {
				for k = 0; k < len(m.insts); k++ {
					if m.insts[k].inst == id {
						break
					}
				}
			}
		}
		if k == len(m.insts) {
			if err := st.newInst(m, w, v, j, t); err != nil {
				return err
			}
			continue
		}
		in := &m.insts[k]
		// valueAt, in line for the common cases: 32-bit values in the
		// pair, 64-bit ones in a block of their type
		var val float64
		word := binary.BigEndian.Uint32(raw[vp+4:])
		ok := false
		if v.insitu {
			switch typ {
			case pmapi.TypeU32:
				val, ok = float64(word), true
			case pmapi.Type32:
				val, ok = float64(int32(word)), true
			}
		} else if bp := int(word)*4 - 8; binary.BigEndian.Uint32(raw[bp:]) == uint32(typ)<<24|12 {
			u := binary.BigEndian.Uint64(raw[bp+4 : bp+12])
			switch typ {
			case pmapi.TypeU64:
				val, ok = float64(u), true
			case pmapi.Type64:
				val, ok = float64(int64(u)), true
			case pmapi.TypeDouble:
				val, ok = math.Float64frombits(u), true
			}
		}
		if !ok {
			var err error
			val, err = valueAt(typ, v.insitu, raw, vp)
			if err != nil {
				st.s.pmidErr(v.pmid, "failed to extract value: %s\n", archive.ErrText(err))
				continue
			}
		}
		if val != val {
			continue
		}
		var diff float64
		if in.lasttime == dc.last {
			diff = dc.lastD
		} else {
			diff = dc.since(in.lasttime)
		}
		if !counter {
			// instantValue, in line
			in.sum += val
			in.stocave += val
			if val < in.min {
				in.min, in.mintime = val, t
			}
			if val > in.max {
				in.max, in.maxtime = val, t
			}
			if !in.marked {
				in.timeave += in.lastval * diff
			} else {
				in.marked = false
				in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
			}
			in.count++
			in.lastval = val
			in.lasttime = t
			continue
		}
		// counterValue, in line
		diff *= m.scale
		if diff == 0 {
			continue
		}
		cur := val
		if !in.marked && !(val-in.lastval >= 0) {
			cur = st.unwrap(val, in.lastval, typ)
		}
		if in.marked || cur < in.lastval {
			in.marked = false
			in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
		} else {
			d := cur - in.lastval
			rate := d / diff
			in.stocave += rate
			in.timeave += d
			if in.count == 0 {
				in.min, in.max = rate, rate
				in.sum = d
			} else {
				if rate < in.min {
					in.min, in.mintime = rate, t
				}
				if rate > in.max {
					in.max, in.maxtime = rate, t
				}
				in.sum += d
			}
			in.count++
		}
		in.lastval = val
		in.lasttime = t
	}
	return nil
}

// findBin is the bin of val among nbins bins spanning [min, max].
func findBin(nbins int, val, min, max float64) int {
	size := (max - min) / float64(nbins)
	bound := min
	i := 0
	for ; i < nbins-1; i++ {
		next := bound + size
		if val >= bound && val <= next {
			break
		}
		bound = next
	}
	return i
}

// binning is the second pass over one record (with -B): it sorts the
// values (or rates) into bins, and replays what the first pass did to the
// counts and times.
func (st *stats) binning(r *rec) {
	t := tvOf(r.stamp)
	if r.mark {
		st.mark(t)
		return
	}
	nb := st.s.nbins
	w := newVsetWalker(r)
	dc := newDiffCache(t)
	for i := 0; i < w.numpmid; i++ {
		v := w.next()
		n := v.numval
		if n == 0 {
			continue
		}
		pmid := v.pmid
		if n < 0 {
			st.s.pmidErr(pmid, "failed in 2nd pass archive fetch: %s\n", pmapi.Error(n).Error())
			continue
		}
		m, _ := st.find(i, pmid)
		if m == nil {
			continue
		}
		for j := 0; j < int(n); j++ {
			k := lookupInst(m, &w, &v, j)
			if k == len(m.insts) {
				st.s.pmidErr(pmid, "ignoring new instance found on second pass\n")
				continue
			}
			in := &m.insts[k]
			val, err := valueAt(m.desc.Type, v.insitu, w.raw, v.off+8*j)
			if err != nil {
				st.s.pmidErr(pmid, "failed to extract value: %s\n", archive.ErrText(err))
				continue
			}
			if val != val {
				continue
			}
			if in.bintotal == 0 {
				in.bintotal = in.count
				in.lasttime, in.firsttime = t, t
				in.lastval = val
				if m.desc.Sem == pmapi.SemCounter {
					in.count = 0
				} else {
					in.count = 1
					in.bins.inc(findBin(nb, val, in.min, in.max))
				}
				continue
			}
			diff := dc.since(in.lasttime)
			counted := true
			if m.desc.Sem == pmapi.SemCounter {
				diff *= m.scale
				if diff == 0 {
					continue
				}
				cur := val
				if !in.marked {
					cur = st.unwrap(val, in.lastval, m.desc.Type)
				}
				if in.marked || cur < in.lastval {
					counted = false
					in.marked = false
					in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
				} else {
					rate := (cur - in.lastval) / diff
					in.bins.inc(findBin(nb, rate, in.min, in.max))
				}
			} else {
				in.bins.inc(findBin(nb, val, in.min, in.max))
			}
			if counted {
				in.count++
			}
			in.lastval = val
			in.lasttime = t
		}
	}
}

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
	rec     archive.Record
	wrap    int // PCP_COUNTER_WRAP: -1 not looked up yet, 0 off, 1 on
}

func newStats(s *summary) *stats {
	return &stats{s: s, metrics: map[pmapi.PMID]*metricStats{}, wrap: -1}
}

// rec is a data record as the passes see it: its time, its bytes on
// disk and its value sets, as archive.Record decoded and validated them
// (a <mark> has no value sets, and may have no bytes: the mark between
// two archives of a set is virtual).
type rec struct {
	stamp   pmapi.Timestamp
	version int
	mark    bool
	raw     []byte
	sets    []archive.VSet // the record's value sets (archive.Record.VSets)
}

func recOf(r *archive.Record) rec {
	return rec{stamp: r.Stamp, version: r.Version, mark: r.IsMark(), raw: r.Raw(), sets: r.VSets()}
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
func (st *stats) newMetric(desc pmapi.Desc, r *archive.Record, vs *archive.VSet, t tv) (*metricStats, error) {
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
	for j := 0; j < int(vs.NumVal); j++ {
		if err := st.newInst(m, r.VSetValue(vs, j), t); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// newInst adds the instance of value pv to m. (pv is passed by value, as
// are the values of the passes, so that they stay in registers.)
func (st *stats) newInst(m *metricStats, pv pmapi.Value, t tv) error {
	v, err := pv.Float64(m.desc.Type)
	if err != nil {
		st.s.pmidErr(m.desc.PMID, "failed to extract value: %s\n", archive.ErrText(err))
		return err
	}
	in := instStats{inst: pv.Inst, lastval: v, firsttime: t, lasttime: t, mintime: t, maxtime: t}
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
func lookupInst(m *metricStats, id int32, numval int32, j int) int {
	k := j
	if numval > 1 || m.desc.InDom != pmapi.InDomNull {
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

// view makes st.rec a view of r's bytes, for its values.
func (st *stats) view(r *rec) (*archive.Record, error) {
	ar := &st.rec
	return ar, ar.View(r.raw, r.version)
}

// average is the first pass over one record. A non-nil error is fatal.
func (st *stats) average(r *rec) error {
	t := tvOf(r.stamp)
	if r.mark {
		st.mark(t)
		return nil
	}
	ar, err := st.view(r)
	if err != nil {
		return err
	}
	dc := newDiffCache(t)
	for i := range r.sets {
		vs := &r.sets[i]
		n := vs.NumVal
		if n == 0 {
			continue
		}
		pmid := vs.PMID
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
			m, err := st.newMetric(*desc, ar, vs, t)
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
		if err := st.values(m, ar, vs, t, &dc); err != nil {
			return err
		}
	}
	return nil
}

// values is the first pass over value set vs of a metric already seen.
func (st *stats) values(m *metricStats, r *archive.Record, vs *archive.VSet, t tv, dc *diffCache) error {
	typ := m.desc.Type
	counter := m.desc.Sem == pmapi.SemCounter
	// lookupInst, in line: by position alone for one value of a singular
	// metric
	byPos := vs.NumVal == 1 && m.desc.InDom == pmapi.InDomNull
	var v pmapi.Value
	for j := 0; j < int(vs.NumVal); j++ {
		r.LoadValue(vs, j, &v)
		k := j
		if !byPos {
			if k >= len(m.insts) {
				k = len(m.insts)
			} else if m.insts[k].inst != v.Inst {
				for k = 0; k < len(m.insts); k++ {
					if m.insts[k].inst == v.Inst {
						break
					}
				}
			}
		}
		if k == len(m.insts) {
			if err := st.newInst(m, v, t); err != nil {
				return err
			}
			continue
		}
		in := &m.insts[k]
		// extract, in line for the common cases: 32-bit values in the
		// pair, 64-bit ones in a block of their type
		var val float64
		ok := false
		if v.Block == nil {
			switch typ {
			case pmapi.TypeU32:
				val, ok = float64(uint32(v.Insitu)), true
			case pmapi.Type32:
				val, ok = float64(v.Insitu), true
			}
		} else if v.BlockType == typ && len(v.Block) == 8 {
			u := binary.BigEndian.Uint64(v.Block)
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
			if val, err = v.Float64(typ); err != nil {
				st.s.pmidErr(vs.PMID, "failed to extract value: %s\n", archive.ErrText(err))
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
	ar, err := st.view(r)
	if err != nil {
		return
	}
	dc := newDiffCache(t)
	for i := range r.sets {
		vs := &r.sets[i]
		n := vs.NumVal
		if n == 0 {
			continue
		}
		pmid := vs.PMID
		if n < 0 {
			st.s.pmidErr(pmid, "failed in 2nd pass archive fetch: %s\n", pmapi.Error(n).Error())
			continue
		}
		m, _ := st.find(i, pmid)
		if m == nil {
			continue
		}
		var v pmapi.Value
		for j := 0; j < int(n); j++ {
			ar.LoadValue(vs, j, &v)
			k := lookupInst(m, v.Inst, n, j)
			if k == len(m.insts) {
				st.s.pmidErr(pmid, "ignoring new instance found on second pass\n")
				continue
			}
			in := &m.insts[k]
			val, err := v.Float64(m.desc.Type)
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

package logsummary

import (
	"encoding/binary"
	"math"

	"github.com/pcpkit/pcpkit/archive"
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
func (a tv) real() float64 { return toReal(a.sec, a.usec) }

// notBefore reports whether a >= b.
func (a tv) notBefore(b tv) bool { return a.sec > b.sec || a.sec == b.sec && a.usec >= b.usec }

// instStats accumulates one instance of one metric.
type instStats struct {
	inst      int32
	count     uint32
	stocave   float64 // sum for the stochastic average
	timeave   float64 // sum for the time average
	min, max  float64
	sum       float64
	lastval   float64
	firsttime tv
	lasttime  tv
	mintime   tv
	maxtime   tv
	markcount int32
	marked    bool
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
	insts   []*instStats
	printed bool
}

// stats is the state of both passes.
type stats struct {
	s       *summary
	metrics map[pmapi.PMID]*metricStats // nil value: skipped (not numeric)
	order   []*metricStats
	wrap    int // PCP_COUNTER_WRAP: -1 not looked up yet, 0 off, 1 on
}

func newStats(s *summary) *stats {
	return &stats{s: s, metrics: map[pmapi.PMID]*metricStats{}, wrap: -1}
}

// extract converts value j of value set i to a double as pmExtractValue
// does for the metric's type.
func extract(t pmapi.Type, r *archive.Record, i, j int) (float64, error) {
	v := r.Value(i, j)
	if r.ValFmt(i) == pmapi.ValFmtInsitu {
		switch t {
		case pmapi.Type32:
			return float64(v.Insitu), nil
		case pmapi.TypeU32:
			return float64(uint32(v.Insitu)), nil
		case pmapi.TypeFloat:
			return float64(math.Float32frombits(uint32(v.Insitu))), nil
		}
		return 0, pmapi.ErrConv
	}
	// The block must have the type's size and its type or none. libpcp
	// turns a typed block to host order when it reads it; an untyped one
	// (old archives) is read as it is, in the reference machine's
	// little-endian order.
	b := v.Block
	if v.BlockType != t && v.BlockType != 0 {
		return 0, pmapi.ErrConv
	}
	var order binary.ByteOrder = binary.BigEndian
	if v.BlockType == 0 {
		order = binary.LittleEndian
	}
	switch t {
	case pmapi.Type64:
		if len(b) == 8 {
			return float64(int64(order.Uint64(b))), nil
		}
	case pmapi.TypeU64:
		if len(b) == 8 {
			return float64(order.Uint64(b)), nil
		}
	case pmapi.TypeDouble:
		if len(b) == 8 {
			return math.Float64frombits(order.Uint64(b)), nil
		}
	case pmapi.TypeFloat:
		if len(b) == 4 {
			return float64(math.Float32frombits(order.Uint32(b))), nil
		}
	}
	return 0, pmapi.ErrConv
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
func (st *stats) newMetric(desc pmapi.Desc, r *archive.Record, i int, t tv) (*metricStats, error) {
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
	for j := 0; j < int(r.NumVal(i)); j++ {
		if err := st.newInst(m, r, i, j, t); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// newInst adds the instance of value j of value set i to m.
func (st *stats) newInst(m *metricStats, r *archive.Record, i, j int, t tv) error {
	v, err := extract(m.desc.Type, r, i, j)
	if err != nil {
		st.s.pmidErr(m.desc.PMID, "failed to extract value: %s\n", errText(err))
		return err
	}
	in := &instStats{inst: r.Inst(i, j), lastval: v, firsttime: t, lasttime: t, mintime: t, maxtime: t}
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
		for _, in := range m.insts {
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

// lookupInst finds the instance of value j of value set i in m, as the
// real tool does: by position first, then by a search. It returns the
// index, or len(m.insts) for an instance not seen before.
func lookupInst(m *metricStats, r *archive.Record, i, j int) int {
	k := j
	if r.NumVal(i) > 1 || m.desc.InDom != pmapi.InDomNull {
		id := r.Inst(i, j)
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

// average is the first pass over one record. A non-nil error is fatal.
func (st *stats) average(r *archive.Record) error {
	t := tvOf(r.Stamp)
	if r.IsMark() {
		st.mark(t)
		return nil
	}
	for i := 0; i < r.NumPMID(); i++ {
		n := r.NumVal(i)
		if n == 0 {
			continue
		}
		pmid := r.PMID(i)
		if n < 0 {
			st.s.pmidErr(pmid, "failed in archive value fetch: %s\n", pmapi.Error(n).Error())
			continue
		}
		m, seen := st.metrics[pmid]
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
			m, err := st.newMetric(*desc, r, i, t)
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
		for j := 0; j < int(n); j++ {
			k := lookupInst(m, r, i, j)
			if k == len(m.insts) {
				if err := st.newInst(m, r, i, j, t); err != nil {
					return err
				}
				continue
			}
			in := m.insts[k]
			v, err := extract(m.desc.Type, r, i, j)
			if err != nil {
				st.s.pmidErr(pmid, "failed to extract value: %s\n", errText(err))
				continue
			}
			if v != v {
				continue
			}
			diff := t.minus(in.lasttime).real()
			counted := true
			if m.desc.Sem == pmapi.SemCounter {
				diff *= m.scale
				if diff == 0 {
					continue
				}
				val := v
				if !in.marked {
					val = st.unwrap(v, in.lastval, m.desc.Type)
				}
				if in.marked || val < in.lastval {
					// a mark, or a counter that went down: no rate, and
					// the interval leaves the span
					counted = false
					in.marked = false
					in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
				} else {
					rate := (val - in.lastval) / diff
					in.stocave += rate
					in.timeave += val - in.lastval
					if in.count == 0 {
						in.min, in.max = rate, rate
						in.sum = val - in.lastval
					} else {
						if rate < in.min {
							in.min, in.mintime = rate, t
						}
						if rate > in.max {
							in.max, in.maxtime = rate, t
						}
						in.sum += val - in.lastval
					}
				}
			} else {
				in.sum += v
				in.stocave += v
				if v < in.min {
					in.min, in.mintime = v, t
				}
				if v > in.max {
					in.max, in.maxtime = v, t
				}
				if !in.marked {
					in.timeave += in.lastval * diff
				} else {
					in.marked = false
					in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
				}
			}
			if counted {
				in.count++
			}
			in.lastval = v
			in.lasttime = t
		}
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
func (st *stats) binning(r *archive.Record) {
	t := tvOf(r.Stamp)
	if r.IsMark() {
		st.mark(t)
		return
	}
	nb := st.s.nbins
	for i := 0; i < r.NumPMID(); i++ {
		n := r.NumVal(i)
		if n == 0 {
			continue
		}
		pmid := r.PMID(i)
		if n < 0 {
			st.s.pmidErr(pmid, "failed in 2nd pass archive fetch: %s\n", pmapi.Error(n).Error())
			continue
		}
		m := st.metrics[pmid]
		if m == nil {
			continue
		}
		for j := 0; j < int(n); j++ {
			k := lookupInst(m, r, i, j)
			if k == len(m.insts) {
				st.s.pmidErr(pmid, "ignoring new instance found on second pass\n")
				continue
			}
			in := m.insts[k]
			v, err := extract(m.desc.Type, r, i, j)
			if err != nil {
				st.s.pmidErr(pmid, "failed to extract value: %s\n", errText(err))
				continue
			}
			if v != v {
				continue
			}
			if in.bintotal == 0 {
				in.bintotal = in.count
				in.lasttime, in.firsttime = t, t
				in.lastval = v
				if m.desc.Sem == pmapi.SemCounter {
					in.count = 0
				} else {
					in.count = 1
					in.bins.inc(findBin(nb, v, in.min, in.max))
				}
				continue
			}
			diff := t.minus(in.lasttime).real()
			counted := true
			if m.desc.Sem == pmapi.SemCounter {
				diff *= m.scale
				if diff == 0 {
					continue
				}
				val := v
				if !in.marked {
					val = st.unwrap(v, in.lastval, m.desc.Type)
				}
				if in.marked || val < in.lastval {
					counted = false
					in.marked = false
					in.firsttime = in.firsttime.plus(t).minus(in.lasttime)
				} else {
					rate := (val - in.lastval) / diff
					in.bins.inc(findBin(nb, rate, in.min, in.max))
				}
			} else {
				in.bins.inc(findBin(nb, v, in.min, in.max))
			}
			if counted {
				in.count++
			}
			in.lastval = v
			in.lasttime = t
		}
	}
}

package logreduce

import (
	"errors"
	"fmt"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// The record scan (the real tool's doscan) reads the records of each
// interval: up to the interval's interpolation time, and the first one
// past it, where the next scan starts again. It depends on nothing the
// interpolation computes (the times of the intervals are the window's
// start plus multiples of the interval, as libpcp steps them), so it
// runs in a goroutine of its own, a few intervals ahead of the records
// being written; what it found is applied to the reducer's state in
// interval order, which makes the output the same as the real tool's
// sequential scans.

// scanAhead is how many intervals the scanner may run ahead.
const scanAhead = 8

// slot is an instance of a metric as the scanner numbers them.
type slot struct {
	metric int32 // index in reducer.metrics
	inst   int32
}

// instRef is an instance of a metric in the reducer's state.
type instRef struct {
	m *metric
	i int32 // in m.insts
}

// scanned is what the scan of one interval found.
type scanned struct {
	end   pmapi.Timestamp   // the interval's interpolation time
	marks []pmapi.Timestamp // <mark>s read, to be copied to the output
	added []slot            // slots numbered in this scan, in order
	seen  []int32           // the slots seen, each once
	err   error
}

// scanner reads the records for the scans.
type scanner struct {
	raw      *replay.Context
	metricOf map[pmapi.PMID]int32 // -1 for skipped metrics
	// atPos caches metricOf by the position of a value set in its
	// record (records mostly have one shape)
	atPos []posMetric
	slots []instMap // per metric: the slot of each instance
	gen   []uint32  // per slot: the last scan that saw it (1-based)
	scans uint32
	last  pmapi.Timestamp // where the next scan starts

	out  chan *scanned
	free chan *scanned
	done chan struct{}
	exit chan struct{}
}

func newScanner(raw *replay.Context, metrics []*metric, byPMID map[pmapi.PMID]*metric) *scanner {
	sc := &scanner{
		raw:      raw,
		metricOf: make(map[pmapi.PMID]int32, len(byPMID)),
		slots:    make([]instMap, len(metrics)),
		out:      make(chan *scanned, scanAhead),
		free:     make(chan *scanned, scanAhead+2),
		done:     make(chan struct{}),
		exit:     make(chan struct{}),
	}
	for p, m := range byPMID {
		if m.skip {
			sc.metricOf[p] = -1
		}
	}
	for i, m := range metrics {
		sc.metricOf[m.pmid] = int32(i)
	}
	return sc
}

// run scans the intervals ending at start and every delta after it,
// until stop is called or a scan fails.
func (sc *scanner) run(start pmapi.Timestamp, delta int64) {
	defer close(sc.exit)
	end := start
	for {
		var s *scanned
		select {
		case s = <-sc.free:
		default:
			s = &scanned{}
		}
		s.end = end
		s.marks, s.added, s.seen, s.err = s.marks[:0], s.added[:0], s.seen[:0], nil
		sc.scan(s)
		select {
		case sc.out <- s:
		case <-sc.done:
			return
		}
		if s.err != nil {
			return
		}
		end = interp.AddDelta(end, delta)
	}
}

// stop ends run and waits for it.
func (sc *scanner) stop() {
	close(sc.done)
	<-sc.exit
}

// next is the scan of the next interval, whose time must be end.
func (sc *scanner) next(end pmapi.Timestamp) *scanned {
	s := <-sc.out
	if s.end != end && s.err == nil {
		s.err = fmt.Errorf("scan of the interval at %d.%09d out of step with the interpolation at %d.%09d", s.end.Sec, s.end.Nsec, end.Sec, end.Nsec)
	}
	return s
}

// release gives s back for another scan.
func (sc *scanner) release(s *scanned) {
	select {
	case sc.free <- s:
	default:
	}
}

// scan reads the records up to s.end and the first one past it, as the
// real tool's doscan does: it notes the instances seen and the <mark>s
// (the one past the end too).
func (sc *scanner) scan(s *scanned) {
	sc.scans++
	for {
		rec, err := sc.raw.FetchRecord()
		if errors.Is(err, pmapi.ErrEOL) {
			break
		}
		if err != nil {
			s.err = fatalf("%s: doscan: Error: pmFetch failed: %s\n", prog, archive.ErrText(err))
			return
		}
		if rec.IsMark() {
			s.marks = append(s.marks, rec.Stamp)
		}
		if s.end.Before(rec.Stamp) {
			sc.last = rec.Stamp
			break
		}
		for k := 0; k < rec.NumPMID(); k++ {
			n := int(rec.NumVal(k))
			if n <= 0 {
				continue
			}
			mi, ok := sc.metric(k, rec.PMID(k))
			if !ok {
				s.err = fatalf("%s: scan: Arrgh, cannot find pid %s in pidlist[]\n", prog, rec.PMID(k))
				return
			}
			if mi < 0 {
				continue
			}
			vs := rec.VSet(k)
			for j := 0; j < n; j++ {
				id := sc.slot(s, mi, rec.VSetInst(vs, j))
				if sc.gen[id] != sc.scans {
					sc.gen[id] = sc.scans
					s.seen = append(s.seen, id)
				}
			}
		}
	}
	if err := sc.raw.SetMode(replay.Forw, sc.last, 0); err != nil {
		s.err = fatalf("%s: doscan: Error: pmSetMode (ictx_b) failed: %s\n", prog, archive.ErrText(err))
	}
}

// posMetric is the metric (metricOf) of the PMID last met at a
// position.
type posMetric struct {
	pmid pmapi.PMID
	mi   int32
	ok   bool
}

// metric is metricOf[pmid] for the value set at position k of a record.
func (sc *scanner) metric(k int, pmid pmapi.PMID) (int32, bool) {
	if k < len(sc.atPos) && sc.atPos[k].ok && sc.atPos[k].pmid == pmid {
		return sc.atPos[k].mi, true
	}
	mi, ok := sc.metricOf[pmid]
	if !ok {
		return 0, false
	}
	for len(sc.atPos) <= k {
		sc.atPos = append(sc.atPos, posMetric{})
	}
	sc.atPos[k] = posMetric{pmid, mi, true}
	return mi, true
}

// slot is the number of instance inst of metric mi, a new one (noted in
// s.added) for an instance not met before.
func (sc *scanner) slot(s *scanned, mi, inst int32) int32 {
	if id, ok := sc.slots[mi].get(inst); ok {
		return id
	}
	id := int32(len(sc.gen))
	sc.gen = append(sc.gen, 0)
	s.added = append(s.added, slot{mi, inst})
	sc.slots[mi].set(inst, id)
	return id
}

// instMap maps the instances of a metric to numbers: by position for
// the small instance numbers (most, and PM_IN_NULL), by a map for the
// others. The zero instMap is empty.
type instMap struct {
	dense []int32 // number+1 by instance+1; 0: none
	big   map[int32]int32
}

// maxDenseInst bounds the instances an instMap holds by position.
const maxDenseInst = 1 << 12

func (im *instMap) get(inst int32) (int32, bool) {
	if inst >= -1 && inst < maxDenseInst {
		if k := int(inst) + 1; k < len(im.dense) && im.dense[k] != 0 {
			return im.dense[k] - 1, true
		}
		return 0, false
	}
	n, ok := im.big[inst]
	return n, ok
}

func (im *instMap) set(inst, n int32) {
	if inst >= -1 && inst < maxDenseInst {
		k := int(inst) + 1
		for len(im.dense) <= k {
			im.dense = append(im.dense, 0)
		}
		im.dense[k] = n + 1
		return
	}
	if im.big == nil {
		im.big = map[int32]int32{}
	}
	im.big[inst] = n
}

// scan applies the scan of the interval at end: the <mark>s go to the
// output, and the instances seen are marked so.
func (r *reducer) scan(sc *scanner, end pmapi.Timestamp) error {
	s := sc.next(end)
	defer sc.release(s)
	for _, t := range s.marks {
		if err := r.w.PutMark(t); err != nil {
			return fatalf("%s: Error: __pmLogWriteMark v%d: %s\n", prog, r.w.Version(), archive.ErrText(err))
		}
	}
	if s.err != nil {
		return s.err
	}
	for _, m := range r.metrics {
		for i := range m.insts {
			m.insts[i].seen = false
		}
	}
	for _, a := range s.added {
		m := r.metrics[a.metric]
		m.index.set(a.inst, int32(len(m.insts)))
		m.insts = append(m.insts, instState{inst: a.inst, init: true})
		r.slots = append(r.slots, instRef{m, int32(len(m.insts) - 1)})
	}
	for _, id := range s.seen {
		ref := r.slots[id]
		ref.m.insts[ref.i].seen = true
	}
	return nil
}

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
	slotOf   map[slot]int32
	gen      []uint32 // per slot: the last scan that saw it (1-based)
	scans    uint32
	last     pmapi.Timestamp // where the next scan starts

	out  chan *scanned
	free chan *scanned
	done chan struct{}
	exit chan struct{}
}

func newScanner(raw *replay.Context, metrics []*metric, byPMID map[pmapi.PMID]*metric) *scanner {
	sc := &scanner{
		raw:      raw,
		metricOf: make(map[pmapi.PMID]int32, len(byPMID)),
		slotOf:   map[slot]int32{},
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
			mi, ok := sc.metricOf[rec.PMID(k)]
			if !ok {
				s.err = fatalf("%s: scan: Arrgh, cannot find pid %s in pidlist[]\n", prog, rec.PMID(k))
				return
			}
			if mi < 0 {
				continue
			}
			for j := 0; j < n; j++ {
				key := slot{mi, rec.Inst(k, j)}
				id, ok := sc.slotOf[key]
				if !ok {
					id = int32(len(sc.gen))
					sc.slotOf[key] = id
					sc.gen = append(sc.gen, 0)
					s.added = append(s.added, key)
				}
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
		m.index[a.inst] = int32(len(m.insts))
		m.insts = append(m.insts, instState{inst: a.inst, init: true})
		r.slots = append(r.slots, instRef{m, int32(len(m.insts) - 1)})
	}
	for _, id := range s.seen {
		ref := r.slots[id]
		ref.m.insts[ref.i].seen = true
	}
	return nil
}

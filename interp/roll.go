package interp

import (
	"errors"
	"io"
	"math"
	"os"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Rereader is a Source that can read a record again by its Handle,
// without moving its read position. Interpolation uses it to pass over
// records it may not need: rolling forwards, it notes where the records
// are and reads back from the last one only as far as it must.
type Rereader interface {
	// Reread reads the record at h into r; false if it cannot.
	Reread(h Handle, r *Record) bool
}

// pending is a record passed over by a forward roll, to be taken in later.
type pending struct {
	t float64
	h Handle
}

// roll reads in the direction of the delta up to the requested time.
//
// The records met are taken in as update would take them in one by one,
// but lazily (see pass): a run of ordinary records with strictly
// increasing times before treq leaves each instance with the value of
// the last record of the run that holds it (each take replaces the prior,
// and none touches the next), so the run is only noted, and then read
// back from its end, taking in for each instance only its last value
// (collapse).
func (ip *Interp) roll(treq float64, seenMark *bool) error {
	rr := ip.rereader(treq)
	if rr == nil {
		return ip.rollEach(treq, seenMark)
	}
	for {
		r, err := ip.src.Read(ip.forw())
		if err != nil {
			if cerr := ip.collapse(rr, treq); cerr != nil {
				return cerr
			}
			if !errors.Is(err, io.EOF) {
				return err
			}
			return nil
		}
		t := ip.t(r)
		if ip.forw() && t > treq || !ip.forw() && t < treq {
			return ip.collapse(rr, treq)
		}
		ip.src.SaveOffset()
		if debug {
			debugf("roll to %.6f mark=%v\n", t, r.IsMark())
		}
		if r, err = ip.pass(rr, r, t, treq); err != nil {
			return err
		}
		if r == nil {
			continue
		}
		if err := ip.update(treq, t, r, ip.dirUpd(), nil, seenMark); err != nil {
			return err
		}
	}
}

// rereader returns the source as a Rereader if records may be passed over
// lazily in this fetch: it can read them again, and no instance has a
// prior at or after treq (a take may then move it to the next, and the
// searches look at the next between the takes).
func (ip *Interp) rereader(treq float64) Rereader {
	rr, ok := ip.src.(Rereader)
	if !ok || noLazy {
		return nil
	}
	if ip.priorHi >= treq {
		// (most often not: the priors are before the time asked for)
		hi := math.Inf(-1)
		for _, m := range ip.mlist {
			for _, ic := range m.insts {
				hi = max(hi, ic.tPrior)
			}
		}
		if ip.priorHi = hi; hi >= treq {
			return nil
		}
	}
	ip.pend = ip.pend[:0]
	ip.lastT = math.Inf(-1)
	return rr
}

// noLazy turns the lazy reading off (PCPKIT_INTERP_EAGER=1), to compare.
var noLazy = os.Getenv("PCPKIT_INTERP_EAGER") != ""

// pass takes r, just read at t: an ordinary record before treq, later
// than every record before it in this read, that can be read again is
// noted in the run and pass returns nil; for anything else the run is
// taken in first (collapse), and pass returns the record for the caller
// to take in, read again if the collapse moved what it points into.
func (ip *Interp) pass(rr Rereader, r *Record, t, treq float64) (*Record, error) {
	if rr == nil {
		return r, nil
	}
	later := t > ip.lastT
	ip.lastT = math.Max(ip.lastT, t)
	if r.Handle.OK && !r.IsMark() && t < treq && later {
		ip.pend = append(ip.pend, pending{t, r.Handle})
		return nil, nil
	}
	if len(ip.pend) == 0 {
		return r, nil
	}
	h := r.Handle
	if err := ip.collapse(rr, treq); err != nil {
		return nil, err
	}
	if !r.IsMark() && h.OK {
		if !rr.Reread(h, &ip.reread) {
			return nil, errReread
		}
		return &ip.reread, nil
	}
	return r, nil
}

// rollEach is roll taking in every record as it is read.
func (ip *Interp) rollEach(treq float64, seenMark *bool) error {
	for {
		r, err := ip.src.Read(ip.forw())
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			return nil
		}
		t := ip.t(r)
		if ip.forw() && t > treq || !ip.forw() && t < treq {
			return nil
		}
		ip.src.SaveOffset()
		if debug {
			debugf("roll to %.6f mark=%v\n", t, r.IsMark())
		}
		if err := ip.update(treq, t, r, ip.dirUpd(), nil, seenMark); err != nil {
			return err
		}
	}
}

// errReread: a record read a moment ago could not be read again (the
// archive changed under us).
var errReread = errors.New("interp: a record could not be read again")

// collapse takes in the noted run (strictly increasing times, all before
// treq, no <mark>s) from its end backwards, each instance of each metric
// asked for only from the last record holding it; it stops when every
// instance has been given a value.
func (ip *Interp) collapse(rr Rereader, treq float64) error {
	if len(ip.pend) == 0 {
		return nil
	}
	defer func() { ip.pend = ip.pend[:0] }()
	ip.epoch++
	left := 0
	for _, m := range ip.mlist {
		left += len(m.insts)
	}
	r := &ip.reread
	var v pmapi.Value
	for i := len(ip.pend) - 1; i >= 0 && left > 0; i-- {
		p := ip.pend[i]
		if !rr.Reread(p.h, r) {
			return errReread
		}
		// The value sets are scanned only as far as the last metric
		// asked for (one value set each, as pmlogger writes them).
		ip.recall(r)
		found := 0
		for h := 0; found < len(ip.metrics); h++ {
			if h >= len(r.hits) && !r.scan(ip, true) {
				if !r.sound {
					return pmapi.ErrLogRec
				}
				break
			}
			m, vs := r.hits[h].m, &r.hits[h].vs
			found++
			if err := m.checkFmt(r, vs); err != nil {
				return err
			}
			nv := int(vs.NumVal)
			if len(m.insts) == 0 || nv <= 0 {
				continue
			}
			if m.byInst == nil {
				if ic := m.insts[0]; ic.settled != ip.epoch {
					ic.settled = ip.epoch
					left--
					r.value(vs, 0, &v)
					ip.take(ic, treq, p.t, &v, updForw, nil)
				}
				continue
			}
			// The last of the same instance in one value set wins.
			for j := nv - 1; j >= 0; j-- {
				ic := m.instOf(j, r.inst(vs, j))
				if ic == nil || ic.settled == ip.epoch {
					continue
				}
				ic.settled = ip.epoch
				left--
				r.value(vs, j, &v)
				ip.take(ic, treq, p.t, &v, updForw, nil)
			}
		}
	}
	return nil
}

package pmlogger

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pcpkit/pcpkit/internal/logctl"
	"github.com/pcpkit/pcpkit/pmapi"
)

// controlHandler answers the pmlc control port (logctl): each request
// runs in the loop (inLoop), between samples.
type controlHandler struct{ l *Logger }

var _ logctl.Handler = controlHandler{}

func (h controlHandler) Status() logctl.Status {
	st := logctl.Status{Now: time.Now()}
	h.l.inLoop(func() { st = h.l.status() })
	return st
}

func (h controlHandler) NewVolume() (int, error) {
	vol, err := 0, errLoopEnded
	h.l.inLoop(func() {
		err = h.l.newVolume("pmlc request")
		vol = h.l.w.Volume()
	})
	return vol, err
}

func (h controlHandler) Sync() error {
	err := errLoopEnded
	h.l.inLoop(func() { err = h.l.w.Flush() })
	return err
}

func (h controlHandler) Query(pmids []pmapi.PMID, insts [][]int32) []logctl.MetricState {
	var out []logctl.MetricState
	if !h.l.inLoop(func() { out = h.l.query(pmids, insts) }) {
		out = make([]logctl.MetricState, len(pmids))
		for i, p := range pmids {
			out[i] = logctl.MetricState{PMID: p, Err: errLoopEnded}
		}
	}
	return out
}

var errLoopEnded = fmt.Errorf("pmlogger: the recording has ended")

// openControl opens the control port before the prologue, which logs
// its number. Only a second primary logger is an error (the real tool
// stops); any other failure is a line in the log.
func (l *Logger) openControl(absArchive string) error {
	if l.o.Control == nil {
		return nil
	}
	cfg := *l.o.Control
	cfg.PID = os.Getpid()
	cfg.Archive = absArchive
	srv, err := logctl.Listen(cfg, controlHandler{l})
	var pe *logctl.PrimaryExistsError
	if errors.As(err, &pe) {
		return err
	}
	if err != nil {
		fmt.Fprintf(l.log, "pmlogger: no control port for pmlc: %v\n", err)
		return nil
	}
	l.ctl = srv
	l.o.Port = uint32(srv.Port())
	go srv.Serve()
	return nil
}

// closeControl closes the port and removes its map file: after the
// archive is closed, as the real tool does (its QA takes the map
// file's removal for the archive's completion).
func (l *Logger) closeControl() {
	l.endCalls()
	if l.ctl != nil {
		l.ctl.Close()
		l.ctl = nil
	}
}

// status is the recording's state for a status request.
func (l *Logger) status() logctl.Status {
	lab := l.w.Label()
	_, data := l.w.Offsets()
	st := logctl.Status{
		Start:    time.Unix(lab.Start.Sec, int64(lab.Start.Nsec)),
		Now:      time.Now(),
		Volume:   l.w.Volume(),
		Size:     data,
		PMCDHost: lab.Hostname,
		FQDN:     lab.Hostname,
		TZ:       lab.TZ,
		LoggerTZ: lab.TZ,
	}
	if tz := os.Getenv("TZ"); tz != "" {
		st.LoggerTZ = tz
	}
	if l.haveStamp {
		st.Last = time.Unix(l.lastStamp.Sec, int64(l.lastStamp.Nsec))
	}
	return st
}

// query reports how each PMID is logged: the configuration's control
// table (Options.LogStates) with, for a metric logged with all its
// instances, the instances of its last value set.
func (l *Logger) query(pmids []pmapi.PMID, asked [][]int32) []logctl.MetricState {
	states := l.o.LogStates
	if states == nil {
		for _, g := range l.groups {
			for _, fg := range g.fetches {
				for _, ms := range fg.state {
					states = append(states, LogState{PMID: ms.m.PMID, Mandatory: true, On: true, Interval: g.Interval, Insts: ms.m.Insts})
				}
			}
		}
	}
	out := make([]logctl.MetricState, len(pmids))
	for i, p := range pmids {
		out[i].PMID = p
		logged, singular := l.loggedInsts(p)
		var want []int32
		if i < len(asked) {
			want = asked[i]
		}
		for _, s := range states {
			if s.PMID != p {
				continue
			}
			insts := s.Insts
			if insts == nil {
				insts = logged
				if singular {
					insts = []int32{-1}
				} else if len(insts) == 0 {
					insts = l.currentInsts(p)
				}
			}
			for _, inst := range insts {
				if len(want) > 0 && !containsInst(want, inst) {
					continue
				}
				in := containsInst(logged, inst) || (singular && inst == -1)
				out[i].Insts = append(out[i].Insts, logctl.InstState{
					Inst: inst, Mandatory: s.Mandatory, On: s.On, Maybe: s.Maybe,
					InLog: in, Available: in, Interval: s.Interval,
				})
			}
		}
		if len(out[i].Insts) == 0 {
			// Not logged: as the real tool, pmcd's instances, each
			// "adv off" (the zero state).
			for _, inst := range l.currentInsts(p) {
				if len(want) == 0 || containsInst(want, inst) {
					out[i].Insts = append(out[i].Insts, logctl.InstState{Inst: inst})
				}
			}
		}
	}
	return out
}

// currentInsts returns the instances the source has now for p ([-1]
// for a metric without instances; nil when the source cannot say).
func (l *Logger) currentInsts(p pmapi.PMID) []int32 {
	if l.disconnected {
		return nil
	}
	d, err := l.src.Desc(p)
	if err != nil {
		return nil
	}
	if d.InDom == pmapi.InDomNull {
		return []int32{-1}
	}
	insts, _, err := l.src.InDom(d.InDom)
	if err != nil {
		return nil
	}
	return insts
}

// loggedInsts returns the instances of p's last logged value set and
// whether p has no instance domain.
func (l *Logger) loggedInsts(p pmapi.PMID) (insts []int32, singular bool) {
	for _, g := range l.groups {
		for _, fg := range g.fetches {
			for _, ms := range fg.state {
				if ms.m.PMID != p {
					continue
				}
				if ms.m.Desc.InDom == pmapi.InDomNull {
					return nil, true
				}
				insts = append(insts, ms.lastInsts...)
			}
		}
	}
	return insts, false
}

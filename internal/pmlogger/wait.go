package pmlogger

import (
	"os"
	"time"
)

// waiter is how the logger's loop waits for the next thing to do: a
// time, or a signal.
type waiter interface {
	// wait returns after d (d < 0: only for a signal), or sooner with a
	// signal that came (ok true). It may return early with neither: the
	// caller looks at the clock again.
	wait(d time.Duration) (sig os.Signal, ok bool)
	// pending returns a signal that came, without waiting.
	pending() (sig os.Signal, ok bool)
	// kick ends the wait in progress, or the next one, early (with
	// neither a signal nor the time): another goroutine has work for
	// the loop (a pmlc request). Safe for concurrent use.
	kick()
	// close releases what the waiter holds.
	close()
}

// timerWaiter waits on a Go timer and the signal channel: the waiter
// for any clock (tests give the logger their own) and any system.
type timerWaiter struct {
	sigs  <-chan os.Signal
	timer *time.Timer
	kicks chan struct{}
}

func newTimerWaiter(sigs <-chan os.Signal) *timerWaiter {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerWaiter{sigs: sigs, timer: t, kicks: make(chan struct{}, 1)}
}

func (w *timerWaiter) wait(d time.Duration) (os.Signal, bool) {
	var tc <-chan time.Time
	if d >= 0 {
		w.timer.Reset(d)
		tc = w.timer.C
	}
	select {
	case sig := <-w.sigs:
		w.timer.Stop()
		return sig, true
	case <-tc:
		return nil, false
	case <-w.kicks:
		w.timer.Stop()
		return nil, false
	}
}

func (w *timerWaiter) kick() {
	select {
	case w.kicks <- struct{}{}:
	default: // a kick is already pending
	}
}

func (w *timerWaiter) pending() (os.Signal, bool) { return pendingSignal(w.sigs) }

func (w *timerWaiter) close() { w.timer.Stop() }

// pendingSignal returns a signal that is already there, without waiting.
func pendingSignal(sigs <-chan os.Signal) (os.Signal, bool) {
	select {
	case sig := <-sigs:
		return sig, true
	default:
		return nil, false
	}
}

package pmlogger

// Work from other goroutines (the pmlc control port's) runs in the
// loop's goroutine, between samples: the archive writer and the
// engine's state belong to the loop. A caller queues a function and
// kicks the waiter; the loop runs what is queued at the top of each
// turn.

// loopCall is a function queued for the loop.
type loopCall struct {
	fn   func()
	done chan struct{}
}

// inLoop runs fn in the loop's goroutine and waits for it. It reports
// false, without running fn, when the loop has ended. Calls are not
// concurrent: the control port serialises them.
func (l *Logger) inLoop(fn func()) bool {
	c := &loopCall{fn: fn, done: make(chan struct{})}
	select {
	case l.calls <- c:
	case <-l.loopDone:
		return false
	}
	// Queued before the kick: a kick that is lost (waiter.kick) still
	// finds its work queued.
	l.wtMu.Lock()
	if l.wt != nil {
		l.wt.kick()
	}
	l.wtMu.Unlock()
	select {
	case <-c.done:
		return true
	case <-l.loopDone:
		select {
		case <-c.done:
			return true
		default:
			return false
		}
	}
}

// runCalls runs the queued function, if any, after settling the sample
// in flight (the caller sees the archive as it would be without
// deferral). The error is settle's.
func (l *Logger) runCalls() error {
	select {
	case c := <-l.calls:
		err := l.settle()
		c.fn()
		close(c.done)
		return err
	default:
		return nil
	}
}

// setWaiter makes w the waiter that inLoop kicks (nil: none).
func (l *Logger) setWaiter(w waiter) {
	l.wtMu.Lock()
	l.wt = w
	l.wtMu.Unlock()
}

// endCalls makes inLoop fail from now on; the loop is over.
func (l *Logger) endCalls() {
	l.endOnce.Do(func() { close(l.loopDone) })
}

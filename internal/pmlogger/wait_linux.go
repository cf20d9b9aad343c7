package pmlogger

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// fdWaiter waits on a timerfd in Go's network poller. Between samples
// the goroutine is parked and the runtime's only thread sleeps in
// epoll_pwait until the timer fires: one wake-up per sample, at the
// nanosecond the timer was set for. The other waits cost more at short
// intervals (docs/benchmarks.md, section "pmlogger"): a Go timer wakes
// epoll_pwait with a timeout in whole milliseconds (a 9.8 ms wait is two
// wake-ups); a clock_nanosleep that keeps the goroutine's P keeps the
// runtime's sysmon thread awake, polling every 10 ms.
//
// sysmon sleeps for as long as every P is idle and no system call goes
// through the runtime's entersyscall: that is why the timer is set (it
// is never read), and the pmcd client and the archive writer make their
// system calls, with syscall.RawSyscall.
//
// Signals arrive on the channel the logger was given; a goroutine
// forwards them and fires the timer, so that a wait ends at once.
type fdWaiter struct {
	fd   int
	f    *os.File
	rc   syscall.RawConn
	got  chan os.Signal
	done chan struct{}
	its  itimerspec
	// armed: this wait's timer is set (onReadable).
	armed    bool
	armErr   error
	until    time.Time // the wait's end, unless forever
	forever  bool
	callback func(fd uintptr) bool // w.onReadable, made once
	// kicked: kick was called since the last wait began.
	kicked atomic.Bool
}

type itimerspec struct {
	interval, value syscall.Timespec
}

const (
	tfdNonblock = syscall.O_NONBLOCK
	tfdCloexec  = syscall.O_CLOEXEC
)

// newWaiter returns the Linux waiter, or a timerWaiter when a timerfd
// cannot be had.
func newWaiter(sigs <-chan os.Signal) waiter {
	fd, _, e := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, 1 /* CLOCK_MONOTONIC */, tfdNonblock|tfdCloexec, 0)
	if e != 0 {
		return newTimerWaiter(sigs)
	}
	f := os.NewFile(fd, "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return newTimerWaiter(sigs)
	}
	w := &fdWaiter{fd: int(fd), f: f, rc: rc, got: make(chan os.Signal, 16), done: make(chan struct{})}
	w.callback = w.onReadable
	go w.forward(sigs)
	return w
}

// onReadable is the RawConn.Read callback: it sets the timer, and ends
// the wait when a signal is there or the time has come.
//
// The timer is set in the callback, after RawConn.Read has reset the
// descriptor's readiness: set before, its expiry could be seen by the
// poller and then forgotten, and the wait would never end. The expiry
// count is never read: setting the timer clears it, and each expiry is
// a new event for the poller (edge-triggered). A wake-up before the
// time (the forwarder fired the timer for a signal that pending has
// since taken) sets the timer again for the rest.
func (w *fdWaiter) onReadable(fd uintptr) bool {
	if len(w.got) > 0 || w.kicked.Load() {
		return true
	}
	if w.armed {
		if w.forever {
			w.its.value = syscall.Timespec{}
		} else {
			d := time.Until(w.until)
			if d <= 0 {
				return true
			}
			w.its.value = syscall.NsecToTimespec(int64(d))
		}
	}
	w.armed = true
	_, _, e := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&w.its)), 0, 0, 0)
	if e != 0 {
		w.armErr = e
		return true
	}
	// A signal forwarded (or a kick) before the timer was set did not
	// fire it.
	return len(w.got) > 0 || w.kicked.Load()
}

// forward passes signals on and ends the wait in progress.
func (w *fdWaiter) forward(sigs <-chan os.Signal) {
	for {
		select {
		case sig := <-sigs:
			select {
			case w.got <- sig:
			default: // more than 16 pending: the logger is stopping anyway
			}
			var its itimerspec
			its.value.Nsec = 1
			syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(w.fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
		case <-w.done:
			return
		}
	}
}

func (w *fdWaiter) wait(d time.Duration) (os.Signal, bool) {
	if sig, ok := pendingSignal(w.got); ok {
		return sig, true
	}
	if w.kicked.Swap(false) {
		return nil, false
	}
	w.its.value = syscall.Timespec{}
	w.forever = d < 0
	if d >= 0 {
		if d == 0 {
			d = 1 // a zero it_value disarms the timer
		}
		// The timer is set after this: it expires after until.
		w.until = time.Now().Add(d)
		w.its.value = syscall.NsecToTimespec(int64(d))
	}
	w.armed, w.armErr = false, nil
	err := w.rc.Read(w.callback)
	// A kick that ended this wait is used up. (One that comes after it
	// is lost, harmlessly: its sender queued its work before kicking,
	// and the loop looks at the queue before it waits again.)
	w.kicked.Store(false)
	if err != nil || w.armErr != nil {
		// Cannot happen with a live descriptor; wait the plain way.
		return newTimerWaiter(w.got).wait(d)
	}
	return pendingSignal(w.got)
}

func (w *fdWaiter) pending() (os.Signal, bool) { return pendingSignal(w.got) }

// kick fires the timer, as the forwarder does for a signal; the flag
// makes the wait end (onReadable) rather than set the timer again.
func (w *fdWaiter) kick() {
	w.kicked.Store(true)
	var its itimerspec
	its.value.Nsec = 1
	syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(w.fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

func (w *fdWaiter) close() {
	close(w.done)
	w.f.Close()
}

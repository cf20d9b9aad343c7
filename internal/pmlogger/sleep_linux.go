package pmlogger

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// holdSleepMax is the longest wait between samples that sleepHolding is
// used for: the runtime's scheduling slice (sysmon preempts a goroutine
// that has held its P for 10 ms), so that sysmon never interrupts it.
const holdSleepMax = 10 * time.Millisecond

// sleepHolding sleeps d in one clock_nanosleep without giving up the
// goroutine's P. A Go timer would park the goroutine, wake the thread
// from epoll_pwait, whose timeout is in whole milliseconds (so a 9.8 ms
// wait is two wake-ups), and wake the sysmon thread with it; at a 10 ms
// interval those wake-ups cost more CPU than the sample
// (docs/benchmarks.md, section "pmlogger"). A signal interrupts the
// sleep (EINTR): the goroutine yields, so that os/signal's goroutine
// runs, and sleeps the rest.
func sleepHolding(d time.Duration) {
	until := time.Now().Add(d)
	for d > 0 {
		ts := syscall.NsecToTimespec(int64(d))
		_, _, e := syscall.RawSyscall6(syscall.SYS_CLOCK_NANOSLEEP, 1 /* CLOCK_MONOTONIC */, 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e == 0 {
			return
		}
		runtime.Gosched()
		d = time.Until(until)
	}
}

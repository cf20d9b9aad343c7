package pmlogger

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestWaiters: both waiters wait as long as asked, not less; a signal
// ends a wait at once, including one with no time limit; a signal sent
// before the wait is returned without waiting; and the waiter is
// reusable after each.
func TestWaiters(t *testing.T) {
	kinds := []struct {
		name string
		make func(<-chan os.Signal) waiter
	}{
		{"system", newWaiter},
		{"timer", func(s <-chan os.Signal) waiter { return newTimerWaiter(s) }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 4)
			w := k.make(sigs)
			defer w.close()
			for _, d := range []time.Duration{0, time.Millisecond, 7 * time.Millisecond, 25 * time.Millisecond} {
				start := time.Now()
				sig, ok := w.wait(d)
				if el := time.Since(start); ok || el < d || el > d+2*time.Second {
					t.Errorf("wait(%v): %v %v after %v", d, sig, ok, el)
				}
			}
			for _, d := range []time.Duration{time.Hour, -1} {
				go func() { time.Sleep(30 * time.Millisecond); sigs <- syscall.SIGHUP }()
				start := time.Now()
				sig, ok := w.wait(d)
				if el := time.Since(start); !ok || sig != syscall.SIGHUP || el > 5*time.Second {
					t.Errorf("wait(%v) with a SIGHUP after 30ms: %v %v after %v", d, sig, ok, el)
				}
			}
			sigs <- syscall.SIGTERM
			// The system waiter hears of it through its forwarder.
			deadline := time.Now().Add(5 * time.Second)
			var sig os.Signal
			var ok bool
			for !ok && time.Now().Before(deadline) {
				sig, ok = w.wait(10 * time.Millisecond)
			}
			if !ok || sig != syscall.SIGTERM {
				t.Errorf("a SIGTERM sent before waiting: %v %v", sig, ok)
			}
			if sig, ok := w.pending(); ok {
				t.Errorf("pending after every signal was taken: %v", sig)
			}
			sigs <- syscall.SIGINT
			for ok = false; !ok && time.Now().Before(deadline); {
				sig, ok = w.pending()
			}
			if !ok || sig != syscall.SIGINT {
				t.Errorf("pending SIGINT: %v %v", sig, ok)
			}
			// The forwarder may still fire the timer for the SIGINT
			// taken above: the wait sets it again and waits its time.
			for i := 0; i < 3; i++ {
				start := time.Now()
				if sig, ok := w.wait(5 * time.Millisecond); ok || time.Since(start) < 5*time.Millisecond {
					t.Errorf("wait %d after the signals: %v %v after %v", i, sig, ok, time.Since(start))
				}
			}
		})
	}
}

// TestWaiterKick: a kick ends a wait in progress (with no time limit
// too) without a signal, a kick before the wait ends the next wait at
// once, and the waiter then waits its full time again.
func TestWaiterKick(t *testing.T) {
	kinds := []struct {
		name string
		make func(<-chan os.Signal) waiter
	}{
		{"system", newWaiter},
		{"timer", func(s <-chan os.Signal) waiter { return newTimerWaiter(s) }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			w := k.make(make(chan os.Signal))
			defer w.close()
			for i := 0; i < 50; i++ {
				d := []time.Duration{time.Hour, -1}[i%2]
				kicked := make(chan struct{})
				go func() { time.Sleep(time.Millisecond); w.kick(); close(kicked) }()
				start := time.Now()
				sig, ok := w.wait(d)
				if el := time.Since(start); ok || el > 5*time.Second {
					t.Fatalf("wait(%v) kicked after 1ms: %v %v after %v", d, sig, ok, el)
				}
				<-kicked
			}
			w.kick()
			start := time.Now()
			if sig, ok := w.wait(time.Hour); ok || time.Since(start) > 5*time.Second {
				t.Fatalf("wait after a kick: %v %v after %v", sig, ok, time.Since(start))
			}
			start = time.Now()
			if sig, ok := w.wait(20 * time.Millisecond); ok || time.Since(start) < 20*time.Millisecond {
				t.Errorf("wait after the kick was used: %v %v after %v", sig, ok, time.Since(start))
			}
		})
	}
}

package pmlogger

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInLoop: work queued from another goroutine runs in the loop
// promptly while the loop waits a long interval (the waiter is kicked),
// with both waiters; after the loop has ended inLoop fails at once.
func TestInLoop(t *testing.T) {
	for _, real := range []bool{true, false} {
		src := newFake()
		o := Options{Archive: filepath.Join(t.TempDir(), "a"), Source: src,
			Groups: groupsFor(t, src, "log mandatory on 1 hour { fake.counter }", nil)}
		if !real {
			o.Now = time.Now // a Go timer, not the system's waiter
		}
		sigs := make(chan os.Signal, 1)
		o.Signals = sigs
		l, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { _, err := l.Run(); done <- err }()
		for i := 0; i < 20; i++ {
			start := time.Now()
			var vol int
			if !l.inLoop(func() { vol = l.w.Volume() }) {
				t.Fatalf("real clock %v: call %d not run", real, i)
			}
			if el := time.Since(start); vol != 0 || el > 5*time.Second {
				t.Fatalf("real clock %v: call %d: volume %d after %v", real, i, vol, el)
			}
			if i%5 == 4 {
				time.Sleep(10 * time.Millisecond) // the loop back in its wait
			}
		}
		sigs <- syscall.SIGTERM
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if l.inLoop(func() { t.Error("ran after the loop ended") }) {
			t.Errorf("real clock %v: inLoop succeeded after the loop", real)
		}
	}
}

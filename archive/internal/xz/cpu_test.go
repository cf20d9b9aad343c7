package xz

import (
	"bytes"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestCPUTime (with XZ_CPUTIME=file.xz) prints the least thread CPU time
// of decoding the file's blocks, over XZ_CPUTIME_RUNS runs: a measure that
// a busy machine disturbs less than wall time.
func TestCPUTime(t *testing.T) {
	name := os.Getenv("XZ_CPUTIME")
	if name == "" {
		t.Skip("XZ_CPUTIME not set")
	}
	comp, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
	if err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadCPU := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(1, &ru) // RUSAGE_THREAD
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	d := NewDecoder()
	var buf []byte
	best := time.Hour
	for run := 0; run < 7; run++ {
		start := threadCPU()
		for i, b := range blocks {
			buf, err = d.DecodeBlock(buf, comp[b.Offset:b.Offset+b.Size], b, i)
			if err != nil {
				t.Fatal(err)
			}
		}
		best = min(best, threadCPU()-start)
	}
	t.Logf("%s: best thread CPU %v", name, best)
}

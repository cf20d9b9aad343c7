package pmlogger

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestMemoryFlat logs a million samples from the fake source (with an
// instance domain that changes every few samples) and checks that the
// live heap does not grow with the recording.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	total := 1000000
	if s := os.Getenv("PCPKIT_PMLOGGER_MEMSAMPLES"); s != "" {
		total, _ = strconv.Atoi(s)
	}
	src := newFake()
	l, err := New(Options{Archive: filepath.Join(t.TempDir(), "m"), Source: src, Version: 3,
		Groups: groupsFor(t, src, "log mandatory on 1 sec { fake.counter fake.seq fake.cpu.user fake.disk.read fake.string }", nil),
		Volume: Limit{Bytes: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	start := time.Now()
	var at10k, last uint64
	for i := 1; i <= total; i++ {
		if err := l.Sample(0); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 10000:
			at10k = heap()
		case total / 10, total / 2:
			t.Logf("%d samples: heap %d bytes", i, heap())
		}
	}
	last = heap()
	el := time.Since(start)
	if _, err := l.Finish(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples in %v (%.2f µs/sample): heap %d bytes after 10000, %d after %d; %d volumes",
		total, el, float64(el.Microseconds())/float64(total), at10k, last, total, l.Stats().Volumes)
	if last > at10k+512<<10 {
		t.Errorf("heap grew from %d to %d bytes between 10000 and %d samples", at10k, last, total)
	}
}

// BenchmarkSample is the engine's cost per sample (fetch from the fake
// source, checks, encoding and one write per record).
func BenchmarkSample(b *testing.B) {
	src := newFake()
	l, err := New(Options{Archive: filepath.Join(b.TempDir(), "b"), Source: src,
		Groups: groupsFor(b, src, "log mandatory on 1 sec { fake.counter fake.seq fake.cpu.user fake.disk.read fake.string }", nil)})
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Start(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := l.Sample(0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSampleNoAllocs: a sample whose instance domains have not changed
// allocates nothing (fetch from the fake source, checks, metadata
// checks, encoding and the write). An instance domain change still
// allocates, in archive.Writer.PutInDom.
func TestSampleNoAllocs(t *testing.T) {
	src := newFake()
	l, err := New(Options{Archive: filepath.Join(t.TempDir(), "a"), Source: src, Version: 3,
		Groups: groupsFor(t, src, "log mandatory on 1 sec { fake.counter fake.instant fake.seq fake.cpu.user fake.string fake.float fake.big }", nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() {
		if err := l.Sample(0); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per sample", n)
	}
	if _, err := l.Finish(); err != nil {
		t.Fatal(err)
	}
}

package logcheck

import (
	"io"
	"os"
	"testing"
)

// BenchmarkCheck runs pmlogcheck on the benchmark archive named by
// $PCPKIT_BENCH_ARCHIVE (skipped without it), as in docs/benchmarks.md.
func BenchmarkCheck(b *testing.B) {
	name := os.Getenv("PCPKIT_BENCH_ARCHIVE")
	if name == "" {
		b.Skip("PCPKIT_BENCH_ARCHIVE is not set")
	}
	b.Setenv("TZ", "UTC")
	for b.Loop() {
		if rc := Main([]string{name}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
	}
}

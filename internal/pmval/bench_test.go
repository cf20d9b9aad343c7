package pmval

import (
	"io"
	"os"
	"testing"
)

// BenchmarkMain runs pmval -t 10sec over a whole archive: BENCH_ARCHIVE
// (default: the committed testdata/archives/pmcd-v3) and BENCH_METRIC
// (default kernel.all.cpu.user); output is discarded. With --reverse
// too (BenchmarkMainReverse).
//
//	BENCH_ARCHIVE=/tmp/pcpkit-bench/b-v3 go test -run '^$' -bench Main ./internal/pmval
func BenchmarkMain(b *testing.B) { benchMain(b) }

func BenchmarkMainReverse(b *testing.B) { benchMain(b, "--reverse") }

func benchMain(b *testing.B, extra ...string) {
	a := os.Getenv("BENCH_ARCHIVE")
	if a == "" {
		a = "../../testdata/archives/pmcd-v3"
	}
	m := os.Getenv("BENCH_METRIC")
	if m == "" {
		m = "kernel.all.cpu.user"
	}
	args := append([]string{"-a", a, "-t", "10sec"}, extra...)
	args = append(args, m)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if rc := Main(args, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("pmval %v: exit %d", args, rc)
		}
	}
}

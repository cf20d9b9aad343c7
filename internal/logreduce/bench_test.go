package logreduce

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReduce reduces the 108 MB benchmark archive (made by
// shared/tools/pcp-bench-gen.py --samples 20000 --metrics 100 --version
// 3; $PCPKIT_BENCH_ARCHIVE, else /tmp/bench/b-v3) as `pmlogreduce -t 10
// in out` does; it skips without the archive.
func BenchmarkReduce(b *testing.B) {
	in := os.Getenv("PCPKIT_BENCH_ARCHIVE")
	if in == "" {
		in = "/tmp/bench/b-v3"
	}
	if _, err := os.Stat(in + ".meta"); err != nil {
		b.Skipf("no benchmark archive %s (make it with shared/tools/pcp-bench-gen.py)", in)
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		out := filepath.Join(dir, "out")
		if rc := Main(append(benchArgs(), in, out), io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
		b.StopTimer()
		for _, s := range []string{".0", ".meta", ".index"} {
			os.Remove(out + s)
		}
		b.StartTimer()
	}
}

// benchArgs are BenchmarkReduce's options: $PCPKIT_BENCH_REDUCE_ARGS
// (split on white space), else -t 10.
func benchArgs() []string {
	if a := strings.Fields(os.Getenv("PCPKIT_BENCH_REDUCE_ARGS")); len(a) > 0 {
		return a
	}
	return []string{"-t", "10"}
}

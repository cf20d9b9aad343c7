package logextract

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchInput is the archive of scripts/bench.sh (made by
// shared/tools/pcp-bench-gen.py); the benchmark skips without it.
const benchInput = "/tmp/pcpkit-bench/b-v3"

// BenchmarkExtractCopy copies a 108 MB archive as `pmlogextract in out`
// does.
func BenchmarkExtractCopy(b *testing.B) {
	in := os.Getenv("PCPKIT_BENCH_ARCHIVE")
	if in == "" {
		in = benchInput
	}
	if _, err := os.Stat(in + ".meta"); err != nil {
		b.Skipf("no benchmark archive %s (make it with shared/tools/pcp-bench-gen.py)", in)
	}
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "out")
		if rc := Main([]string{in, out}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
		b.StopTimer()
		for _, s := range []string{".0", ".meta", ".index"} {
			os.Remove(out + s)
		}
		b.StartTimer()
	}
}

// BenchmarkExtractConvert converts a 108 MB Version 2 archive as
// `pmlogextract -V 3 in out` does.
func BenchmarkExtractConvert(b *testing.B) {
	in := os.Getenv("PCPKIT_BENCH_ARCHIVE_V2")
	if in == "" {
		in = "/tmp/pcpkit-bench/b-v2"
	}
	if _, err := os.Stat(in + ".meta"); err != nil {
		b.Skipf("no benchmark archive %s (make it with shared/tools/pcp-bench-gen.py --version 2)", in)
	}
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "out")
		if rc := Main([]string{"-V", "3", in, out}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
		b.StopTimer()
		for _, s := range []string{".0", ".meta", ".index"} {
			os.Remove(out + s)
		}
		b.StartTimer()
	}
}

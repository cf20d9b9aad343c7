package pminfo

import (
	"io"
	"os"
	"testing"
)

// BenchmarkArchiveFetch is pminfo -f over the benchmark archive
// ($PMINFO_BENCH_ARCHIVE, default /tmp/bench/b-v3): every metric's first
// values, each fetched from the start of the archive.
func BenchmarkArchiveFetch(b *testing.B) {
	arch := os.Getenv("PMINFO_BENCH_ARCHIVE")
	if arch == "" {
		arch = "/tmp/bench/b-v3"
	}
	if _, err := os.Stat(arch + ".meta"); err != nil {
		if _, err := os.Stat(arch + ".meta.xz"); err != nil {
			b.Skipf("no benchmark archive %s", arch)
		}
	}
	b.Setenv("PCP_DERIVED_CONFIG", "")
	b.ReportAllocs()
	for b.Loop() {
		if rc := Main([]string{"-a", arch, "-f"}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("rc %d", rc)
		}
	}
}

package pminfo

import (
	"io"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// BenchmarkArchiveFetch is pminfo -f over the benchmark archive
// ($PMINFO_BENCH_ARCHIVE, default /tmp/bench/b-v3): every metric's first
// values, each fetched from the start of the archive.
func BenchmarkArchiveFetch(b *testing.B) {
	arch := testenv.BenchArchive(b, "PMINFO_BENCH_ARCHIVE")
	b.Setenv("PCP_DERIVED_CONFIG", "")
	b.ReportAllocs()
	for b.Loop() {
		if rc := Main([]string{"-a", arch, "-f"}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("rc %d", rc)
		}
	}
}

package logsummary

import (
	"io"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// BenchmarkSummary summarises the pmcd-v3 archive with -a -B 3 (two
// passes). Allocations per run depend on the metrics and instances, not
// on the number of records.
func BenchmarkSummary(b *testing.B) {
	b.Chdir(testenv.ArchivesDir(b))
	b.Setenv("TZ", "UTC")
	b.ReportAllocs()
	for b.Loop() {
		if rc := Main([]string{"-a", "-B", "3", "pmcd-v3,pmcd-v2,sample-v3"}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
	}
}

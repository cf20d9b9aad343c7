package pcp2arrow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/replay"
)

// BenchmarkExport runs pcp2arrow -t 10sec on every metric of
// BENCH_ARCHIVE (default: the committed testdata/archives/pmcd-v3), in
// the wide and the long layout, and the raw export (-r -t 1) in both,
// into a temporary file.
//
//	BENCH_ARCHIVE=/tmp/bench/b-v3 go test -run '^$' -bench Export ./internal/pcp2arrow
func BenchmarkExport(b *testing.B) {
	a := os.Getenv("BENCH_ARCHIVE")
	if a == "" {
		a = filepath.Join("..", "..", "testdata", "archives", "pmcd-v3")
	}
	c, err := replay.Open(a)
	if err != nil {
		b.Fatal(err)
	}
	names := c.Meta().Traverse("")
	c.Close()
	out := filepath.Join(b.TempDir(), "out.parquet")
	for _, c := range []struct{ name, layout, opts string }{
		{"wide", "wide", "-t10sec"}, {"long", "long", "-t10sec"},
		{"raw-wide", "wide", "-rt1"}, {"raw-long", "long", "-rt1"},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := append([]string{"-a", a, c.opts, "--layout", c.layout, "-o", out}, names...)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if rc := Main(args, os.Stdout, os.Stderr); rc != 0 {
					b.Fatalf("exit %d", rc)
				}
			}
		})
	}
}

package pcp2arrow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/replay"
)

// BenchmarkExport runs pcp2arrow -t 10sec on every metric of
// BENCH_ARCHIVE (default: the committed testdata/archives/pmcd-v3), in
// the wide and the long layout, into a temporary file.
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
	for _, layout := range []string{"wide", "long"} {
		b.Run(layout, func(b *testing.B) {
			args := append([]string{"-a", a, "-t", "10sec", "--layout", layout, "-o", out}, names...)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if rc := Main(args, os.Stdout, os.Stderr); rc != 0 {
					b.Fatalf("exit %d", rc)
				}
			}
		})
	}
}

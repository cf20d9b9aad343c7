package pmreplay

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/replay"
)

// BenchmarkMain runs pmreplay -t 10sec -o csv on every metric of
// BENCH_ARCHIVE (default: the committed testdata/archives/pmcd-v3);
// output is discarded.
//
//	BENCH_ARCHIVE=/tmp/pcpkit-bench/b-v3 go test -run '^$' -bench Main ./internal/pmreplay
func BenchmarkMain(b *testing.B) {
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
	args := append([]string{"-a", a, "-t", "10sec", "-o", "csv"}, names...)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if rc := Main(args, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit %d", rc)
		}
	}
}

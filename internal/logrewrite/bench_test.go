package logrewrite

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// BenchmarkRewrite rewrites the 108 MB benchmark archive (made by
// shared/tools/pcp-bench-gen.py --samples 20000 --metrics 100 --version
// 3; $PCPKIT_BENCH_ARCHIVE, else /tmp/bench/b-v3) as
// scripts/bench-reduce-rewrite.sh does: a new hostname and a descriptor
// change, so every record is copied as it is. It skips without the
// archive.
//
//	go test -run '^$' -bench Rewrite -benchmem ./internal/logrewrite
func BenchmarkRewrite(b *testing.B) {
	in := testenv.BenchArchive(b, "PCPKIT_BENCH_ARCHIVE")
	dir := b.TempDir()
	conf := filepath.Join(dir, "bench.conf")
	if err := os.WriteFile(conf, []byte("global { hostname -> benchhost }\nmetric bench.extra.m049 { sem -> discrete }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if st, err := os.Stat(in + ".0"); err == nil {
		b.SetBytes(st.Size())
	}
	b.ReportAllocs()
	for b.Loop() {
		out := filepath.Join(dir, "out")
		if rc := Main([]string{"-c", conf, in, out}, io.Discard, io.Discard); rc != 0 {
			b.Fatalf("exit status %d", rc)
		}
		b.StopTimer()
		for _, s := range []string{".0", ".meta", ".index"} {
			os.Remove(out + s)
		}
		b.StartTimer()
	}
}

package dumplog

import (
	"io"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// BenchmarkDump is pmdumplog over the benchmark archive
// ($DUMPLOG_BENCH_ARCHIVE, default /tmp/bench/b-v3), the text and the
// --json output of the same options side by side, so that one run
// compares them (issue 18: --json at least as fast as the text):
//
//	go test -run '^$' -bench Dump -count 6 ./internal/dumplog/
func BenchmarkDump(b *testing.B) {
	arch := testenv.BenchArchive(b, "DUMPLOG_BENCH_ARCHIVE")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"records", []string{arch}},
		{"all", []string{"-a", arch}},
		{"metric", []string{arch, "kernel.all.load", "disk.dev.read"}},
	} {
		for _, form := range []string{"text", "json"} {
			args := c.args
			if form == "json" {
				args = append([]string{"--json"}, args...)
			}
			b.Run(c.name+"/"+form, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if rc := Main(args, io.Discard, io.Discard); rc != 0 {
						b.Fatalf("rc %d", rc)
					}
				}
			})
		}
	}
}

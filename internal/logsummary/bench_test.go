package logsummary

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
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

// benchArchive is the large generated archive of scripts/bench.sh, made by
// /usr/bin/python3 ../shared/tools/pcp-bench-gen.py -o /tmp/pcpkit-bench/b-v3
// --samples 20000 --metrics 100 --version 3 (PCPKIT_BENCH_ARCHIVE overrides).
func benchArchive(b *testing.B) string {
	a := os.Getenv("PCPKIT_BENCH_ARCHIVE")
	if a == "" {
		a = "/tmp/pcpkit-bench/b-v3"
	}
	if _, err := os.Stat(a + ".meta"); err != nil {
		b.Skipf("no benchmark archive %s (run scripts/bench.sh to make it)", a)
	}
	return a
}

// BenchmarkLarge summarises the large benchmark archive, in the default
// mode and with -a.
func BenchmarkLarge(b *testing.B) {
	a := benchArchive(b)
	b.Setenv("TZ", "UTC")
	for _, mode := range [][]string{nil, {"-a"}} {
		b.Run(strings.Join(append([]string{"mode"}, mode...), ""), func(b *testing.B) {
			for b.Loop() {
				if rc := Main(append(append([]string(nil), mode...), a), io.Discard, io.Discard); rc != 0 {
					b.Fatalf("exit status %d", rc)
				}
			}
		})
	}
}

// BenchmarkAverage times the first pass's arithmetic alone (stats.average)
// on records of the large benchmark archive held in memory: its first 100
// records (about 540 KB, so that they stay in the caches) 50 times over,
// 20 seconds later each time. It reports ns/value too.
func BenchmarkAverage(b *testing.B) {
	a := benchArchive(b)
	set, err := archive.OpenSet(a)
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	var recs []rec
	c := set.Archive(0).NewCursor()
	values := 0
	for len(recs) < 100 {
		r, err := c.Next()
		if err != nil {
			b.Fatal(err)
		}
		rr := recOf(r)
		rr.raw = append([]byte(nil), rr.raw...)
		rr.sets = append([]archive.VSet(nil), rr.sets...)
		recs = append(recs, rr)
		for i := 0; i < r.NumPMID(); i++ {
			values += max(int(r.NumVal(i)), 0)
		}
	}
	s := &summary{options: options{timeaveflag: true}, errw: io.Discard, warned: map[pmapi.PMID]bool{}}
	s.set, s.meta, s.ns = set, set.Meta(), set.Meta()
	const reps = 50
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		s.stats = newStats(s)
		for k := 0; k < reps; k++ {
			for i := range recs {
				r := recs[i]
				r.stamp.Sec += int64(20 * k)
				if err := s.stats.average(&r); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(reps*values), "cpu-ns/value")
}

// cpuTime is the process's user and system CPU time in nanoseconds: on a
// busy machine it varies less than the wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

package replay

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The benchmarks of the replay hot paths. Each runs on a committed
// archive (testdata/archives/sample-v3) and, when BENCH_ARCHIVE names
// one (scripts/bench-replay.sh sets it to the large generated archive),
// on that archive too:
//
//	go test -run '^$' -bench . -benchmem ./replay
//	BENCH_ARCHIVE=/tmp/pcpkit-bench/b-v3 go test -run '^$' -bench . -benchmem ./replay
//
// SetBytes is the size of the archive's data volumes, so MB/s is the
// rate of a whole replay.

// cpuTime is the process's user and system CPU time in nanoseconds: on
// a shared machine it moves less than the wall time (cpu-ns/op).
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchArchives(b *testing.B) []string {
	root := testenv.RepoRoot(b)
	names := []string{filepath.Join(root, "testdata", "archives", "sample-v3")}
	if a := os.Getenv("BENCH_ARCHIVE"); a != "" {
		names = append(names, a)
	}
	return names
}

func dataBytes(b *testing.B, c *Context) int64 {
	var n int64
	for i := 0; i < c.Set().Len(); i++ {
		a := c.Set().Archive(i)
		for _, v := range a.Volumes() {
			sz, err := a.VolumeSize(v)
			if err != nil {
				b.Fatal(err)
			}
			n += sz
		}
	}
	return n
}

// benchMetric is the metric BENCH_METRIC names (default
// kernel.all.cpu.user), or else the archive's first counter.
func benchMetric(c *Context) pmapi.PMID {
	name := os.Getenv("BENCH_METRIC")
	if name == "" {
		name = "kernel.all.cpu.user"
	}
	if p, ok := c.Meta().Lookup(name); ok {
		return p
	}
	return firstCounter(c)
}

// firstCounter is the first counter metric of the archive (by PMID), or
// the first metric.
func firstCounter(c *Context) pmapi.PMID {
	var best, any pmapi.PMID = pmapi.PMIDNull, pmapi.PMIDNull
	for _, d := range c.Meta().Descs {
		p := d.PMID
		if any == pmapi.PMIDNull || p < any {
			any = p
		}
		if d.Sem == pmapi.SemCounter && d.Type != pmapi.TypeString && (best == pmapi.PMIDNull || p < best) {
			best = p
		}
	}
	if best == pmapi.PMIDNull {
		return any
	}
	return best
}

func allMetrics(c *Context) []pmapi.PMID {
	var ps []pmapi.PMID
	for _, d := range c.Meta().Descs {
		ps = append(ps, d.PMID)
	}
	return ps
}

// interpAll replays pmids at step over the whole archive, forwards
// (step > 0) from the start or backwards from the end.
func interpAll(b *testing.B, c *Context, pmids []pmapi.PMID, step int64) int {
	origin := c.Start()
	if step < 0 {
		e, err := c.End()
		if err != nil {
			b.Fatal(err)
		}
		origin = e
	}
	if err := c.SetMode(Interp, origin, step); err != nil {
		b.Fatal(err)
	}
	n := 0
	for {
		_, err := c.Fetch(pmids)
		if errors.Is(err, pmapi.ErrEOL) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}

func benchInterp(b *testing.B, all bool, step int64) {
	for _, name := range benchArchives(b) {
		b.Run(filepath.Base(name), func(b *testing.B) {
			c, err := Open(name)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			pmids := []pmapi.PMID{benchMetric(c)}
			if all {
				pmids = allMetrics(c)
			}
			b.SetBytes(dataBytes(b, c))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			n := 0
			for i := 0; i < b.N; i++ {
				n = interpAll(b, c, pmids, step)
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(n), "fetches/op")
		})
	}
}

// BenchmarkInterpOneCounter is pmval -t 10sec on one counter: the whole
// archive at a 10 s step.
func BenchmarkInterpOneCounter(b *testing.B) { benchInterp(b, false, 10e9) }

// BenchmarkInterpOneCounterReverse is the same backwards (pmval --reverse).
func BenchmarkInterpOneCounterReverse(b *testing.B) { benchInterp(b, false, -10e9) }

// BenchmarkInterpAllMetrics is pmrep -t 10sec on every metric.
func BenchmarkInterpAllMetrics(b *testing.B) { benchInterp(b, true, 10e9) }

// BenchmarkReadForward reads every record forwards through the reader
// interpolation uses (the record decode and the read path).
func BenchmarkReadForward(b *testing.B) {
	for _, name := range benchArchives(b) {
		b.Run(filepath.Base(name), func(b *testing.B) {
			s, err := archive.OpenSet(name)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c := NewContext(s)
			b.SetBytes(dataBytes(b, c))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rd := newReader(s)
				n := 0
				for {
					_, err := rd.Read(true)
					if err != nil {
						break
					}
					n++
				}
				if n == 0 {
					b.Fatal("no records")
				}
			}
		})
	}
}

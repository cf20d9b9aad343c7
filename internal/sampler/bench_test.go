package sampler

import (
	"io"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// BenchmarkRawSamples replays every metric of the benchmark archive raw
// at a one-second step (pcp2arrow -r -t 1's samples) on one goroutine,
// counting the values, without writing them anywhere: the engine's part
// of a raw export (the replay, the interpolation and the sampler). It
// reports the values of an export and the values a second.
//
//	GOMAXPROCS=1 go test -run '^$' -bench RawSamples ./internal/sampler
func BenchmarkRawSamples(b *testing.B) {
	a := testenv.BenchArchive(b, "BENCH_ARCHIVE")
	testenv.Setenv(b)
	n := 0
	for i := 0; i < b.N; i++ {
		o := &Options{Prog: "bench", Archive: a, Metrics: []string{""}, SkipInvalid: true, Stderr: io.Discard}
		o.ParseOption('r', "")
		o.ParseOption('t', "1")
		s, err := Open(o)
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		err = s.Each(1, func(pmapi.Timestamp) error {
			for _, m := range s.Metrics {
				for k := range m.Vals {
					if m.Vals[k].OK {
						n++
					}
				}
			}
			return nil
		})
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "values/op")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

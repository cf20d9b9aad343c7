package sampler

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// sampled is what a replay gave: a line per sample (its time and every
// column's value), then its error.
func sampled(t *testing.T, o *Options, each func(s *Sampler, fn func(pmapi.Timestamp) error) error) []string {
	t.Helper()
	s, err := Open(o)
	if err != nil {
		return []string{"open: " + err.Error()}
	}
	defer s.Close()
	var out []string
	err = each(s, func(ts pmapi.Timestamp) error {
		var b strings.Builder
		fmt.Fprintf(&b, "%d.%09d", ts.Sec, ts.Nsec)
		for _, m := range s.Metrics {
			for _, v := range m.Vals {
				if !v.OK {
					b.WriteString(" -")
					continue
				}
				fmt.Fprintf(&b, " %c:%x/%d/%d/%q", v.Kind, math.Float64bits(v.F), v.I, v.U, v.S)
			}
		}
		out = append(out, b.String())
		return nil
	})
	return append(out, fmt.Sprintf("error: %v", err))
}

// TestEachAsNext: Each on many goroutines, with chunks of a few samples
// (the replay cut and started again at many places, every start checked
// against the sweep and the sweep resumed where they differ), gives what
// Next gives one sample after another: on the committed archives and on
// every archive of PCP's QA suite, every metric, at intervals that make
// about 40 samples and at the archive's own pace, rates and raw.
func TestEachAsNext(t *testing.T) {
	testenv.Setenv(t)
	var bases []string
	root := testenv.RepoRoot(t)
	for _, a := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		bases = append(bases, filepath.Join(root, "testdata", "archives", a))
	}
	if dir := filepath.Join(filepath.Dir(root), "shared", "pcp-qa-archives"); dirExists(dir) {
		metas, _ := filepath.Glob(filepath.Join(dir, "*.meta*"))
		for _, m := range metas {
			bases = append(bases, strings.TrimSuffix(strings.TrimSuffix(m, ".xz"), ".meta"))
		}
		multis, _ := filepath.Glob(filepath.Join(dir, "multi*"))
		for _, m := range multis {
			if dirExists(m) {
				bases = append(bases, m)
			}
		}
	} else {
		t.Logf("%s not found: the committed archives only", dir)
	}
	checkEach(t, bases, []int{1, 2, 5})
}

// TestEachAsNextDamaged is TestEachAsNext on damaged archives: PCP QA's
// and damaged copies of the committed ones and of QA archives
// (testenv.DamagedCopies), where the chunks meet errors the sweep meets,
// or not.
func TestEachAsNextDamaged(t *testing.T) {
	testenv.Setenv(t)
	var bases []string
	for _, sub := range []string{"pcp-qa-badarchives", "pcp-made-archives/bad"} {
		metas, _ := filepath.Glob(filepath.Join(testenv.SharedDir(t, sub), "*.meta*"))
		for _, m := range metas {
			bases = append(bases, strings.TrimSuffix(strings.TrimSuffix(m, ".xz"), ".meta"))
		}
	}
	dir, names := testenv.DamagedCopies(t, testenv.DamageSources[:3])
	for _, n := range names {
		bases = append(bases, filepath.Join(dir, n))
	}
	checkEach(t, bases, []int{1, 3})
}

// checkEach compares Each in chunks of each of sizes with Next on each
// of the archives bases.
func checkEach(t *testing.T, bases []string, sizes []int) {
	t.Helper()
	defer func(n int) { ChunkSamples = n }(ChunkSamples)
	cases, resumed := 0, 0
	for _, a := range bases {
		t00 := time.Now()
		c, err := replay.Open(a)
		if err != nil {
			continue
		}
		end, err := c.End()
		span := pcptime.Sub(end, c.Start())
		c.Close()
		if err != nil {
			continue
		}
		step := max(int64(span*1e9/40), 1e6)
		for _, o := range []Options{
			{Interval: fmt.Sprintf("%dnsec", step)},
			{Interval: fmt.Sprintf("%dnsec", step), Raw: true},
			{Interval: fmt.Sprintf("%dnsec", max(step/7, 1e6)), Samples: 200},
		} {
			if time.Since(t00) > 2*time.Second {
				break // enough of a slow archive
			}
			o.Prog, o.Archive, o.Metrics, o.SkipInvalid = "x", a, []string{""}, true
			if o.Samples == 0 {
				o.Samples = -1
			}
			ChunkSamples = 0
			t0 := time.Now()
			want := sampled(t, &o, func(s *Sampler, fn func(pmapi.Timestamp) error) error { return s.each(fn) })
			ks := sizes
			if time.Since(t0) > 50*time.Millisecond {
				// a big archive (every chunk opens it again): fewer cuts
				ks = []int{7}
			}
			for _, k := range ks {
				ChunkSamples = k
				resumes.Store(0)
				got := sampled(t, &o, func(s *Sampler, fn func(pmapi.Timestamp) error) error { return s.Each(3, fn) })
				cases++
				if resumes.Load() > 0 {
					resumed++
				}
				if len(got) != len(want) {
					t.Errorf("%s %+v chunks of %d: %d samples, want %d\n%s\nwant %s", filepath.Base(a), o.Interval, k, len(got)-1, len(want)-1, got[len(got)-1], want[len(want)-1])
					continue
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s -t %s raw %v chunks of %d: sample %d:\n got %.300s\nwant %.300s", filepath.Base(a), o.Interval, o.Raw, k, i, got[i], want[i])
						break
					}
				}
			}
		}
	}
	t.Logf("%d archives, %d replays in chunks, %d of them resumed the sweep somewhere", len(bases), cases, resumed)
	if cases == 0 {
		t.Fatal("no archive replayed")
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

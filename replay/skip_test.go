package replay

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestSkipAsRead replays every QA archive and every archive made with
// the real PCP, QA's multi-archive directories, and damaged copies of
// some, forwards at three steps (a
// 37th of the archive down to a 3000th), every metric, every other
// archive as PCP 6.3.8 does, once passing over
// the records searches read before (interp's skip blocks) and once
// reading them all, and compares every result and error. Over all of
// them, passing over must read fewer records, and on QA's bug-1044 (a
// third fewer when this was written) at most three quarters of them.
func TestSkipAsRead(t *testing.T) {
	var archives []string
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, a := range testenv.Archives(t, dir) {
			archives = append(archives, filepath.Join(dir, a))
		}
	}
	// sets of archives: the directories, read as one
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	for _, d := range []string{"multi", "multi_v3", "multi-xz"} {
		archives = append(archives, filepath.Join(qa, d))
	}
	dir, names := testenv.DamagedCopies(t, testenv.DamageSources)
	for _, n := range names {
		archives = append(archives, filepath.Join(dir, n))
	}
	var reads, readsAll, replays int
	for i, a := range archives {
		// (6.3.8's values: for every other archive)
		o := Options{}
		if i%2 == 1 {
			o.Version = Version638
		}
		r, rAll, n := compareSkip(t, a, o)
		reads, readsAll, replays = reads+r, readsAll+rAll, replays+n
		if filepath.Base(a) == "bug-1044" && r*4 > rAll*3 {
			t.Errorf("%s: %d records read passing over, %d reading all", a, r, rAll)
		}
	}
	t.Logf("%d archives, %d replays: %d records read passing over, %d reading all", len(archives), replays, reads, readsAll)
	if replays == 0 || reads >= readsAll {
		t.Errorf("%d replays: %d records read passing over, %d reading all", replays, reads, readsAll)
	}
}

// compareSkip replays archive a with and without skipping (see
// TestSkipAsRead) and returns the records each read and the replays.
func compareSkip(t *testing.T, a string, o Options) (reads, readsAll, replays int) {
	c, err := OpenOptions(a, o)
	if err != nil {
		return 0, 0, 0 // no archive to replay (damaged, or a directory)
	}
	defer c.Close()
	all, err := OpenOptions(a, o)
	if err != nil {
		t.Fatalf("%s: opened once, not twice: %v", a, err)
	}
	defer all.Close()
	all.ip.SetSkip(false)
	var pmids []pmapi.PMID
	for _, d := range c.Meta().Descs {
		pmids = append(pmids, d.PMID)
	}
	end, err := c.End()
	if err != nil {
		return 0, 0, 0
	}
	span := pcptime.Sub(end, c.Start())
	for _, parts := range []float64{37, 400, 3000} {
		step := max(int64(span/parts*1e9), 1e6)
		c.SetMode(Interp, c.Start(), step)
		all.SetMode(Interp, all.Start(), step)
		c.rd.reads, all.rd.reads = 0, 0
		for i := 0; i < 3100; i++ {
			got, gerr := c.Fetch(pmids)
			want, werr := all.Fetch(pmids)
			if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
				t.Errorf("%s step %d fetch %d: error %v, reading all %v", a, step, i, gerr, werr)
				break
			}
			if gerr != nil {
				if !errors.Is(gerr, pmapi.ErrEOL) && i == 0 {
					t.Logf("%s step %d: %v", a, step, gerr)
				}
				break
			}
			if !got.Equal(want) {
				t.Errorf("%s step %d fetch %d: results differ (-reading all +passing over):\n%s", a, step, i, cmp.Diff(want, got))
				break
			}
		}
		reads, readsAll, replays = reads+c.rd.reads, readsAll+all.rd.reads, replays+1
	}
	return reads, readsAll, replays
}

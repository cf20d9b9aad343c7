package replay_test

import (
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// sample.aggregate.null's value is a block with no payload: Fetch returns
// it as an empty block (libpcp: a pointer to it), not as an insitu 0, in
// every mode (QA chartqa1; the oracle tests compare the whole archive).
func TestFetchEmptyBlock(t *testing.T) {
	c, err := replay.Open(filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), "chartqa1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := pmapi.NewPMID(29, 0, 33)
	end, err := c.End()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []replay.Mode{replay.Forw, replay.Back, replay.Interp} {
		origin := c.Label().Start.Add(10e9) // (after the metric's first record)
		if m == replay.Back {
			origin = end
		}
		if err := c.SetMode(m, origin, 7e9); err != nil {
			t.Fatal(err)
		}
		r, err := c.Fetch([]pmapi.PMID{p})
		if err != nil {
			t.Fatalf("mode %v: %v", m, err)
		}
		if vs := r.VSets[0]; len(vs.Values) != 1 || vs.Values[0].Block == nil || len(vs.Values[0].Block) != 0 || vs.ValFmt != pmapi.ValFmtDptr {
			t.Errorf("mode %v: value set %+v, want one empty block", m, vs)
		}
	}
}

package replay_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// TestOracleWrap compares interpolation with counter wrap handling on
// (PCP_COUNTER_WRAP set) on archives whose counters wrap or go down.
func TestOracleWrap(t *testing.T) {
	needOracle(t)
	for _, a := range []struct{ set, name string }{
		{"pcp-qa-archives", "wrap"},
		{"pcp-qa-archives", "960624.08.17_v2"},
		{"pcp-made-archives", "synth3"},
		{"pcp-made-archives", "sample3"},
		{"pcp-made-archives", "sample2"},
	} {
		dir := testenv.SharedDir(t, a.set)
		t.Run(a.name, func(t *testing.T) {
			start, end, _, pmids := archiveFacts(t, filepath.Join(dir, a.name))
			rng := rand.New(rand.NewSource(int64(len(a.name))))
			compareOracle(t, dir, a.name, pmidList(pmids, 60), interpScript(start, end), "PCP_COUNTER_WRAP=1")
			for r := 0; r < 4; r++ {
				compareOracle(t, dir, a.name, pmidList(pmids, 60), randomScript(rng, start, end, 10), "PCP_COUNTER_WRAP=1")
			}
		})
	}
}

// TestOracleProfile compares fetches with an instance profile (what
// pmAddProfile and pmDelProfile set): every other instance of each
// metric's instance domain, and none.
func TestOracleProfile(t *testing.T) {
	needOracle(t)
	for _, a := range []struct{ set, name string }{
		{"pcp-qa-archives", "mirage"},
		{"pcp-qa-archives", "changeinst"},
		{"pcp-qa-archives", "gap2"},
		{"pcp-qa-archives", "sample_expr"},
		{"pcp-qa-archives", "multi"},
		{"pcp-made-archives", "sample3"},
		{"pcp-made-archives", "synth3"},
	} {
		dir := testenv.SharedDir(t, a.set)
		t.Run(a.name, func(t *testing.T) {
			start, end, nrec, pmids := archiveFacts(t, filepath.Join(dir, a.name))
			c, err := replay.Open(filepath.Join(dir, a.name))
			if err != nil {
				t.Fatal(err)
			}
			var prof strings.Builder
			done := map[pmapi.InDom]bool{}
			for _, p := range pmids {
				d, _ := c.Meta().Desc(p)
				if d.InDom == pmapi.InDomNull || done[d.InDom] {
					continue
				}
				done[d.InDom] = true
				seen := map[int32]bool{}
				var ids []string
				hist := c.Meta().InDomHistory(d.InDom)
				for i := range hist {
					for _, id := range hist[i].Insts {
						if !seen[id] {
							seen[id] = true
							if len(seen)%2 == 1 {
								ids = append(ids, fmt.Sprint(id))
							}
						}
					}
				}
				list := strings.Join(ids, ",")
				if list == "" || len(done)%3 == 0 {
					list = "-"
				}
				fmt.Fprintf(&prof, "profile %s %s\n", p, list)
			}
			c.Close()
			rng := rand.New(rand.NewSource(7))
			metrics := pmidList(pmids, 60)
			compareOracle(t, dir, a.name, metrics, prof.String()+recordScript(start, end, nrec))
			compareOracle(t, dir, a.name, metrics, prof.String()+interpScript(start, end))
			compareOracle(t, dir, a.name, metrics, prof.String()+randomScript(rng, start, end, 12))
		})
	}
}

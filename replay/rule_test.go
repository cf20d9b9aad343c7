package replay_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// ruleStart is the start of ruleArchive.
var ruleStart = pmapi.Timestamp{Sec: 1700000000}

// ruleArchive writes an archive in dir with an INSTANT metric x.i and a
// DISCRETE metric x.d (U32, singular), recorded every 10 s from its
// start: x.i = 10, 20, 30 at 0, 10, 20 s, a <mark> at 25 s, x.i = 40 at
// 30 s and 50 at 40 s; x.d = 100, 200 at 0 and 10 s, 300 at 30 s only.
func ruleArchive(t testing.TB, dir string) string {
	t.Helper()
	base := filepath.Join(dir, "rules")
	w, err := archive.Create(base, archive.WriterOptions{Hostname: "h", TZ: "UTC", Start: ruleStart})
	if err != nil {
		t.Fatal(err)
	}
	pi, pd := pmapi.NewPMID(245, 0, 1), pmapi.NewPMID(245, 0, 2)
	for _, d := range []struct {
		p    pmapi.PMID
		sem  pmapi.Sem
		name string
	}{{pi, pmapi.SemInstant, "x.i"}, {pd, pmapi.SemDiscrete, "x.d"}} {
		if err := w.PutDesc(pmapi.Desc{PMID: d.p, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: d.sem}, []string{d.name}); err != nil {
			t.Fatal(err)
		}
	}
	at := func(s int64) pmapi.Timestamp { return pmapi.Timestamp{Sec: ruleStart.Sec + s} }
	put := func(s int64, vals map[pmapi.PMID]int32) {
		t.Helper()
		r := &pmapi.Result{Timestamp: at(s)}
		for _, p := range []pmapi.PMID{pi, pd} {
			if v, ok := vals[p]; ok {
				r.VSets = append(r.VSets, pmapi.ValueSet{PMID: p, NumVal: 1, Values: []pmapi.Value{{Inst: -1, Insitu: v}}})
			}
		}
		if err := w.PutResult(r); err != nil {
			t.Fatal(err)
		}
	}
	put(0, map[pmapi.PMID]int32{pi: 10, pd: 100})
	put(10, map[pmapi.PMID]int32{pi: 20, pd: 200})
	put(20, map[pmapi.PMID]int32{pi: 30})
	if err := w.PutMark(at(25)); err != nil {
		t.Fatal(err)
	}
	put(30, map[pmapi.PMID]int32{pi: 40, pd: 300})
	put(40, map[pmapi.PMID]int32{pi: 50})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return base
}

// TestInterpRules interpolates ruleArchive under each PCP version: 6.0.3
// takes the prior value of INSTANT and DISCRETE metrics, 6.3.8 the
// nearer one (the prior on a tie). The rest (the bounds, what a <mark>
// ends) is the same, and odd in both: after a SetMode, a <mark> after the
// requested time does not bound it. The wanted values are the real
// libpcp's (testdata/oracle/replay.py, PCP 6.0.3 on the host and 6.3.8
// in its chroot); TestOracle638Rules compares the same archive with the
// real 6.3.8 directly.
func TestInterpRules(t *testing.T) {
	base := ruleArchive(t, t.TempDir())
	// A SetMode at each time (seconds from the start, tenths), then
	// fetches every second from 16 s on.
	ops := []int64{0, 40, 50, 55, 100, 170, 210, 220, 240, 260, 270, 340, 360, 400}
	const serialFrom, serialN = 160, 12
	want := map[string][]string{
		replay.Version603: {
			"10 100", "10 100", "10 100", "10 100", "20 200", "20 200", "30 200", "30 200", "30 200", "- -", "- -", "40 300", "40 300", "50 300",
			"20 200", "20 200", "20 200", "20 200", "30 200", "- 200", "- 200", "- 200", "- 200", "- 300", "- -", "- -",
		},
		replay.Version638: {
			"10 100", "10 100", "10 100", "20 200", "20 200", "30 200", "30 200", "30 200", "30 200", "- -", "- -", "40 300", "50 300", "50 300",
			"30 200", "30 200", "30 200", "30 200", "30 200", "- 200", "- 200", "- 200", "- 200", "- 300", "- -", "- -",
		},
	}
	pmids := []pmapi.PMID{pmapi.NewPMID(245, 0, 1), pmapi.NewPMID(245, 0, 2)}
	for _, v := range []string{replay.Version603, replay.Version638} {
		c, err := replay.OpenOptions(base, replay.Options{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.Version() != v {
			t.Fatalf("Version() = %s, want %s", c.Version(), v)
		}
		var got []string
		fetch := func() {
			res, err := c.Fetch(pmids)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			s := ""
			for i, vs := range res.VSets {
				if i > 0 {
					s += " "
				}
				if vs.NumVal != 1 {
					s += "-"
					continue
				}
				s += fmt.Sprint(vs.Values[0].Insitu)
			}
			got = append(got, s)
		}
		at := func(tenths int64) pmapi.Timestamp {
			return pmapi.Timestamp{Sec: ruleStart.Sec + tenths/10, Nsec: int32(tenths%10) * 1e8}
		}
		for _, tenths := range ops {
			if err := c.SetMode(replay.Interp, at(tenths), 1e9); err != nil {
				t.Fatal(err)
			}
			fetch()
		}
		if err := c.SetMode(replay.Interp, at(serialFrom), 1e9); err != nil {
			t.Fatal(err)
		}
		for range serialN {
			fetch()
		}
		if diff := cmp.Diff(want[v], got); diff != "" {
			t.Errorf("PCP %s (-want +got):\n%s", v, diff)
		}
	}
}

package replay_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// openDerived opens a shared archive with the derived metrics of config.
func openDerived(t *testing.T, archive, config string, opts derive.EvalOptions) *replay.Context {
	t.Helper()
	reg := derive.NewRegistry(derive.Dialect603)
	reg.RegisterEventMetrics()
	if n := reg.LoadConfigData("test.conf", []byte(config), io.Discard); n == 0 {
		t.Fatalf("no metrics in %q", config)
	}
	c, err := replay.Open(dmArchive(t, archive))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.UseDerived(reg, opts)
	return c
}

func lookup(t *testing.T, c *replay.Context, names ...string) []pmapi.PMID {
	t.Helper()
	var out []pmapi.PMID
	for _, n := range names {
		p, err := c.LookupName(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out = append(out, p)
	}
	return out
}

// interval is a delta or rate reported for the interval between two
// sample times.
type interval struct {
	from, to pmapi.Timestamp
	inst     int32
}

// collect fetches until the end of the archive in the context's mode and
// maps each interval between consecutive fetches to the derived values
// reported for it.
func collect(t *testing.T, c *replay.Context, pmids []pmapi.PMID, max int) map[interval][]float64 {
	t.Helper()
	out := map[interval][]float64{}
	var prev pmapi.Timestamp
	for i := 0; i < max; i++ {
		res, err := c.Fetch(pmids)
		if err == pmapi.ErrEOL {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			from, to := prev, res.Timestamp
			if to.Before(from) {
				from, to = to, from
			}
			for _, vs := range res.VSets {
				for _, v := range vs.Values {
					k := interval{from, to, v.Inst}
					out[k] = append(out[k], math.Float64frombits(binary.BigEndian.Uint64(v.Block)))
				}
			}
		}
		prev = res.Timestamp
	}
	return out
}

// TestDerivedBackwards checks the meaning of delta() and rate() when the
// replay goes backwards (Back, and Interp with a negative interval): by
// default each interval between two samples has the delta and rate it
// has going forwards, while EvalOptions.Literal gives libpcp's "this fetch
// minus the previous one" (a negated delta, and for U32 counters a
// wrapped difference).
func TestDerivedBackwards(t *testing.T) {
	const config = "b.d = delta(disk.dev.read)\nb.r = rate(network.interface.in.bytes)\nb.u = rate(pmcd.pdu_in.total)\n"
	names := []string{"b.d", "b.r", "b.u"}
	for _, mode := range []struct {
		name       string
		fwd, back  replay.Mode
		step       int64
		fromEndAdj int64
	}{
		{"records", replay.Forw, replay.Back, 0, 0},
		{"interp", replay.Interp, replay.Interp, 500e6, 0},
	} {
		t.Run(mode.name, func(t *testing.T) {
			fw := openDerived(t, "basic3", config, derive.EvalOptions{})
			start := fw.Start()
			end, err := fw.End()
			if err != nil {
				t.Fatal(err)
			}
			fw.SetMode(mode.fwd, start, mode.step)
			want := collect(t, fw, lookup(t, fw, names...), 1000)

			bk := openDerived(t, "basic3", config, derive.EvalOptions{})
			origin := end
			if mode.step != 0 {
				// the same grid as forwards
				n := int64(pcptime.Sub(end, start)*1e9) / mode.step
				origin = start.Add(n * mode.step)
			}
			bk.SetMode(mode.back, origin, -mode.step)
			got := collect(t, bk, lookup(t, bk, names...), 1000)
			if len(want) < 10 {
				t.Fatalf("only %d intervals forwards", len(want))
			}
			matched := 0
			for k, w := range want {
				g, ok := got[k]
				if !ok {
					continue
				}
				matched++
				if fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("interval %v..%v inst %d: backwards %v, forwards %v", k.from, k.to, k.inst, g, w)
				}
			}
			if matched < len(want)*8/10 {
				t.Errorf("only %d of %d forward intervals seen backwards", matched, len(want))
			}

			lit := openDerived(t, "basic3", config, derive.EvalOptions{Literal: true})
			lit.SetMode(mode.back, origin, -mode.step)
			litGot := collect(t, lit, lookup(t, lit, names...), 1000)
			neg := 0
			for k, w := range want {
				g, ok := litGot[k]
				if !ok || len(g) != len(w) {
					continue
				}
				for i := range w {
					if w[i] != 0 && g[i] == -w[i] {
						neg++
					}
				}
			}
			if neg == 0 {
				t.Errorf("literal mode: no delta was the negation of the forward one")
			}
			t.Logf("%d intervals forwards, %d matched backwards, %d literal negations", len(want), matched, neg)
		})
	}
}

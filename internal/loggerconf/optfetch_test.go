package loggerconf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestPlanFetches: the fetches pmlogger 6.0.3 made of these requests,
// seen in its archives (recorded from a local pmcd with the real
// pmlogger: the records of one tick, in order, with each metric's
// instances; the same configurations are recorded side by side in
// internal/pmlogger's TestInteropFetchSplit). Metrics are named by the
// real ones they stand for; the PMIDs have the real domains.
func TestPlanFetches(t *testing.T) {
	percpu := pmapi.NewInDom(60, 0)
	load := pmapi.NewInDom(60, 2)
	netif := pmapi.NewInDom(60, 3)
	metric := map[string]pmapi.Desc{
		"user": {PMID: pmapi.NewPMID(60, 0, 0), InDom: percpu},
		"nice": {PMID: pmapi.NewPMID(60, 0, 1), InDom: percpu},
		"sys":  {PMID: pmapi.NewPMID(60, 0, 2), InDom: percpu},
		"idle": {PMID: pmapi.NewPMID(60, 0, 3), InDom: percpu},
		"cpu":  {PMID: pmapi.NewPMID(60, 0, 20), InDom: pmapi.InDomNull}, // kernel.all.cpu.user
		"load": {PMID: pmapi.NewPMID(60, 2, 0), InDom: load},
		"inb":  {PMID: pmapi.NewPMID(60, 3, 0), InDom: netif},
		"inp":  {PMID: pmapi.NewPMID(60, 3, 1), InDom: netif},
		"outb": {PMID: pmapi.NewPMID(60, 3, 8), InDom: netif},
		"outp": {PMID: pmapi.NewPMID(60, 3, 9), InDom: netif},
		"mem":  {PMID: pmapi.NewPMID(60, 1, 1), InDom: pmapi.InDomNull},
		"ncpu": {PMID: pmapi.NewPMID(60, 0, 32), InDom: pmapi.InDomNull},
		"proc": {PMID: pmapi.NewPMID(3, 8, 99), InDom: pmapi.InDomNull},
		"pmcd": {PMID: pmapi.NewPMID(2, 0, 2), InDom: pmapi.InDomNull},
		"xfs":  {PMID: pmapi.NewPMID(11, 16, 51), InDom: pmapi.InDomNull},
		"jbd2": {PMID: pmapi.NewPMID(122, 0, 0), InDom: pmapi.InDomNull},
	}
	// A request: "name" (all instances) or "name[i,j]".
	for _, c := range []struct{ reqs, want string }{
		{"user[0] sys", "sys:* | user:0"},
		{"user[0] sys[1]", "sys:0,1 user:0,1"},
		{"user[0] sys[1] idle", "idle:* | sys:0,1 user:0,1"},
		{"user[0] sys idle[1]", "sys:* | idle:0,1 user:0,1"},
		{"user sys[0] idle nice[1]", "sys:0,1 nice:0,1 | idle:* user:*"},
		{"user[0] load sys cpu", "cpu sys:* | load:* user:0"},
		{"load[1] sys cpu user[0]", "user:0 | load:1 cpu sys:*"},
		{"inb[0] sys user[0] outb[3]", "outb:3 user:0 | inb:0 sys:*"},
		{"inb[0] sys user[0] outb", "outb:* user:0 | inb:0 sys:*"},
		{"inb[0] inp[1] outb[2] outp[3]", "outp:3 | outb:0,1,2 inp:0,1,2 inb:0,1,2"},
		{"proc pmcd ncpu xfs jbd2 load", "jbd2 load:* | ncpu xfs proc pmcd"},
		{"pmcd ncpu proc jbd2 xfs mem load", "load:* mem xfs | jbd2 ncpu proc pmcd"},
		// The same metric twice: one request list, the union.
		{"user[0] user[1]", "user:0,1"},
		{"user[0] user", "user:*"},
	} {
		var reqs []*request
		for _, f := range strings.Fields(c.reqs) {
			name, list, restricted := strings.Cut(strings.TrimSuffix(f, "]"), "[")
			d, ok := metric[name]
			if !ok {
				t.Fatalf("%s: no metric %q", c.reqs, name)
			}
			rq := &request{pmid: d.PMID, name: name, desc: d, all: !restricted}
			if restricted {
				for _, s := range strings.Split(list, ",") {
					var in int32
					fmt.Sscan(s, &in)
					rq.insts = append(rq.insts, in)
				}
			}
			reqs = append(reqs, rq)
		}
		var got []string
		for _, f := range planFetches(reqs) {
			var ms []string
			for _, m := range f.Metrics {
				s := m.Name
				switch {
				case m.Desc.InDom == pmapi.InDomNull:
				case m.Instances == nil:
					s += ":*"
				default:
					s += ":" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(m.Instances)), ","), "[]")
				}
				ms = append(ms, s)
			}
			got = append(got, strings.Join(ms, " "))
		}
		if g := strings.Join(got, " | "); g != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.reqs, g, c.want)
		}
	}
}

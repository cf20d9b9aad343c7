package loggerconf

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// naiveCost is the optimiser's cost as libpcp computes it, from scratch:
// the reference for planned.cost, which keeps its parts up to date.
func naiveCost(f *planned, add *plannedMetric) int {
	pmidDoms := map[uint32]bool{}
	indomDoms := map[uint32]bool{}
	profiles := map[pmapi.InDom]profile{}
	for id, p := range f.indoms {
		profiles[id] = p
	}
	wants := map[pmapi.PMID]profile{}
	indomOf := map[pmapi.PMID]pmapi.InDom{}
	for _, pm := range f.metrics {
		wants[pm.m.PMID] = pm.want
		indomOf[pm.m.PMID] = pm.m.Desc.InDom
	}
	id := add.m.Desc.InDom
	if p, ok := profiles[id]; ok {
		profiles[id] = p.add(add.want)
	} else {
		profiles[id] = add.want
	}
	if w, ok := wants[add.m.PMID]; ok {
		wants[add.m.PMID] = w.add(add.want)
	} else {
		wants[add.m.PMID] = add.want
		indomOf[add.m.PMID] = id
	}
	cost := 0
	for pmid, w := range wants {
		pmidDoms[pmid.Domain()] = true
		id := indomOf[pmid]
		indomDoms[domainOfInDom(id)] = true
		cost += unwantCost * unwanted(profiles[id], w)
	}
	return cost + pmidCost*len(pmidDoms) + indomCost*len(indomDoms)
}

// TestPlannedCostRapid: the incremental cost is the cost computed from
// scratch, for any sequence of requests joining a fetch.
func TestPlannedCostRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := newPlanned()
		n := rapid.IntRange(1, 40).Draw(t, "n")
		for i := 0; i < n; i++ {
			dom := rapid.Uint32Range(1, 4).Draw(t, "dom")
			item := rapid.Uint32Range(0, 6).Draw(t, "item")
			pmid := pmapi.NewPMID(dom, 0, item)
			// a PMID has one descriptor: its indom follows from it
			indom := pmapi.InDomNull
			if item%3 != 0 {
				indom = pmapi.InDom(dom<<22 | item%3)
			}
			want := profile{all: true}
			if indom != pmapi.InDomNull && rapid.Bool().Draw(t, "some") {
				insts := rapid.SliceOfN(rapid.Int32Range(0, 12), 1, 5).Draw(t, "insts")
				want = profile{}.add(profile{insts: insts})
			}
			add := plannedMetric{m: GroupMetric{PMID: pmid, Desc: pmapi.Desc{PMID: pmid, InDom: indom}}, want: want}
			if got, exp := f.cost(&add), naiveCost(f, &add); got != exp {
				t.Fatalf("request %d (%s, indom %s, %+v): cost %d, want %d", i, pmid, indom, want, got, exp)
			}
			f.join(add)
		}
	})
}

// BenchmarkPlanFetches plans one group of 1,100 metrics (about what
// pmlogger's default configuration logs on a large host), over a few
// domains and instance domains, some with instance lists.
func BenchmarkPlanFetches(b *testing.B) {
	var reqs []*request
	for i := 0; i < 1100; i++ {
		dom := uint32(1 + i%5)
		pmid := pmapi.NewPMID(dom, uint32(i/100), uint32(i))
		indom := pmapi.InDomNull
		if i%4 != 0 {
			indom = pmapi.InDom(dom<<22 | uint32(i%7))
		}
		rq := &request{pmid: pmid, desc: pmapi.Desc{PMID: pmid, InDom: indom}, all: true}
		if indom != pmapi.InDomNull && i%10 == 1 {
			rq.all, rq.insts = false, []int32{int32(i % 3), 7}
		}
		reqs = append(reqs, rq)
	}
	b.ReportAllocs()
	for b.Loop() {
		planFetches(reqs)
	}
}

package loggerconf

import (
	"sort"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Fetch is one fetch of a group: the metrics pmlogger fetches from pmcd
// together and logs as one record.
type Fetch struct {
	// Metrics in descending PMID order. A metric's Instances are the
	// fetch's instance profile for its instance domain: the union of
	// the instances every request of the fetch over that domain asked
	// for (nil: all instances). pmcd returns, and pmlogger logs, those
	// instances for each of the fetch's metrics over the domain, even
	// ones that were not asked for that metric.
	Metrics []GroupMetric
}

// The weights of libpcp's fetch optimiser (optfetch), which pmlogger
// uses with the global scope: a request joins the fetch whose total
// cost is the least with it, a new fetch costing fetchCost more; on a
// tie the new fetch wins, then the most recently created one.
const (
	pmidCost   = 4  // per distinct PMDA domain of the fetch's PMIDs
	indomCost  = 1  // per distinct PMDA domain of its instance domains
	fetchCost  = 15 // of a new fetch
	indomSize  = 10 // the instance count assumed for an instance domain
	unwantCost = 2  // per instance fetched for a metric that did not want it
)

// profile is a set of instances: all, or a sorted list.
type profile struct {
	all   bool
	insts []int32
}

// add returns p with the instances of q.
func (p profile) add(q profile) profile {
	if p.all || q.all {
		return profile{all: true}
	}
	out := append([]int32(nil), p.insts...)
	for _, in := range q.insts {
		i := sort.Search(len(out), func(k int) bool { return out[k] >= in })
		if i < len(out) && out[i] == in {
			continue
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = in
	}
	return profile{insts: out}
}

// unwanted is how many more instances profile p retrieves than the
// metric's own profile m asks for, as the optimiser counts them.
func unwanted(p, m profile) int {
	if p.all {
		if !m.all && len(m.insts) < indomSize {
			return indomSize - len(m.insts)
		}
		return 0
	}
	// Both lists (p covers m): the instances in one and not the other.
	n, i, j := 0, 0, 0
	for i < len(p.insts) && j < len(m.insts) {
		switch {
		case p.insts[i] == m.insts[j]:
			i++
			j++
		case p.insts[i] < m.insts[j]:
			i++
			n++
		default:
			j++
			n++
		}
	}
	return n + len(p.insts) - i + len(m.insts) - j
}

// planned is a fetch being planned: its metrics (in the order they
// joined) with their own profiles, and the profile of each domain. The
// parts of its cost are kept up to date as metrics join, so that the
// cost with one more request is found without going over all of them
// (a configuration of a thousand metrics asks for it a million times).
type planned struct {
	metrics []plannedMetric
	indoms  map[pmapi.InDom]profile

	byPMID    map[pmapi.PMID]int    // index in metrics
	byInDom   map[pmapi.InDom][]int // the metrics over each instance domain
	unwant    map[pmapi.InDom]int   // their unwanted instances
	total     int                   // the sum of unwant
	pmidDoms  map[uint32]int        // metrics by PMDA domain of the PMID
	indomDoms map[uint32]int        // metrics by PMDA domain of the indom
}

func newPlanned() *planned {
	return &planned{
		indoms:    map[pmapi.InDom]profile{},
		byPMID:    map[pmapi.PMID]int{},
		byInDom:   map[pmapi.InDom][]int{},
		unwant:    map[pmapi.InDom]int{},
		pmidDoms:  map[uint32]int{},
		indomDoms: map[uint32]int{},
	}
}

type plannedMetric struct {
	m    GroupMetric
	want profile
}

func domainOfInDom(id pmapi.InDom) uint32 { return uint32(id) >> 22 & 0x1ff }

// equal reports whether p and q are the same set of instances.
func (p profile) equal(q profile) bool {
	if p.all || q.all {
		return p.all == q.all
	}
	if len(p.insts) != len(q.insts) {
		return false
	}
	for i := range p.insts {
		if p.insts[i] != q.insts[i] {
			return false
		}
	}
	return true
}

// with is the profile of add's instance domain once add joins f, and
// the unwanted instances of that domain's metrics then.
func (f *planned) with(add *plannedMetric) (profile, int) {
	id := add.m.Desc.InDom
	old, had := f.indoms[id]
	p := add.want
	if had {
		p = old.add(add.want)
	}
	idx, dup := f.byPMID[add.m.PMID]
	if had && p.equal(old) {
		n := f.unwant[id]
		if dup {
			w := f.metrics[idx].want
			return p, n - unwanted(p, w) + unwanted(p, w.add(add.want))
		}
		return p, n + unwanted(p, add.want)
	}
	n := 0
	for _, i := range f.byInDom[id] {
		w := f.metrics[i].want
		if dup && i == idx {
			w = w.add(add.want)
		}
		n += unwanted(p, w)
	}
	if !dup {
		n += unwanted(p, add.want)
	}
	return p, n
}

// cost is the optimiser's cost of f with the request add added: the
// instances fetched for metrics that did not want them, the PMDA
// domains of its PMIDs and of its instance domains.
func (f *planned) cost(add *plannedMetric) int {
	id := add.m.Desc.InDom
	_, n := f.with(add)
	pmidDoms, indomDoms := len(f.pmidDoms), len(f.indomDoms)
	if f.pmidDoms[add.m.PMID.Domain()] == 0 {
		pmidDoms++
	}
	if f.indomDoms[domainOfInDom(id)] == 0 {
		indomDoms++
	}
	return unwantCost*(f.total-f.unwant[id]+n) + pmidCost*pmidDoms + indomCost*indomDoms
}

// join adds the request to f.
func (f *planned) join(add plannedMetric) {
	id := add.m.Desc.InDom
	p, n := f.with(&add)
	f.indoms[id] = p
	f.total += n - f.unwant[id]
	f.unwant[id] = n
	if i, ok := f.byPMID[add.m.PMID]; ok {
		f.metrics[i].want = f.metrics[i].want.add(add.want)
		return
	}
	f.byPMID[add.m.PMID] = len(f.metrics)
	f.byInDom[id] = append(f.byInDom[id], len(f.metrics))
	f.pmidDoms[add.m.PMID.Domain()]++
	f.indomDoms[domainOfInDom(id)]++
	f.metrics = append(f.metrics, add)
}

// planFetches splits a group's requests, in the order they were made,
// into fetches as pmlogger's optimiser does, returned in the order
// pmlogger fetches them (the newest fetch first).
func planFetches(reqs []*request) []Fetch {
	var list []*planned // newest first
	for _, rq := range reqs {
		want := profile{all: true}
		if !rq.all {
			want = profile{}.add(profile{insts: rq.insts})
		}
		add := plannedMetric{m: GroupMetric{PMID: rq.pmid, Name: rq.name, Desc: rq.desc}, want: want}
		empty := newPlanned()
		best, bestCost := empty, empty.cost(&add)+fetchCost
		for _, f := range list {
			if c := f.cost(&add); c < bestCost {
				best, bestCost = f, c
			}
		}
		if best == empty {
			list = append([]*planned{empty}, list...)
		}
		best.join(add)
	}
	out := make([]Fetch, 0, len(list))
	for _, f := range list {
		ms := make([]GroupMetric, 0, len(f.metrics))
		for _, pm := range f.metrics {
			m := pm.m
			if p := f.indoms[m.Desc.InDom]; !p.all {
				m.Instances = p.insts
			}
			ms = append(ms, m)
		}
		sort.SliceStable(ms, func(a, b int) bool { return ms[a].PMID > ms[b].PMID })
		out = append(out, Fetch{Metrics: ms})
	}
	return out
}

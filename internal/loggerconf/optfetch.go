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
// joined) with their own profiles, and the profile of each domain.
type planned struct {
	metrics []plannedMetric
	indoms  map[pmapi.InDom]profile
}

type plannedMetric struct {
	m    GroupMetric
	want profile
}

func domainOfInDom(id pmapi.InDom) uint32 { return uint32(id) >> 22 & 0x1ff }

// cost is the optimiser's cost of f with the request (pmid, desc, want)
// added (want nil: nothing added).
func (f *planned) cost(add *plannedMetric) int {
	pmidDoms := map[uint32]bool{}
	indomDoms := map[uint32]bool{}
	profiles := make(map[pmapi.InDom]profile, len(f.indoms)+1)
	for id, p := range f.indoms {
		profiles[id] = p
	}
	wants := make(map[pmapi.PMID]profile, len(f.metrics)+1)
	indomOf := make(map[pmapi.PMID]pmapi.InDom, len(f.metrics)+1)
	for _, pm := range f.metrics {
		wants[pm.m.PMID] = pm.want
		indomOf[pm.m.PMID] = pm.m.Desc.InDom
	}
	if add != nil {
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

// join adds the request to f.
func (f *planned) join(add plannedMetric) {
	id := add.m.Desc.InDom
	if p, ok := f.indoms[id]; ok {
		f.indoms[id] = p.add(add.want)
	} else {
		f.indoms[id] = add.want
	}
	for i := range f.metrics {
		if f.metrics[i].m.PMID == add.m.PMID {
			f.metrics[i].want = f.metrics[i].want.add(add.want)
			return
		}
	}
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
		empty := &planned{indoms: map[pmapi.InDom]profile{}}
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

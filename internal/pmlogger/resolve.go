package pmlogger

import (
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/loggerconf"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/source"
)

// descBatcher is a source that looks many descriptors up in one
// exchange (pmcd.Client: DESC_IDS → DESCS).
type descBatcher interface {
	Descs(pmids []pmapi.PMID) ([]pmapi.Desc, error)
}

// namespaceFor is the namespace a configuration is resolved against:
// src itself, or, when src can look descriptors up in batches, src with
// the descriptors of the PMIDs of each name lookup fetched in one
// request (as the real pmlogger does with pmLookupDescs) rather than one
// request per metric.
func namespaceFor(src source.Source) loggerconf.Namespace {
	b, ok := src.(descBatcher)
	if !ok {
		return src
	}
	return &prefetchNS{Source: src, batch: b, descs: map[pmapi.PMID]pmapi.Desc{}}
}

// prefetchNS answers Desc from the descriptors fetched after each
// LookupNames. A PMID it has no descriptor for goes to the source, so
// an unknown PMID gets the source's own error; a batch that lost the
// connection has its error returned by the next Desc not answered from
// the cache, where the source would have reported it.
type prefetchNS struct {
	source.Source
	batch descBatcher
	descs map[pmapi.PMID]pmapi.Desc
	err   error // of the last batch, for the next Desc
	todo  []pmapi.PMID
}

func (p *prefetchNS) LookupNames(names []string) ([]pmapi.PMID, error) {
	ids, err := p.Source.LookupNames(names)
	if err != nil {
		return ids, err
	}
	p.todo = p.todo[:0]
	for _, id := range ids {
		if _, ok := p.descs[id]; !ok && id != pmapi.PMIDNull && !containsPMID(p.todo, id) {
			p.todo = append(p.todo, id)
		}
	}
	if len(p.todo) > 0 && p.err == nil {
		ds, err := p.batch.Descs(p.todo)
		if rc, ok := p.Source.(source.Reconnector); ok && err != nil && rc.Lost(err) {
			p.err = err
		}
		for i, d := range ds {
			if i < len(p.todo) && d.PMID == p.todo[i] {
				p.descs[d.PMID] = d
			}
		}
	}
	return ids, nil
}

func (p *prefetchNS) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if d, ok := p.descs[pmid]; ok {
		return d, nil
	}
	if err := p.err; err != nil {
		p.err = nil
		return pmapi.Desc{}, err
	}
	return p.Source.Desc(pmid)
}

func containsPMID(list []pmapi.PMID, id pmapi.PMID) bool {
	for _, x := range list {
		if x == id {
			return true
		}
	}
	return false
}

// GroupsFrom turns the groups package loggerconf resolved (pmlogger's
// tasks) into the engine's: the groups that log something, in their
// order, each split into fetches as pmlogger's fetch optimiser splits
// them (loggerconf.Fetch), a fetch's metrics logging the instances of
// its profile. An empty instance list logs every instance, as an empty
// pmlogger profile does.
func GroupsFrom(res *loggerconf.Resolved) []Group {
	var out []Group
	for _, g := range res.LoggedGroups() {
		iv := g.Delta
		if g.Once {
			iv = 0
		}
		grp := Group{Interval: iv}
		for _, f := range g.Fetches {
			ms := make([]GroupMetric, 0, len(f.Metrics))
			for _, m := range f.Metrics {
				insts := m.Instances
				if len(insts) == 0 {
					insts = nil
				}
				ms = append(ms, GroupMetric{Name: m.Name, PMID: m.PMID, Desc: m.Desc, Insts: insts})
			}
			grp.Fetches = append(grp.Fetches, ms)
		}
		out = append(out, grp)
	}
	return out
}

// LogStatesFrom is the configuration's control table: how each metric
// of every group is asked to be logged, "off" and "maybe" ones too (for
// pmlc's query).
func LogStatesFrom(res *loggerconf.Resolved) []LogState {
	var out []LogState
	for _, g := range res.Groups {
		iv := g.Delta
		if g.Once {
			iv = 0
		}
		for _, m := range g.Metrics {
			insts := m.Instances
			if len(insts) == 0 {
				insts = nil
			}
			out = append(out, LogState{PMID: m.PMID, Mandatory: g.Mandatory,
				On: g.State == loggerconf.On, Maybe: g.State == loggerconf.Maybe, Interval: iv, Insts: insts})
		}
	}
	return out
}

// ParseGroups parses, preprocesses and resolves a configuration against
// a source without writing anything: the warnings are returned as the
// real pmlogger words them. cfgName is the name messages give the file;
// def is the -t interval.
func ParseGroups(text []byte, cfgName string, src source.Source, def time.Duration) ([]Group, string, error) {
	cfg, err := loggerconf.Parse(strings.NewReader(string(text)), cfgName, loggerconf.Options{DefaultInterval: def})
	if err != nil {
		return nil, "", err
	}
	res, err := loggerconf.Resolve(cfg, src)
	if err != nil {
		return nil, "", err
	}
	return GroupsFrom(res), res.Warnings, nil
}

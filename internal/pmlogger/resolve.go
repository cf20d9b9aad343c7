package pmlogger

import (
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/loggerconf"
	"github.com/pcpkit/pcpkit/source"
)

// GroupsFrom turns the groups package loggerconf resolved (pmlogger's
// tasks) into the engine's: the groups that log something, in their
// order, each fetched as one fetch group. An empty instance list logs
// every instance, as an empty pmlogger profile does.
func GroupsFrom(res *loggerconf.Resolved) []Group {
	var out []Group
	for _, g := range res.LoggedGroups() {
		iv := g.Delta
		if g.Once {
			iv = 0
		}
		ms := make([]GroupMetric, 0, len(g.Metrics))
		for _, m := range g.Metrics {
			insts := m.Instances
			if len(insts) == 0 {
				insts = nil
			}
			ms = append(ms, GroupMetric{Name: m.Name, PMID: m.PMID, Desc: m.Desc, Insts: insts})
		}
		out = append(out, Group{Interval: iv, Fetches: [][]GroupMetric{ms}})
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

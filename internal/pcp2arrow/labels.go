package pcp2arrow

import (
	"slices"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// labeler gives, for the long layout's --labels, each column's merged
// label set (JSON) at a sample's time, as `pminfo -a ARCH -O TIME -l`
// prints it: the context's, domain's, instance domain's, cluster's and
// item's sets merged (pmMergeLabelSets, a later one's label replacing an
// earlier's), and an instance's own set for an instance. The sets are
// those in force at the sample's time (pmLookupLabels'), or for a sample
// before the first of them was logged (pmlogger logs a metric's labels
// when it first fetches it, after the archive's first record), that
// first one; so they are merged again only when a sample passes the time
// of a label record.
type labeler struct {
	meta    *archive.Meta
	host    string
	metrics []*sampler.Metric
	stamps  []pmapi.Timestamp // the label records' times, in order
	next    int               // the first of stamps after the labels' time
	started bool
	labels  [][][]byte // by metric, then column (nil: none)
}

func newLabeler(s *sampler.Sampler) *labeler {
	l := &labeler{meta: s.Meta(), host: s.Label().Hostname, metrics: s.Metrics}
	for i := range l.meta.Labels {
		l.stamps = append(l.stamps, l.meta.Labels[i].Stamp)
	}
	slices.SortFunc(l.stamps, func(a, b pmapi.Timestamp) int { return a.Compare(b) })
	l.stamps = slices.Compact(l.stamps)
	l.labels = make([][][]byte, len(s.Metrics))
	for k, m := range s.Metrics {
		l.labels[k] = make([][]byte, len(m.Cols))
	}
	return l
}

// at makes the labels those in force at t.
func (l *labeler) at(t pmapi.Timestamp) {
	moved := false
	for l.next < len(l.stamps) && !t.Before(l.stamps[l.next]) {
		l.next++
		moved = true
	}
	if l.started && !moved {
		return
	}
	l.started = true
	first := func(typ, ident uint32) *archive.LabelSet {
		sets := l.sets(typ, ident, t)
		if len(sets) == 0 {
			return nil
		}
		return &sets[0]
	}
	for k, m := range l.metrics {
		d := &m.Desc
		base := []*archive.LabelSet{first(archive.LabelContext, uint32(pmapi.PMIDNull)), first(archive.LabelDomain, d.PMID.Domain())}
		if d.InDom != pmapi.InDomNull {
			base = append(base, first(archive.LabelInDom, uint32(d.InDom)))
		}
		base = append(base, first(archive.LabelCluster, uint32(d.PMID)), first(archive.LabelItem, uint32(d.PMID)))
		var insts []archive.LabelSet
		if d.InDom != pmapi.InDomNull {
			insts = l.sets(archive.LabelInstances, uint32(d.InDom), t)
		}
		for i, c := range m.Cols {
			sets := base
			if j := slices.IndexFunc(insts, func(s archive.LabelSet) bool { return s.Inst == c.Inst }); j >= 0 && c.Inst != pmapi.InstNull {
				sets = append(base[:len(base):len(base)], &insts[j])
			}
			l.labels[k][i] = nil
			if merged, ok := pmctx.MergeLabels(sets, nil); ok {
				l.labels[k][i] = []byte(merged)
			}
		}
	}
}

// sets are the label sets of typ and ident in force at t, or the first
// ones logged when none is yet.
func (l *labeler) sets(typ, ident uint32, t pmapi.Timestamp) []archive.LabelSet {
	if sets := pmctx.ArchiveLabels(l.meta, l.host, typ, ident, t); sets != nil {
		return sets
	}
	var first *archive.LabelRecord
	for i := range l.meta.Labels {
		r := &l.meta.Labels[i]
		if r.Type == typ && r.Ident == ident && (first == nil || r.Stamp.Before(first.Stamp)) {
			first = r
		}
	}
	if first == nil {
		return nil
	}
	return first.Sets
}

package pminfo

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The label sets pminfo merges, each cached as the real tool caches it:
// the context's once, the others until a different domain, instance
// domain, cluster or PMID is asked for.

func first(sets []archive.LabelSet) *archive.LabelSet {
	if len(sets) == 0 {
		return nil
	}
	return &sets[0]
}

func (t *tool) contextLabels() *archive.LabelSet {
	t.initCache()
	c := &t.cache
	if !c.ctxDone {
		c.ctxDone = true
		sets := t.C.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
		if len(sets) == 0 {
			sets = []archive.LabelSet{pmctx.HostLabels(t.C.Host())}
		}
		c.ctxLabels = []*archive.LabelSet{&sets[0]}
	}
	return c.ctxLabels[0]
}

// lastLabels is a label set cached until another key is asked for.
type lastLabels[K comparable] struct {
	key K
	set *archive.LabelSet
}

// get returns the set for key, looking it up (lookup) when the key is
// not the last one's.
func (l *lastLabels[K]) get(key K, lookup func() []archive.LabelSet) *archive.LabelSet {
	if key != l.key {
		l.set = first(lookup())
		l.key = key
	}
	return l.set
}

func (t *tool) domainLabels(domain uint32) *archive.LabelSet {
	t.initCache()
	return t.cache.dom.get(int64(domain), func() []archive.LabelSet { return t.C.Labels(archive.LabelDomain, domain) })
}

func (t *tool) indomLabelSet(indom pmapi.InDom) *archive.LabelSet {
	t.initCache()
	return t.cache.indom.get(indom, func() []archive.LabelSet { return t.C.Labels(archive.LabelInDom, uint32(indom)) })
}

// clusterLabels: the cache is kept for the same domain and cluster.
func (t *tool) clusterLabels(pmid pmapi.PMID) *archive.LabelSet {
	t.initCache()
	key := pmid.Domain()<<12 | pmid.Cluster()
	return t.cache.cluster.get(key, func() []archive.LabelSet { return t.C.Labels(archive.LabelCluster, uint32(pmid)) })
}

func (t *tool) itemLabels(pmid pmapi.PMID) *archive.LabelSet {
	t.initCache()
	return t.cache.item.get(pmid, func() []archive.LabelSet { return t.C.Labels(archive.LabelItem, uint32(pmid)) })
}

// instanceLabelSets is pmGetInstancesLabels of indom, cached with the
// instance names (icache_update_label).
func (t *tool) instanceLabelSets(indom pmapi.InDom) []archive.LabelSet {
	t.instances(indom)
	c := &t.cache
	if !c.labelValid || c.labelInDom != indom {
		c.instLabels = t.C.Labels(archive.LabelInstances, uint32(indom))
		c.labelInDom, c.labelValid = indom, true
	}
	return c.instLabels
}

// metricLabels prints a metric's merged labels (-l).
func (t *tool) metricLabels(d *pmapi.Desc) {
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(d.PMID.Domain())}
	if d.InDom != pmapi.InDomNull {
		sets = append(sets, t.indomLabelSet(d.InDom))
	}
	sets = append(sets, t.clusterLabels(d.PMID), t.itemLabels(d.PMID))
	if m, ok := pmctx.MergeLabels(sets, nil); ok {
		fmt.Fprintf(t.Out, "    labels %s\n", m)
	}
}

// indomLabels prints an instance domain's merged labels (-l with an
// instance domain operand).
func (t *tool) indomLabels(indom pmapi.InDom) {
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom)}
	if m, ok := pmctx.MergeLabels(sets, nil); ok {
		fmt.Fprintf(t.Out, "    labels %s\n", m)
	}
}

// instanceCount is the number of instances pminfo reports labels or
// series for: the instance label sets, else the instance domain.
func (t *tool) instanceCount(indom pmapi.InDom) int {
	if n := len(t.instanceLabelSets(indom)); n > 0 {
		return n
	}
	insts, _, err := t.instances(indom)
	if err != nil {
		return 0
	}
	return len(insts)
}

// instanceAt is the instance of the j-th line: the j-th instance label
// set's, else the j-th instance of the domain.
func (t *tool) instanceAt(indom pmapi.InDom, j int) (int32, *archive.LabelSet) {
	if sets := t.instanceLabelSets(indom); j < len(sets) {
		return sets[j].Inst, &sets[j]
	}
	insts, _, _ := t.instances(indom)
	if j < len(insts) {
		return insts[j], nil
	}
	return pmapi.InstNull, nil
}

// eachInstance calls fn for each instance pminfo reports labels or series
// for, with the merge of base and the instance's own label set (and not
// when pmMergeLabelSets gives nothing): the instance, its name ("" and
// false when the domain has no such instance now) and the merged labels.
func (t *tool) eachInstance(indom pmapi.InDom, base []*archive.LabelSet, fn func(inst int32, name string, found bool, merged string)) {
	n := t.instanceCount(indom)
	for j := 0; j < n; j++ {
		inst, il := t.instanceAt(indom, j)
		sets := base
		if il != nil {
			sets = append(base[:len(base):len(base)], il)
		}
		m, ok := pmctx.MergeLabels(sets, nil)
		if !ok {
			continue
		}
		name, found := t.instanceName(indom, inst)
		fn(inst, name, found, m)
	}
}

// instanceLabels prints the merged labels of each instance (-l).
func (t *tool) instanceLabels(indom pmapi.InDom, d *pmapi.Desc) {
	if indom == pmapi.InDomNull {
		return
	}
	base := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom),
		t.clusterLabels(d.PMID), t.itemLabels(d.PMID)}
	t.eachInstance(indom, base, func(inst int32, name string, found bool, merged string) {
		if !found {
			name = "DISAPPEARED"
		}
		fmt.Fprintf(t.Out, "    inst [%d or \"%s\"] labels %s\n", inst, name, merged)
	})
}

// intrinsic keeps the labels that identify (not PM_LABEL_OPTIONAL).
func intrinsic(flags uint8) bool { return flags&pmctx.LabelOptional == 0 }

// hash is a SHA1 as 40 hexadecimal digits.
func hash(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// metricSeries prints the source and metric series identifiers (-s): the
// SHA1 of the intrinsic context labels, and of the metric's name, merged
// intrinsic labels and descriptor.
func (t *tool) metricSeries(name string, d *pmapi.Desc) {
	if m, ok := pmctx.MergeLabels([]*archive.LabelSet{t.contextLabels()}, intrinsic); ok {
		fmt.Fprintf(t.Out, "    Source: %s\n", hash(`{"series":"source","labels":`, m, "}"))
	}
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(d.PMID.Domain()), t.indomLabelSet(d.InDom),
		t.clusterLabels(d.PMID), t.itemLabels(d.PMID)}
	if m, ok := pmctx.MergeLabels(sets, intrinsic); ok {
		s := fmt.Sprintf(`{"series":"metric","name":"%s","labels":%s,"semantics":"%s","type":"%s","units":"%s"}`,
			name, m, d.Sem, typeStr(d.Type), d.Units)
		fmt.Fprintf(t.Out, "    Series: %s\n", hash(s))
	}
}

// instanceSeries prints each instance's series identifier (-s): the SHA1
// of its name and its merged labels (optional ones included).
func (t *tool) instanceSeries(indom pmapi.InDom) {
	if indom == pmapi.InDomNull {
		return
	}
	base := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom)}
	t.eachInstance(indom, base, func(inst int32, name string, found bool, merged string) {
		iname := name
		if !found {
			iname, name = "???", "DISAPPEARED"
		}
		s := fmt.Sprintf(`{"series":"instance","name":"%s","labels":%s}`, iname, merged)
		fmt.Fprintf(t.Out, "    inst [%d or \"%s\"] series %s\n", inst, name, hash(s))
	})
}

// typeStr is pmTypeStr: "NO_SUPPORT" where pmapi says "NOSUPPORT", and
// "???" for a type that is not one.
func typeStr(t pmapi.Type) string {
	switch {
	case t == pmapi.TypeNoSupport:
		return "NO_SUPPORT"
	case t >= pmapi.Type32 && t <= pmapi.TypeHighresEvent, t == pmapi.TypeUnknown:
		return t.String()
	}
	return "???"
}

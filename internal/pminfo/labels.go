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
		sets := t.c.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
		if len(sets) == 0 {
			sets = []archive.LabelSet{pmctx.HostLabels(t.c.Host())}
		}
		c.ctxLabels = []*archive.LabelSet{&sets[0]}
	}
	return c.ctxLabels[0]
}

func (t *tool) domainLabels(domain uint32) *archive.LabelSet {
	t.initCache()
	c := &t.cache
	if int64(domain) != c.domLast {
		c.domLabels = first(t.c.Labels(archive.LabelDomain, domain))
		c.domLast = int64(domain)
	}
	return c.domLabels
}

func (t *tool) indomLabelSet(indom pmapi.InDom) *archive.LabelSet {
	t.initCache()
	c := &t.cache
	if indom != c.indomLast {
		c.indomLabels = first(t.c.Labels(archive.LabelInDom, uint32(indom)))
		c.indomLast = indom
	}
	return c.indomLabels
}

func (t *tool) clusterLabels(pmid pmapi.PMID) *archive.LabelSet {
	t.initCache()
	c := &t.cache
	if pmid.Domain() != c.cluLast.Domain() || pmid.Cluster() != c.cluLast.Cluster() {
		c.cluLabels = first(t.c.Labels(archive.LabelCluster, uint32(pmid)))
		c.cluLast = pmid
	}
	return c.cluLabels
}

func (t *tool) itemLabels(pmid pmapi.PMID) *archive.LabelSet {
	t.initCache()
	c := &t.cache
	if pmid != c.itemLast {
		c.itemLabels = first(t.c.Labels(archive.LabelItem, uint32(pmid)))
		c.itemLast = pmid
	}
	return c.itemLabels
}

// instanceLabelSets is pmGetInstancesLabels of indom, cached with the
// instance names (icache_update_label).
func (t *tool) instanceLabelSets(indom pmapi.InDom) []archive.LabelSet {
	t.instances(indom)
	c := &t.cache
	if !c.labelValid || c.labelInDom != indom {
		c.instLabels = t.c.Labels(archive.LabelInstances, uint32(indom))
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
		fmt.Fprintf(t.out, "    labels %s\n", m)
	}
}

// indomLabels prints an instance domain's merged labels (-l with an
// instance domain operand).
func (t *tool) indomLabels(indom pmapi.InDom) {
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom)}
	if m, ok := pmctx.MergeLabels(sets, nil); ok {
		fmt.Fprintf(t.out, "    labels %s\n", m)
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

// instanceLabels prints the merged labels of each instance (-l).
func (t *tool) instanceLabels(indom pmapi.InDom, d *pmapi.Desc) {
	if indom == pmapi.InDomNull {
		return
	}
	n := t.instanceCount(indom)
	base := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom),
		t.clusterLabels(d.PMID), t.itemLabels(d.PMID)}
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
		if !found {
			name = "DISAPPEARED"
		}
		fmt.Fprintf(t.out, "    inst [%d or \"%s\"] labels %s\n", inst, name, m)
	}
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
		fmt.Fprintf(t.out, "    Source: %s\n", hash(`{"series":"source","labels":`, m, "}"))
	}
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(d.PMID.Domain()), t.indomLabelSet(d.InDom),
		t.clusterLabels(d.PMID), t.itemLabels(d.PMID)}
	if m, ok := pmctx.MergeLabels(sets, intrinsic); ok {
		s := fmt.Sprintf(`{"series":"metric","name":"%s","labels":%s,"semantics":"%s","type":"%s","units":"%s"}`,
			name, m, d.Sem, typeStr(d.Type), d.Units)
		fmt.Fprintf(t.out, "    Series: %s\n", hash(s))
	}
}

// instanceSeries prints each instance's series identifier (-s): the SHA1
// of its name and its merged labels (optional ones included).
func (t *tool) instanceSeries(indom pmapi.InDom) {
	if indom == pmapi.InDomNull {
		return
	}
	base := []*archive.LabelSet{t.contextLabels(), t.domainLabels(indom.Domain()), t.indomLabelSet(indom)}
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
		iname := name
		if !found {
			iname, name = "???", "DISAPPEARED"
		}
		s := fmt.Sprintf(`{"series":"instance","name":"%s","labels":%s}`, iname, m)
		fmt.Fprintf(t.out, "    inst [%d or \"%s\"] series %s\n", inst, name, hash(s))
	}
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

package logrewrite

import (
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Label set specs, as the real tool holds them: one per label set (or,
// for the instances of an instance domain, per instance) that a renumbered
// metric or instance domain takes along. Label rules are not done.

// label change flags
const (
	lChangeID = 1 << iota
)

type labelSpec struct {
	typ      uint32 // PM_LABEL_DOMAIN, ...
	old, new uint32 // the domain, cluster, metric or instance domain
	inst     int32  // the instance (PM_LABEL_INSTANCES), else -1
	flags    int
	ip       *indomSpec // the instance changes of its instance domain
}

// labelHash is the input's label records as libpcp indexes them: by
// type (in its hash table's walk order), then by identifier (likewise),
// each with its records, newest first.
type labelHash struct {
	types   []uint32
	idents  map[uint32][]uint32
	records map[[2]uint32][]*archive.LabelRecord
}

func newLabelHash(m *archive.Meta) *labelHash {
	h := &labelHash{idents: map[uint32][]uint32{}, records: map[[2]uint32][]*archive.LabelRecord{}}
	outer := lhash.New()
	inner := map[uint32]*lhash.Order{}
	for i := range m.Labels {
		lr := &m.Labels[i]
		if inner[lr.Type] == nil {
			outer.Add(lr.Type)
			inner[lr.Type] = lhash.New()
		}
		inner[lr.Type].Add(lr.Ident)
		k := [2]uint32{lr.Type, lr.Ident}
		h.records[k] = append([]*archive.LabelRecord{lr}, h.records[k]...)
	}
	h.types = outer.Keys()
	for typ, o := range inner {
		h.idents[typ] = o.Keys()
	}
	return h
}

// startLabel finds the spec of a label set (of instance inst, or any
// for -1), or makes one.
func (r *rules) startLabel(typ, ident uint32, inst int32) *labelSpec {
	for _, lp := range r.labels {
		if lp.typ == typ && lp.old == ident && (inst == -1 || inst == lp.inst) {
			return lp
		}
	}
	lp := &labelSpec{typ: typ, old: ident, new: ident, inst: inst}
	r.labels = append([]*labelSpec{lp}, r.labels...)
	return lp
}

// linkLabels gives the label sets of renumbered instance domains and
// metrics their new identifiers, as the real tool does once every file
// is read.
func (r *rules) linkLabels(m *archive.Meta) {
	h := newLabelHash(m)
	for _, ip := range r.indoms {
		change := ip.changed()
		if !change && ip.new == ip.old {
			continue
		}
		for _, typ := range h.types {
			if typ&(archive.LabelInDom|archive.LabelInstances) == 0 {
				continue
			}
			for _, id := range h.idents[typ] {
				if id != uint32(ip.old) {
					continue
				}
				var specs []*labelSpec
				if typ&archive.LabelInstances != 0 {
					// one spec per instance
					for _, lr := range h.records[[2]uint32{typ, id}] {
						for _, s := range lr.Sets {
							specs = append(specs, r.startLabel(typ, id, s.Inst))
						}
					}
				} else {
					specs = append(specs, r.startLabel(typ, id, -1))
				}
				for _, lp := range specs {
					if change {
						lp.ip = ip
					}
					if ip.new != ip.old && lp.flags&lChangeID == 0 {
						lp.flags |= lChangeID
						lp.new = uint32(ip.new)
					}
				}
			}
		}
	}
	for _, mp := range r.metrics {
		if mp.new.PMID == mp.old.PMID {
			continue
		}
		for _, typ := range h.types {
			if typ&(archive.LabelDomain|archive.LabelCluster|archive.LabelItem) == 0 {
				continue
			}
			for _, id := range h.idents[typ] {
				var o, n uint32
				switch {
				case typ&archive.LabelDomain != 0:
					o, n = mp.old.PMID.Domain(), mp.new.PMID.Domain()
				case typ&archive.LabelCluster != 0:
					// as the real tool compares them: domain and
					// cluster numbers or'ed, which no cluster label
					// set's identifier matches but by chance
					o = mp.old.PMID.Domain() | mp.old.PMID.Cluster()
					n = mp.new.PMID.Domain() | mp.new.PMID.Cluster()
				default:
					o, n = uint32(mp.old.PMID), uint32(mp.new.PMID)
				}
				if id != o {
					continue
				}
				lp := r.startLabel(typ, o, -1)
				if o != n && lp.flags&lChangeID == 0 {
					lp.flags |= lChangeID
					lp.new = n
				}
			}
		}
	}
}

// labelIdent is how the real tool's -v report heads a label set spec.
func labelIdent(typ, ident uint32) string {
	switch {
	case typ&archive.LabelContext != 0:
		return "Context"
	case typ&archive.LabelDomain != 0:
		return fmt.Sprintf("Domain %d", ident)
	case typ&archive.LabelCluster != 0:
		return fmt.Sprintf("Cluster %d.%d", pmapi.PMID(ident).Domain(), pmapi.PMID(ident).Cluster())
	case typ&archive.LabelItem != 0:
		return "PMID " + pmapi.PMID(ident).String()
	}
	return "InDom " + pmapi.InDom(ident).String()
}

// labelID is how the report's ID line names a label set's identifier.
func labelID(typ, ident uint32) string {
	switch {
	case typ&archive.LabelContext != 0:
		return "Context"
	case typ&archive.LabelDomain != 0:
		return fmt.Sprintf("Domain %d", ident)
	case typ&archive.LabelCluster != 0:
		return "Cluster " + pmapi.PMID(ident).String()
	case typ&archive.LabelItem != 0:
		return "PMID " + pmapi.PMID(ident).String()
	case typ&archive.LabelInDom != 0:
		return "Indom " + pmapi.InDom(ident).String()
	}
	return "Instances " + pmapi.InDom(ident).String()
}

// reportLabels prints -v's label set section; it reports whether there
// was a change.
func (r *rules) reportLabels(w io.Writer) bool {
	change := false
	for _, lp := range r.labels {
		if lp.flags == 0 {
			continue
		}
		change = true
		fmt.Fprintf(w, "\nLabel: %s", labelIdent(lp.typ, lp.old))
		if lp.typ&archive.LabelInstances != 0 && lp.inst != -1 {
			fmt.Fprintf(w, ", Instance: %d", lp.inst)
		}
		fmt.Fprintln(w)
		if lp.flags&lChangeID != 0 {
			fmt.Fprintf(w, "ID:\t\t%s -> %s\n", labelID(lp.typ, lp.old), labelID(lp.typ, lp.new))
		}
	}
	return change
}

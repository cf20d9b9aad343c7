package logrewrite

import (
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/dumplog"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Label set specs, as the real tool holds them: one per label set that a
// rule names (with its instance, label name and value) or that a
// renumbered metric or instance domain takes along (for the instances of
// an instance domain, one per instance).

// label change flags
const (
	lChangeID = 1 << iota
	lChangeLabel
	lChangeValue
	lChangeInstance
	lDelete
	lNew
	lActive // (no spec holds it: the flag of the walk that ends a rule)
)

type labelSpec struct {
	typ      uint32 // PM_LABEL_DOMAIN, ...
	old, new uint32 // the domain, cluster, metric or instance domain
	inst     int32  // the instance (PM_LABEL_INSTANCES; -1: all)
	newInst  int32
	oldLabel *string // the label name (quoted) a label must have, nil: any
	oldValue *string // the value (JSON) a label must have, nil: any
	newLabel *string
	newValue *string
	newSet   *archive.LabelSet // NEW labels
	specState
}

// labelHash is the input's label records as libpcp indexes them (see
// typeIndex), each with its records, newest first.
type labelHash struct {
	*typeIndex
	records map[[2]uint32][]*archive.LabelRecord
}

func newLabelHash(m *archive.Meta) *labelHash {
	h := &labelHash{typeIndex: newTypeIndex(), records: map[[2]uint32][]*archive.LabelRecord{}}
	for i := range m.Labels {
		lr := &m.Labels[i]
		h.add(lr.Type, lr.Ident)
		k := [2]uint32{lr.Type, lr.Ident}
		h.records[k] = append([]*archive.LabelRecord{lr}, h.records[k]...)
	}
	h.done()
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
	return r.createLabel(typ, ident, inst, nil, nil)
}

// linkLabels gives the label sets of renumbered instance domains and
// metrics their new identifiers, as the real tool does once every file
// is read.
func (r *rules) linkLabels(m *archive.Meta, semantic func(string, ...any) error) error {
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
					// one spec per instance of the newest label
					// record (the head of libpcp's chain)
					if recs := h.records[[2]uint32{typ, id}]; len(recs) > 0 {
						for _, s := range recs[0].Sets {
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
					if ip.new == ip.old {
						continue
					}
					if lp.flags&lChangeID != 0 {
						if lp.new != uint32(ip.new) {
							// (the real message says "text clause")
							return semantic("Conflicting indom change for label set (%s from text clause, %s from indom clause)", pmapi.InDom(lp.new), ip.new)
						}
						continue
					}
					lp.flags |= lChangeID
					lp.new = uint32(ip.new)
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
				if o == n {
					continue
				}
				if lp.flags&lChangeID != 0 {
					if lp.new != n {
						return semantic("Conflicting pmid change for help label (%s from label clause, %s from pmid clause)", pmapi.PMID(lp.new), mp.new.PMID)
					}
					continue
				}
				lp.flags |= lChangeID
				lp.new = n
			}
		}
	}
	return nil
}

// labelIdent is how the real tool's -v report heads a label set spec
// (id false) and names its identifier on the ID line (id true).
func labelIdent(typ, ident uint32, id bool) string {
	switch {
	case typ&archive.LabelContext != 0:
		return "Context"
	case typ&archive.LabelDomain != 0:
		return fmt.Sprintf("Domain %d", ident)
	case typ&archive.LabelCluster != 0 && id:
		return "Cluster " + pmapi.PMID(ident).String()
	case typ&archive.LabelCluster != 0:
		return fmt.Sprintf("Cluster %d.%d", pmapi.PMID(ident).Domain(), pmapi.PMID(ident).Cluster())
	case typ&archive.LabelItem != 0:
		return "PMID " + pmapi.PMID(ident).String()
	case typ&archive.LabelInDom != 0 && id:
		return "Indom " + pmapi.InDom(ident).String()
	case typ&archive.LabelInstances != 0 && id:
		return "Instances " + pmapi.InDom(ident).String()
	}
	return "InDom " + pmapi.InDom(ident).String()
}

// checkLabels: the new instance domain of a label set must be in the
// output.
func (r *rules) checkLabels(m *archive.Meta, semantic func(string, ...any) error) error {
	for _, lp := range r.labels {
		if lp.ip != nil || lp.typ&(archive.LabelInDom|archive.LabelInstances) == 0 || lp.flags&lChangeID == 0 {
			continue
		}
		if !r.inOutput(m, pmapi.InDom(lp.old), pmapi.InDom(lp.new)) {
			return semantic("New indom (%s) for label set %s is not in the output archive", pmapi.InDom(lp.new), labelIdent(lp.typ, lp.new, false))
		}
	}
	return nil
}

// reportLabels prints -v's label set section; it reports whether there
// was a change.
func (r *rules) reportLabels(w io.Writer) bool {
	change := false
	all := func(s *string) string {
		if s == nil {
			return "ALL"
		}
		return *s
	}
	for _, lp := range r.labels {
		if lp.flags == 0 {
			continue
		}
		change = true
		fmt.Fprintf(w, "\nLabel: %s", labelIdent(lp.typ, lp.old, false))
		if lp.typ&archive.LabelInstances != 0 {
			if lp.inst != -1 {
				fmt.Fprintf(w, ", Instance: %d", lp.inst)
			} else {
				fmt.Fprintf(w, ", Instances: ALL")
			}
		}
		if lp.oldLabel != nil {
			fmt.Fprintf(w, ", Label: %s", *lp.oldLabel)
		}
		if lp.oldValue != nil {
			fmt.Fprintf(w, ", Value: %s", *lp.oldValue)
		}
		fmt.Fprintln(w)
		if lp.flags&lNew != 0 {
			fmt.Fprintf(w, "NEW:\n%s", dumplog.AppendLabelSet(nil, lp.typ, lp.new, lp.newSet))
		}
		if lp.flags&lChangeID != 0 {
			fmt.Fprintf(w, "ID:\t\t%s -> %s\n", labelIdent(lp.typ, lp.old, true), labelIdent(lp.typ, lp.new, true))
		}
		if lp.flags&lChangeLabel != 0 {
			fmt.Fprintf(w, "Label:\t\t%s -> %s\n", all(lp.oldLabel), *lp.newLabel)
		}
		if lp.flags&lChangeValue != 0 {
			fmt.Fprintf(w, "Value:\t\t%s -> %s\n", all(lp.oldValue), *lp.newValue)
		}
		if lp.flags&lDelete != 0 {
			fmt.Fprintf(w, "DELETE\n")
		}
	}
	return change
}

// cloneSet is a deep copy of a label set.
func cloneSet(s *archive.LabelSet) archive.LabelSet {
	c := *s
	c.Labels = append([]archive.LabelEntry(nil), s.Labels...)
	return c
}

// findLabel is the index, from k on, of the first label of s with the
// given name (quoted) and value (JSON), either nil for any; -1 if none.
func findLabel(s *archive.LabelSet, k int, name, value *string) int {
	for ; k < len(s.Labels); k++ {
		l := s.Labels[k]
		if name != nil && (len(*name) != l.NameLen+2 || jsonPart(s.JSON, l.NameOff-1, l.NameLen+2) != *name) {
			continue
		}
		if value != nil && (len(*value) != l.ValueLen || jsonPart(s.JSON, l.ValueOff, l.ValueLen) != *value) {
			continue
		}
		return k
	}
	return -1
}

// jsonPart is json[off:off+n], cut to what json holds (a damaged
// archive's offsets may point anywhere).
func jsonPart(json string, off, n int) string {
	if off < 0 || n < 0 || off > len(json) {
		return ""
	}
	return json[off:min(off+n, len(json))]
}

// extractLabel takes label k out of s, as the real tool cuts it from
// the JSON (with the comma after it, or before it for the last).
func extractLabel(s *archive.LabelSet, k int) {
	if len(s.Labels) == 1 {
		s.Labels, s.JSON = nil, ""
		return
	}
	l := s.Labels[k]
	size := l.NameLen + l.ValueLen + 2 + 1 + 1
	pos := l.NameOff - 1
	if k == len(s.Labels)-1 {
		pos = l.NameOff - 2
	} else {
		for i := k + 1; i < len(s.Labels); i++ {
			s.Labels[i].NameOff -= size
			s.Labels[i].ValueOff -= size
		}
	}
	pos = min(max(pos, 0), len(s.JSON))
	s.JSON = s.JSON[:pos] + s.JSON[min(pos+size, len(s.JSON)):]
	s.Labels = append(s.Labels[:k], s.Labels[k+1:]...)
}

// splice replaces n bytes at off of a label set's JSON with repl, as the
// real tool does it: it copies the JSON (and its terminating NUL) into
// a buffer sized by the length change, then writes repl in place. The
// offsets it works from may be stale (a renamed label keeps its value's
// old offset), so the copy is cut where the buffer or the JSON ends, as
// C's memory then holds it; it returns the new JSON length.
func splice(buf []byte, jsonLen, off, n int, repl string) ([]byte, int) {
	delta := len(repl) - n
	if delta != 0 {
		nb := make([]byte, max(jsonLen+1+delta, 0))
		copy(nb, buf[:min(off, len(buf), len(nb))])
		from := off + n
		cnt := jsonLen - from + 1
		if to := from + delta; cnt > 0 && to >= 0 && to < len(nb) && from < len(buf) {
			copy(nb[to:], buf[from:min(from+cnt, len(buf))])
		}
		buf, jsonLen = nb, jsonLen+delta
	}
	if off >= 0 && off < len(buf) {
		copy(buf[off:], repl)
	}
	return buf, jsonLen
}

// changeAll gives every label of s the name (quoted) or, for values,
// the value repl, as the real tool changes a whole set's labels (a
// renamed label's value offset is not moved).
func changeAll(s *archive.LabelSet, repl string, values bool) {
	if !values {
		repl = repl[1 : len(repl)-1]
	}
	buf, n := append([]byte(s.JSON), 0), len(s.JSON)
	for i := range s.Labels {
		l := &s.Labels[i]
		off, cnt := &l.NameOff, &l.NameLen
		if values {
			off, cnt = &l.ValueOff, &l.ValueLen
		}
		delta := len(repl) - *cnt
		buf, n = splice(buf, n, *off, *cnt, repl)
		*cnt = len(repl)
		for j := i + 1; j < len(s.Labels); j++ {
			s.Labels[j].NameOff += delta
			s.Labels[j].ValueOff += delta
		}
	}
	s.JSON = string(buf[:max(min(n, len(buf)), 0)])
}

// rewriteLabels applies the label specs to a label record, as the real
// tool's do_labelset does, and writes what comes of it with put: sets
// taken out of the record (or single labels) as records of their own,
// then what remains of the record.
func (r *rules) rewriteLabels(in *archive.LabelRecord, stamp pmapi.Timestamp, put func(*archive.LabelRecord) error) error {
	typ, ident := in.Type, in.Ident
	sets := make([]archive.LabelSet, len(in.Sets))
	for i := range in.Sets {
		sets[i] = cloneSet(&in.Sets[i])
	}
	write := func(t, id uint32, ss []archive.LabelSet) error {
		return put(&archive.LabelRecord{Stamp: stamp, Type: t, Ident: id, Sets: ss})
	}
	for _, lp := range r.labels {
		if lp.typ != typ || lp.old != ident {
			continue
		}
		flags := lp.flags &^ lNew
		if flags == 0 {
			continue
		}
		whole := lp.oldLabel == nil && lp.oldValue == nil
		full := false
		if whole {
			full = typ != archive.LabelInstances || lp.inst == -1
			if !full {
				full = true
				for i := range sets {
					if sets[i].Inst != lp.inst {
						full = false
						break
					}
				}
			}
		}
		if full {
			if flags&lDelete != 0 {
				return nil
			}
			if flags&lChangeID != 0 {
				ident = lp.new
			}
		}
		for i := 0; i < len(sets); i++ {
			s := &sets[i]
			if lp.typ == archive.LabelInstances && lp.inst != -1 && lp.inst != s.Inst {
				continue
			}
			if whole {
				if flags == lChangeInstance {
					s.Inst = lp.newInst
					continue
				}
				ext := sets[i]
				sets = append(sets[:i:i], sets[i+1:]...)
				i--
				if flags&lDelete != 0 {
					if len(sets) == 0 {
						return nil
					}
					continue
				}
				if flags&lChangeInstance != 0 {
					ext.Inst = lp.newInst
				}
				if flags&lChangeLabel != 0 {
					changeAll(&ext, *lp.newLabel, false)
				}
				if flags&lChangeValue != 0 {
					changeAll(&ext, *lp.newValue, true)
				}
				if err := write(typ, lp.new, []archive.LabelSet{ext}); err != nil {
					return err
				}
				continue
			}
			for k := findLabel(s, 0, lp.oldLabel, lp.oldValue); k != -1; k = findLabel(s, k, lp.oldLabel, lp.oldValue) {
				if flags&lDelete == 0 {
					l := s.Labels[k]
					name := jsonPart(s.JSON, l.NameOff-1, l.NameLen+2)
					if lp.newLabel != nil {
						name = *lp.newLabel
					}
					value := jsonPart(s.JSON, l.ValueOff, l.ValueLen)
					if lp.newValue != nil {
						value = *lp.newValue
					}
					n := &labelSpec{}
					if !n.addNew(name, value, lp.typ) {
						return errorf("Unable to rewrite label {%s:%s}: %s\n", name, value, pmapi.ErrStr(-22))
					}
					n.newSet.Inst = s.Inst
					if flags&lChangeInstance != 0 {
						n.newSet.Inst = lp.newInst
					}
					if err := write(lp.typ, lp.new, []archive.LabelSet{*n.newSet}); err != nil {
						return err
					}
				}
				extractLabel(s, k)
			}
			if len(s.Labels) == 0 && s.Err == 0 {
				// (an empty set too)
				sets = append(sets[:i:i], sets[i+1:]...)
				i--
			}
		}
	}
	if len(sets) == 0 {
		return nil
	}
	return write(typ, ident, sets)
}

package pmctx

import (
	"github.com/pcpkit/pcpkit/archive"
)

// LabelOptional is PM_LABEL_OPTIONAL, the flag of labels that do not
// identify a source or metric (left out of pminfo -s's series hashes).
const LabelOptional = 1 << 7

// label is one label of a set: its name and value as JSON text.
type label struct {
	name, value string
	flags       uint8
}

// MergeLabels is pmMergeLabelSets: the label sets (nil ones skipped) are
// merged from first to last, a later set's label replacing an earlier
// one of the same name, into one JSON object with the names in order.
// keep, when not nil, filters the labels of each set as they are merged
// (pmMergeLabelSets' filter callback). ok is false when no set was given,
// in which case libpcp prints nothing.
func MergeLabels(sets []*archive.LabelSet, keep func(flags uint8) bool) (merged string, ok bool) {
	var acc []label
	any := false
	for _, s := range sets {
		if s == nil {
			continue
		}
		any = true
		acc = mergeTwo(acc, setLabels(s), keep)
	}
	if !any {
		return "", false
	}
	b := make([]byte, 0, 256)
	b = append(b, '{')
	for i, l := range acc {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, l.name...)
		b = append(b, '"', ':')
		b = append(b, l.value...)
	}
	b = append(b, '}')
	return string(b), true
}

// setLabels is a label set's labels, as its index locates them in its
// JSON (a label outside the JSON is dropped).
func setLabels(s *archive.LabelSet) []label {
	out := make([]label, 0, len(s.Labels))
	for _, e := range s.Labels {
		if e.NameOff < 0 || e.NameOff+e.NameLen > len(s.JSON) || e.ValueOff < 0 || e.ValueOff+e.ValueLen > len(s.JSON) {
			continue
		}
		v := s.JSON[e.ValueOff : e.ValueOff+e.ValueLen]
		if e.ValueLen == 0 {
			v = "null"
		}
		out = append(out, label{name: s.JSON[e.NameOff : e.NameOff+e.NameLen], value: v, flags: e.Flags})
	}
	return out
}

// mergeTwo is __pmMergeLabelSets: a walk over both sorted lists that
// prefers b's label where the names are the same, each label put through
// the filter as it is taken.
func mergeTwo(a, b []label, keep func(uint8) bool) []label {
	out := make([]label, 0, len(a)+len(b))
	stash := func(l label) {
		if keep == nil || keep(l.flags) {
			out = append(out, l)
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) {
			switch {
			case j >= len(b):
				if j > 0 && a[i].name == b[j-1].name {
					i++
				} else {
					stash(a[i])
					i++
				}
			case a[i].name < b[j].name:
				if j > 0 && a[i].name == b[j-1].name {
					i++
				} else {
					stash(a[i])
					i++
				}
			}
		}
		if j < len(b) {
			if i >= len(a) || a[i].name >= b[j].name {
				stash(b[j])
				j++
			}
		}
	}
	return out
}

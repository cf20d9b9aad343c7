package archive

import "strings"

// LabelPair is one label of a label set: its name, its value as JSON text
// (a quoted string, a number, an array, ...) and its flags (the label's
// type, LabelContext to LabelInstances, or-ed with LabelOptional).
type LabelPair struct {
	Name, Value string
	Flags       uint8
}

// LabelOptional is PM_LABEL_OPTIONAL in a label's flags.
const LabelOptional = 0x80

// MakeLabelSet builds the label set of inst from labels, in the order
// given (pmcd sends them sorted by name): one JSON object, each entry
// locating its label's name and value in it.
func MakeLabelSet(inst int32, labels ...LabelPair) LabelSet {
	s := LabelSet{Inst: inst}
	if len(labels) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		no := b.Len()
		b.WriteString(l.Name)
		b.WriteString(`":`)
		vo := b.Len()
		b.WriteString(l.Value)
		s.Labels = append(s.Labels, LabelEntry{NameOff: no, NameLen: len(l.Name), Flags: l.Flags, ValueOff: vo, ValueLen: len(l.Value)})
	}
	b.WriteByte('}')
	s.JSON = b.String()
	return s
}

// Pairs returns the labels of s (an entry outside the JSON text is left
// out).
func (s *LabelSet) Pairs() []LabelPair {
	var out []LabelPair
	for _, e := range s.Labels {
		if e.NameOff < 0 || e.ValueOff < 0 || e.NameLen < 0 || e.ValueLen < 0 ||
			e.NameOff+e.NameLen > len(s.JSON) || e.ValueOff+e.ValueLen > len(s.JSON) {
			continue
		}
		out = append(out, LabelPair{Name: s.JSON[e.NameOff : e.NameOff+e.NameLen], Value: s.JSON[e.ValueOff : e.ValueOff+e.ValueLen], Flags: e.Flags})
	}
	return out
}

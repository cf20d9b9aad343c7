package logrewrite

import (
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Help text rules (TEXT METRIC ... and TEXT INDOM ...), as the real tool
// holds them: one spec per help text record that a rule names or that a
// renumbered metric or instance domain takes along.

// text change flags
const (
	txChangeID = 1 << iota
	txChangeText
	txDelete
	txActive // (no spec holds it: the flag of the walk that ends a rule)
)

const textTypeMask = archive.TextOneLine | archive.TextHelp

type textSpec struct {
	typ      uint32 // the record's type (PM_TEXT_ONELINE or HELP, with PMID or INDOM)
	old, new uint32 // the metric or instance domain
	oldText  string // the content a record must have to match
	newText  string
	specState
}

// textHash is the input's help texts as libpcp indexes them (see
// typeIndex), each with its latest content.
type textHash struct {
	*typeIndex
	text map[[2]uint32]string
}

func newTextHash(m *archive.Meta) *textHash {
	h := &textHash{typeIndex: newTypeIndex(), text: map[[2]uint32]string{}}
	for _, t := range m.Texts {
		if t.Type&textTypeMask == 0 || t.Type&(archive.TextPMID|archive.TextInDom) == 0 {
			continue // (libpcp skips these)
		}
		h.add(t.Type, t.Ident)
		h.text[[2]uint32{t.Type, t.Ident}] = t.Text
	}
	h.done()
	return h
}

// lookup is pmLookupText's (pmLookupInDomText's) answer: the text, or
// for a help text that is missing or empty the one-line text.
func (h *textHash) lookup(typ, ident uint32) (string, bool) {
	t, ok := h.text[[2]uint32{typ, ident}]
	if (!ok || t == "") && typ&archive.TextHelp != 0 {
		return h.lookup(typ&^archive.TextHelp|archive.TextOneLine, ident)
	}
	return t, ok
}

// startText finds the spec of a help text (with content text when it
// is given) or makes one.
func (r *rules) startText(h *textHash, typ, ident uint32, text *string) *textSpec {
	for _, tp := range r.texts {
		if tp.typ == typ && tp.old == ident && (text == nil || *text == tp.oldText) {
			return tp
		}
	}
	tp := &textSpec{typ: typ, old: ident, new: ident}
	if text != nil {
		tp.oldText = *text
	} else {
		t, ok := h.lookup(typ, ident)
		if !ok {
			return nil
		}
		tp.oldText = t
	}
	r.texts = append([]*textSpec{tp}, r.texts...)
	return tp
}

// textTypeStr names a text's type as the real tool's messages do: it
// compares the whole type (with the PMID or INDOM bit), so every text
// is "unknown".
func textTypeStr(typ uint32) string {
	switch typ {
	case archive.TextOneLine:
		return "one line"
	case archive.TextHelp:
		return "help"
	}
	return "unknown"
}

// textIdent is how the real tool names a help text's metric or instance
// domain.
func textIdent(typ, ident uint32) string {
	if typ&archive.TextPMID != 0 {
		return pmapi.PMID(ident).String()
	}
	return pmapi.InDom(ident).String()
}

// describe names the text in the walk's messages.
func (tp *textSpec) describe() string {
	kind := "indom"
	if tp.typ&archive.TextPMID != 0 {
		kind = "metric"
	}
	return fmt.Sprintf("%s text for %s %s", textTypeStr(tp.typ), kind, textIdent(tp.typ, tp.old))
}

// textRule reads a TEXT rule (the TEXT keyword read).
func (p *parser) textRule() {
	if p.texts == nil {
		p.texts = newTextHash(p.meta)
	}
	t := p.next()
	isMetric := false
	var ident uint32
	known := true
	switch t.kind {
	case tMetric:
		isMetric = true
		ident, known = p.pmidOrName()
	case tIndom:
		ident = uint32(p.indomTarget())
	default:
		p.syntax()
	}
	types := uint32(0)
	for {
		switch p.peek().kind {
		case tOneline:
			types |= archive.TextOneLine
		case tHelp:
			types |= archive.TextHelp
		case tTextStar:
			types |= textTypeMask
		default:
			goto done
		}
		p.next()
	}
done:
	if types == 0 {
		types = archive.TextOneLine
	}
	var content *string
	if s := p.peek(); s.kind == tString || s.kind == tTextString {
		p.next()
		content = &s.text
	}
	p.curText = nil
	p.walkText = false
	starM, starI := p.starM, p.starI
	if known {
		// the texts of the wanted types, in the real tool's walk of
		// them (which stops once it saw each type for one identifier)
		kind := uint32(archive.TextInDom)
		if isMetric {
			kind = archive.TextPMID
		}
		target := kind | types
		found := 0
		for _, typ := range p.texts.types {
			if typ&target != typ {
				continue
			}
			for _, id := range p.texts.idents[typ] {
				var match bool
				switch {
				case isMetric && starM != 0:
					match = pmapi.PMID(id).Domain() == pmapi.PMID(ident).Domain() &&
						(starM == 2 || pmapi.PMID(id).Cluster() == pmapi.PMID(ident).Cluster())
				case !isMetric && starI:
					match = pmapi.InDom(id).Domain() == pmapi.InDom(ident).Domain()
				default:
					match = id == ident
				}
				if !match {
					continue
				}
				if tp := p.r.startText(p.texts, typ, id, content); tp != nil {
					tp.active = true
					p.curText = tp
					found++
				}
				if isMetric && starM == 0 || !isMetric && !starI {
					target ^= typ & textTypeMask
					if target&textTypeMask == 0 {
						break
					}
				}
			}
			if target&textTypeMask == 0 {
				break
			}
		}
		p.walkText = found > 1
	}
	n := p.clauses(func(t token) {
		switch {
		case t.kind == tDelete:
			for _, tp := range p.walkTexts(txDelete, "delete") {
				tp.flags |= txDelete
			}
		case t.kind == tText:
			p.expect(tAssign)
			s := p.next()
			if s.kind != tString && s.kind != tTextString {
				p.syntax()
			}
			for _, tp := range p.walkTexts(txChangeText, "text") {
				switch {
				case tp.flags&txChangeText != 0 && tp.newText == s.text:
					p.fail("Duplicate text change clause")
				case tp.flags&txChangeText != 0:
					p.fail("Conflicting text change clause")
				case tp.oldText == s.text:
					if p.warn {
						p.warnf("Help text: No change")
					}
				default:
					tp.newText = s.text
					tp.flags |= txChangeText
				}
			}
		case t.kind == tMetric && isMetric:
			p.expect(tAssign)
			x := p.pmidTarget()
			for _, tp := range p.walkTexts(txChangeID, "id") {
				old := pmapi.PMID(tp.old)
				pmid := starPMID(x, old, p.starM)
				if uint32(pmid) == tp.old {
					if p.warn {
						p.warnf("Text for metric: %s: metric: No change", old)
					}
					continue
				}
				for _, o := range p.r.texts {
					if o.flags&txChangeID != 0 && o.typ == tp.typ && o != tp && o.new == uint32(pmid) {
						p.failf("Text for metric: %s: metric: Conflicting metric change", old)
					}
				}
				tp.new = uint32(pmid)
				tp.flags |= txChangeID
			}
		case t.kind == tIndom && !isMetric:
			p.expect(tAssign)
			x := p.indomTarget()
			for _, tp := range p.walkTexts(txChangeID, "id") {
				if tp.new != tp.old {
					p.failf("Duplicate text clause for indom %s", pmapi.InDom(tp.old))
				}
				indom := x
				if p.starI {
					indom = pmapi.InDom(uint32(x.Domain())<<22 | uint32(pmapi.InDom(tp.old).Serial()))
				}
				if uint32(indom) == tp.old {
					if p.warn {
						p.warnf("Text for instance domain %s: indom: No change", pmapi.InDom(tp.old))
					}
					continue
				}
				tp.new = uint32(indom)
				tp.flags |= txChangeID
			}
		default:
			p.syntax()
		}
	})
	if n == 0 {
		// (the real tool walks the rule's texts to take them out of
		// it, with the checks of a clause)
		p.walkTexts(txActive, "active")
	}
}

// walkTexts is the specs a clause of the current TEXT rule applies to
// (see walkSpecs).
func (p *parser) walkTexts(flag int, which string) []*textSpec {
	return walkSpecs(p, p.r.texts, p.curText, p.walkText, flag, txDelete, txActive, which,
		"pmlogrewrite: gram.y:157: walk_text: Assertion `(tp->flags & TEXT_ACTIVE)' failed.\n")
}

// linkTexts gives the help texts of renumbered metrics and instance
// domains their new identifiers (and the instance changes of theirs), as
// the real tool does once every file is read.
func (r *rules) linkTexts(m *archive.Meta, semantic func(string, ...any) error) error {
	h := newTextHash(m)
	for _, ip := range r.indoms {
		change := ip.changed()
		if !change && ip.new == ip.old {
			continue
		}
		for _, typ := range h.types {
			if typ&archive.TextInDom == 0 {
				continue
			}
			for _, id := range h.idents[typ] {
				if id != uint32(ip.old) {
					continue
				}
				tp := r.startText(h, typ, id, nil)
				if tp == nil {
					continue
				}
				if change {
					tp.ip = ip
				}
				if ip.new != ip.old {
					if tp.flags&txChangeID != 0 {
						if tp.new != uint32(ip.new) {
							return semantic("Conflicting indom change for help text (%s from text clause, %s from indom clause)", pmapi.InDom(tp.new), ip.new)
						}
					} else {
						tp.flags |= txChangeID
						tp.new = uint32(ip.new)
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
			if typ&archive.TextPMID == 0 {
				continue
			}
			for _, id := range h.idents[typ] {
				if id != uint32(mp.old.PMID) {
					continue
				}
				tp := r.startText(h, typ, id, nil)
				if tp == nil {
					continue
				}
				if tp.flags&txChangeID != 0 {
					if tp.new != uint32(mp.new.PMID) {
						return semantic("Conflicting pmid change for help text (%s from text clause, %s from pmid clause)", pmapi.PMID(tp.new), mp.new.PMID)
					}
				} else {
					tp.flags |= txChangeID
					tp.new = uint32(mp.new.PMID)
				}
			}
		}
	}
	return nil
}

// checkTexts: the new instance domain of a help text must be in the
// output.
func (r *rules) checkTexts(m *archive.Meta, semantic func(string, ...any) error) error {
	for _, tp := range r.texts {
		if tp.ip != nil || tp.typ&archive.TextInDom == 0 || tp.flags&txChangeID == 0 {
			continue
		}
		if !r.inOutput(m, pmapi.InDom(tp.old), pmapi.InDom(tp.new)) {
			return semantic("New indom (%s) for help text is not in the output archive", pmapi.InDom(tp.new))
		}
	}
	return nil
}

// inOutput reports whether what belongs to instance domain old (and
// moves to new) finds new in the output, as the real tool checks it.
func (r *rules) inOutput(m *archive.Meta, old, new pmapi.InDom) bool {
	ip := r.byInDom[old]
	for _, x := range m.InDomOrder {
		if ip == nil && x == new || ip != nil && ip.new != ip.old && ip.new == new {
			return true
		}
	}
	return false
}

// reportTexts prints -v's help text section; it reports whether there
// was a change.
func (r *rules) reportTexts(w io.Writer) bool {
	change := false
	for _, tp := range r.texts {
		if tp.flags == 0 {
			continue
		}
		change = true
		line, kind := "full", "pmInDom"
		if tp.typ&archive.TextOneLine != 0 {
			line = "One Line"
		}
		if tp.typ&archive.TextPMID != 0 {
			kind = "pmID"
		}
		fmt.Fprintf(w, "\nHelp Text: %s %s (%s)\n", line, kind, textIdent(tp.typ, tp.old))
		if tp.flags&txChangeID != 0 {
			fmt.Fprintf(w, "ID:\t\t%s -> %s\n", textIdent(tp.typ, tp.old), textIdent(tp.typ, tp.new))
		}
		if tp.flags&txChangeText != 0 {
			fmt.Fprintf(w, "Text:\t\t\"%s\"\n\t\t->\n\t\t\"%s\"\n", tp.oldText, tp.newText)
		}
		if tp.flags&txDelete != 0 {
			fmt.Fprintf(w, "DELETE\n")
		}
	}
	return change
}

// rewriteText applies the first spec that matches a help text record
// (false: the record is deleted).
func (r *rules) rewriteText(t *archive.HelpText) bool {
	for _, tp := range r.texts {
		if tp.old != t.Ident || tp.typ != t.Type || tp.oldText != t.Text {
			continue
		}
		if tp.flags&txDelete != 0 {
			return false
		}
		if tp.flags&txChangeID != 0 {
			t.Ident = tp.new
		}
		if tp.flags&txChangeText != 0 {
			t.Text = tp.newText
		}
		break
	}
	return true
}

package logextract

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// A configuration (-c) names the metrics to extract, each optionally with
// instances, in pmlogextract's syntax:
//
//	# comment
//	kernel.all.cpu
//	kernel.percpu.cpu.sys ["cpu0","cpu1"]
//	disk.dev ["dks0d1"] network.interface [ 0, 'lo' ]
//
// A name may be a non-leaf of the namespace (all its leaves are taken).
// Instances are numbers (internal identifiers) or names, quoted with ' or
// " or bare words, separated by white space or commas.

// cfgSpec is one metric of a configuration file.
type cfgSpec struct {
	name  string
	line  int // line of the name (as the real parser counts it)
	insts []cfgInst
}

type cfgInst struct {
	num    int32
	isNum  bool
	name   string
	line   int
	quoted bool
}

// cfgSyntaxError is a configuration the real parser rejects.
type cfgSyntaxError struct {
	line int
}

func (e *cfgSyntaxError) Error() string { return fmt.Sprintf("[line %d] syntax error", e.line) }

// parseConfig reads a configuration. The line numbers are those the real
// tool's lexer reports: a metric name's line is counted after the token
// that follows it has been read.
func parseConfig(r io.Reader) ([]cfgSpec, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lx := &cfgLexer{s: string(b), line: 1}
	var specs []cfgSpec
	tok := lx.next()
	for tok.kind != tokEOF {
		if tok.kind != tokName {
			return nil, &cfgSyntaxError{line: lx.line}
		}
		spec := cfgSpec{name: tok.text}
		tok = lx.next()
		spec.line = lx.line
		if tok.kind == tokOpen {
			for {
				tok = lx.next()
				switch tok.kind {
				case tokNumber:
					n, err := strconv.ParseInt(tok.text, 10, 32)
					if err != nil {
						return nil, &cfgSyntaxError{line: lx.line}
					}
					spec.insts = append(spec.insts, cfgInst{num: int32(n), isNum: true, name: tok.text, line: lx.line})
					continue
				case tokString, tokName:
					spec.insts = append(spec.insts, cfgInst{name: tok.text, line: lx.line, quoted: tok.kind == tokString})
					continue
				case tokClose:
				default:
					return nil, &cfgSyntaxError{line: lx.line}
				}
				break
			}
			// the grammar reduces the spec at "]", with no look-ahead
			spec.line = lx.line
			tok = lx.next()
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokName
	tokNumber
	tokString
	tokOpen
	tokClose
	tokBad
)

type cfgToken struct {
	kind tokKind
	text string
}

type cfgLexer struct {
	s    string
	p    int
	line int
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// next returns the next token, skipping white space, commas and comments.
func (l *cfgLexer) next() cfgToken {
	for l.p < len(l.s) {
		c := l.s[l.p]
		switch {
		case c == '\n':
			l.line++
			l.p++
		case c == ' ' || c == '\t' || c == '\r' || c == ',':
			l.p++
		case c == '#':
			for l.p < len(l.s) && l.s[l.p] != '\n' {
				l.p++
			}
		case c == '[':
			l.p++
			return cfgToken{kind: tokOpen}
		case c == ']':
			l.p++
			return cfgToken{kind: tokClose}
		case c == '"' || c == '\'':
			q := c
			l.p++
			start := l.p
			for l.p < len(l.s) && l.s[l.p] != q {
				if l.s[l.p] == '\n' {
					l.line++
				}
				l.p++
			}
			if l.p >= len(l.s) {
				return cfgToken{kind: tokBad}
			}
			t := l.s[start:l.p]
			l.p++
			return cfgToken{kind: tokString, text: t}
		case c >= '0' && c <= '9' || c == '-':
			start := l.p
			l.p++
			for l.p < len(l.s) && l.s[l.p] >= '0' && l.s[l.p] <= '9' {
				l.p++
			}
			if l.p < len(l.s) && isNameChar(l.s[l.p]) {
				for l.p < len(l.s) && isNameChar(l.s[l.p]) {
					l.p++
				}
				return cfgToken{kind: tokName, text: l.s[start:l.p]}
			}
			return cfgToken{kind: tokNumber, text: l.s[start:l.p]}
		case isNameStart(c):
			start := l.p
			for l.p < len(l.s) && isNameChar(l.s[l.p]) {
				l.p++
			}
			return cfgToken{kind: tokName, text: l.s[start:l.p]}
		default:
			l.p++
			return cfgToken{kind: tokBad}
		}
	}
	return cfgToken{kind: tokEOF}
}

// mlEntry is one metric of the selection, as the real tool keeps them:
// one entry per leaf of each configuration line, in order, repeats
// included. numinst is -1 for "every instance"; a singular metric named
// without instances has the one instance PM_IN_NULL.
type mlEntry struct {
	pmid    pmapi.PMID
	indom   pmapi.InDom
	numinst int
	insts   []int32
}

// selection is what a configuration selects.
type selection struct {
	ml  []mlEntry
	idx map[pmapi.PMID]int // the first entry of each metric in ml
}

// find returns the index of the first entry for pmid, or -1.
func (s *selection) find(p pmapi.PMID) int {
	if s.idx == nil {
		s.idx = make(map[pmapi.PMID]int, len(s.ml))
		for j := len(s.ml) - 1; j >= 0; j-- {
			s.idx[s.ml[j].pmid] = j
		}
	}
	if j, ok := s.idx[p]; ok {
		return j
	}
	return -1
}

func (s *selection) hasPMID(p pmapi.PMID) bool { return s.find(p) >= 0 }

// keeps reports whether a record has a selected metric.
func (s *selection) keeps(r *archive.Record) bool {
	for i := 0; i < r.NumPMID(); i++ {
		if s.hasPMID(r.PMID(i)) {
			return true
		}
	}
	return false
}

func (s *selection) hasInDom(indom pmapi.InDom) bool {
	for j := range s.ml {
		if s.ml[j].indom == indom {
			return true
		}
	}
	return false
}

func (s *selection) hasCluster(ident uint32) bool {
	for j := range s.ml {
		p := s.ml[j].pmid
		if uint32(pmapi.NewPMID(p.Domain(), p.Cluster(), 0)) == ident {
			return true
		}
	}
	return false
}

// resolveConfig turns a parsed configuration into a selection against
// the inputs' namespaces and instance domains, printing the real tool's
// warnings to out. A name is looked up in the inputs in command-line
// order, in the first one that knows it. It returns nil when nothing
// valid is selected (the real tool then extracts everything).
func (x *extractor) resolveConfig(specs []cfgSpec, file string, out io.Writer) *selection {
	sel := &selection{}
	for _, sp := range specs {
		var src *input
		var leaves []string
		for _, in := range x.inputs {
			if l := in.a.Meta().Traverse(sp.name); len(l) > 0 {
				src, leaves = in, l
				break
			}
		}
		if src == nil {
			fmt.Fprintf(out, "Warning [%s, line %d]\nProblem with lookup for metric \"%s\" ... metric ignored\nReason: %s\n", file, sp.line, sp.name, pmapi.ErrName.Error())
			continue
		}
		meta := src.a.Meta()
		for _, leaf := range leaves {
			pmid, _ := meta.Lookup(leaf)
			desc, ok := meta.Desc(pmid)
			if !ok {
				fmt.Fprintf(out, "Warning [%s, line %d]\nDescription unavailable for metric \"%s\" ... not extracted\nReason: %s\n", file, sp.line, leaf, pmapi.ErrPMID.Error())
				continue
			}
			e := mlEntry{pmid: pmid, indom: desc.InDom}
			if len(sp.insts) == 0 {
				if desc.InDom == pmapi.InDomNull {
					e.numinst, e.insts = 1, []int32{pmapi.InstNull}
				} else {
					e.numinst = -1
				}
				sel.ml = append(sel.ml, e)
				continue
			}
			for _, ci := range sp.insts {
				id, ok := lookupInst(meta, desc.InDom, ci)
				if !ok {
					fmt.Fprintf(out, "Warning [%s, line %d]\nInstance \"%s\" is not defined for the metric \"%s\"\n", file, ci.line, ci.name, leaf)
					continue
				}
				if id > -1 {
					e.insts = append(e.insts, id)
				}
			}
			e.numinst = len(e.insts)
			if e.numinst == 0 {
				fmt.Fprintf(out, "Warning [%s, line %d]\nNone of the instances for metric \"%s\" are valid, metric not extracted\n", file, sp.line, leaf)
				continue
			}
			sel.ml = append(sel.ml, e)
		}
	}
	if len(sel.ml) == 0 {
		return nil
	}
	return sel
}

// lookupInst finds an instance by number or name in any state of an
// instance domain of one archive.
func lookupInst(meta *archive.Meta, indom pmapi.InDom, ci cfgInst) (int32, bool) {
	for _, snap := range meta.InDomHistory(indom) {
		for k, id := range snap.Insts {
			if ci.isNum && id == ci.num {
				return id, true
			}
			if !ci.isNum && snap.Names[k] == ci.name {
				return id, true
			}
		}
	}
	if ci.isNum {
		return 0, false
	}
	for _, snap := range meta.InDomHistory(indom) {
		for k, id := range snap.Insts {
			if matchInstName(snap.Names[k], ci.name) {
				return id, true
			}
		}
	}
	return 0, false
}

// matchInstName compares a configured instance name with an instance's
// external name: in full, or with the name's first word (as
// pmLookupInDom does).
func matchInstName(ext, want string) bool {
	if ext == want {
		return true
	}
	if i := strings.IndexByte(ext, ' '); i >= 0 && ext[:i] == want {
		return true
	}
	return false
}

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
// instances, in pmlogextract's syntax (its lex.l and gram.y):
//
//	# comment
//	kernel.all.cpu
//	kernel.percpu.cpu.sys ["cpu0","cpu1"]
//	disk.dev ["dks0d1"] network.interface [ 0, 'lo' ], hinv.ncpu
//
// A name ([A-Za-z][A-Za-z0-9_.]*) may be a non-leaf of the namespace (all
// its leaves are taken). Instances are numbers (internal identifiers,
// [0-9]+) or names: bare words, or quoted with " or ' (not empty, on one
// line). Metrics and instances may be separated by one comma. Any other
// character is "Unexpected character 'C'".

// cfgSpec is one metric of a configuration file.
type cfgSpec struct {
	name  string
	line  int // the line the real parser is on when it looks the metric up
	insts []cfgInst
}

type cfgInst struct {
	num   int32
	isNum bool
	name  string // as printed in warnings (a number as the int it becomes)
}

// cfgSyntaxError is a configuration the real parser rejects: the message
// is "syntax error" or the lexer's "Unexpected character 'C'".
type cfgSyntaxError struct {
	line int
	msg  string
}

func (e *cfgSyntaxError) Error() string { return fmt.Sprintf("[line %d] %s", e.line, e.msg) }

// parseConfig reads a configuration as the real tool's parser does. On a
// syntax error it also returns the specifications the parser reduced
// before it, which the real tool has looked up (and warned about)
// already: a metric is looked up when its "]" is read, or when the token
// after its name is read (even one that is then a syntax error, but not
// a character the lexer rejects), and the line numbers are the lexer's
// at that moment.
func parseConfig(r io.Reader) ([]cfgSpec, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lx := &cfgLexer{s: string(b), line: 1}
	var specs []cfgSpec
	syntax := func() ([]cfgSpec, error) { return specs, &cfgSyntaxError{line: lx.line, msg: "syntax error"} }
	tok := lx.next()
	for {
		if tok.kind == tokComma && len(specs) > 0 {
			tok = lx.next()
			if tok.kind != tokName && tok.kind != tokBad {
				return syntax()
			}
		}
		switch tok.kind {
		case tokBad:
			return specs, lx.err
		case tokEOF:
			return specs, nil
		case tokName:
		default:
			return syntax()
		}
		spec := cfgSpec{name: tok.text}
		if tok = lx.next(); tok.kind == tokBad {
			return specs, lx.err
		}
		if tok.kind == tokOpen {
			for {
				tok = lx.next()
				switch tok.kind {
				case tokNumber, tokString, tokName:
					spec.insts = append(spec.insts, instOf(tok))
				case tokBad:
					return specs, lx.err
				default:
					return syntax()
				}
				tok = lx.next()
				if tok.kind == tokComma {
					continue
				}
				if tok.kind == tokClose {
					break
				}
				if tok.kind == tokBad {
					return specs, lx.err
				}
				// another instance follows directly
				lx.push(tok)
			}
			// reduced at "]", with no look-ahead
			spec.line = lx.line
			specs = append(specs, spec)
			tok = lx.next()
			continue
		}
		spec.line = lx.line
		specs = append(specs, spec)
	}
}

// instOf is the instance a token names: a number is read as atol reads
// it and kept as the int the real tool stores.
func instOf(tok cfgToken) cfgInst {
	if tok.kind != tokNumber {
		return cfgInst{name: tok.text}
	}
	var n int64
	for _, c := range tok.text {
		n = n*10 + int64(c-'0')
	}
	v := int32(n)
	return cfgInst{num: v, isNum: true, name: strconv.Itoa(int(v))}
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokName
	tokNumber
	tokString
	tokOpen
	tokClose
	tokComma
	tokBad // the lexer's error, in cfgLexer.err
)

type cfgToken struct {
	kind tokKind
	text string
}

type cfgLexer struct {
	s      string
	p      int
	line   int
	err    error     // set with a tokBad
	pushed *cfgToken // a token given back
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// push gives back a token for next to return again.
func (l *cfgLexer) push(t cfgToken) { l.pushed = &t }

// next returns the next token, skipping white space and comments.
func (l *cfgLexer) next() cfgToken {
	if t := l.pushed; t != nil {
		l.pushed = nil
		return *t
	}
	for l.p < len(l.s) {
		c := l.s[l.p]
		switch {
		case c == '\n':
			l.line++
			l.p++
		case c == ' ' || c == '\t' || c == '\r':
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
		case c == ',':
			l.p++
			return cfgToken{kind: tokComma}
		case c == '"' || c == '\'':
			if e := strings.IndexAny(l.s[l.p+1:], string(c)+"\n"); e > 0 && l.s[l.p+1+e] == c {
				t := l.s[l.p+1 : l.p+1+e]
				l.p += e + 2
				return cfgToken{kind: tokString, text: t}
			}
			return l.bad(c)
		case isDigit(c):
			start := l.p
			for l.p < len(l.s) && isDigit(l.s[l.p]) {
				l.p++
			}
			return cfgToken{kind: tokNumber, text: l.s[start:l.p]}
		case isAlpha(c):
			start := l.p
			for l.p < len(l.s) && (isAlpha(l.s[l.p]) || isDigit(l.s[l.p]) || l.s[l.p] == '_' || l.s[l.p] == '.') {
				l.p++
			}
			return cfgToken{kind: tokName, text: l.s[start:l.p]}
		default:
			return l.bad(c)
		}
	}
	return cfgToken{kind: tokEOF}
}

// bad is the lexer's error on a character it has no rule for.
func (l *cfgLexer) bad(c byte) cfgToken {
	l.err = &cfgSyntaxError{line: l.line, msg: fmt.Sprintf("Unexpected character '%c'", c)}
	return cfgToken{kind: tokBad}
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
// warnings to out. A name is looked up in every input, in command-line
// order (the warning when none knows it); each leaf it names there is
// resolved against that input's metadata, unless its metric was selected
// already (from an earlier input or an earlier line: the real tool
// passes over it silently, so a metric all of whose instances are
// missing is warned about once per input). It returns nil when no metric
// with a descriptor was named (the real tool then extracts everything),
// and an empty selection when metrics were named but none of their
// instances exists (the real tool then extracts nothing).
func (x *extractor) resolveConfig(specs []cfgSpec, file string, out io.Writer) *selection {
	sel := &selection{}
	selected := map[pmapi.PMID]bool{}
	named := false
	for _, sp := range specs {
		found := false
		for _, in := range x.inputs {
			meta := in.a.Meta()
			leaves := meta.Traverse(sp.name)
			if len(leaves) == 0 {
				continue
			}
			found = true
			for _, leaf := range leaves {
				pmid, _ := meta.Lookup(leaf)
				if selected[pmid] {
					continue
				}
				desc, ok := meta.Desc(pmid)
				if !ok {
					fmt.Fprintf(out, "Warning [%s, line %d]\nDescription unavailable for metric \"%s\" ... not extracted\nReason: %s\n", file, sp.line, leaf, pmapi.ErrPMID.Error())
					continue
				}
				named = true
				if e, ok := resolveInsts(meta, pmid, desc, sp, leaf, file, out); ok {
					sel.ml = append(sel.ml, e)
					selected[pmid] = true
				}
			}
		}
		if !found {
			fmt.Fprintf(out, "Warning [%s, line %d]\nProblem with lookup for metric \"%s\" ... metric ignored\nReason: %s\n", file, sp.line, sp.name, pmapi.ErrName.Error())
		}
	}
	if !named {
		return nil
	}
	return sel
}

// resolveInsts makes the selection entry of metric leaf (pmid, desc)
// for a configuration line: every instance, or those the line names that
// meta's instance domain has (a warning for each other one). ok is false
// when the line names instances and none of them exists (with the real
// tool's warning).
func resolveInsts(meta *archive.Meta, pmid pmapi.PMID, desc *pmapi.Desc, sp cfgSpec, leaf, file string, out io.Writer) (e mlEntry, ok bool) {
	e = mlEntry{pmid: pmid, indom: desc.InDom}
	if len(sp.insts) == 0 {
		if desc.InDom == pmapi.InDomNull {
			e.numinst, e.insts = 1, []int32{pmapi.InstNull}
		} else {
			e.numinst = -1
		}
		return e, true
	}
	for _, ci := range sp.insts {
		id, ok := lookupInst(meta, desc.InDom, ci)
		if !ok {
			fmt.Fprintf(out, "Warning [%s, line %d]\nInstance \"%s\" is not defined for the metric \"%s\"\n", file, sp.line, ci.name, leaf)
			continue
		}
		if id > -1 {
			e.insts = append(e.insts, id)
		}
	}
	e.numinst = len(e.insts)
	if e.numinst == 0 {
		fmt.Fprintf(out, "Warning [%s, line %d]\nNone of the instances for metric \"%s\" are valid, metric not extracted\n", file, sp.line, leaf)
		return e, false
	}
	return e, true
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

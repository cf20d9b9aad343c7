package derive

import (
	"fmt"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// SyntaxError is a failed parse: the position libpcp reports (the value
// pmRegisterDerived returns, as an offset into the expression) and the
// message pmDerivedErrStr gives, which is empty when libpcp has none (a
// syntax error that no error rule of the grammar describes, such as
// "1e5").
type SyntaxError struct {
	Expr string
	// Pos is the byte offset of the error in Expr. It is -1 for an empty
	// expression (libpcp points just before it), otherwise 0 <= Pos <
	// len(Expr).
	Pos int
	Msg string
	// stale marks a parse that stopped without a syntax error (see
	// parserState.last).
	stale bool
}

func (e *SyntaxError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("syntax error at offset %d", e.Pos)
	}
	return fmt.Sprintf("syntax error at offset %d: %s", e.Pos, e.Msg)
}

// Caret is the caret line pmRegisterDerivedMetric prints under the
// expression: a space for each byte before the error, then "^" (for
// position -1, a space and "^").
func (e *SyntaxError) Caret() string {
	n := e.Pos
	if n < 0 {
		n = -n
	}
	return strings.Repeat(" ", n) + "^"
}

// Parse parses an expression of the given dialect, in a fresh parser
// (see parserState). The error, if any, is a *SyntaxError.
func Parse(expr string, d Dialect) (*Node, error) {
	return parse(expr, d, &parserState{})
}

// parserState is what libpcp's parser keeps from one parse to the next in
// a process (static variables of derive_parser.y.in), which a Registry
// holds:
//
//   - inMatchinst: the lexer's in_matchinst (see lexer.inMatchinst);
//   - spec: 6.3.8's specdesc, specflags and specmeta, the metadata that
//     mkconst() and novalue(...) build: mkconst() resets the descriptor
//     but not the flags nor the meta= name, novalue(...) resets nothing,
//     and a parse that fails inside the parameters leaves them for the
//     next one;
//   - last: 6.3.8's parse_tree, the tree of the last parse that succeeded
//     (nil after one that failed), which a parse that stops without a
//     syntax error ("x ? novalue() : novalue()") returns again.
type parserState struct {
	inMatchinst bool
	spec        specState
	last        *Node
}

// specState is libpcp 6.3.8's specdesc, specflags and specmeta.
type specState struct {
	typ     pmapi.Type
	indom   pmapi.InDom // 0 (not PM_INDOM_NULL) in a fresh process
	sem     pmapi.Sem
	units   pmapi.Units
	set     SpecSet
	meta    string
	hasMeta bool
}

// yval is a semantic value on the parser stack.
type yval struct {
	node *Node
	text string
	pos  int
	tok  tok
	bang bool
}

type parser struct {
	t       *parseTables
	lx      *lexer
	errmsg  string
	dialect Dialect
	st      *parserState
	params  []SpecParam // the tag=value parameters read since the last mkconst() or novalue()
	// yyerror is set when a syntax error was detected (Bison calls
	// yyerror, libpcp's derive_error, which forgets the parse tree); a
	// parse that stops without one (an action's YYERROR) leaves libpcp's
	// parse_tree as it was.
	yyerror bool
}

func (p *parser) gramerr(what, after string, quoted bool) {
	if p.errmsg != "" {
		return
	}
	if quoted {
		p.errmsg = what + " '" + after + "'"
	} else {
		p.errmsg = what + " expected to follow " + after
	}
}

// action outcomes
const (
	actOK = iota
	actAccept
	actError // YYERROR
	actAbort // the action reported an error and returned from the parser
)

// maxSteps bounds the parser loop (Bison's recovery can in principle read
// tokens for a long time; these grammars never do).
const maxSteps = 1 << 22

// parse parses expr in the parser state st, which it updates as libpcp
// updates its own.
func parse(expr string, d Dialect, st *parserState) (*Node, error) {
	n, _, err := parseStale(expr, d, st)
	return n, err
}

// parseStale is parse, also reporting a parse that stopped without a
// syntax error and so gives the previous tree (see parserState.last).
func parseStale(expr string, d Dialect, st *parserState) (n *Node, stale bool, err error) {
	n, err = parseTree(expr, d, st)
	if err == nil {
		st.last = n
		return n, false, nil
	}
	if se := err.(*SyntaxError); se.stale && st.last != nil {
		// pmRegisterDerived succeeds, with the previous tree
		return st.last, true, nil
	}
	st.last = nil
	return nil, false, err
}

// msgNovalueTwice is libpcp 6.3.8's message for "x ? novalue() : novalue()".
const msgNovalueTwice = "novalue() may appear at most once in a ternary expression"

func parseTree(expr string, d Dialect, st *parserState) (*Node, error) {
	p := &parser{t: tablesOf(d), dialect: d, st: st}
	p.lx = newLexer(expr, d, &st.inMatchinst, &p.errmsg)
	t := p.t
	states := []int{0}
	vals := []yval{{}}
	errstatus := 0
	la := tok(-1) // no look-ahead
	var laVal yval
	fail := func() *SyntaxError {
		return &SyntaxError{Expr: expr, Pos: p.lx.lexicon, Msg: p.errmsg}
	}
	readLA := func() {
		la = p.lx.next()
		laVal = yval{text: p.lx.text, pos: p.lx.lexicon, tok: la}
	}
	const (
		stNew = iota
		stErrlab
		stErrlab1
	)
	mode := stNew
	for step := 0; step < maxSteps; step++ {
		switch mode {
		case stErrlab:
			if errstatus == 0 {
				p.yyerror = true
			}
			if errstatus == 3 {
				// the look-ahead could not be used after an error: discard
				// it (the lexer never returns Bison's end of input)
				la = -1
			}
			mode = stErrlab1
			continue
		case stErrlab1:
			errstatus = 3
			for {
				if to := t.states[states[len(states)-1]].errShift; to != 0 {
					states = append(states, int(to))
					vals = append(vals, yval{pos: p.lx.lexicon})
					break
				}
				if len(states) == 1 {
					se := fail()
					se.stale = !p.yyerror
					return nil, se
				}
				states = states[:len(states)-1]
				vals = vals[:len(vals)-1]
			}
			mode = stNew
			continue
		}
		st := &t.states[states[len(states)-1]]
		rule := 0
		if st.lookahead {
			if la < 0 {
				readLA()
			}
			if a := st.action[la]; a > 0 {
				if errstatus > 0 {
					errstatus--
				}
				states = append(states, int(a))
				vals = append(vals, laVal)
				la = -1
				continue
			} else if a < 0 {
				rule = int(-a)
			}
		}
		if rule == 0 {
			rule = int(st.reduce)
			if rule == 0 {
				mode = stErrlab
				continue
			}
		}
		// reduce
		r := &t.rules[rule]
		n := int(r.size)
		rhs := vals[len(vals)-n:]
		var res yval
		if n > 0 {
			res = rhs[0]
		} else {
			res = yval{pos: p.lx.lexicon}
		}
		switch p.act(r, rhs, &res) {
		case actAccept:
			return res.node, nil
		case actAbort:
			return nil, fail()
		case actError:
			states = states[:len(states)-n]
			vals = vals[:len(vals)-n]
			mode = stErrlab1
			continue
		}
		states = states[:len(states)-n]
		vals = vals[:len(vals)-n]
		states = append(states, int(t.states[states[len(states)-1]].gotos[r.lhs]))
		vals = append(vals, res)
	}
	p.errmsg = "parser step limit exceeded"
	return nil, fail()
}

var binaryOps = map[tok]Op{
	tPlus: OpAdd, tMinus: OpSub, tStar: OpMul, tSlash: OpDiv,
	tLT: OpLT, tLEQ: OpLE, tEQ: OpEQ, tGEQ: OpGE, tGT: OpGT, tNEQ: OpNE,
	tAnd: OpAnd, tOr: OpOr,
}

var funcOps = map[tok]Op{
	tAvg: OpAvg, tCount: OpCount, tDelta: OpDelta, tMax: OpMax, tMin: OpMin,
	tSum: OpSum, tRate: OpRate, tInstant: OpInstant, tDefined: OpDefined,
}

func (p *parser) act(r *parseRule, rhs []yval, res *yval) int {
	action := r.action
	switch action {
	case aDefault:
	case aAccept:
		return actAccept
	case aUnexpected:
		p.gramerr("Unexpected", r.after, true)
		return actError
	case aInitial:
		p.gramerr("Unexpected initial", r.after, true)
		return actError
	case aFollow:
		p.gramerr(r.what, r.after, false)
		return actError
	case aParen:
		res.node = rhs[1].node
		res.pos = rhs[0].pos
	case aNameInst:
		res.node = &Node{Op: OpInst, Pos: rhs[0].pos, Text: rhs[1].text,
			Left: &Node{Op: OpName, Pos: rhs[0].pos, Text: rhs[0].text}}
	case aParenInst:
		res.node = &Node{Op: OpInst, Pos: rhs[0].pos, Text: rhs[3].text, Left: rhs[1].node}
	case aName:
		res.node = &Node{Op: OpName, Pos: rhs[0].pos, Text: rhs[0].text}
	case aBinary:
		res.node = &Node{Op: binaryOps[rhs[1].tok], Pos: rhs[0].node.Pos, Left: rhs[0].node, Right: rhs[2].node}
	case aUnary:
		op := OpNeg
		if rhs[0].tok == tNot {
			op = OpNot
		}
		res.node = &Node{Op: op, Pos: rhs[0].pos, Left: rhs[1].node}
	case aCond:
		res.node = &Node{Op: OpCond, Pos: rhs[0].node.Pos, Left: rhs[0].node, Right: rhs[2].node, Else: rhs[4].node}
	case aRegexpr:
		re, err := compileERE(rhs[1].text)
		if err != nil {
			p.gramerr("bad regular expression:", err.Error(), true)
			return actAbort
		}
		res.node = &Node{Op: OpMatchInst, Pos: rhs[0].pos, Text: rhs[1].text, Invert: rhs[0].bang, Regexp: re}
		if !rhs[0].bang {
			res.node.Pos = rhs[1].pos
		}
	case aBang:
		res.bang = true
	case aNoBang:
		res.bang = false
	case aInteger:
		res.node = &Node{Op: OpInteger, Pos: rhs[0].pos, Text: rhs[0].text}
	case aDouble:
		res.node = &Node{Op: OpDouble, Pos: rhs[0].pos, Text: rhs[0].text}
	case aSpecInt, aSpecDouble:
		// the mid-rule action of mkconst(): the default metadata (the
		// flags and the meta= name are not reset)
		sp := &p.st.spec
		sp.typ, sp.indom, sp.sem, sp.units = pmapi.TypeU32, pmapi.InDomNull, pmapi.SemDiscrete, pmapi.Units{}
		if action == aSpecDouble {
			sp.typ = pmapi.TypeDouble
		}
		p.params = nil
		if p.dialect == Dialect603 {
			sp.set, sp.meta, sp.hasMeta = 0, "", false
		}
	case aMkconstInt, aMkconstDbl:
		sp := &p.st.spec
		if action == aMkconstDbl && sp.typ != pmapi.TypeDouble && sp.typ != pmapi.TypeFloat {
			p.gramerr("Incompatible floating point constant and type", sp.typ.String(), true)
			return actAbort
		}
		op := OpInteger
		if action == aMkconstDbl {
			op = OpDouble
		}
		res.node = &Node{Op: op, Pos: rhs[0].pos, Text: rhs[2].text, Spec: p.takeSpec()}
	case aSpecType, aSpecSem, aSpecUnits, aSpecMeta:
		sp := &p.st.spec
		v := rhs[2].text
		switch action {
		case aSpecType:
			typ, ok := parseTypeName(v)
			if !ok {
				p.gramerr("Unrecognized value for type", v, true)
				return actAbort
			}
			sp.typ = typ
			sp.set |= SetType
			p.params = append(p.params, SpecParam{"type", v})
		case aSpecSem:
			sem, ok := parseSemName(v)
			if !ok {
				p.gramerr("Unrecognized value for semantics", v, true)
				return actAbort
			}
			sp.sem = sem
			sp.set |= SetSem
			p.params = append(p.params, SpecParam{"semantics", v})
		case aSpecUnits:
			u, _, err := pmapi.ParseUnits(v)
			if err != nil {
				p.gramerr("Illegal units:", unitsErrText(err), true)
				return actAbort
			}
			sp.units = u
			sp.set |= SetUnits
			p.params = append(p.params, SpecParam{"units", v})
		case aSpecMeta:
			sp.meta, sp.hasMeta = v, true
			p.params = append(p.params, SpecParam{"meta", v})
		}
	case aAnon:
		if _, ok := anonTypes[rhs[2].text]; !ok {
			// libpcp 6.0.3 prints "Error: type=X not allowed for anon()"
			// and then frees the node twice (it aborts); refuse it here.
			p.gramerr("type not allowed for anon()", rhs[2].text, true)
			return actAbort
		}
		res.node = &Node{Op: OpAnon, Pos: rhs[0].pos, Text: rhs[2].text}
	case aFunc:
		op := funcOps[rhs[0].tok]
		arg := rhs[2].node
		if arg == nil { // 6.0.3 and defined(): a metric name
			arg = &Node{Op: OpName, Pos: rhs[2].pos, Text: rhs[2].text}
		}
		res.node = &Node{Op: op, Pos: rhs[0].pos, Left: arg}
	case aRescale:
		u, _, err := pmapi.ParseUnits(rhs[4].text)
		if err != nil {
			p.gramerr("Illegal units:", unitsErrText(err), true)
			return actAbort
		}
		res.node = &Node{Op: OpRescale, Pos: rhs[0].pos, Left: rhs[2].node, Text: rhs[4].text, Units: u}
	case aMatchinst:
		n := rhs[2].node
		n.Left = rhs[4].node
		n.Pos = rhs[0].pos
		res.node = n
		p.st.inMatchinst = false
	case aScalar:
		res.node = &Node{Op: OpScalar, Pos: rhs[0].pos, Left: rhs[2].node}
	case aNovalue:
		// novalue(): its own default metadata, the parameters' state
		// untouched
		res.node = &Node{Op: OpNoValue, Pos: rhs[0].pos,
			Spec: &Spec{Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}}
	case aNovalueSpec:
		// novalue(...): the metadata the parameters left, from where the
		// last mkconst() or novalue(...) left it
		res.node = &Node{Op: OpNoValue, Pos: rhs[0].pos, Spec: p.takeSpec()}
	case aNovalueTwice:
		p.errmsg = msgNovalueTwice
		return actError
	default:
		panic("derive: unknown grammar action")
	}
	return actOK
}

// takeSpec makes the Spec of a mkconst() or novalue(...) from the
// parameters' state, and resets the flags and the meta= name (libpcp
// 6.3.8's specflags and specmeta) but not the metadata (specdesc).
func (p *parser) takeSpec() *Spec {
	sp := &p.st.spec
	s := &Spec{Params: p.params, Type: sp.typ, InDom: sp.indom, Sem: sp.sem, Units: sp.units, Set: sp.set}
	if sp.hasMeta {
		s.Meta = sp.meta
	}
	sp.set, sp.meta, sp.hasMeta = 0, "", false
	p.params = nil
	return s
}

var anonTypes = map[string]pmapi.Type{
	"PM_TYPE_32": pmapi.Type32, "PM_TYPE_U32": pmapi.TypeU32, "PM_TYPE_64": pmapi.Type64,
	"PM_TYPE_U64": pmapi.TypeU64, "PM_TYPE_FLOAT": pmapi.TypeFloat, "PM_TYPE_DOUBLE": pmapi.TypeDouble,
}

// parseTypeName accepts mkconst's type= values, without regard to case.
func parseTypeName(v string) (pmapi.Type, bool) {
	switch asciiUpper(v) {
	case "32":
		return pmapi.Type32, true
	case "U32":
		return pmapi.TypeU32, true
	case "64":
		return pmapi.Type64, true
	case "U64":
		return pmapi.TypeU64, true
	case "FLOAT":
		return pmapi.TypeFloat, true
	case "DOUBLE":
		return pmapi.TypeDouble, true
	}
	return 0, false
}

// parseSemName accepts mkconst's semantics= values, without regard to case.
func parseSemName(v string) (pmapi.Sem, bool) {
	switch asciiUpper(v) {
	case "COUNTER":
		return pmapi.SemCounter, true
	case "INSTANT":
		return pmapi.SemInstant, true
	case "DISCRETE":
		return pmapi.SemDiscrete, true
	}
	return 0, false
}

// unitsErrText is pmParseUnitsStr's error message.
func unitsErrText(err error) string {
	if ue, ok := err.(*pmapi.UnitsError); ok {
		return ue.Msg
	}
	return err.Error()
}

// asciiUpper upper-cases ASCII letters only (strcasecmp in the C locale).
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

package derive

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
	"pgregory.net/rapid"
)

var (
	genUnits    = []string{"Kbyte", "count / sec", "Mbyte/hour", "sec", "count x 10^3", "byte^2 / millisec", "", "nanosec", "Kbytes/sec"}
	genPatterns = []string{"^eth", "x|y", "a/b", "(lo)|(vbir)", `\.`, "[[:digit:]]+$", "", `a\\b`, "]"}
	genTypes    = []string{"32", "u32", "U64", "64", "Float", "double"}
	genSems     = []string{"counter", "INSTANT", "Discrete"}
	binOps      = []Op{OpAdd, OpSub, OpMul, OpDiv, OpLT, OpLE, OpEQ, OpGE, OpGT, OpNE, OpAnd, OpOr}
	funcOpsList = []Op{OpAvg, OpCount, OpDelta, OpMax, OpMin, OpSum, OpRate, OpInstant}
)

func genName(t *rapid.T, d Dialect) string {
	for {
		s := rapid.StringMatching(`[A-Za-z][A-Za-z0-9_.]{0,8}`).Draw(t, "name")
		switch s {
		case "type", "semantics", "units":
			continue
		case "meta":
			if d == DialectCurrent {
				continue
			}
		}
		return s
	}
}

func genSpec(t *rapid.T, double bool, d Dialect) *Spec {
	s := &Spec{Type: pmapi.TypeU32, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull}
	if double {
		s.Type = pmapi.TypeDouble
	}
	n := rapid.IntRange(1, 3).Draw(t, "nparams")
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 3).Draw(t, "tag") {
		case 0:
			v := rapid.SampledFrom(genTypes).Draw(t, "type")
			typ, _ := parseTypeName(v)
			s.Type = typ
			s.Set |= SetType
			s.Params = append(s.Params, SpecParam{"type", v})
		case 1:
			v := rapid.SampledFrom(genSems).Draw(t, "sem")
			s.Sem, _ = parseSemName(v)
			s.Set |= SetSem
			s.Params = append(s.Params, SpecParam{"semantics", v})
		case 2:
			v := rapid.SampledFrom(genUnits).Draw(t, "units")
			s.Units, _, _ = pmapi.ParseUnits(v)
			s.Set |= SetUnits
			s.Params = append(s.Params, SpecParam{"units", v})
		default:
			if d == DialectCurrent {
				v := genName(t, d)
				s.Meta = v
				s.Params = append(s.Params, SpecParam{"meta", v})
			}
		}
	}
	if len(s.Params) == 0 {
		s.Set |= SetSem
		s.Params = append(s.Params, SpecParam{"semantics", "discrete"})
	}
	if double && s.Type != pmapi.TypeDouble && s.Type != pmapi.TypeFloat {
		s.Type = pmapi.TypeFloat
		s.Set |= SetType
		s.Params = append(s.Params, SpecParam{"type", "float"})
	}
	return s
}

// genNode draws an expression tree the parser can produce. inMatch is set
// inside a matchinst() operand, where the lexer reads "/" as a pattern (so
// no division there).
func genNode(t *rapid.T, d Dialect, depth int, inMatch bool) *Node {
	leaf := func() *Node {
		switch rapid.IntRange(0, 4).Draw(t, "leaf") {
		case 0:
			return &Node{Op: OpInteger, Text: rapid.StringMatching(`0|[1-9][0-9]{0,8}|00[0-9]`).Draw(t, "int")}
		case 1:
			return &Node{Op: OpDouble, Text: rapid.SampledFrom([]string{"1.5", ".5", "5.", ".", "0.000", "12.25"}).Draw(t, "double")}
		case 2:
			isDouble := rapid.Bool().Draw(t, "mkdouble")
			n := &Node{Op: OpInteger, Text: "42"}
			if isDouble {
				n = &Node{Op: OpDouble, Text: "4.2"}
			}
			n.Spec = genSpec(t, isDouble, d)
			return n
		}
		return &Node{Op: OpName, Text: genName(t, d)}
	}
	if depth <= 0 {
		return leaf()
	}
	sub := func() *Node { return genNode(t, d, depth-1, inMatch) }
	switch rapid.IntRange(0, 12).Draw(t, "kind") {
	case 0:
		return leaf()
	case 1:
		ops := binOps
		if inMatch {
			ops = []Op{OpAdd, OpSub, OpMul, OpLT, OpAnd, OpOr, OpNE}
		}
		return &Node{Op: rapid.SampledFrom(ops).Draw(t, "op"), Left: sub(), Right: sub()}
	case 2:
		return &Node{Op: rapid.SampledFrom([]Op{OpNeg, OpNot}).Draw(t, "unary"), Left: sub()}
	case 3:
		n := &Node{Op: OpCond, Left: sub(), Right: sub(), Else: sub()}
		if d == DialectCurrent {
			// novalue() is an operand of ?: (one of the two at most)
			switch rapid.IntRange(0, 3).Draw(t, "novalue") {
			case 1:
				n.Right = genNoValue(t, d)
			case 2:
				n.Else = genNoValue(t, d)
			}
		}
		return n
	case 4:
		operand := &Node{Op: OpName, Text: genName(t, d)}
		if rapid.Bool().Draw(t, "instexpr") {
			operand = sub()
		}
		return &Node{Op: OpInst, Left: operand, Text: rapid.StringMatching(`[ -~]{0,6}`).Draw(t, "inst")}
	case 5:
		return &Node{Op: OpMatchInst, Invert: rapid.Bool().Draw(t, "invert"),
			Text: rapid.SampledFrom(genPatterns).Draw(t, "re"), Left: genNode(t, d, depth-1, true)}
	case 6:
		return &Node{Op: OpScalar, Left: sub()}
	case 7:
		u := rapid.SampledFrom(genUnits).Draw(t, "rescale")
		units, _, _ := pmapi.ParseUnits(u)
		return &Node{Op: OpRescale, Left: sub(), Text: u, Units: units}
	case 8:
		return &Node{Op: OpDefined, Left: &Node{Op: OpName, Text: genName(t, d)}}
	default:
		f := rapid.SampledFrom(funcOpsList).Draw(t, "func")
		operand := &Node{Op: OpName, Text: genName(t, d)}
		if d == DialectCurrent && (f == OpDelta || f == OpRate || f == OpInstant) {
			operand = sub()
		}
		return &Node{Op: f, Left: operand}
	}
}

// genNoValue draws a novalue() operand; its Spec is completed by
// fixSpecs.
func genNoValue(t *rapid.T, d Dialect) *Node {
	n := &Node{Op: OpNoValue, Spec: &Spec{Type: pmapi.Type32, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull}}
	if rapid.Bool().Draw(t, "nvparams") {
		n.Spec = genSpec(t, false, d)
		n.Spec.Type, n.Spec.Sem, n.Spec.InDom, n.Spec.Units = 0, 0, 0, pmapi.Units{}
	}
	return n
}

// fixSpecs sets the metadata of each novalue(...) as libpcp 6.3.8 parses
// it: from what the mkconst() or novalue(...) before it in the text left
// (st), changed by its own parameters.
func fixSpecs(n *Node, st *specState) {
	if n == nil {
		return
	}
	fixSpecs(n.Left, st)
	fixSpecs(n.Right, st)
	fixSpecs(n.Else, st)
	s := n.Spec
	switch {
	case s == nil:
		return
	case n.Op == OpInteger || n.Op == OpDouble:
		st.typ, st.indom, st.sem, st.units = s.Type, s.InDom, s.Sem, s.Units
	case len(s.Params) > 0:
		for _, p := range s.Params {
			switch p.Tag {
			case "type":
				st.typ, _ = parseTypeName(p.Value)
			case "semantics":
				st.sem, _ = parseSemName(p.Value)
			case "units":
				st.units, _, _ = pmapi.ParseUnits(p.Value)
			}
		}
		s.Type, s.InDom, s.Sem, s.Units = st.typ, st.indom, st.sem, st.units
	}
}

// TestPrintParse: printing a tree and parsing the text gives the tree back.
func TestPrintParse(t *testing.T) {
	for _, d := range []Dialect{Dialect603, DialectCurrent} {
		t.Run(d.String(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				n := genNode(t, d, rapid.IntRange(0, 5).Draw(t, "depth"), false)
				fixSpecs(n, &specState{})
				text := n.String()
				back, err := Parse(text, d)
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				if !Equal(back, n) {
					t.Fatalf("%s: parsed back as %s", text, back)
				}
			})
		})
	}
}

// FuzzParse: any input parses or fails with a position inside it; what
// parses prints back to the same tree.
func FuzzParse(f *testing.F) {
	for _, c := range syntaxCases {
		f.Add(c.expr)
	}
	for _, c := range precCases {
		f.Add(c.expr)
	}
	f.Add("matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes) + mkconst(1, type=u32)")
	f.Add("delta(disk.dev.total) == 0 ? mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(a) / delta(b)")
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []Dialect{Dialect603, DialectCurrent} {
			n, err := Parse(s, d)
			if err != nil {
				se, ok := err.(*SyntaxError)
				if !ok {
					t.Fatalf("%q: %T %v", s, err, err)
				}
				c := cString(s)
				if se.Pos < -1 || se.Pos >= len(c) || se.Pos == -1 && c != "" {
					t.Fatalf("%q: position %d outside the expression", s, se.Pos)
				}
				continue
			}
			text := n.String()
			back, err := Parse(text, d)
			if err != nil {
				t.Fatalf("%q printed as %q: %v", s, text, err)
			}
			if !Equal(back, n) {
				t.Fatalf("%q printed as %q parses as %s", s, text, back)
			}
			if strings.Contains(text, "\x00") {
				t.Fatalf("%q printed with a NUL", s)
			}
		}
	})
}

// hasMetaName reports whether libpcp 6.0.3's lexer reads the name "meta"
// in expr: a metric name there, 6.3.8's keyword.
func hasMetaName(expr string) bool {
	var st parserState
	lx := newLexer(expr, Dialect603, &st.inMatchinst, new(string))
	for {
		switch lx.next() {
		case tEOS, tError:
			return false
		case tName:
			if lx.text == "meta" {
				return true
			}
		}
	}
}

// TestSuperset638 (a rapid property): any expression libpcp 6.0.3's
// grammar accepts, 6.3.8's accepts with the same tree, but for the name
// "meta", a keyword of 6.3.8 (where the real library refuses it too, see
// syntax638Extra). The expressions are printed trees and token soups.
func TestSuperset638(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var text string
		if rapid.Bool().Draw(t, "soup") {
			toks := rapid.SliceOfN(rapid.SampledFrom(append(diffTokens, "meta", "meta.x", "x.meta")), 1, 8).Draw(t, "tokens")
			text = strings.Join(toks, " ")
		} else {
			text = genNode(t, Dialect603, rapid.IntRange(0, 5).Draw(t, "depth"), false).String()
		}
		old, err := Parse(text, Dialect603)
		if err != nil {
			return
		}
		cur, err := Parse(text, DialectCurrent)
		if hasMetaName(text) {
			if err == nil {
				t.Fatalf("%q: 6.3.8 accepts the name meta", text)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: 6.0.3 accepts it, 6.3.8 does not: %v", text, err)
		}
		if !Equal(old, cur) {
			t.Fatalf("%q: 6.0.3 %s, 6.3.8 %s", text, old, cur)
		}
	})
}

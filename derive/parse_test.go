package derive

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// paren prints a tree with every operator application in parentheses, to
// show how an expression was grouped.
func paren(n *Node) string {
	switch {
	case n.Op.IsBinary():
		return "(" + paren(n.Left) + " " + n.Op.symbol() + " " + paren(n.Right) + ")"
	case n.Op == OpNeg || n.Op == OpNot:
		return "(" + n.Op.symbol() + paren(n.Left) + ")"
	case n.Op == OpCond:
		return "(" + paren(n.Left) + " ? " + paren(n.Right) + " : " + paren(n.Else) + ")"
	case n.Op == OpInst:
		return "(" + paren(n.Left) + ")[" + n.Text + "]"
	case n.Op.IsFunc():
		return funcNames[n.Op] + "(" + paren(n.Left) + ")"
	case n.Op == OpScalar:
		return "scalar(" + paren(n.Left) + ")"
	case n.Op == OpMatchInst, n.Op == OpRescale:
		c := *n
		c.Left = &Node{Op: OpName, Text: paren(n.Left)}
		return c.String()
	}
	return n.String()
}

// precCases are the groupings of libpcp 6.0.3's grammar. value is what the
// real library computes for the constant expression (the variables
// replaced by the digits in consts), from
//
//	PCP_DERIVED_CONFIG=prec.conf pminfo -f -a synth3 p
//
// with prec.conf holding "p.mNN = CONSTS" lines (TestPrecedenceReal).
var precCases = []struct {
	expr, grouped, consts, value string
}{
	{"a+b*c", "(a + (b * c))", "1+2*3", "7"},
	{"a-b-c", "((a - b) - c)", "9-3-2", "4"},
	{"a-b>c+d", "((a - b) > (c + d))", "8-2>1+2", "1"},
	// the man page: "a>b!=c is evaluated as (a>b)!=c"
	{"a>b!=c", "((a > b) != c)", "3>2!=1", "0"},
	// the man page: "a>b*c&&d<=e+f is evaluated as (a>(b*c))&&(d<=(e+f))"
	{"a>b*c&&d<=e+f", "((a > (b * c)) && (d <= (e + f)))", "5>1*2&&1<=2+3", "1"},
	// the man page: "(((a>=b)||(b>c))&&(d!=e))||(f>g)"
	{"a>=b||b>c&&d!=e||f>g", "((((a >= b) || (b > c)) && (d != e)) || (f > g))", "1>=2||2>3&&1!=2||3>1", "1"},
	// The man page says "!a>b||c<d is evaluated as !((a>b)||(c<d))", but
	// libpcp (6.0.3 and its grammar since) gives ! a higher precedence than
	// && and ||: !((0>1)||(1<2)) would be 0, libpcp computes 1.
	{"!a>b||c<d", "((!(a > b)) || (c < d))", "!0>1||1<2", "1"},
	// the man page: "!a<b+c is evaluated as !(a<(b+c))"
	{"!a<b+c", "(!(a < (b + c)))", "!3<1+1", "1"},
	// unary minus has the precedence of binary minus: -(2*3) is a signed
	// -6, (-2)*3 would be U32 4294967290
	{"-a*b", "(-(a * b))", "-2*3", "-6"},
	{"-a+b", "((-a) + b)", "-2+3", "1"},
	{"-(a+b)*c", "(-((a + b) * c))", "-(2+3)*4", "-20"},
	// ?: is left associative (%left)
	{"a?b:c?d:e", "((a ? b : c) ? d : e)", "1?0:5?2:3", "3"},
	{"a?b?c:d:e", "(a ? (b ? c : d) : e)", "1?0?4:6:3", "6"},
	{"a||b?c:d", "((a || b) ? c : d)", "0||0?7:8", "8"},
	{"a?b:c+d", "(a ? b : (c + d))", "0 ? 2 : 3 + 4", "7"},
	{"!a&&b", "((!a) && b)", "!0&&0", "0"},
	{"a*-b", "(a * (-b))", "5*-2", "4294967286"},
	{"a- -b", "(a - (-b))", "5- -2", "7"},
	{"a-b- -c", "((a - b) - (-c))", "2 - 1 - -1", "2"},
	{"a<b<c", "((a < b) < c)", "3<2<1", "1"},
	{"!!a", "(!(!a))", "!!7", "1"},
	{"!a+b", "(!(a + b))", "!1 + 1", "0"},
	{"a/b/c", "((a / b) / c)", "12/2/3", "2"},
	{"a*b/c*d", "(((a * b) / c) * d)", "2*6/3*2", "8"},
	{"a[x]+b", "((a)[x] + b)", "", ""},
	{"(a+b)[x y]*c", "(((a + b))[x y] * c)", "", ""},
	{"rate(a.b)/delta(c)", "(rate(a.b) / delta(c))", "", ""},
	{"matchinst(!/^eth/, a)+1", "(matchinst(!/^eth/, a) + 1)", "", ""},
	{"scalar(a[x])", "scalar((a)[x])", "", ""},
	{"rescale(a+b, \"Kbyte\")", "rescale((a + b), \"Kbyte\")", "", ""},
}

func TestPrecedence(t *testing.T) {
	for _, c := range precCases {
		n, err := Parse(c.expr, Dialect603)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if got := paren(n); got != c.grouped {
			t.Errorf("%q grouped as %s, want %s", c.expr, got, c.grouped)
		}
		if c.consts == "" {
			continue
		}
		n, err = Parse(c.consts, Dialect603)
		if err != nil {
			t.Errorf("%q: %v", c.consts, err)
			continue
		}
		if got := evalConst(n).String(); got != c.value {
			t.Errorf("%q evaluates to %s, libpcp %s", c.consts, got, c.value)
		}
	}
}

// cval is a constant expression's value in libpcp's types (U32, 32 or
// DOUBLE), enough to tell groupings apart.
type cval struct {
	typ pmapi.Type
	i   int64
	d   float64
}

func (v cval) String() string {
	switch v.typ {
	case pmapi.TypeU32:
		return strconv.FormatUint(uint64(uint32(v.i)), 10)
	case pmapi.Type32:
		return strconv.FormatInt(int64(int32(v.i)), 10)
	}
	return strconv.FormatFloat(v.d, 'g', -1, 64)
}

func (v cval) f() float64 {
	switch v.typ {
	case pmapi.TypeU32:
		return float64(uint32(v.i))
	case pmapi.Type32:
		return float64(int32(v.i))
	}
	return v.d
}

func boolVal(b bool) cval {
	if b {
		return cval{typ: pmapi.TypeU32, i: 1}
	}
	return cval{typ: pmapi.TypeU32}
}

// evalConst evaluates a constant expression of integers.
func evalConst(n *Node) cval {
	switch n.Op {
	case OpInteger:
		v, _ := strconv.ParseInt(n.Text, 10, 64)
		return cval{typ: pmapi.TypeU32, i: v}
	case OpNeg:
		v := evalConst(n.Left)
		return cval{typ: pmapi.Type32, i: -int64(int32(v.i))}
	case OpNot:
		v := evalConst(n.Left)
		v.i, v.d = 0, 0
		if evalConst(n.Left).f() == 0 {
			v.i, v.d = 1, 1
		}
		return v
	case OpCond:
		if evalConst(n.Left).f() != 0 {
			return evalConst(n.Right)
		}
		return evalConst(n.Else)
	}
	l, r := evalConst(n.Left), evalConst(n.Right)
	typ := promote(l.typ, r.typ)
	if typ == pmapi.TypeDouble {
		switch n.Op {
		case OpAdd:
			return cval{typ: typ, d: l.f() + r.f()}
		case OpSub:
			return cval{typ: typ, d: l.f() - r.f()}
		case OpMul:
			return cval{typ: typ, d: l.f() * r.f()}
		}
	}
	switch n.Op {
	case OpAdd:
		return cval{typ: typ, i: l.i + r.i}
	case OpSub:
		return cval{typ: typ, i: l.i - r.i}
	case OpMul:
		return cval{typ: typ, i: l.i * r.i}
	case OpDiv:
		return cval{typ: pmapi.TypeDouble, d: l.f() / r.f()}
	case OpLT:
		return boolVal(l.f() < r.f())
	case OpLE:
		return boolVal(l.f() <= r.f())
	case OpEQ:
		return boolVal(l.f() == r.f())
	case OpGE:
		return boolVal(l.f() >= r.f())
	case OpGT:
		return boolVal(l.f() > r.f())
	case OpNE:
		return boolVal(l.f() != r.f())
	case OpAnd:
		return boolVal(l.f() != 0 && r.f() != 0)
	case OpOr:
		return boolVal(l.f() != 0 || r.f() != 0)
	}
	panic("evalConst: " + n.Op.String())
}

// TestPrecedenceReal has the real library evaluate the constant
// expressions (derived metrics of constants have values in any context).
func TestPrecedenceReal(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	archive := filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), "synth3")
	var conf bytes.Buffer
	want := map[string]string{}
	for i, c := range precCases {
		if c.consts != "" {
			name := fmt.Sprintf("p.m%02d", i)
			fmt.Fprintf(&conf, "%s = %s\n", name, c.consts)
			want[name] = c.value
		}
	}
	file := filepath.Join(t.TempDir(), "prec.conf")
	if err := os.WriteFile(file, conf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, rc := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="+file), pminfo, "-f", "-a", archive, "p")
	if rc != 0 || len(stderr) > 0 {
		t.Fatalf("pminfo: rc %d: %s", rc, stderr)
	}
	got := map[string]string{}
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "p.") {
			cur = line
		} else if v, ok := strings.CutPrefix(strings.TrimSpace(line), "value "); ok {
			got[cur] = v
		}
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: libpcp says %q, the table %q", name, got[name], v)
		}
	}
}

func TestParseNodes(t *testing.T) {
	cases := []struct {
		expr string
		d    Dialect
		want *Node
	}{
		{"a.b[x\\]y\\\\z]", Dialect603, &Node{Op: OpInst, Text: `x]y\z`, Left: &Node{Op: OpName, Text: "a.b"}}},
		{"matchinst(!/a\\/b/, m)", Dialect603, &Node{Op: OpMatchInst, Text: "a/b", Invert: true, Left: &Node{Op: OpName, Text: "m"}}},
		{"007 + .5 + 5.", Dialect603, &Node{Op: OpAdd,
			Left:  &Node{Op: OpAdd, Left: &Node{Op: OpInteger, Text: "007"}, Right: &Node{Op: OpDouble, Text: ".5"}},
			Right: &Node{Op: OpDouble, Text: "5."}}},
		{"mkconst(3, units=\"Kbyte / sec\", type=U64, semantics=Counter)", Dialect603, &Node{Op: OpInteger, Text: "3", Spec: &Spec{
			Params: []SpecParam{{"units", "Kbyte / sec"}, {"type", "U64"}, {"semantics", "Counter"}},
			Type:   pmapi.TypeU64, Sem: pmapi.SemCounter, Units: pmapi.Units{DimSpace: 1, DimTime: -1, ScaleSpace: 1, ScaleTime: 3},
			InDom: pmapi.InDomNull, Set: SetType | SetSem | SetUnits}}},
		{"mkconst(2.5, type=float)", Dialect603, &Node{Op: OpDouble, Text: "2.5", Spec: &Spec{
			Params: []SpecParam{{"type", "float"}}, Type: pmapi.TypeFloat, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull, Set: SetType}}},
		{"rescale(x, \"count/sec\")", Dialect603, &Node{Op: OpRescale, Text: "count/sec", Left: &Node{Op: OpName, Text: "x"},
			Units: pmapi.Units{DimCount: 1, DimTime: -1, ScaleTime: 3}}},
		{"defined(x.y)", Dialect603, &Node{Op: OpDefined, Left: &Node{Op: OpName, Text: "x.y"}}},
		{"rate(a+b)", DialectCurrent, &Node{Op: OpRate, Left: &Node{Op: OpAdd, Left: &Node{Op: OpName, Text: "a"}, Right: &Node{Op: OpName, Text: "b"}}}},
		{"a ? novalue() : b", DialectCurrent, &Node{Op: OpCond, Left: &Node{Op: OpName, Text: "a"},
			Right: &Node{Op: OpNoValue, Spec: &Spec{Type: pmapi.Type32, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull}},
			Else:  &Node{Op: OpName, Text: "b"}}},
		// novalue(...) starts from a fresh process's zeroed metadata
		// (instance domain 0.0, semantics 0), or from what a mkconst()
		// before it left
		{"a ? b : novalue(type=float, semantics=instant, units=\"Kbytes/sec\")", DialectCurrent, &Node{Op: OpCond,
			Left: &Node{Op: OpName, Text: "a"}, Right: &Node{Op: OpName, Text: "b"}, Else: &Node{Op: OpNoValue, Spec: &Spec{
				Params: []SpecParam{{"type", "float"}, {"semantics", "instant"}, {"units", "Kbytes/sec"}},
				Type:   pmapi.TypeFloat, Sem: pmapi.SemInstant, Units: pmapi.Units{DimSpace: 1, DimTime: -1, ScaleSpace: 1, ScaleTime: 3},
				Set: SetType | SetSem | SetUnits}}}},
		{"mkconst(2.5, units=sec) > 1 ? novalue(type=u64) : b", DialectCurrent, &Node{Op: OpCond,
			Left: &Node{Op: OpGT, Left: &Node{Op: OpDouble, Text: "2.5", Spec: &Spec{Params: []SpecParam{{"units", "sec"}},
				Type: pmapi.TypeDouble, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull, Units: pmapi.Units{DimTime: 1, ScaleTime: 3}, Set: SetUnits}},
				Right: &Node{Op: OpInteger, Text: "1"}},
			Right: &Node{Op: OpNoValue, Spec: &Spec{Params: []SpecParam{{"type", "u64"}},
				Type: pmapi.TypeU64, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull, Units: pmapi.Units{DimTime: 1, ScaleTime: 3}, Set: SetType}},
			Else: &Node{Op: OpName, Text: "b"}}},
		{"mkconst(1, meta=a.b, type=64)", DialectCurrent, &Node{Op: OpInteger, Text: "1", Spec: &Spec{
			Params: []SpecParam{{"meta", "a.b"}, {"type", "64"}}, Type: pmapi.Type64, Sem: pmapi.SemDiscrete, InDom: pmapi.InDomNull,
			Set: SetType, Meta: "a.b"}}},
		{"instant(matchinst(/x/, a) > 3)", DialectCurrent, &Node{Op: OpInstant, Left: &Node{Op: OpGT,
			Left:  &Node{Op: OpMatchInst, Text: "x", Left: &Node{Op: OpName, Text: "a"}},
			Right: &Node{Op: OpInteger, Text: "3"}}}},
	}
	for _, c := range cases {
		n, err := Parse(c.expr, c.d)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if !Equal(n, c.want) {
			t.Errorf("%q: parsed as %s, want %s", c.expr, n, c.want)
		}
	}
}

func TestPositions(t *testing.T) {
	n, err := Parse("  a +  rate(b)*(c)", Dialect603)
	if err != nil {
		t.Fatal(err)
	}
	if n.Pos != 2 || n.Left.Pos != 2 || n.Right.Pos != 7 || n.Right.Left.Pos != 7 || n.Right.Left.Left.Pos != 12 || n.Right.Right.Pos != 16 {
		t.Errorf("positions %d %d %d %d %d %d", n.Pos, n.Left.Pos, n.Right.Pos, n.Right.Left.Pos, n.Right.Left.Left.Pos, n.Right.Right.Pos)
	}
}

// libpcp reads the expression as a C string through a signed char: a NUL
// byte ends it, and a 0xff byte is taken for EOF (ending the input where a
// token starts, ending the token where one is being read). Checked with the
// real library (TestDifferentialParse603 sends such bytes too).
func TestCStringBytes(t *testing.T) {
	cases := []struct {
		expr string
		pos  int // -2 for success
		msg  string
	}{
		{"a \xff", -2, ""},
		{"a\xff", -2, ""},
		{"a\xffb", 2, "Arithmetic or relational or boolean operator expected to follow NAME"},
		{"\xff", 0, ""},
		{"a+\xff", 2, "Arithmetic expression expected to follow PLUS"},
		{"a\x00+", -2, ""},
		{"\x00", -1, ""},
	}
	for _, c := range cases {
		_, err := Parse(c.expr, Dialect603)
		switch {
		case c.pos == -2 && err != nil:
			t.Errorf("%q: %v", c.expr, err)
		case c.pos != -2:
			se, ok := err.(*SyntaxError)
			if !ok || se.Pos != c.pos || se.Msg != c.msg {
				t.Errorf("%q: %v, want %d %q", c.expr, err, c.pos, c.msg)
			}
		}
	}
}

func TestDialects(t *testing.T) {
	for _, c := range []struct {
		expr    string
		old, cu bool // accepted by Dialect603, DialectCurrent
	}{
		{"rate(a+b)", false, true},
		{"rate(a)", true, true},
		{"count(a[x])", false, false},
		{"delta(a[x])", false, true},
		{"instant(delta(a))", false, true},
		{"defined(a)", true, true},
		{"defined(a+b)", false, false},
		{"novalue()", false, false}, // only an operand of ?:
		{"a ? b : novalue(type=u32)", false, true},
		{"a ? novalue() : novalue()", false, false}, // a fresh parser has no tree to reuse
		{"mkconst(1, meta=a.b)", false, true},
		{"meta", true, false}, // a keyword in DialectCurrent
		{"matchinst(/x/, a+b)", true, true},
	} {
		_, e1 := Parse(c.expr, Dialect603)
		_, e2 := Parse(c.expr, DialectCurrent)
		if (e1 == nil) != c.old || (e2 == nil) != c.cu {
			t.Errorf("%q: 6.0.3 %v, current %v", c.expr, e1, e2)
		}
	}
	// the 6.0.3 message, at the position libpcp gives
	_, err := Parse("rate(a+b)", Dialect603)
	if se := err.(*SyntaxError); se.Pos != 6 || se.Msg != "Metric name expected to follow rate(" {
		t.Errorf("rate(a+b): %v", err)
	}
	_, err = Parse("rate(+)", DialectCurrent)
	if se := err.(*SyntaxError); se.Pos != 5 || se.Msg != "<expr> expected to follow rate(" {
		t.Errorf("rate(+): %v", err)
	}
}

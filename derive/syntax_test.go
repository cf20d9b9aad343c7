package derive

import (
	"fmt"
	"strings"
	"testing"
)

// syntaxCase is one registration and libpcp 6.0.3's verdict on it.
type syntaxCase struct {
	expr string
	ok   bool
	pos  int    // the offset pmRegisterDerived returns
	msg  string // pmDerivedErrStr(), "" for NULL
}

const (
	ok    = true
	fails = false
)

// syntaxCases were produced by the real libpcp 6.0.3, registering each
// expression in turn in one process (the order matters: libpcp's lexer
// keeps its "inside matchinst()" state after a failed registration, which
// is why "a/b" fails below), with
//
//	/usr/bin/python3 testdata/oracle.py <<< '{"op":"reg","name":"g.aN","expr":EXPR}'
//
// followed, for each, by the same with "op":"regm" (pmRegisterDerivedMetric,
// name g.bN). TestSyntaxErrorsReal asks the library again.
var syntaxCases = []syntaxCase{
	{"3 * ", fails, 3, "Arithmetic expression expected to follow STAR"},
	{"a +", fails, 2, "Arithmetic expression expected to follow PLUS"},
	{"a -", fails, 2, "Arithmetic expression expected to follow MINUS"},
	{"a *", fails, 2, "Arithmetic expression expected to follow STAR"},
	{"a /", fails, 2, "Arithmetic expression expected to follow SLASH"},
	{"a <", fails, 2, "Arithmetic expression expected to follow LT"},
	{"a <=", fails, 3, "Arithmetic expression expected to follow LEQ"},
	{"a ==", fails, 3, "Arithmetic expression expected to follow EQ"},
	{"a >=", fails, 3, "Arithmetic expression expected to follow GEQ"},
	{"a >", fails, 2, "Arithmetic expression expected to follow GT"},
	{"a !=", fails, 3, "Arithmetic expression expected to follow NEQ"},
	{"a &&", fails, 3, "Boolean expression expected to follow AND"},
	{"a ||", fails, 3, "Boolean expression expected to follow OR"},
	{"a ?", fails, 2, "Arithmetic expression expected to follow QUEST"},
	{"a ? b", fails, 4, "Arithmetic expression expected to follow QUEST"},
	{"a ? b :", fails, 6, "Arithmetic expression expected to follow COLON"},
	{"a b", fails, 2, "Arithmetic or relational or boolean operator expected to follow NAME"},
	{"a + b c", fails, 6, "Arithmetic or relational or boolean operator expected to follow NAME"},
	{"!", fails, 0, "Boolean expression expected to follow NOT"},
	{"-", fails, 0, "Arithmetic expression expected to follow NEG"},
	{"+ a", fails, 2, "Unexpected initial '+'"},
	{"* a", fails, 2, "Unexpected initial '*'"},
	{"/ a", fails, 2, "Unexpected initial '/'"},
	{"( a", fails, 2, "Unexpected initial '('"},
	{") a", fails, 2, "Unexpected initial ')'"},
	{"< a", fails, 2, "Unexpected initial '<'"},
	{"<= a", fails, 3, "Unexpected initial '<='"},
	{"== a", fails, 3, "Unexpected initial '=='"},
	{">= a", fails, 3, "Unexpected initial '>='"},
	{"> a", fails, 2, "Unexpected initial '>'"},
	{"!= a", fails, 3, "Unexpected initial '!='"},
	{"&& a", fails, 3, "Unexpected initial '&&'"},
	{"|| a", fails, 3, "Unexpected initial '||'"},
	{"? a", fails, 2, "Unexpected initial '?'"},
	{": a", fails, 2, "Unexpected initial ':'"},
	{"a )", fails, 2, "Unexpected ')'"},
	{"a (", fails, 2, "Unexpected '('"},
	{"(a + b", fails, 5, "Unexpected initial '('"},
	{"a + )", fails, 4, "Arithmetic expression expected to follow PLUS"},
	{"a +* b", fails, 3, "Arithmetic expression expected to follow PLUS"},
	{"rate(a+b)", fails, 6, "Metric name expected to follow rate("},
	{"rate(3)", fails, 5, "Metric name expected to follow rate("},
	{"rate()", fails, 5, "Metric name expected to follow rate("},
	{"avg(a", fails, 4, "Metric name expected to follow avg("},
	{"count(", fails, 5, "Metric name expected to follow count("},
	{"delta(a.b + 1)", fails, 10, "Metric name expected to follow delta("},
	{"max(1)", fails, 4, "Metric name expected to follow max("},
	{"min(-a)", fails, 4, "Metric name expected to follow min("},
	{"sum(a[x])", fails, 5, "Metric name expected to follow sum("},
	{"instant(a b)", fails, 10, "Metric name expected to follow instant("},
	{"anon(3)", fails, 5, "Metric name expected to follow anon("},
	{"defined(a+b)", fails, 9, ""},
	{"rescale(", fails, 7, "Arithmetic or relational or boolean operator expected to follow rescale("},
	{"rescale(a", fails, 8, "Arithmetic or relational or boolean operator expected to follow rescale("},
	{"rescale(a,", fails, 9, "Units string expected to follow rescale(<expr>,"},
	{"rescale(a, b)", fails, 11, "Units string expected to follow rescale(<expr>,"},
	{"rescale(a, \"Kbyte\"", fails, 17, "Units string expected to follow rescale(<expr>,"},
	{"rescale(a, \"furlongs\")", fails, 21, "Illegal units: 'unrecognized or duplicate base unit'"},
	{"rescale(a, \"Kbyte^9\")", fails, 20, "Illegal units: 'space dimension out of bounds'"},
	{"matchinst(a, b)", fails, 10, "<filter>, <expr>) expected to follow matchinst("},
	{"matchinst(/a/ b)", fails, 14, ", <expr>) expected to follow matchinst(<filter>"},
	{"matchinst(/a/,", fails, 13, "<expr>) expected to follow matchinst(<filter>,"},
	{"matchinst(/a/, b", fails, 15, "<expr>) expected to follow matchinst(<filter>,"},
	{"matchinst(/(/, b)", fails, 10, "bad regular expression: 'Unmatched ( or \\('"},
	{"matchinst(/a/, b/2)", fails, 16, "unterminated pattern"},
	{"a/b", fails, 1, "unterminated pattern"},
	{"matchinst(!x, b)", fails, 11, "<filter>, <expr>) expected to follow matchinst("},
	{"scalar(", fails, 6, "<expr> expected to follow scalar("},
	{"scalar()", fails, 7, "<expr> expected to follow scalar("},
	{"scalar(a", fails, 7, "<expr> expected to follow scalar("},
	{"mkconst(", fails, 7, ""},
	{"mkconst(1)", fails, 9, ""},
	{"mkconst(1,", fails, 9, ""},
	{"mkconst(1, type)", fails, 15, ""},
	{"mkconst(1, type=)", fails, 16, ""},
	{"mkconst(1, type=u33)", fails, 16, "Unrecognized value for type 'u33'"},
	{"mkconst(1, semantics=sometimes)", fails, 21, "Unrecognized value for semantics 'sometimes'"},
	{"mkconst(1, units=\"bogus\")", fails, 17, "Illegal units: 'unrecognized or duplicate base unit'"},
	{"mkconst(1.5, type=u32)", fails, 21, "Incompatible floating point constant and type 'U32'"},
	{"mkconst(1.5, units=sec, type=64)", fails, 31, "Incompatible floating point constant and type '64'"},
	{"mkconst(a, type=u32)", fails, 8, ""},
	{"a $ b", fails, 2, "Illegal character"},
	{"a & b", fails, 2, "Illegal character"},
	{"a | b", fails, 2, "Illegal character"},
	{"a ] b", fails, 2, "Illegal character"},
	{"\"a\"", fails, 0, ""},
	{"a[x", fails, 1, "unterminated instance name"},
	{"a[x\\]", fails, 1, "unterminated instance name"},
	{"a[x]y", fails, 4, ""},
	{"a[x][y]", fails, 4, ""},
	{"1e5", fails, 1, ""},
	{"1.2.3", fails, 3, ""},
	{"4294967296", fails, 0, "Constant value too large"},
	{"99999999999999999999", fails, 0, "Constant value too large"},
	{"a.b.", ok, 0, ""},
	{"7up", fails, 1, ""},
	{"type", fails, 0, ""},
	{"units + 1", fails, 0, ""},
	{"x = 1", fails, 2, "Arithmetic or relational or boolean operator expected to follow NAME"},
	{"a @", fails, 2, "Illegal character"},
	{"a # comment", fails, 2, "Illegal character"},
	{" \t ", fails, 2, ""},
	{"", fails, -1, ""},
	{"\xff", fails, 0, ""},
	{"a\xffb", fails, 2, "Arithmetic or relational or boolean operator expected to follow NAME"},
}

// runSyntaxCases registers the cases in order, as the oracle did: for each,
// pmRegisterDerived then pmRegisterDerivedMetric.
func runSyntaxCases(r *Registry, f func(i int, c syntaxCase, err error, errmsg string)) {
	for i, c := range syntaxCases {
		_, err := r.Register(fmt.Sprintf("g.a%d", i), c.expr)
		errmsg, _ := r.RegisterMetric(fmt.Sprintf("g.b%d", i), c.expr)
		f(i, c, err, errmsg)
	}
}

func TestSyntaxErrors(t *testing.T) {
	runSyntaxCases(NewRegistry(Dialect603), func(i int, c syntaxCase, err error, errmsg string) {
		if c.ok {
			if err != nil {
				t.Errorf("%q: %v, want success", c.expr, err)
			}
			return
		}
		se, isSyntax := err.(*SyntaxError)
		if !isSyntax {
			t.Errorf("%q: %v, want a syntax error at %d", c.expr, err, c.pos)
			return
		}
		if se.Pos != c.pos || se.Msg != c.msg {
			t.Errorf("%q: error at %d %q, want %d %q", c.expr, se.Pos, se.Msg, c.pos, c.msg)
		}
		want := fmt.Sprintf("Error: pmRegisterDerivedMetric(\"g.b%d\", ...)\n%s\n", i, c.expr)
		if c.pos < 0 {
			want += " ^\n"
		} else {
			want += strings.Repeat(" ", c.pos) + "^\n"
		}
		if c.msg != "" {
			want += c.msg + "\n"
		}
		if errmsg != want {
			t.Errorf("%q: pmRegisterDerivedMetric message\n%s\nwant\n%s", c.expr, errmsg, want)
		}
	})
}

// TestSyntaxErrorsReal asks libpcp again, and compares pmRegisterDerivedMetric's
// message too.
func TestSyntaxErrorsReal(t *testing.T) {
	var reqs []oracleReq
	for i, c := range syntaxCases {
		reqs = append(reqs, oracleReq{Op: "reg", Name: fmt.Sprintf("g.a%d", i), Expr: c.expr})
		reqs = append(reqs, oracleReq{Op: "regm", Name: fmt.Sprintf("g.b%d", i), Expr: c.expr})
	}
	resps := runOracle(t, reqs)
	runSyntaxCases(NewRegistry(Dialect603), func(i int, c syntaxCase, err error, errmsg string) {
		reg, regm := resps[2*i], resps[2*i+1]
		got := "OK"
		if err != nil {
			got = fmt.Sprintf("pos %d %s", err.(*SyntaxError).Pos, orNil(err.(*SyntaxError).Msg))
		}
		if want := describeResp(reg); got != want {
			t.Errorf("%q: got %s, libpcp %s", c.expr, got, want)
		}
		if errmsg != regm.ErrMsg {
			t.Errorf("%q: pmRegisterDerivedMetric message\n%q\nlibpcp\n%q", c.expr, errmsg, regm.ErrMsg)
		}
	})
}

func orNil(s string) string {
	if s == "" {
		return "<nil>"
	}
	return s
}

package derive

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// syntax638Extra are expressions of the constructs 6.3.8 adds (or
// changes), registered after syntaxCases.
var syntax638Extra = []string{
	"meta", "x + meta", "meta(a)", "a.meta", "meta.a", "novalue", "novalue + 1", "novalue()",
	"a ? novalue() : b", "a ? b : novalue()", "a ? novalue() : novalue()", "b + 1", "b ? novalue() : novalue()", "x +", "c ? novalue() : novalue()",
	"(a ? novalue() : novalue())", "a ? novalue() : novalue() + 1",
	"a ? novalue(type=u32) : b", "a ? novalue(meta=x.y) : b", "a ? novalue(meta=x.y, units=sec) : b",
	"a ? novalue(type=\"float\", semantics=instant, units=\"Kbytes/sec\") : b",
	"novalue(", "a ? novalue( : b", "a ? novalue(x) : b", "a ? novalue(type=u32 : b", "a ? novalue(meta=\"a\") : b",
	"a ? novalue(meta=1) : b", "a ? (novalue()) : b", "a ? -novalue() : b", "-novalue()", "novalue() ? a : b",
	"a ? b : c ? novalue() : d", "a ? novalue() : b ? c : d", "(a ? novalue() : b) + 1", "1 + a ? novalue() : b",
	"avg(a+b)", "avg(a)", "count(a+b)", "max(a*2)", "min(-a)", "sum((a))",
	"rate(a+b)", "rate(3)", "rate()", "rate(a", "rate(rate(a))", "delta(a.b + 1)", "delta(+", "delta(a b)",
	"instant(a+b)", "instant(", "instant(+", "instant(a b)", "instant(a ? b : c)",
	"defined(a+b)", "defined(a)",
	"mkconst(1, meta=a)", "mkconst(1, meta=\"a\")", "mkconst(1, meta=a, type=u64)", "mkconst(1.5, meta=a)",
	"mkconst(1.5, type=u32)", "mkconst(1 type=u32)", "mkconst(1,)", "mkconst(1, bogus=1)", "mkconst(1)",
	"mkconst(1.5)", "mkconst(1.5,)", "mkconst(1.5 type=u32)", "mkconst(1, type=u32,)", "mkconst(1, meta=)",
	"mkconst(a, type=u32)", "mkconst(", "mkconst(1,", "mkconst(1, type)", "mkconst(1, type=)",
	"a ? b : c ? d : e", "rescale(rate(a), \"Kbyte/sec\")", "scalar(rate(a[x]))",
	"matchinst(/a/, rate(a))", "(rate(a) + delta(b))[x]",
	"a/b", "matchinst(/a/, b)", "a/b",
}

// syntax638Cases registers every case in one 6.3.8 process, in order.
func syntax638Exprs() []string {
	var exprs []string
	for _, c := range syntaxCases {
		exprs = append(exprs, c.expr)
	}
	return append(exprs, syntax638Extra...)
}

// syntax638Golden is what libpcp 6.3.8 answered for syntax638Exprs, in
// order: for each expression, the outcome of pmRegisterDerived (as
// describeResp gives it) and pmRegisterDerivedMetric's message. It is
// written by
//
//	PCP_INTEROP=1 DERIVE_UPDATE=1 go test -run TestSyntaxErrorsReal638 ./derive
//
// (as root, with the chroot of .ci/run), and TestSyntaxErrorsReal638 checks
// that the real library still answers so.
const syntax638Golden = "testdata/syntax638.json"

type syntaxAnswer struct {
	Expr   string `json:"expr"`
	Reg    string `json:"reg"`
	ErrMsg string `json:"errmsg"`
}

// syntax638Run registers the expressions in a DialectCurrent Registry, in
// order, as the oracle registered them.
func syntax638Run(exprs []string) []syntaxAnswer {
	r := NewRegistry(DialectCurrent)
	r.RegisterEventMetrics()
	var out []syntaxAnswer
	for i, e := range exprs {
		a := syntaxAnswer{Expr: latin1(e), Reg: "OK"}
		if _, err := r.Register(fmt.Sprintf("g.a%d", i), e); err != nil {
			a.Reg = fmt.Sprintf("pos %d %s", err.(*SyntaxError).Pos, orNil(err.(*SyntaxError).Msg))
		}
		errmsg, _ := r.RegisterMetric(fmt.Sprintf("g.b%d", i), e)
		a.ErrMsg = latin1(errmsg)
		out = append(out, a)
	}
	return out
}

// readGolden reads a JSON golden.
func readGolden[T any](t *testing.T, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// checkGolden compares what libpcp 6.3.8 answered with a JSON golden, which
// DERIVE_UPDATE=1 rewrites first.
func checkGolden[T any](t *testing.T, path string, real T) {
	t.Helper()
	if os.Getenv("DERIVE_UPDATE") == "1" {
		b, err := json.MarshalIndent(real, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(readGolden[T](t, path), real); d != "" {
		t.Errorf("%s is stale (-golden +libpcp 6.3.8); DERIVE_UPDATE=1 rewrites it:\n%s", path, d)
	}
}

// TestSyntaxErrors638: offsets, messages and pmRegisterDerivedMetric's
// messages as libpcp 6.3.8 gives them (syntax638Golden).
func TestSyntaxErrors638(t *testing.T) {
	want := readGolden[[]syntaxAnswer](t, syntax638Golden)
	if d := cmp.Diff(want, syntax638Run(syntax638Exprs())); d != "" {
		t.Errorf("DialectCurrent differs from libpcp 6.3.8 (-6.3.8 +pcpkit):\n%s", d)
	}
}

// TestSyntaxErrorsReal638 registers the 6.0.3 cases and the 6.3.8 ones in
// the real libpcp 6.3.8, in order, and compares its answers with
// syntax638Golden (rewritten with DERIVE_UPDATE=1).
func TestSyntaxErrorsReal638(t *testing.T) {
	o := newOracle638(t)
	exprs := syntax638Exprs()
	var reqs []oracleReq
	for i, e := range exprs {
		reqs = append(reqs, oracleReq{Op: "reg", Name: fmt.Sprintf("g.a%d", i), Expr: e})
		reqs = append(reqs, oracleReq{Op: "regm", Name: fmt.Sprintf("g.b%d", i), Expr: e})
	}
	resps := o.run(t, reqs)
	var real []syntaxAnswer
	for i, e := range exprs {
		real = append(real, syntaxAnswer{Expr: latin1(e), Reg: describeResp(resps[2*i]), ErrMsg: latin1(resps[2*i+1].ErrMsg)})
	}
	checkGolden(t, syntax638Golden, real)
}

// diffTokens638 are pieces of 6.3.8's additions, for mutations.
var diffTokens638 = []string{
	"novalue()", "novalue(", "novalue(type=u32)", "meta", "meta=a", "meta=a.b", "novalue(meta=x)",
	"rate(a+b)", "delta((a))", "instant(-a)", "? novalue() :", ": novalue()",
}

// randomExpr638 is randomExpr with 6.3.8's constructs: functions of
// expressions, novalue() in ternaries, meta=.
func randomExpr638(r *rand.Rand, d int) string {
	if d <= 0 {
		return randomExpr(r, 0)
	}
	switch r.Intn(10) {
	case 0:
		fs := []string{"rate", "delta", "instant", "avg", "count", "sum"}
		return fs[r.Intn(len(fs))] + "(" + randomExpr638(r, d-1) + ")"
	case 1:
		return randomExpr638(r, d-1) + " ? novalue() : " + randomExpr638(r, d-1)
	case 2:
		return randomExpr638(r, d-1) + " ? " + randomExpr638(r, d-1) + " : novalue(type=u32, units=\"sec\")"
	case 3:
		return "mkconst(2, meta=m.n, type=u64)"
	case 4:
		return randomExpr638(r, d-1) + " ? novalue(meta=m.n) : novalue()"
	}
	return randomExpr(r, d)
}

func randomInput638(r *rand.Rand) string {
	switch r.Intn(4) {
	case 0:
		return randomInput(r)
	case 1:
		return randomExpr638(r, 1+r.Intn(3))
	}
	s := randomExpr638(r, 1+r.Intn(3))
	for k := r.Intn(3); k >= 0; k-- {
		if r.Intn(3) == 0 {
			i := r.Intn(len(s) + 1)
			s = s[:i] + diffTokens638[r.Intn(len(diffTokens638))] + s[i:]
		} else {
			s = mutate(r, s)
		}
	}
	return s
}

// TestDifferentialParse638: random expressions, registered in one libpcp
// 6.3.8 process in order and in a DialectCurrent Registry, fail at the
// same position with the same message, or both succeed.
func TestDifferentialParse638(t *testing.T) {
	o := newOracle638(t)
	diffParse(t, DialectCurrent, randomInput638, 638, "libpcp 6.3.8", func(reqs []oracleReq) []oracleResp { return o.run(t, reqs) })
}

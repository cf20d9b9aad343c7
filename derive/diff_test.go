package derive

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// Differential tests: random expressions, registered in one libpcp process
// in order and parsed here in the same order (with the in_matchinst state
// carried over as libpcp carries it), must fail at the same position with
// the same message, or both succeed.

var diffTokens = []string{
	"a", "b.c", "x_1.y", "1", "07", "2.5", ".", "5.", "4294967295", "4294967296",
	"+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||", "!", "?", ":",
	"(", ")", "[x]", "[a\\]b]", "[", "]", ",", "=", "&", "|", "$", "\\", "\"",
	"rate(", "avg(", "count(", "delta(", "max(", "min(", "sum(", "instant(",
	"defined(", "scalar(", "matchinst(", "rescale(", "mkconst(", "novalue(",
	"/a/", "!/^x.*/", "/(/", "\"Kbyte\"", "\"foo\"", "\"count / sec\"",
	"type", "units", "semantics", "u32", "double", "float", "counter", "instant",
	"type=u32", "units=\"Kbyte\"", "semantics=counter", "type=float", "1e5", "rate", " ",
	"\xff", "\t",
}

// randomExpr builds a syntactically plausible expression of depth d.
func randomExpr(r *rand.Rand, d int) string {
	if d <= 0 {
		switch r.Intn(6) {
		case 0:
			return "1"
		case 1:
			return "2.5"
		case 2:
			return "a.b"
		case 3:
			return "x[i]"
		}
		return "m"
	}
	switch r.Intn(16) {
	case 0, 1, 2:
		ops := []string{"+", "-", "*", "/", "<", "<=", "==", ">=", ">", "!=", "&&", "||"}
		return randomExpr(r, d-1) + " " + ops[r.Intn(len(ops))] + " " + randomExpr(r, d-1)
	case 3:
		return "-" + randomExpr(r, d-1)
	case 4:
		return "!" + randomExpr(r, d-1)
	case 5:
		return "(" + randomExpr(r, d-1) + ")"
	case 6:
		return randomExpr(r, d-1) + " ? " + randomExpr(r, d-1) + " : " + randomExpr(r, d-1)
	case 7:
		fs := []string{"rate", "avg", "count", "delta", "max", "min", "sum", "instant", "defined"}
		return fs[r.Intn(len(fs))] + "(m.n)"
	case 8:
		return "scalar(" + randomExpr(r, d-1) + ")"
	case 9:
		return "matchinst(/x|y/, " + randomExpr(r, d-1) + ")"
	case 10:
		return "rescale(" + randomExpr(r, d-1) + ", \"Kbyte / sec\")"
	case 11:
		return "mkconst(3, type=u32, units=\"sec\")"
	case 12:
		return "(" + randomExpr(r, d-1) + ")[inst 1]"
	}
	return randomExpr(r, 0)
}

// mutate damages an expression: deletes, duplicates or inserts a piece.
func mutate(r *rand.Rand, s string) string {
	if len(s) == 0 {
		return diffTokens[r.Intn(len(diffTokens))]
	}
	i := r.Intn(len(s) + 1)
	switch r.Intn(4) {
	case 0:
		j := i + r.Intn(4)
		if j > len(s) {
			j = len(s)
		}
		return s[:i] + s[j:]
	case 1:
		return s[:i] + diffTokens[r.Intn(len(diffTokens))] + s[i:]
	case 2:
		return s[:i]
	}
	return s[:i] + " " + s[i:]
}

func randomInput(r *rand.Rand) string {
	switch r.Intn(3) {
	case 0:
		var b strings.Builder
		n := 1 + r.Intn(8)
		for k := 0; k < n; k++ {
			b.WriteString(diffTokens[r.Intn(len(diffTokens))])
			if r.Intn(3) == 0 {
				b.WriteByte(' ')
			}
		}
		return b.String()
	case 1:
		return randomExpr(r, 1+r.Intn(3))
	}
	s := randomExpr(r, 1+r.Intn(3))
	for k := r.Intn(3); k >= 0; k-- {
		s = mutate(r, s)
	}
	return s
}

func ourOutcome(expr string, d Dialect, st *parserState) string {
	_, err := parse(expr, d, st)
	if err == nil {
		return "OK"
	}
	se := err.(*SyntaxError)
	msg := se.Msg
	if msg == "" {
		msg = "<nil>"
	}
	return fmt.Sprintf("pos %d %s", se.Pos, msg)
}

func TestDifferentialParse603(t *testing.T) {
	needOracle(t)
	diffParse(t, Dialect603, randomInput, 603, "libpcp", func(reqs []oracleReq) []oracleResp { return runOracle(t, reqs) })
}

// diffParse registers random expressions (10000, 500 with -short) in one
// libpcp process (run) and in a parser state of dialect d, in the same
// order, and reports those that do not fail (or succeed) the same way.
func diffParse(t *testing.T, d Dialect, input func(*rand.Rand) string, seed int64, who string, run func([]oracleReq) []oracleResp) {
	t.Helper()
	n := 10000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewSource(seed))
	var exprs []string
	var reqs []oracleReq
	for i := 0; i < n; i++ {
		e := input(r)
		if strings.Contains(e, "anon(") { // crashes libpcp when misused
			continue
		}
		exprs = append(exprs, e)
		reqs = append(reqs, oracleReq{Op: "reg", Name: fmt.Sprintf("diff.m%d", i), Expr: e})
	}
	resps := run(reqs)
	var st parserState
	bad := 0
	for i, e := range exprs {
		want := describeResp(resps[i])
		got := ourOutcome(e, d, &st)
		if got != want {
			bad++
			if bad <= 30 {
				t.Errorf("%q: got %s, %s %s", e, got, who, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ", bad, len(exprs))
	}
	t.Logf("%d random expressions registered in %s and here", len(exprs), who)
}

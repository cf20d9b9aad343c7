package derive

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// DialectCurrent semantics: pcpkit's reading of pmRegisterDerived(3) of
// PCP 6.3.8 (functions of expressions, novalue(), defined() guards that
// select an operand when binding, no nested derived metrics). There was no
// 6.3.8 library to ask, so these are not compared with one; where 6.0.3
// and the man page agree the rules are those of TestSemantics.
func TestSemanticsCurrent(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"rate(synth.ctr32 + synth.ctr32)", "double | PM_INDOM_NULL | instant | count / sec"},
		{"count(synth.multi > 1)", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
		{"delta(synth.ctrms * 2)", "double | PM_INDOM_NULL | instant | millisec"},
		{"avg(synth.multi * 2)", "float | PM_INDOM_NULL | instant | none"},
		{"sum(matchinst(/^o/, synth.multi))", "float | PM_INDOM_NULL | instant | none"},
		{"instant(synth.ctr32 + 1 * synth.ctr32)", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
		{"rate(synth.str + 1)", "ERR synth.str + 1: Non-arithmetic type for left operand"},
		{"rate(rate(synth.ctrms))", "double | PM_INDOM_NULL | instant | / sec"},
		{"rate(rate(synth.ctr32))", "ERR RATE(<expr>): Incorrect time dimension for operand"},
		{"defined(synth.disc) ? synth.disc : no.such", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
		{"defined(no.such) ? no.such : synth.inst", "double | PM_INDOM_NULL | instant | Kbyte"},
		{"defined(synth.disc) ? no.such : 1", "ERR operand no.such: Unknown metric for ternary expression"},
		{"defined(no.such) ? count(no.such) : novalue()", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
		{"defined(synth.multi) ? count(synth.multi) : novalue()", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
		{"!defined(no.a) || !defined(no.b) ? novalue() : no.a + no.b", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
		{"synth.disc > 0 ? count(synth.multi) : novalue()", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
		{"synth.disc > 0 ? novalue(units=Kbyte) : synth.inst", "double | PM_INDOM_NULL | instant | Kbyte"},
		{"synth.disc > 0 ? novalue(type=u32) : synth.inst", "ERR <expr> : synth.inst: Different types for ternary operands"},
		{"synth.disc ? novalue() : novalue()", "ERR <expr> : <expr>: novalue() for both ternary operands"},
		{"novalue(type=float, semantics=instant, units=\"Kbytes/sec\")", "float | PM_INDOM_NULL | instant | Kbyte / sec"},
		{"no.such + 1", "BADDERIVE"},
		{"my.a + 1", "ERR operand my.a: Illegal nested derived metric"},
		{"defined(my.a)", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	}
	descs := archiveDescs(t, "synth3")
	reg := NewRegistry(DialectCurrent)
	mustRegister(t, reg, "my.a", "synth.disc")
	ctx := reg.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok })
	for i, c := range cases {
		m := mustRegister(t, reg, fmt.Sprintf("q.c%d", i), c.expr)
		b, err := ctx.Bind(m)
		var got string
		var se *SemanticError
		switch {
		case errors.As(err, &se):
			got = "ERR " + se.Expr + ": " + se.Reason
		case err != nil:
			got = "BADDERIVE"
		default:
			got = formatDesc(b.Desc)
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
}

package derive

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Semantic checks and descriptors of DialectCurrent, against libpcp 6.3.8:
// each expression is registered (after the helpers), the archive opened,
// and every metric's descriptor looked up, as pmLookupDesc binds it.

// semantics638Helpers are registered first: derived metrics for the
// cases to use as operands.
const semantics638Helpers = "my.a = synth.disc\nmy.b = synth.multi * 2\n"

// semantics638Cases are the expressions, by archive (synth3, sample3 in
// ../shared/pcp-made-archives, manpage3 in testdata).
var semantics638Cases = map[string][]string{
	"synth3": {
		// functions of expressions
		"rate(synth.ctr32 + synth.ctr32)", "delta(synth.ctrms * 2)", "rate(rate(synth.ctrms))", "rate(rate(synth.ctr32))",
		"instant(synth.ctr32 + 1 * synth.ctr32)", "instant(synth.ctr32)", "instant(synth.disc)", "rate(synth.str + 1)",
		"delta(synth.str)", "rate(instant(synth.str))", "delta(-synth.multi)", "rate(synth.inst)", "delta(synth.multi > 1)",
		"instant(synth.multi > 1 ? synth.multi : 0)", "rate(synth.ctrms[x])", "delta(scalar(synth.multi))",
		"avg(synth.multi)", "count(synth.str)", "sum(synth.multi)", "max(synth.str)", "delta(3)", "rate(2.5)",
		"scalar(synth.str)", "-synth.str", "!synth.str", "rescale(synth.str, \"Kbyte\")", "rescale(synth.inst, \"sec\")",
		// the ternary operator
		"synth.disc > 0 ? synth.disc : synth.once", "synth.disc > 0 ? synth.multi : 1", "synth.multi > 1 ? synth.once : synth.once",
		"synth.multi > 1 ? synth.multi : synth.multi", "synth.str ? 1 : 2", "synth.disc ? synth.inst : synth.ctrms",
		"synth.disc ? synth.ctr32 : synth.disc", "synth.disc ? synth.inst : rescale(synth.inst, \"Mbyte\")",
		"synth.disc ? synth.ctrms : rescale(synth.ctrms, \"sec\")", "synth.disc ? synth.ctr32 : rescale(synth.ctr32, \"count x 10^3\")",
		"synth.disc ? synth.str : synth.str",
		// novalue()
		"synth.disc > 0 ? count(synth.multi) : novalue()", "synth.disc > 0 ? novalue(units=Kbyte) : synth.inst",
		"synth.disc > 0 ? novalue(type=u32) : synth.inst", "synth.multi > 1 ? novalue() : synth.multi",
		"synth.multi > 1 ? synth.multi : novalue(type=double, semantics=counter)", "synth.disc ? novalue() : synth.str",
		"synth.disc ? novalue(meta=synth.multi) : synth.once", "synth.disc ? synth.once : novalue(meta=synth.multi, type=64)",
		"synth.disc ? novalue(meta=no.such) : synth.once", "synth.disc ? novalue(meta=my.a) : synth.once",
		"synth.multi ? novalue() : 1",
		// defined() and statically evaluated guards
		"defined(synth.disc) ? synth.disc : no.such", "defined(no.such) ? no.such : synth.inst",
		"defined(synth.disc) ? no.such : 1", "defined(no.such) ? count(no.such) : novalue()",
		"defined(synth.multi) ? count(synth.multi) : novalue()", "!defined(no.a) || !defined(no.b) ? novalue() : no.a + no.b",
		"defined(synth.disc) && defined(synth.once) ? synth.disc : no.such", "defined(no.such) || 1 ? synth.disc : no.such",
		"0 ? no.such : synth.inst", "mkconst(0, type=u32) ? no.such : synth.inst", "1 ? synth.inst : synth.str",
		"defined(synth.disc) ? synth.inst : synth.str", "defined(synth.disc) > 0 ? synth.inst : synth.str",
		"defined(no.such) && synth.disc ? no.such : synth.inst", "synth.disc && defined(no.such) ? no.such : synth.inst",
		"defined(no.such) ? novalue() : synth.multi", "defined(synth.disc) ? novalue(type=float) : synth.multi",
		"no.such > 1 ? synth.multi : synth.multi", "no.such > 1 ? synth.once : synth.once",
		"defined(no.such)", "defined(synth.disc)", "defined(my.a)", "defined(no.such) ? 1 : 2",
		"synth.disc > 0 ? (defined(no.such) ? no.such : synth.disc) : synth.disc",
		"synth.disc > 0 ? no.such : synth.disc", "synth.disc > 0 ? synth.disc : no.such + 1",
		"synth.disc > 0 ? synth.disc : count(no.such)", "synth.disc > 0 ? synth.disc : defined(no.such)",
		// mkconst(..., meta=...)
		"mkconst(1, meta=synth.multi)", "mkconst(1, meta=synth.ctrms, type=u32)", "mkconst(2.5, meta=synth.inst)",
		"mkconst(2.5, meta=synth.disc)", "mkconst(1, meta=synth.str)", "mkconst(1, meta=no.such)", "mkconst(1, meta=my.a)",
		"synth.multi + mkconst(1, meta=synth.multi)", "synth.once > mkconst(10, meta=synth.inst, units=count)",
		"mkconst(1, meta=synth.ctr32, semantics=instant, units=\"count / sec\")",
		// nested derived metrics
		"my.a", "my.a + 1", "rate(my.b)", "synth.disc ? my.a : 1", "defined(no.such) ? 1 : my.a", "-my.a",
		// missing operands
		"no.such + 1", "rate(no.such)", "count(no.such)", "scalar(no.such)", "no.such",
		// instance selection on expressions
		"(synth.multi * 2)[one]", "matchinst(/o/, synth.multi + 1)", "matchinst(/o/, synth.once)", "scalar(synth.multi * 2)",
		"(synth.ctrms + synth.ctrms)[x]",
		// binary operators
		"synth.ctr32 * synth.ctr32", "synth.ctr32 + synth.disc", "synth.disc - synth.ctr32", "synth.ctr32 > synth.inst",
		"synth.inst + synth.disc", "synth.inst > 1.5", "synth.ctr32 + synth.once", "synth.multi && synth.once", "synth.inst && 1",
	},
	"sample3": {
		"sample.mirage + sample.float.bin", "sample.float.bin > 1 ? sample.mirage : 0", "sample.mirage > 0 ? sample.float.bin : sample.float.bin",
		"rate(sample.wrap.long + 1)", "rate(sample.seconds * sample.step)", "delta(sample.milliseconds / sample.seconds)",
		"sample.seconds > 1 ? novalue(units=\"Kbyte\") : sample.seconds", "sample.float.bin > 1 ? novalue(units=\"Kbyte\") : sample.float.bin",
		"sample.step ? sample.string.hullo : novalue()", "mkconst(1, meta=sample.float.bin) + sample.float.bin",
		"mkconst(1, meta=sample.mirage) + sample.float.bin", "sample.aggregate.hullo", "rate(sample.aggregate.hullo)",
		"instant(sample.event.records)", "rescale(sample.mirage, \"Mbyte/sec\")", "rescale(rate(sample.mirage), \"Mbyte/sec\")",
		"rescale(sample.milliseconds, \"count\")", "sample.bad.nosupport + 1", "-sample.string.null",
		"sample.float.bin[bin-200] + sample.mirage", "scalar(sample.float.bin) + sample.mirage",
	},
	"manpage3": {
		"delta(disk.dev.total_bytes) / delta(disk.dev.total)",
		"delta(disk.dev.total) == 0 ? mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(disk.dev.total_bytes) / delta(disk.dev.total)",
		"mem.util.free > mkconst(10485760, units=Kbyte)", "rescale(network.interface.total.bytes, \"Mbytes/hour\")",
		"network.interface.in.bytes[eth1] + network.interface.out.bytes[eth1]", "(network.interface.in.bytes + network.interface.total.bytes)[eth1]",
		"matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes)", "scalar(network.interface.in.bytes[eth0]) + scalar(network.interface.in.bytes[eth1])",
		"defined(abc.def) ? count(abc.def) : novalue()", "!defined(a) || !defined(b) ? novalue() : a + b",
		"defined(new.metric) ? new.metric : mem.util.free", "network.interface.speed - delta(network.interface.in.bytes) / delta(sample.milliseconds)",
		"delta(disk.dev.total) == 0 ? mkconst(1, units=\"kbyte / count\") : delta(disk.dev.total_bytes) / delta(disk.dev.total)",
		"rate(disk.dev.total) > 0 ? novalue(type=float, semantics=instant, units=\"Kbytes/sec\") : rate(network.interface.in.bytes)",
	},
}

// semAnswer is one metric's outcome: its descriptor ("TYPE INDOM SEM
// SPACE,TIME,COUNT,SCALESPACE,SCALETIME,SCALECOUNT") or the error code of
// pmLookupDesc, and what libpcp printed.
type semAnswer struct {
	Expr   string `json:"expr"`
	Desc   string `json:"desc"`
	Stderr string `json:"stderr,omitempty"`
}

// semantics638Golden holds libpcp 6.3.8's answers, by archive; written by
//
//	PCP_INTEROP=1 DERIVE_UPDATE=1 go test -run TestSemanticsReal638 ./derive
const semantics638Golden = "testdata/semantics638.json"

func fmtDesc638(d pmapi.Desc) string {
	u := d.Units
	return fmt.Sprintf("%d %d %d %d,%d,%d,%d,%d,%d", d.Type, uint32(d.InDom), d.Sem,
		u.DimSpace, u.DimTime, u.DimCount, u.ScaleSpace, u.ScaleTime, u.CountScale())
}

// semantics638Run binds the cases of archive here, over its descriptors.
func semantics638Run(t *testing.T, archive string) []semAnswer {
	t.Helper()
	descs := archiveDescs(t, archive)
	reg := NewRegistry(DialectCurrent)
	reg.RegisterEventMetrics()
	if n := reg.LoadConfigData("helpers", []byte(semantics638Helpers), os.Stderr); n != 2 {
		t.Fatalf("helpers: %d registered", n)
	}
	var ms []*Metric
	for i, e := range semantics638Cases[archive] {
		m, err := reg.Register(fmt.Sprintf("s.c%d", i), e)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		ms = append(ms, m)
	}
	ctx := reg.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok })
	var out []semAnswer
	for i, m := range ms {
		a := semAnswer{Expr: semantics638Cases[archive][i]}
		d, err := ctx.Desc(m.PMID)
		if err == nil {
			a.Desc = fmtDesc638(d)
		} else {
			a.Desc = strconv.Itoa(int(pmapi.ErrBadDerive))
			var se *SemanticError
			if _, berr := ctx.Bind(m); errors.As(berr, &se) {
				a.Stderr = se.Error() + "\n"
			}
		}
		out = append(out, a)
	}
	return out
}

// TestSemantics638: descriptors and semantic errors as libpcp 6.3.8 gives
// them (semantics638Golden).
func TestSemantics638(t *testing.T) {
	want := readGolden[map[string][]semAnswer](t, semantics638Golden)
	for archive := range semantics638Cases {
		if d := cmp.Diff(want[archive], semantics638Run(t, archive)); d != "" {
			t.Errorf("%s: DialectCurrent differs from libpcp 6.3.8 (-6.3.8 +pcpkit):\n%s", archive, d)
		}
	}
}

// TestSemanticsReal638 asks libpcp 6.3.8 again, over the archives, and
// compares with semantics638Golden (rewritten with DERIVE_UPDATE=1).
func TestSemanticsReal638(t *testing.T) {
	o := newOracle638(t)
	real := map[string][]semAnswer{}
	for archive, exprs := range semantics638Cases {
		path := o.archive(t, archivePath(t, archive))
		reqs := []oracleReq{{Op: "load", Expr: o.file(t, "helpers.conf", semantics638Helpers)}}
		for i, e := range exprs {
			reqs = append(reqs, oracleReq{Op: "reg", Name: fmt.Sprintf("s.c%d", i), Expr: e})
		}
		reqs = append(reqs, oracleReq{Op: "ctx", Expr: path})
		for i := range exprs {
			reqs = append(reqs, oracleReq{Op: "desc", Name: fmt.Sprintf("s.c%d", i)})
		}
		resps := o.run(t, reqs)
		if !resps[len(exprs)+1].OK {
			t.Fatalf("%s: pmNewContext: %d", archive, resps[len(exprs)+1].Pos)
		}
		for i, e := range exprs {
			if !resps[1+i].OK {
				t.Fatalf("%s: libpcp 6.3.8 cannot register it", e)
			}
			r := resps[len(exprs)+2+i]
			a := semAnswer{Expr: e, Stderr: r.Stderr}
			if r.OK {
				a.Desc = *r.Msg
			} else {
				a.Desc = strconv.Itoa(r.Pos)
			}
			real[archive] = append(real[archive], a)
		}
	}
	checkGolden(t, semantics638Golden, real)
}

// add638Cases are per-context definitions (pmAddDerivedMetric) in an
// archive context of synth3, in order.
var add638Cases = []string{
	"p.a", "nosuch + 1",
	"p.b", "3 * ",
	"p.d", "synth.disc",
	"p.a", "synth.disc",
	"synth.disc", "synth.inst",
	"p.e", "rate(synth.str)",
	"p.f", "1 ? synth.inst : synth.disc",
	"p.g", "rate(synth.ctr32 + synth.ctr32)",
	"p.h", "synth.disc > 0 ? no.such : synth.disc",
	"p.i", "p.d + 1",
	"p.j", "defined(no.such) ? no.such : synth.inst",
	"p.k", "mkconst(1, meta=no.such)",
	"p.g2", "synth.disc + 1", // (a tree for the next to reuse: p.k's is freed)
	"p.l", "synth.disc ? novalue() : novalue()",
	"p.m", "avg(synth.multi + 1)",
	"p.n", "rate(rate(synth.ctr32))",
}

// add638Errmsgs are libpcp 6.3.8's messages for add638Cases (TestAdd638Real
// asks it again).
var add638Errmsgs = []string{
	"Semantic Error: pmAddDerivedMetric(\"p.a\", ...)\nnosuch + 1\n^\nUnknown operand metric\n",
	"Syntax Error: pmAddDerivedMetric(\"p.b\", ...)\n3 * \n   ^\nArithmetic expression expected to follow STAR\n",
	"",
	"Error: pmAddDerivedMetric(\"p.a\", ...): returns -12409\nDuplicate per-context derived metric name\n",
	"",
	"Semantic Error: pmAddDerivedMetric(\"p.e\", ...)\nrate(synth.str)\n^\nNon-arithmetic operand for function\n",
	"",
	"",
	"Semantic Error: pmAddDerivedMetric(\"p.h\", ...)\nsynth.disc > 0 ? no.such : synth.disc\n^\nUnknown metric for ternary expression\n",
	"Semantic Error: pmAddDerivedMetric(\"p.i\", ...)\np.d + 1\n^\nIllegal nested derived metric\n",
	"",
	"Semantic Error: pmAddDerivedMetric(\"p.k\", ...)\nmkconst(1, meta=no.such)\n^\nUnknown operand metric\n",
	"",
	"Semantic Error: pmAddDerivedMetric(\"p.l\", ...)\nsynth.disc ? novalue() : novalue()\n^\nnovalue() may appear at most once in a ternary expression\n",
	"Syntax Error: pmAddDerivedMetric(\"p.m\", ...)\navg(synth.multi + 1)\n                ^\nMetric name expected to follow avg(\n",
	"Semantic Error: pmAddDerivedMetric(\"p.n\", ...)\nrate(rate(synth.ctr32))\n^\nIncorrect time dimension for operand\n",
}

// TestAdd638: pmAddDerivedMetric's messages in DialectCurrent.
func TestAdd638(t *testing.T) {
	r := NewRegistry(DialectCurrent)
	r.RegisterEventMetrics()
	descs := archiveDescs(t, "synth3")
	ctx := r.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok })
	for i := 0; i < len(add638Cases); i += 2 {
		got, _ := ctx.AddMetric(add638Cases[i], add638Cases[i+1])
		if want := add638Errmsgs[i/2]; got != want {
			t.Errorf("%s = %q: %q, libpcp 6.3.8 %q", add638Cases[i], add638Cases[i+1], got, want)
		}
	}
}

// TestAdd638Real asks libpcp 6.3.8.
func TestAdd638Real(t *testing.T) {
	o := newOracle638(t)
	reqs := []oracleReq{{Op: "ctx", Expr: o.archive(t, archivePath(t, "synth3"))}}
	for i := 0; i < len(add638Cases); i += 2 {
		reqs = append(reqs, oracleReq{Op: "add", Name: add638Cases[i], Expr: add638Cases[i+1]})
	}
	resps := o.run(t, reqs)
	if !resps[0].OK {
		t.Fatalf("pmNewContext: %d", resps[0].Pos)
	}
	for i, resp := range resps[1:] {
		if resp.ErrMsg != add638Errmsgs[i] {
			t.Errorf("%s = %q: libpcp 6.3.8 %q, the table %q", add638Cases[2*i], add638Cases[2*i+1], resp.ErrMsg, add638Errmsgs[i])
		}
	}
}

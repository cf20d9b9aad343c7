package derive

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

func mustRegister(t *testing.T, r *Registry, name, expr string) *Metric {
	t.Helper()
	m, err := r.Register(name, expr)
	if err != nil {
		t.Fatalf("%s = %s: %v", name, expr, err)
	}
	return m
}

func TestGlobalPMIDs(t *testing.T) {
	r := NewRegistry(Dialect603)
	r.RegisterEventMetrics()
	for i, want := range []string{"511.0.1", "511.0.2"} {
		if got := r.Metrics()[i].PMID.String(); got != want {
			t.Errorf("%s: %s, want %s", r.Metrics()[i].Name, got, want)
		}
	}
	var last *Metric
	for i := 3; i <= 1100; i++ {
		last = mustRegister(t, r, fmt.Sprintf("r.m%d", i), "a")
		want := pmapi.NewPMID(511, 0, uint32(i))
		if i > 1023 {
			// after item 1023 comes item 1 of the next cluster
			want = pmapi.NewPMID(511, 1, uint32(i-1023))
		}
		if last.PMID != want {
			t.Fatalf("metric %d: %s, want %s", i, last.PMID, want)
		}
		if !IsDerived(last.PMID) {
			t.Fatalf("%s not derived", last.PMID)
		}
	}
	// a failed registration takes no PMID; a duplicate fails at offset 0
	if _, err := r.Register("r.bad", "a +"); err == nil {
		t.Fatal("r.bad registered")
	}
	_, err := r.Register("r.m3", "b")
	if se, ok := err.(*SyntaxError); !ok || se.Pos != 0 || se.Msg != "Duplicate global derived metric name" {
		t.Errorf("duplicate: %v", err)
	}
	if m := mustRegister(t, r, "r.next", "a"); m.PMID.String() != "511.1.78" {
		t.Errorf("r.next: %s", m.PMID)
	}
	// the last PMID, then exhaustion (libpcp tests this with fault injection)
	r.cluster, r.item = maxCluster, maxItem-1
	if m := mustRegister(t, r, "r.last", "a"); m.PMID.String() != "511.2047.1023" {
		t.Errorf("r.last: %s", m.PMID)
	}
	_, err = r.Register("r.over", "a")
	if se, ok := err.(*SyntaxError); !ok || se.Pos != 0 || se.Msg != "global PMID space exhausted" {
		t.Errorf("exhausted: %v", err)
	}
	if m, ok := r.LookupPMID(pmapi.NewPMID(511, 1, 1)); !ok || m.Name != "r.m1024" {
		t.Errorf("LookupPMID(511.1.1): %v", m)
	}
}

// TestGlobalPMIDsReal: in libpcp, metrics registered before the first
// context come first; event.flags and event.missed are registered when a
// context is made (__dminit).
func TestGlobalPMIDsReal(t *testing.T) {
	var reqs []oracleReq
	for i := 1; i <= 1030; i++ {
		reqs = append(reqs, oracleReq{Op: "reg", Name: fmt.Sprintf("r.m%d", i), Expr: "synth.disc"})
	}
	reqs = append(reqs, oracleReq{Op: "ctx", Expr: archivePath(t, "synth3")})
	names := []string{"r.m1", "r.m2", "r.m1022", "r.m1023", "r.m1024", "r.m1030", "event.flags", "event.missed"}
	for _, n := range names {
		reqs = append(reqs, oracleReq{Op: "pmid", Name: n})
	}
	resps := runOracle(t, reqs)
	r := NewRegistry(Dialect603)
	for i := 1; i <= 1030; i++ {
		mustRegister(t, r, fmt.Sprintf("r.m%d", i), "synth.disc")
	}
	r.RegisterEventMetrics()
	for i, n := range names {
		resp := resps[1031+i]
		m, _ := r.Lookup(n)
		if !resp.OK || pmapi.PMID(resp.Pos) != m.PMID {
			t.Errorf("%s: libpcp %s, ours %s", n, pmapi.PMID(resp.Pos), m.PMID)
		}
	}
}

func TestPerContextPMIDs(t *testing.T) {
	r := NewRegistry(Dialect603)
	descs := archiveDescs(t, "synth3")
	ctx := r.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok })
	want := []uint32{0xffdfffff, 0xffdffffe}
	for i, n := range []string{"p.one", "p.two"} {
		m, err := ctx.Add(n, "synth.disc + 1")
		if err != nil || uint32(m.PMID) != want[i] || m.PMID.String() != fmt.Sprintf("511.2047.%d", 1023-i) {
			t.Errorf("%s: %v %#x", n, err, uint32(m.PMID))
		}
		if !IsDerived(m.PMID) {
			t.Errorf("%s not derived", m.PMID)
		}
	}
	// a syntax error takes no PMID; a semantic error does (the metric
	// exists, and fails); a missing operand is not an error yet
	if _, err := ctx.Add("p.syntax", "3 *"); err == nil {
		t.Error("p.syntax added")
	}
	m, err := ctx.Add("p.sem", "synth.ctr32 * synth.ctr32")
	var ae *AddError
	if !errors.As(err, &ae) || ae.Semantic == nil || m.PMID.String() != "511.2047.1021" {
		t.Errorf("p.sem: %v %v", m, err)
	}
	if _, err := ctx.Add("p.missing", "no.such + 1"); err != nil {
		t.Errorf("p.missing: %v", err)
	}
	if _, err := ctx.Desc(pmapi.PMID(0xffdffffc)); !errors.Is(err, pmapi.ErrBadDerive) {
		t.Errorf("p.missing desc: %v", err)
	}
	// the last per-context PMID, then exhaustion
	ctx.cluster, ctx.item = 0, 2
	if m, err := ctx.Add("p.last", "1"); err != nil || m.PMID.String() != "511.0.1" {
		t.Errorf("p.last: %v %v", m, err)
	}
	_, err = ctx.Add("p.over", "1")
	if !errors.As(err, &ae) || ae.Msg != "per-context PMID space exhausted" {
		t.Errorf("p.over: %v", err)
	}
}

// pmAddDerivedMetric's messages, from
//
//	testdata/oracle.py: ctx synth3, then add NAME EXPR
var addCases = []struct{ name, expr, errmsg string }{
	{"p.a", "nosuch + 1", ""},
	{"p.b", "3 * ", "Syntax Error: pmAddDerivedMetric(\"p.b\", ...)\n3 * \n   ^\nArithmetic expression expected to follow STAR\n"},
	{"p.c", "", "Syntax Error: pmAddDerivedMetric(\"p.c\", ...)\n\n ^\n"},
	{"p.d", "synth.disc", ""},
	{"p.a", "synth.disc", "Error: pmAddDerivedMetric(\"p.a\", ...): returns -12409\nDuplicate per-context derived metric name\n"},
	{"synth.disc", "synth.inst", ""},
	{"p.e", "rate(synth.str)", "Semantic Error: pmAddDerivedMetric(\"p.e\", ...)\nrate(synth.str)\n^\nNon-arithmetic operand for function\n"},
	{"p.f", "1 ? synth.inst : synth.disc", "Semantic Error: pmAddDerivedMetric(\"p.f\", ...)\n1 ? synth.inst : synth.disc\n^\nDifferent types for ternary operands\n"},
}

func TestAddDerivedMessages(t *testing.T) {
	r := NewRegistry(Dialect603)
	descs := archiveDescs(t, "synth3")
	ctx := r.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok })
	for _, c := range addCases {
		got, _ := ctx.AddMetric(c.name, c.expr)
		if got != c.errmsg {
			t.Errorf("%s = %q: %q, want %q", c.name, c.expr, got, c.errmsg)
		}
	}
}

func TestAddDerivedMessagesReal(t *testing.T) {
	reqs := []oracleReq{{Op: "ctx", Expr: archivePath(t, "synth3")}}
	for _, c := range addCases {
		reqs = append(reqs, oracleReq{Op: "add", Name: c.name, Expr: c.expr})
	}
	for i, resp := range runOracle(t, reqs)[1:] {
		if resp.ErrMsg != addCases[i].errmsg {
			t.Errorf("%s = %q: libpcp %q, the table %q", addCases[i].name, addCases[i].expr, resp.ErrMsg, addCases[i].errmsg)
		}
	}
}

func TestRemap(t *testing.T) {
	for _, c := range []struct {
		pmid    pmapi.PMID
		remap   string
		derived bool
		remaps  bool
	}{
		{pmapi.NewPMID(511, 0, 13), "511.2048.13", true, false},
		{pmapi.NewPMID(511, 0, 1), "511.2048.1", true, false},
		{pmapi.PMID(0xffdfffff), "511.4095.1023", true, false},
		{pmapi.NewPMID(511, 2048, 3), "511.2048.3", false, true},
		// item 0 of domain 511 prints as a dynamic namespace root does
		{pmapi.NewPMID(511, 5, 0), "2053.*.*", false, false},
		{pmapi.NewPMID(29, 0, 2), "29.2048.2", false, false},
	} {
		if got := Remap(c.pmid).String(); got != c.remap {
			t.Errorf("Remap(%s) = %s, want %s", c.pmid, got, c.remap)
		}
		if IsDerived(c.pmid) != c.derived || IsRemapped(c.pmid) != c.remaps {
			t.Errorf("%s: IsDerived %v IsRemapped %v", c.pmid, IsDerived(c.pmid), IsRemapped(c.pmid))
		}
	}
	if IsDerived(pmapi.PMIDNull) || IsRemapped(pmapi.PMIDNull) {
		t.Error("PM_ID_NULL")
	}
}

// TestChosen is the table of PIDs AND MASKING in pmRegisterDerived(3).
func TestChosen(t *testing.T) {
	for _, c := range []struct {
		base, remapped, perContext, global bool
		want                               Kind
	}{
		{false, false, false, false, KindNone},
		{false, false, false, true, KindGlobal},
		{false, false, true, false, KindPerContext},
		{false, false, true, true, KindPerContext},
		{false, true, false, false, KindRemapped},
		{false, true, false, true, KindRemapped},
		{false, true, true, false, KindRemapped},
		{false, true, true, true, KindRemapped},
		{true, false, false, false, KindBase},
		{true, false, false, true, KindBase},
		{true, false, true, false, KindBase},
		{true, false, true, true, KindBase},
	} {
		if got := Chosen(c.base, c.remapped, c.perContext, c.global); got != c.want {
			t.Errorf("%v %v %v %v: %s, want %s", c.base, c.remapped, c.perContext, c.global, got, c.want)
		}
	}
}

// TestMaskingReal: in the archive derived3 (whose my.* metrics pmlogger
// recorded as 511.2048.N), the archive's metrics hide global and
// per-context derived metrics of the same names, and a per-context metric
// hides a global one.
func TestMaskingReal(t *testing.T) {
	archive := archivePath(t, "derived3")
	globals := [][2]string{{"my.cpu.busy", "kernel.all.cpu.user"}, {"x.global", "kernel.all.cpu.user"}, {"x.both", "kernel.all.cpu.user"}}
	locals := [][2]string{{"my.free.pct", "kernel.all.cpu.user"}, {"x.local", "kernel.all.cpu.user"}, {"x.both", "kernel.all.cpu.user"}, {"kernel.all.cpu.user", "pmcd.seqnum"}}
	names := []string{"my.cpu.busy", "my.free.pct", "x.global", "x.local", "x.both", "kernel.all.cpu.user", "event.flags"}
	var reqs []oracleReq
	for _, g := range globals {
		reqs = append(reqs, oracleReq{Op: "reg", Name: g[0], Expr: g[1]})
	}
	reqs = append(reqs, oracleReq{Op: "ctx", Expr: archive})
	for _, l := range locals {
		reqs = append(reqs, oracleReq{Op: "add", Name: l[0], Expr: l[1]})
	}
	for _, n := range names {
		reqs = append(reqs, oracleReq{Op: "pmid", Name: n})
	}
	resps := runOracle(t, reqs)[len(globals)+1+len(locals):]

	// ours, with the archive's PMNS from pminfo -dm (the names needed)
	pmns := map[string]pmapi.Desc{
		"kernel.all.cpu.user": {PMID: pmapi.NewPMID(60, 0, 20), Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}},
		"my.cpu.busy":         {PMID: pmapi.NewPMID(511, 2048, 3), Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}},
		"my.free.pct":         {PMID: pmapi.NewPMID(511, 2048, 4), Type: pmapi.TypeDouble, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant},
		"pmcd.seqnum":         {PMID: pmapi.NewPMID(2, 0, 24), Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete},
	}
	r := NewRegistry(Dialect603)
	for _, g := range globals {
		mustRegister(t, r, g[0], g[1])
	}
	r.RegisterEventMetrics() // at the first context, as libpcp's __dminit
	ctx := r.NewContext(func(n string) (pmapi.Desc, bool) { d, ok := pmns[n]; return d, ok })
	for _, l := range locals {
		if _, err := ctx.Add(l[0], l[1]); err != nil {
			t.Fatalf("%s: %v", l[0], err)
		}
	}
	for i, n := range names {
		pmid, kind, ok := ctx.LookupName(n)
		if !resps[i].OK || !ok || pmapi.PMID(resps[i].Pos) != pmid {
			t.Errorf("%s: libpcp %#x (%v), ours %#x %s", n, uint32(resps[i].Pos), resps[i].OK, uint32(pmid), kind)
		}
	}
}

// TestAnonSameAsParsed: RegisterAnon builds the node "anon(TYPE)" would
// parse to, without parsing.
func TestAnonSameAsParsed(t *testing.T) {
	r := NewRegistry(Dialect603)
	r.RegisterEventMetrics()
	for _, name := range []string{"event.flags", "event.missed"} {
		m, ok := r.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		want, err := Parse(m.Source, Dialect603)
		if err != nil {
			t.Fatalf("Parse(%q): %v", m.Source, err)
		}
		if !Equal(want, m.Expr) || want.Pos != m.Expr.Pos {
			t.Errorf("%s: node %+v, parsing %q gives %+v", name, m.Expr, m.Source, want)
		}
	}
}

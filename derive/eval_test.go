package derive

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// A small PMNS for the evaluator's table tests. Instances 0, 1 and 2 of
// indom 30.1 are "zero", "one two" and "three".
var (
	tIndom  = pmapi.NewInDom(30, 1)
	tIndom2 = pmapi.NewInDom(30, 2)
	tMetric = map[string]pmapi.Desc{
		"i32":  {Type: pmapi.Type32, InDom: tIndom, Sem: pmapi.SemInstant},
		"u32":  {Type: pmapi.TypeU32, InDom: tIndom, Sem: pmapi.SemInstant},
		"i64":  {Type: pmapi.Type64, InDom: tIndom, Sem: pmapi.SemInstant},
		"u64":  {Type: pmapi.TypeU64, InDom: tIndom, Sem: pmapi.SemInstant},
		"flt":  {Type: pmapi.TypeFloat, InDom: tIndom, Sem: pmapi.SemInstant},
		"dbl":  {Type: pmapi.TypeDouble, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant},
		"one":  {Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant},
		"neg":  {Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant},
		"kb":   {Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant, Units: pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceKByte}},
		"mb":   {Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant, Units: pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceMByte}},
		"ms":   {Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}},
		"c32":  {Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}},
		"str":  {Type: pmapi.TypeString, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete},
		"oth":  {Type: pmapi.Type32, InDom: tIndom2, Sem: pmapi.SemInstant},
		"cnt":  {Type: pmapi.TypeU64, InDom: tIndom, Sem: pmapi.SemInstant, Units: pmapi.Units{DimCount: 1}},
		"bool": {Type: pmapi.TypeU32, InDom: tIndom, Sem: pmapi.SemInstant},
		"c64":  {Type: pmapi.TypeU64, InDom: tIndom, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}},
		"c32s": {Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}},
		"fctr": {Type: pmapi.TypeFloat, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeUSec}},
		"dctr": {Type: pmapi.TypeDouble, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMin}},
		"i64c": {Type: pmapi.Type64, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter},
		"bad":  {Type: pmapi.Type32, InDom: tIndom, Sem: pmapi.SemInstant},
	}
	tNames = map[int32]string{0: "zero", 1: "one two", 2: "three"}
)

func tPMID(name string) pmapi.PMID {
	names := []string{"i32", "u32", "i64", "u64", "flt", "dbl", "one", "neg", "kb", "mb", "ms", "c32", "str", "oth", "cnt", "bool", "c64", "c32s", "fctr", "dctr", "i64c", "bad"}
	for i, n := range names {
		if n == name {
			return pmapi.NewPMID(30, 0, uint32(i+1))
		}
	}
	return pmapi.PMIDNull
}

func tLookup(name string) (pmapi.Desc, bool) {
	d, ok := tMetric[name]
	if !ok {
		return pmapi.Desc{}, false
	}
	d.PMID = tPMID(name)
	return d, true
}

// tValue encodes a value of metric name as a source returns it.
func tValue(name string, inst int32, text string) pmapi.Value {
	v := pmapi.Value{Inst: inst}
	switch tMetric[name].Type {
	case pmapi.Type32, pmapi.TypeU32:
		n, _ := strconv.ParseInt(text, 10, 64)
		v.Insitu = int32(n)
	case pmapi.Type64:
		n, _ := strconv.ParseInt(text, 10, 64)
		v.BlockType, v.Block = pmapi.Type64, binary.BigEndian.AppendUint64(nil, uint64(n))
	case pmapi.TypeU64:
		n, _ := strconv.ParseUint(text, 10, 64)
		v.BlockType, v.Block = pmapi.TypeU64, binary.BigEndian.AppendUint64(nil, n)
	case pmapi.TypeFloat:
		f, _ := strconv.ParseFloat(text, 32)
		v.BlockType, v.Block = pmapi.TypeFloat, binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f)))
	case pmapi.TypeDouble:
		f, _ := strconv.ParseFloat(text, 64)
		v.BlockType, v.Block = pmapi.TypeDouble, binary.BigEndian.AppendUint64(nil, math.Float64bits(f))
	case pmapi.TypeString:
		v.BlockType, v.Block = pmapi.TypeString, append([]byte(text), 0)
	}
	return v
}

// tSample is one fetch: seconds, and per metric "inst:value ..." (inst
// "-" for a singular value), "" for no values, "err N" for an error.
type tSample struct {
	sec  float64
	vals map[string]string
}

func tResult(list []pmapi.PMID, s tSample) *pmapi.Result {
	sec := math.Floor(s.sec)
	res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: int64(sec), Nsec: int32(math.Round((s.sec - sec) * 1e9))}}
	for _, p := range list {
		vs := pmapi.ValueSet{PMID: p}
		name := ""
		for n := range tMetric {
			if tPMID(n) == p {
				name = n
			}
		}
		text, ok := s.vals[name]
		switch {
		case name == "" || !ok:
			vs.NumVal = int32(pmapi.ErrNoAgent)
		case strings.HasPrefix(text, "err "):
			n, _ := strconv.Atoi(text[4:])
			vs.NumVal = int32(n)
		default:
			for _, f := range strings.Fields(text) {
				is, val, _ := strings.Cut(f, ":")
				inst := int64(pmapi.InstNull)
				if is != "-" {
					inst, _ = strconv.ParseInt(is, 10, 32)
				}
				vs.Values = append(vs.Values, tValue(name, int32(inst), val))
			}
			vs.NumVal = int32(len(vs.Values))
			if tMetric[name].Type != pmapi.Type32 && tMetric[name].Type != pmapi.TypeU32 {
				vs.ValFmt = pmapi.ValFmtDptr
			}
		}
		res.VSets = append(res.VSets, vs)
	}
	return res
}

// tShow prints a value set: "inst:value ..." ("-" for no instance), "" for
// no values, "err N" for an error.
func tShow(vs *pmapi.ValueSet, t pmapi.Type) string {
	if vs.NumVal < 0 {
		return fmt.Sprintf("err %d", vs.NumVal)
	}
	var parts []string
	for i := range vs.Values[:vs.NumVal] {
		v := &vs.Values[i]
		inst := strconv.Itoa(int(v.Inst))
		if v.Inst == pmapi.InstNull {
			inst = "-"
		}
		var s string
		switch t {
		case pmapi.Type32:
			s = strconv.Itoa(int(v.Insitu))
		case pmapi.TypeU32:
			s = strconv.FormatUint(uint64(uint32(v.Insitu)), 10)
		case pmapi.Type64:
			s = strconv.FormatInt(int64(binary.BigEndian.Uint64(v.Block)), 10)
		case pmapi.TypeU64:
			s = strconv.FormatUint(binary.BigEndian.Uint64(v.Block), 10)
		case pmapi.TypeFloat:
			s = strconv.FormatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v.Block))), 'g', -1, 32)
		case pmapi.TypeDouble:
			s = strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64(v.Block)), 'g', -1, 64)
		case pmapi.TypeString:
			s = strconv.Quote(strings.TrimRight(string(v.Block), "\x00"))
		default:
			s = fmt.Sprintf("%x", v.Block)
		}
		parts = append(parts, inst+":"+s)
	}
	return strings.Join(parts, " ")
}

// evalCase evaluates expr over samples and returns each fetch's value set
// as tShow prints it, and the metric's type.
func evalCase(t *testing.T, d Dialect, expr string, samples []tSample, opts EvalOptions) ([]string, pmapi.Type) {
	t.Helper()
	reg := NewRegistry(d)
	m, err := reg.Register("x", expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	c := reg.NewContext(tLookup)
	if opts.Names == nil {
		opts.Names = InstNamerFunc(func(indom pmapi.InDom, inst int32, _ pmapi.Timestamp) (string, bool) {
			n, ok := tNames[inst]
			return n, ok && indom == tIndom
		})
	}
	ev := c.NewEvaluator(opts)
	typ := pmapi.TypeUnknown
	if desc, err := c.Desc(m.PMID); err == nil {
		typ = desc.Type
	}
	req := []pmapi.PMID{m.PMID}
	var out []string
	for _, s := range samples {
		list := ev.Prefetch(req)
		res, err := ev.Postfetch(req, tResult(list, s))
		if err != nil {
			t.Fatalf("%s: Postfetch: %v", expr, err)
		}
		if len(res.VSets) != 1 || res.VSets[0].PMID != m.PMID {
			t.Fatalf("%s: result %+v", expr, res)
		}
		out = append(out, tShow(&res.VSets[0], typ))
	}
	return out, typ
}

// badBind is what a metric whose definition fails gets: the source's
// answer for its PMID (tResult's PM_ERR_NOAGENT), as libpcp passes it on.
const badBind = "err -12386"

func one(vals map[string]string) []tSample { return []tSample{{sec: 10, vals: vals}} }

func TestEvalTable(t *testing.T) {
	base := map[string]string{
		"i32": "0:-5 1:7 2:2147483647", "u32": "0:5 1:4294967295 2:3", "i64": "0:-9 1:10 2:11",
		"u64": "0:9 1:10 2:18446744073709551615", "flt": "0:1.5 1:-2.25 2:0", "dbl": "-:2.5",
		"one": "-:3", "neg": "-:-4", "kb": "-:2048", "mb": "-:3", "ms": "-:1000", "c32": "-:10",
		"str": "-:hullo", "oth": "0:1 1:2", "cnt": "0:1 1:2 2:3", "bool": "0:0 1:1 2:2",
		"bad": "err -12357",
	}
	cases := []struct {
		expr string
		d    Dialect
		typ  pmapi.Type
		want string
	}{
		// arithmetic and promotion
		{expr: "i32 + i32", typ: pmapi.Type32, want: "0:-10 1:14 2:-2"},
		{expr: "u32 + one", typ: pmapi.TypeU32, want: "0:8 1:2 2:6"},
		{expr: "i32 + u32", typ: pmapi.TypeU32, want: "0:0 1:6 2:2147483650"},
		{expr: "i32 * 2", typ: pmapi.TypeU32, want: "0:4294967286 1:14 2:4294967294"},
		{expr: "i32 * neg", typ: pmapi.Type32, want: "0:20 1:-28 2:4"},
		{expr: "i32 - neg", typ: pmapi.Type32, want: "0:-1 1:11 2:-2147483645"},
		{expr: "i64 + i32", typ: pmapi.Type64, want: "0:-14 1:17 2:2147483658"},
		{expr: "i64 * u32", typ: pmapi.Type64, want: "0:-45 1:42949672950 2:33"},
		{expr: "u64 + one", typ: pmapi.TypeU64, want: "0:12 1:13 2:2"},
		{expr: "u64 + i32", typ: pmapi.TypeU64, want: "0:4 1:17 2:2147483646"},
		{expr: "flt * i32", typ: pmapi.TypeFloat, want: "0:-7.5 1:-15.75 2:0"},
		{expr: "flt + dbl", typ: pmapi.TypeDouble, want: "0:4 1:0.25 2:2.5"},
		{expr: "i32 / neg", typ: pmapi.TypeDouble, want: "0:1.25 1:-1.75 2:-5.3687091175e+08"},
		{expr: "0 / one", typ: pmapi.TypeDouble, want: "-:0"},
		{expr: "flt / 0", typ: pmapi.TypeDouble, want: "0:+Inf 1:-Inf 2:0"},
		{expr: "-i32", typ: pmapi.Type32, want: "0:5 1:-7 2:-2147483647"},
		{expr: "-u32", typ: pmapi.Type32, want: "0:-5 1:1 2:-3"},
		{expr: "-u64", typ: pmapi.Type64, want: "0:-9 1:-10 2:1"},
		{expr: "-flt", typ: pmapi.TypeFloat, want: "0:-1.5 1:2.25 2:-0"},
		{expr: "-dbl", typ: pmapi.TypeDouble, want: "-:-2.5"},
		{expr: "2.5 * one", typ: pmapi.TypeDouble, want: "-:7.5"},
		// scale conversion: Mbyte is the larger scale, Kbyte values /1024
		{expr: "kb + mb", typ: pmapi.TypeDouble, want: "-:5"},
		{expr: "mb - kb", typ: pmapi.TypeDouble, want: "-:1"},
		{expr: "kb * mb", typ: pmapi.TypeDouble, want: "-:6"},
		// relational and boolean, U32 0 or 1
		// C semantics: compared as U32, -5 is large
		{expr: "i32 > 0", typ: pmapi.TypeU32, want: "0:1 1:1 2:1"},
		{expr: "i32 > neg", typ: pmapi.TypeU32, want: "0:0 1:1 2:1"},
		{expr: "u32 >= 5", typ: pmapi.TypeU32, want: "0:1 1:1 2:0"},
		{expr: "i32 < u32", typ: pmapi.TypeU32, want: "0:0 1:1 2:0"},
		{expr: "flt == 1.5", typ: pmapi.TypeU32, want: "0:1 1:0 2:0"},
		{expr: "flt != 0", typ: pmapi.TypeU32, want: "0:1 1:1 2:0"},
		{expr: "i32 <= -5", typ: pmapi.TypeU32, want: "0:1 1:0 2:0"},
		{expr: "bool && one", typ: pmapi.TypeU32, want: "0:0 1:1 2:1"},
		{expr: "bool || 0", typ: pmapi.TypeU32, want: "0:0 1:1 2:1"},
		{expr: "!bool", typ: pmapi.TypeU32, want: "0:1 1:0 2:0"},
		{expr: "!(i32 > neg)", typ: pmapi.TypeU32, want: "0:1 1:0 2:0"},
		{expr: "!flt", typ: pmapi.TypeFloat, want: "0:0 1:0 2:1"},
		// instance matching: the left operand drives, "oth" has another
		// indom (a semantic error), a singular operand is broadcast
		{expr: "one - i32", typ: pmapi.TypeU32, want: "0:8 1:4294967292 2:2147483652"},
		{expr: "i32 + oth", typ: pmapi.TypeUnknown, want: badBind},
		// ternary
		{expr: "one > 2 ? i32 : -i32", typ: pmapi.Type32, want: "0:-5 1:7 2:2147483647"},
		{expr: "one > 5 ? i32 : -i32", typ: pmapi.Type32, want: "0:5 1:-7 2:-2147483647"},
		{expr: "i32 > neg ? i32 : neg", typ: pmapi.Type32, want: "0:-4 1:7 2:2147483647"},
		{expr: "bool ? 10 : 20", typ: pmapi.TypeUnknown, want: badBind},
		{expr: "one ? neg : i32", typ: pmapi.Type32, want: "0:-4 1:-4 2:-4"},
		{expr: "one ? str : str", typ: pmapi.TypeString, want: `-:""`},
		{expr: "one ? str : str", d: DialectCurrent, typ: pmapi.TypeString, want: `-:""`},
		{expr: "defined(i32) ? i32 : nosuch", d: DialectCurrent, typ: pmapi.Type32, want: "0:-5 1:7 2:2147483647"},
		{expr: "defined(nosuch) ? nosuch : neg", d: DialectCurrent, typ: pmapi.Type32, want: "-:-4"},
		{expr: "defined(nosuch) ? nosuch : novalue()", d: DialectCurrent, typ: pmapi.Type32, want: ""},
		{expr: "one > 5 ? i32 : novalue()", d: DialectCurrent, typ: pmapi.Type32, want: ""},
		{expr: "flt > 0 ? flt : novalue()", d: DialectCurrent, typ: pmapi.TypeFloat, want: "0:1.5"},
		// instance selection
		{expr: "i32[three]", typ: pmapi.Type32, want: "2:2147483647"},
		{expr: "i32[one two]", typ: pmapi.Type32, want: "1:7"},
		{expr: "i32[one]", typ: pmapi.Type32, want: "1:7"},
		{expr: "i32[four]", typ: pmapi.Type32, want: ""},
		{expr: "(i32 * 2)[zero]", typ: pmapi.TypeU32, want: "0:4294967286"},
		{expr: "matchinst(/^t/, i32)", typ: pmapi.Type32, want: "2:2147483647"},
		{expr: "matchinst(/two/, i32)", typ: pmapi.Type32, want: ""},
		{expr: "matchinst(/^one$/, i32)", typ: pmapi.Type32, want: "1:7"},
		{expr: "matchinst(!/^t/, i32)", typ: pmapi.Type32, want: "0:-5 1:7"},
		{expr: "scalar(i32)", typ: pmapi.Type32, want: "-:-5"},
		{expr: "scalar(i32[three]) + one", typ: pmapi.TypeU32, want: "-:2147483650"},
		// constants
		{expr: "mkconst(7, type=64)", typ: pmapi.Type64, want: "-:7"},
		{expr: "mkconst(7, type=u64, semantics=counter)", typ: pmapi.TypeU64, want: "-:7"},
		{expr: "-mkconst(7, type=32)", typ: pmapi.Type32, want: "-:-7"},
		{expr: "mkconst(1.75, type=float)", typ: pmapi.TypeFloat, want: "-:1.75"},
		{expr: "4294967295 + one", typ: pmapi.TypeU32, want: "-:2"},
		// rescale
		{expr: `rescale(kb, "Mbyte")`, typ: pmapi.TypeU32, want: "-:2"},
		{expr: `rescale(mb, "Kbyte")`, typ: pmapi.TypeU32, want: "-:3072"},
		{expr: `rescale(ms, "sec")`, typ: pmapi.TypeU64, want: "-:1"},
		{expr: `rescale(cnt, "count x 10^-1")`, typ: pmapi.TypeU64, want: "0:10 1:20 2:30"},
		{expr: `rescale(dbl, "count x 10^2")`, typ: pmapi.TypeDouble, want: "-:0.025"},
		// aggregates
		{expr: "count(i32)", typ: pmapi.TypeU32, want: "-:3"},
		{expr: "count(nosuch)", typ: pmapi.TypeUnknown, want: badBind},
		{expr: "count(oth)", typ: pmapi.TypeU32, want: "-:2"},
		{expr: "count(bad)", typ: pmapi.TypeU32, want: "-:0"},
		{expr: "bad + 1", typ: pmapi.TypeU32, want: "err -12357"},
		{expr: "sum(bad)", typ: pmapi.Type32, want: "err -12357"},
		{expr: "sum(i32)", typ: pmapi.Type32, want: "-:-2147483647"},
		{expr: "sum(u64)", typ: pmapi.TypeU64, want: "-:18"},
		{expr: "sum(flt)", typ: pmapi.TypeFloat, want: "-:-0.75"},
		{expr: "avg(i32)", typ: pmapi.TypeFloat, want: "-:7.158279e+08"},
		{expr: "avg(flt)", typ: pmapi.TypeFloat, want: "-:-0.25"},
		{expr: "max(i32)", typ: pmapi.Type32, want: "-:2147483647"},
		{expr: "min(i32)", typ: pmapi.Type32, want: "-:-5"},
		{expr: "max(u64)", typ: pmapi.TypeU64, want: "-:18446744073709551615"},
		{expr: "min(flt)", typ: pmapi.TypeFloat, want: "-:-2.25"},
		{expr: "instant(u64)", typ: pmapi.TypeU64, want: "0:9 1:10 2:18446744073709551615"},
		{expr: "defined(i32)", typ: pmapi.TypeU32, want: "-:1"},
		{expr: "defined(nosuch)", typ: pmapi.TypeU32, want: "-:0"},
		{expr: "str", typ: pmapi.TypeString, want: `-:"hullo"`},
		{expr: "i32", typ: pmapi.Type32, want: "0:-5 1:7 2:2147483647"},
	}
	for _, c := range cases {
		name := c.expr
		if c.d == DialectCurrent {
			name += " (current)"
		}
		t.Run(name, func(t *testing.T) {
			got, typ := evalCase(t, c.d, c.expr, one(base), EvalOptions{})
			if typ != c.typ {
				t.Errorf("%s: type %v, want %v", c.expr, typ, c.typ)
			}
			if got[0] != c.want {
				t.Errorf("%s: got %q, want %q", c.expr, got[0], c.want)
			}
		})
	}
}

func TestEvalHistory(t *testing.T) {
	s := func(sec float64, kv ...string) tSample {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return tSample{sec: sec, vals: m}
	}
	cases := []struct {
		name    string
		expr    string
		d       Dialect
		literal bool
		samples []tSample
		typ     pmapi.Type
		want    []string
	}{
		{name: "delta U32 gives 64", expr: "delta(c32)", typ: pmapi.Type64,
			samples: []tSample{s(10, "c32", "-:10"), s(11, "c32", "-:15"), s(12, "c32", "-:5"), s(13, "c32", "-:4294967295")},
			want:    []string{"", "-:5", "-:-10", "-:4294967290"}},
		{name: "delta U64 gives DOUBLE", expr: "delta(c64)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c64", "0:1 1:2"), s(11, "c64", "0:11 1:18446744073709551615")},
			want:    []string{"", "0:10 1:1.8446744073709552e+19"}},
		{name: "delta 32", expr: "delta(c32s)", typ: pmapi.Type32,
			samples: []tSample{s(10, "c32s", "-:2147483647"), s(11, "c32s", "-:-2147483648")},
			want:    []string{"", "-:1"}},
		{name: "rate U32 counter wrap is huge in 6.0.3", expr: "rate(c32)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c32", "-:10"), s(12, "c32", "-:20"), s(14, "c32", "-:4")},
			want:    []string{"", "-:5", "-:2.14748364e+09"}},
		{name: "rate counter wrap dropped (current)", expr: "rate(c32)", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c32", "-:10"), s(12, "c32", "-:20"), s(14, "c32", "-:4"), s(15, "c32", "-:5")},
			want:    []string{"", "-:5", "", "-:1"}},
		{name: "rate 32-bit counter wrap kept (current, as libpcp 6.3.8)", expr: "rate(c32s)", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c32s", "-:10"), s(12, "c32s", "-:4")},
			want:    []string{"", "-:-3"}},
		{name: "rate of a non-counter going down (current)", expr: "rate(instant(c32))", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c32", "-:10"), s(12, "c32", "-:4")},
			want:    []string{"", "-:2.147483645e+09"}},
		{name: "delta of x[name] has no values (current, as libpcp 6.3.8)", expr: "delta(i32[three])", d: DialectCurrent, typ: pmapi.Type32,
			samples: []tSample{s(10, "i32", "2:1"), s(11, "i32", "2:5"), s(12, "i32", "2:9")},
			want:    []string{"", "", ""}},
		{name: "delta of an expression on x[name] (current)", expr: "delta(i32[three] * 1)", d: DialectCurrent, typ: pmapi.Type64,
			samples: []tSample{s(10, "i32", "2:1"), s(11, "i32", "2:5"), s(12, "i32", "2:9")},
			want:    []string{"", "2:4", "2:4"}},
		{name: "rate of defined() has no values (current)", expr: "rate(defined(i32))", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "i32", "2:1"), s(11, "i32", "2:5")},
			want:    []string{"", ""}},
		{name: "novalue() holes (current, literal: as libpcp with fresh memory)", expr: "bool ? i32 : novalue()", d: DialectCurrent, literal: true, typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "0:0 1:1 2:1", "i32", "0:10 1:20 2:30")},
			want:    []string{"0:0 1:20"}},
		{name: "rate of an expression (current)", expr: "rate(c64 + c64)", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c64", "0:1 1:2"), s(10.5, "c64", "0:2 1:4")},
			want:    []string{"", "0:4 1:8"}},
		{name: "rate msec utilisation", expr: "rate(ms)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "ms", "-:1000"), s(12, "ms", "-:2000")},
			want:    []string{"", "-:0.5"}},
		{name: "rate usec float utilisation", expr: "rate(fctr)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "fctr", "-:0"), s(11, "fctr", "-:500000")},
			want:    []string{"", "-:0.5"}},
		{name: "rate minutes utilisation", expr: "rate(dctr)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "dctr", "-:1"), s(70, "dctr", "-:2")},
			want:    []string{"", "-:1"}},
		{name: "rate 64 counter", expr: "rate(i64c)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "i64c", "-:-10"), s(10.25, "i64c", "-:-9")},
			want:    []string{"", "-:4"}},
		{name: "instances: only those in both samples", expr: "delta(c64)", typ: pmapi.TypeDouble,
			samples: []tSample{s(1, "c64", "0:1 1:2 2:3"), s(2, "c64", "2:13 0:11"), s(3, "c64", "1:0 2:23 0:21")},
			want:    []string{"", "2:10 0:10", "2:10 0:10"}},
		{name: "no values then values", expr: "delta(c64)", typ: pmapi.TypeDouble,
			samples: []tSample{s(1, "c64", "0:1"), s(2, "c64", ""), s(3, "c64", "0:5"), s(4, "c64", "0:6")},
			want:    []string{"", "", "", "0:1"}},
		{name: "an error is the history", expr: "delta(c64)", typ: pmapi.TypeDouble,
			samples: []tSample{s(1, "c64", "0:1"), s(2, "c64", "err -12357"), s(3, "c64", "0:5"), s(4, "c64", "0:6")},
			want:    []string{"", "err -12357", "err -12357", "0:1"}},
		{name: "backwards in time order", expr: "rate(c32)", typ: pmapi.TypeDouble,
			samples: []tSample{s(14, "c32", "-:40"), s(12, "c32", "-:20"), s(10, "c32", "-:10")},
			want:    []string{"", "-:10", "-:5"}},
		{name: "backwards delta in time order", expr: "delta(c32)", typ: pmapi.Type64,
			samples: []tSample{s(14, "c32", "-:40"), s(12, "c32", "-:20"), s(10, "c32", "-:10")},
			want:    []string{"", "-:20", "-:10"}},
		{name: "backwards literal (libpcp)", expr: "delta(c32)", literal: true, typ: pmapi.Type64,
			samples: []tSample{s(14, "c32", "-:40"), s(12, "c32", "-:20"), s(10, "c32", "-:10")},
			want:    []string{"", "-:-20", "-:-10"}},
		{name: "backwards rate literal (libpcp): U32 difference wraps", expr: "rate(c32)", literal: true, typ: pmapi.TypeDouble,
			samples: []tSample{s(14, "c32", "-:40"), s(12, "c32", "-:20")},
			want:    []string{"", "-:-2.147483638e+09"}},
		{name: "backwards counter wrap dropped (current)", expr: "rate(c32)", d: DialectCurrent, typ: pmapi.TypeDouble,
			samples: []tSample{s(14, "c32", "-:4"), s(12, "c32", "-:20"), s(10, "c32", "-:10")},
			want:    []string{"", "", "-:5"}},
		{name: "same time twice", expr: "rate(c32)", typ: pmapi.TypeDouble,
			samples: []tSample{s(10, "c32", "-:1"), s(10, "c32", "-:2")},
			want:    []string{"", "-:+Inf"}},
		{name: "ratio of deltas", expr: "delta(c64) / delta(cnt)", typ: pmapi.TypeDouble,
			samples: []tSample{s(1, "c64", "0:0 1:0", "cnt", "0:0 1:0"), s(2, "c64", "0:10 1:0", "cnt", "0:4 1:0")},
			want:    []string{"", "0:2.5 1:0"}},
		{name: "max keeps its value over no values", expr: "max(cnt)", typ: pmapi.TypeU64,
			samples: []tSample{s(1, "cnt", "0:4 1:9"), s(2, "cnt", ""), s(3, "cnt", "0:1")},
			want:    []string{"-:9", "-:9", "-:1"}},
		{name: "sum of no values", expr: "sum(cnt)", typ: pmapi.TypeU64,
			samples: []tSample{s(1, "cnt", "")},
			want:    []string{"-:0"}},
		{name: "instances matched by number", expr: "i32 - u32", typ: pmapi.TypeU32,
			samples: []tSample{s(1, "i32", "0:10 1:20 2:30", "u32", "2:3 0:1")},
			want:    []string{"0:9 2:27"}},
		{name: "at most as many values as the smaller operand", expr: "i32 - u32", typ: pmapi.TypeU32,
			samples: []tSample{s(1, "i32", "5:1 0:10 1:20 2:30", "u32", "1:2 2:3 0:1")},
			want:    []string{"0:9 1:18 2:27"}},
		{name: "matchinst over changing instances", expr: "matchinst(/^t/, i32)", typ: pmapi.Type32,
			samples: []tSample{s(1, "i32", "0:1"), s(2, "i32", "2:3 0:1"), s(3, "i32", "")},
			want:    []string{"", "2:3", ""}},
		// libpcp 6.0.3 and 6.3.8 work by position: max(2, 1) values, the
		// guard's value i choosing, the instances those of the true
		// operand
		{name: "guard by position (6.0.3)", expr: "bool ? i32 : neg", typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "0:0 1:1 2:2", "i32", "2:30 1:20", "neg", "-:-1")},
			want:    []string{"2:-1 1:20"}},
		{name: "guard by position (current)", expr: "bool ? i32 : neg", d: DialectCurrent, typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "0:0 1:1 2:2", "i32", "2:30 1:20", "neg", "-:-1")},
			want:    []string{"2:-1 1:20"}},
		// novalue() selected: that position has no value
		{name: "novalue by position (current)", expr: "bool ? i32 : novalue()", d: DialectCurrent, typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "0:1 1:0 2:1", "i32", "0:10 1:20 2:30")},
			want:    []string{"0:10 2:30"}},
		{name: "guard shorter than the operands (6.0.3)", expr: "bool ? i32 : -i32", typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "0:1", "i32", "0:1 1:2 2:3")},
			want:    []string{"0:1 1:2 2:3"}},
		{name: "guard with no values", expr: "bool ? i32 : -i32", typ: pmapi.Type32,
			samples: []tSample{s(1, "bool", "", "i32", "0:1 1:2 2:3")},
			want:    []string{""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, typ := evalCase(t, c.d, c.expr, c.samples, EvalOptions{Literal: c.literal})
			if typ != c.typ {
				t.Errorf("%s: type %v, want %v", c.expr, typ, c.typ)
			}
			if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
				t.Errorf("%s:\n got %q\nwant %q", c.expr, got, c.want)
			}
		})
	}
}

// FuzzEval evaluates arbitrary expressions (those that parse and bind
// against the table tests' metrics) over samples with changing instances:
// no panics, and every fetch gives one value set for the metric.
func FuzzEval(f *testing.F) {
	for _, s := range []string{"i32 + u32", "delta(c64) / delta(cnt)", "bool ? i32 : neg", "matchinst(/^t/, i32)",
		"rate(c32)", "scalar(i32[three])", "defined(x) ? x : novalue()", "one ? str : str", "avg(flt) * max(i32)",
		`rescale(kb, "Mbyte")`, "-mkconst(7, type=64)", "!(i32 > neg) || flt"} {
		f.Add(s, uint8(0), int64(1))
		f.Add(s, uint8(1), int64(2))
	}
	f.Fuzz(func(t *testing.T, expr string, dialect uint8, seed int64) {
		d := Dialect603
		if dialect&1 == 1 {
			d = DialectCurrent
		}
		reg := NewRegistry(d)
		m, err := reg.Register("x", expr)
		if err != nil {
			return
		}
		c := reg.NewContext(tLookup)
		ev := c.NewEvaluator(EvalOptions{Names: InstNamerFunc(func(indom pmapi.InDom, inst int32, _ pmapi.Timestamp) (string, bool) {
			n, ok := tNames[inst]
			return n, ok
		}), Literal: seed&1 == 1})
		req := []pmapi.PMID{m.PMID, m.PMID}
		samples := []map[string]string{
			{"i32": "0:1 1:2", "u32": "1:3 0:4", "c64": "0:5", "cnt": "2:1 0:0", "bool": "0:1 1:0 2:1", "flt": "1:0.5",
				"neg": "-:-1", "one": "-:1", "c32": "-:7", "kb": "-:1024", "str": "-:a", "dbl": "-:0"},
			{"i32": "2:9", "u32": "", "c64": "0:6 1:1", "cnt": "err -12357", "bool": "1:1", "c32": "-:3", "one": "-:0"},
			{"i32": "1:1 0:2 2:3", "u32": "0:1 1:1 2:1", "c64": "1:2 0:7", "cnt": "0:1 1:1", "bool": "2:0 0:1", "flt": "0:1 2:2",
				"neg": "-:5", "one": "-:2", "c32": "-:9", "kb": "-:1", "str": "-:bc", "dbl": "-:1e300"},
		}
		for k := 0; k < 5; k++ {
			u := uint64(seed)
			s := tSample{sec: float64(100 + (u>>1+uint64(k)*7)%11), vals: samples[(u+uint64(k))%uint64(len(samples))]}
			list := ev.Prefetch(req)
			res, err := ev.Postfetch(req, tResult(list, s))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.VSets) != 2 || res.VSets[0].PMID != m.PMID {
				t.Fatalf("%q: result %+v", expr, res)
			}
			for _, vs := range res.VSets {
				if vs.NumVal > 0 && int(vs.NumVal) != len(vs.Values) {
					t.Fatalf("%q: numval %d with %d values", expr, vs.NumVal, len(vs.Values))
				}
			}
		}
	})
}

// TestMatchInstCompaction checks the instance cache of matchinst(): a
// match is worked out once per instance, and an instance seen in fewer
// than half of the last 100 evaluations is forgotten, so that a name that
// changed is matched again.
func TestMatchInstCompaction(t *testing.T) {
	reg := NewRegistry(Dialect603)
	m, err := reg.Register("x", "matchinst(/^t/, i32)")
	if err != nil {
		t.Fatal(err)
	}
	c := reg.NewContext(tLookup)
	names := map[int32]string{0: "zero", 1: "one", 2: "three"}
	asked := 0
	ev := c.NewEvaluator(EvalOptions{Names: InstNamerFunc(func(_ pmapi.InDom, inst int32, _ pmapi.Timestamp) (string, bool) {
		asked++
		n, ok := names[inst]
		return n, ok
	})})
	req := []pmapi.PMID{m.PMID}
	fetch := func(sec float64, vals string) string {
		list := ev.Prefetch(req)
		res, err := ev.Postfetch(req, tResult(list, tSample{sec: sec, vals: map[string]string{"i32": vals}}))
		if err != nil {
			t.Fatal(err)
		}
		return tShow(&res.VSets[0], pmapi.Type32)
	}
	if got := fetch(1, "0:1 1:2 2:3"); got != "2:3" || asked != 3 {
		t.Fatalf("first fetch: %q after %d names, want \"2:3\" after 3", got, asked)
	}
	// instance 1 is renamed "two": the cached no-match stands while it is
	// seen, then it disappears for long enough to be forgotten
	names[1] = "two"
	for k := 0; k < 98; k++ {
		if got := fetch(float64(2+k), "0:1 1:2 2:3"); got != "2:3" {
			t.Fatalf("fetch %d: %q", k+2, got)
		}
	}
	if asked != 3 {
		t.Fatalf("%d names asked, want 3 (cached)", asked)
	}
	for k := 0; k < 101; k++ {
		fetch(float64(200+k), "0:1 2:3")
	}
	if got := fetch(400, "0:1 1:2 2:3"); got != "1:2 2:3" {
		t.Errorf("after the compaction: %q, want \"1:2 2:3\"", got)
	}
}

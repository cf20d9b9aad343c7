package derive

import (
	"encoding/binary"
	"fmt"
	"math"

	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// A property: generated arithmetic over generated samples evaluates as a
// straightforward reference evaluator says. The metrics are p.u32 (U32),
// p.i64 (64), p.dbl (DOUBLE), each singular or over one instance domain,
// all instant and dimensionless; the expressions use + - * /, unary minus,
// the relational operators, constants and delta(); the samples have
// random values and random subsets of instances, in random order.

type rMetric struct {
	name  string
	typ   pmapi.Type
	indom bool
}

var rMetrics = []rMetric{
	{"p.u32", pmapi.TypeU32, true}, {"p.i64", pmapi.Type64, true}, {"p.dbl", pmapi.TypeDouble, true},
	{"s.u32", pmapi.TypeU32, false}, {"s.i64", pmapi.Type64, false}, {"s.dbl", pmapi.TypeDouble, false},
}

// rExpr is a generated expression and what the reference needs of it.
type rExpr struct {
	text  string
	op    string // "name", "const", "neg", "delta", or the operator
	m     *rMetric
	konst uint32
	l, r  *rExpr
}

func rGen(depth int) *rapid.Generator[*rExpr] {
	return rapid.Custom(func(t *rapid.T) *rExpr {
		kind := rapid.IntRange(0, 9).Draw(t, "kind")
		if depth <= 0 || kind < 3 {
			if rapid.IntRange(0, 3).Draw(t, "leaf") == 0 {
				k := rapid.Uint32Range(0, 20).Draw(t, "const")
				return &rExpr{text: strconv.FormatUint(uint64(k), 10), op: "const", konst: k}
			}
			m := &rMetrics[rapid.IntRange(0, len(rMetrics)-1).Draw(t, "metric")]
			if rapid.IntRange(0, 4).Draw(t, "delta") == 0 {
				return &rExpr{text: "delta(" + m.name + ")", op: "delta", m: m}
			}
			return &rExpr{text: m.name, op: "name", m: m}
		}
		if kind == 3 {
			c := rGen(depth-1).Draw(t, "neg")
			return &rExpr{text: "-(" + c.text + ")", op: "neg", l: c}
		}
		op := rapid.SampledFrom([]string{"+", "-", "*", "/", "<", "==", ">="}).Draw(t, "op")
		l := rGen(depth-1).Draw(t, "l")
		r := rGen(depth-1).Draw(t, "r")
		return &rExpr{text: "(" + l.text + ") " + op + " (" + r.text + ")", op: op, l: l, r: r}
	})
}

// rVal is a reference value: an instance and a value of a type.
type rVal struct {
	inst int32
	i    int64 // 32 and 64-bit integers (U32 zero-extended)
	f    float64
}

type rSet struct {
	typ  pmapi.Type
	set  bool // has an instance domain
	vals []rVal
	none bool // no values
}

// rSample is the values of every metric at one time.
type rSample map[string][]rVal

func rType(e *rExpr) (pmapi.Type, bool) {
	switch e.op {
	case "const":
		return pmapi.TypeU32, false
	case "name":
		return e.m.typ, e.m.indom
	case "delta":
		switch e.m.typ {
		case pmapi.TypeU32:
			return pmapi.Type64, e.m.indom
		}
		return e.m.typ, e.m.indom
	case "neg":
		t, s := rType(e.l)
		if t == pmapi.TypeU32 {
			t = pmapi.Type32
		}
		return t, s
	}
	lt, ls := rType(e.l)
	rt, rs := rType(e.r)
	switch e.op {
	case "/":
		return pmapi.TypeDouble, ls || rs
	case "<", "==", ">=":
		return pmapi.TypeU32, ls || rs
	}
	return max(lt, rt), ls || rs
}

// rToF converts a reference value of type t to float64.
func rToF(v rVal, t pmapi.Type) float64 {
	switch t {
	case pmapi.TypeDouble, pmapi.TypeFloat:
		return v.f
	case pmapi.TypeU32:
		return float64(uint32(v.i))
	case pmapi.Type32:
		return float64(int32(v.i))
	}
	return float64(v.i)
}

// rEval is the reference: instances matched as sets (the left operand's
// order), singular values used with every instance, C arithmetic in the
// result type.
func rEval(e *rExpr, cur, prev rSample, first bool) rSet {
	t, set := rType(e)
	out := rSet{typ: t, set: set}
	switch e.op {
	case "const":
		out.vals = []rVal{{inst: -1, i: int64(e.konst)}}
		return out
	case "name":
		out.vals = cur[e.m.name]
		out.none = len(out.vals) == 0
		return out
	case "delta":
		if first || len(prev[e.m.name]) == 0 {
			out.none = true
			return out
		}
		for _, c := range cur[e.m.name] {
			for _, p := range prev[e.m.name] {
				if p.inst != c.inst {
					continue
				}
				v := rVal{inst: c.inst}
				switch e.m.typ {
				case pmapi.TypeU32:
					v.i = int64(uint32(c.i)) - int64(uint32(p.i))
				case pmapi.Type64:
					v.i = c.i - p.i
				default:
					v.f = c.f - p.f
				}
				out.vals = append(out.vals, v)
			}
		}
		out.none = len(out.vals) == 0
		return out
	case "neg":
		c := rEval(e.l, cur, prev, first)
		out.none = c.none
		for _, v := range c.vals {
			switch c.typ {
			case pmapi.TypeDouble:
				v.f = -v.f
			case pmapi.TypeU32, pmapi.Type32:
				v.i = int64(int32(-uint32(v.i)))
			default:
				v.i = -v.i
			}
			out.vals = append(out.vals, v)
		}
		return out
	}
	l := rEval(e.l, cur, prev, first)
	r := rEval(e.r, cur, prev, first)
	if l.none || r.none || len(l.vals) == 0 || len(r.vals) == 0 {
		out.none = true
		return out
	}
	pt := max(l.typ, r.typ)
	calc := func(a, b rVal) rVal {
		v := rVal{inst: a.inst}
		if !l.set {
			v.inst = b.inst
		}
		switch e.op {
		case "<", "==", ">=":
			var c int
			switch pt {
			case pmapi.TypeDouble:
				x, y := rToF(a, l.typ), rToF(b, r.typ)
				c = map[bool]int{true: -1, false: 0}[x < y]
				if x > y {
					c = 1
				}
				if x != x || y != y {
					c = 2 // unordered
				}
			case pmapi.TypeU32:
				x, y := uint32(a.i), uint32(b.i)
				c = map[bool]int{true: -1, false: 0}[x < y]
				if x > y {
					c = 1
				}
			case pmapi.Type32:
				x, y := int32(a.i), int32(b.i)
				c = map[bool]int{true: -1, false: 0}[x < y]
				if x > y {
					c = 1
				}
			default:
				x, y := a.i, b.i
				if l.typ == pmapi.TypeU32 {
					x = int64(uint32(a.i))
				}
				if r.typ == pmapi.TypeU32 {
					y = int64(uint32(b.i))
				}
				c = map[bool]int{true: -1, false: 0}[x < y]
				if x > y {
					c = 1
				}
			}
			ok := e.op == "<" && c == -1 || e.op == "==" && c == 0 || e.op == ">=" && (c == 0 || c == 1)
			if ok {
				v.i = 1
			}
			return v
		}
		switch t {
		case pmapi.TypeDouble:
			x, y := rToF(a, l.typ), rToF(b, r.typ)
			switch e.op {
			case "+":
				v.f = x + y
			case "-":
				v.f = x - y
			case "*":
				v.f = x * y
			case "/":
				if x != 0 {
					v.f = x / y
				}
			}
		case pmapi.TypeU32, pmapi.Type32:
			x, y := uint32(a.i), uint32(b.i)
			var z uint32
			switch e.op {
			case "+":
				z = x + y
			case "-":
				z = x - y
			case "*":
				z = x * y
			}
			if t == pmapi.Type32 {
				v.i = int64(int32(z))
			} else {
				v.i = int64(z)
			}
		default:
			x, y := a.i, b.i
			if l.typ == pmapi.TypeU32 {
				x = int64(uint32(a.i))
			} else if l.typ == pmapi.Type32 {
				x = int64(int32(a.i))
			}
			if r.typ == pmapi.TypeU32 {
				y = int64(uint32(b.i))
			} else if r.typ == pmapi.Type32 {
				y = int64(int32(b.i))
			}
			switch e.op {
			case "+":
				v.i = x + y
			case "-":
				v.i = x - y
			case "*":
				v.i = x * y
			}
		}
		return v
	}
	switch {
	case !l.set:
		for _, b := range r.vals {
			out.vals = append(out.vals, calc(l.vals[0], b))
		}
	case !r.set:
		for _, a := range l.vals {
			out.vals = append(out.vals, calc(a, r.vals[0]))
		}
	default:
		for _, a := range l.vals {
			for _, b := range r.vals {
				if a.inst == b.inst {
					out.vals = append(out.vals, calc(a, b))
					break
				}
			}
		}
	}
	out.none = len(out.vals) == 0
	return out
}

func rDrawSample(t *rapid.T, label string) rSample {
	s := rSample{}
	for _, m := range rMetrics {
		if !m.indom {
			if rapid.IntRange(0, 9).Draw(t, label+m.name+"none") == 0 {
				continue
			}
			s[m.name] = []rVal{rDrawVal(t, m, -1, label)}
			continue
		}
		insts := rapid.Permutation([]int32{0, 1, 2, 3}).Draw(t, label+m.name+"insts")
		n := rapid.IntRange(0, 4).Draw(t, label+m.name+"n")
		for _, in := range insts[:n] {
			s[m.name] = append(s[m.name], rDrawVal(t, m, in, label))
		}
	}
	return s
}

func rDrawVal(t *rapid.T, m rMetric, inst int32, label string) rVal {
	v := rVal{inst: inst}
	switch m.typ {
	case pmapi.TypeU32:
		v.i = int64(rapid.Uint32().Draw(t, label+"u32"))
	case pmapi.Type64:
		v.i = rapid.Int64().Draw(t, label+"i64")
	default:
		v.f = rapid.Float64Range(-1e6, 1e6).Draw(t, label+"dbl")
	}
	return v
}

// rResult is a sample as a source returns it, for the fetch list.
func rResult(list []pmapi.PMID, s rSample, sec int64, pmidOf map[pmapi.PMID]rMetric) *pmapi.Result {
	res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: sec}}
	for _, p := range list {
		vs := pmapi.ValueSet{PMID: p}
		m, ok := pmidOf[p]
		if !ok {
			vs.NumVal = int32(pmapi.ErrNoAgent)
			res.VSets = append(res.VSets, vs)
			continue
		}
		for _, v := range s[m.name] {
			pv := pmapi.Value{Inst: v.inst}
			switch m.typ {
			case pmapi.TypeU32:
				pv.Insitu = int32(uint32(v.i))
			case pmapi.Type64:
				pv.BlockType, pv.Block = pmapi.Type64, binary.BigEndian.AppendUint64(nil, uint64(v.i))
			default:
				pv.BlockType, pv.Block = pmapi.TypeDouble, binary.BigEndian.AppendUint64(nil, math.Float64bits(v.f))
			}
			vs.Values = append(vs.Values, pv)
		}
		vs.NumVal = int32(len(vs.Values))
		if m.typ != pmapi.TypeU32 {
			vs.ValFmt = pmapi.ValFmtDptr
		}
		res.VSets = append(res.VSets, vs)
	}
	return res
}

func rShowRef(s rSet) string {
	if s.none {
		return ""
	}
	out := ""
	for _, v := range s.vals {
		switch s.typ {
		case pmapi.TypeDouble:
			out += fmt.Sprintf("%d:%x ", v.inst, math.Float64bits(v.f))
		case pmapi.TypeU32:
			out += fmt.Sprintf("%d:%d ", v.inst, uint32(v.i))
		case pmapi.Type32:
			out += fmt.Sprintf("%d:%d ", v.inst, int32(v.i))
		default:
			out += fmt.Sprintf("%d:%d ", v.inst, v.i)
		}
	}
	return out
}

func rShowGot(vs *pmapi.ValueSet, t pmapi.Type) string {
	if vs.NumVal <= 0 {
		return ""
	}
	out := ""
	for _, v := range vs.Values[:vs.NumVal] {
		switch t {
		case pmapi.TypeDouble:
			f := math.Float64frombits(binary.BigEndian.Uint64(v.Block))
			out += fmt.Sprintf("%d:%x ", v.Inst, math.Float64bits(f))
		case pmapi.TypeU32:
			out += fmt.Sprintf("%d:%d ", v.Inst, uint32(v.Insitu))
		case pmapi.Type32:
			out += fmt.Sprintf("%d:%d ", v.Inst, v.Insitu)
		default:
			out += fmt.Sprintf("%d:%d ", v.Inst, int64(binary.BigEndian.Uint64(v.Block)))
		}
	}
	return out
}

func TestEvalProperty(t *testing.T) {
	indom := pmapi.NewInDom(40, 1)
	pmidOf := map[pmapi.PMID]rMetric{}
	byName := map[string]pmapi.Desc{}
	for i, m := range rMetrics {
		p := pmapi.NewPMID(40, 0, uint32(i+1))
		pmidOf[p] = m
		d := pmapi.Desc{PMID: p, Type: m.typ, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}
		if m.indom {
			d.InDom = indom
		}
		byName[m.name] = d
	}
	lookup := func(name string) (pmapi.Desc, bool) {
		d, ok := byName[name]
		return d, ok
	}
	checked := 0
	rapid.Check(t, func(t *rapid.T) {
		e := rGen(3).Draw(t, "expr")
		reg := NewRegistry(Dialect603)
		m, err := reg.Register("r.x", e.text)
		if err != nil {
			t.Fatalf("%s: %v", e.text, err)
		}
		c := reg.NewContext(lookup)
		desc, err := c.Desc(m.PMID)
		if err != nil {
			// e.g. a relational operator over a DOUBLE constant
			// expression with other units cannot happen here; the
			// only failures are semantic ones we do not model
			t.Skip("does not bind:", e.text, err)
		}
		wantType, _ := rType(e)
		if desc.Type != wantType {
			t.Fatalf("%s: type %v, reference %v", e.text, desc.Type, wantType)
		}
		ev := c.NewEvaluator(EvalOptions{})
		req := []pmapi.PMID{m.PMID}
		var prev rSample
		n := rapid.IntRange(1, 4).Draw(t, "samples")
		for k := 0; k < n; k++ {
			s := rDrawSample(t, fmt.Sprintf("s%d.", k))
			list := ev.Prefetch(req)
			res, err := ev.Postfetch(req, rResult(list, s, int64(100+k), pmidOf))
			if err != nil {
				t.Fatal(err)
			}
			want := rShowRef(rEval(e, s, prev, k == 0))
			got := rShowGot(&res.VSets[0], desc.Type)
			if got != want {
				t.Fatalf("%s, sample %d:\n got %s\nwant %s", e.text, k, got, want)
			}
			prev = s
		}
		checked++
	})
	if checked == 0 {
		t.Fatal("no expression was checked")
	}
	t.Logf("%d generated expressions checked against the reference", checked)
}

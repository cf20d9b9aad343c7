package derive

import (
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// evalHistory is delta() and rate(): the operand's values now against
// its values at the previous evaluation of this node (libpcp keeps one
// sample of history per node, so per context, per metric and per
// instance).
//
//   - The first evaluation, and one after an evaluation with no values,
//     has no values; one after an evaluation that failed fails the same
//     way (libpcp's numval = min(current, last)).
//   - An instance is matched in the previous sample by number, at the
//     same position first, then by scanning; an instance that was not
//     there is left out.
//   - delta(): U32 operands give (int64)cur - (int64)prev, U64 operands
//     (double)cur - (double)prev, others the difference in their own type.
//   - in DialectCurrent, delta() and rate() of x[name] or of defined()
//     never have values: libpcp 6.3.8 keeps no history for those nodes
//     (checked with the real library);
//   - rate(): the difference computed in the operand's type, as a
//     double, divided by the seconds between the two evaluations' result
//     times; for an operand with a time dimension of 1 it is then scaled
//     from the operand's time unit to seconds (a utilisation). libpcp
//     6.0.3 makes no check of counter semantics, so a counter that went
//     down gives a huge (unsigned) or negative rate; in DialectCurrent,
//     as pmRegisterDerived(3) says, an instance of a counter expression
//     whose value went down is left out (libpcp 6.3.8 makes the check for
//     every type but PM_TYPE_32).
//
// Unless EvalOptions.Literal is set, the two samples are taken in time
// order: when the current fetch is earlier than the previous one (a
// backwards replay) the difference is previous - current over
// previous time - current time, so that each interval between two
// samples has the same delta and rate whichever way it is replayed.
func (e *Evaluator) evalHistory(n *enode) {
	c := n.left
	n.lastStamp = n.stamp
	n.stamp = e.now
	cur, last := &c.val, &n.last
	num := min(cur.num, last.num)
	n.val.reset()
	if n.dialect == DialectCurrent && (c.op == OpInst || c.op == OpDefined) {
		// libpcp 6.3.8 keeps no history for x[name] and defined(): their
		// delta() and rate() never have values
		return
	}
	if num <= 0 {
		n.val.setErr(num)
		last.copyFrom(cur)
		return
	}
	reverse := !e.opts.Literal && n.stamp.Before(n.lastStamp)
	var dt float64
	if n.op == OpRate {
		if reverse {
			dt = pcptime.SubBorrow(n.lastStamp, n.stamp)
		} else {
			dt = pcptime.SubBorrow(n.stamp, n.lastStamp)
		}
		if n.timeScale < 0 {
			n.timeScale = rateTimeScale(c.b.Desc.Units)
		}
	}
	// 6.3.8 checks every type but 32-bit signed
	dropWrap := n.op == OpRate && n.dialect == DialectCurrent && c.b.Desc.Sem == pmapi.SemCounter && c.typ != pmapi.Type32
	nc, nl := int(cur.num), int(last.num)
	for i := 0; i < nc; i++ {
		j := i
		if j >= nl {
			j = 0
		}
		if cur.v[i].inst != last.v[j].inst {
			for j = 0; j < nl; j++ {
				if cur.v[i].inst == last.v[j].inst {
					break
				}
			}
			if j == nl {
				continue
			}
		}
		a, b := &cur.v[i], &last.v[j] // the value is a - b
		if reverse {
			a, b = b, a
		}
		if dropWrap && decreased(a, b, c.typ) {
			continue
		}
		o := ival{inst: cur.v[i].inst}
		if n.op == OpDelta {
			deltaValue(&o, a, b, c.typ)
		} else {
			o.f = diffDouble(a, b, c.typ) / dt
			if c.b.Desc.Units.DimTime == 1 {
				o.f *= n.timeScale
			}
		}
		n.val.add(o)
	}
	last.copyFrom(cur)
}

// rateTimeScale is the factor from a time unit to seconds, worked out as
// libpcp does (repeated *60 above seconds, /1000 below).
func rateTimeScale(u pmapi.Units) float64 {
	s := 1.0
	if u.ScaleTime > pmapi.TimeSec {
		for i := pmapi.TimeSec; i < int(u.ScaleTime); i++ {
			s *= 60
		}
	} else {
		for i := int(u.ScaleTime); i < pmapi.TimeSec; i++ {
			s /= 1000
		}
	}
	return s
}

// deltaValue sets o to a - b for operands of type t, in delta()'s result
// type.
func deltaValue(o, a, b *ival, t pmapi.Type) {
	switch t {
	case pmapi.Type32:
		o.u = fromInt(a.u-b.u, t)
	case pmapi.TypeU32:
		o.u = uint64(int64(uint32(a.u)) - int64(uint32(b.u)))
	case pmapi.Type64:
		o.u = a.u - b.u
	case pmapi.TypeU64:
		o.f = float64(a.u) - float64(b.u)
	case pmapi.TypeFloat:
		o.f = float64(float32(a.f) - float32(b.f))
	default:
		o.f = a.f - b.f
	}
}

// diffDouble is (double)(a - b) with the difference computed in type t.
func diffDouble(a, b *ival, t pmapi.Type) float64 {
	switch t {
	case pmapi.Type32:
		return float64(int32(uint32(a.u) - uint32(b.u)))
	case pmapi.TypeU32:
		return float64(uint32(a.u) - uint32(b.u))
	case pmapi.Type64:
		return float64(int64(a.u - b.u))
	case pmapi.TypeU64:
		return float64(a.u - b.u)
	case pmapi.TypeFloat:
		return float64(float32(a.f) - float32(b.f))
	}
	return a.f - b.f
}

// decreased reports whether a < b in type t (a counter that wrapped or
// was reset).
func decreased(a, b *ival, t pmapi.Type) bool {
	switch t {
	case pmapi.Type32:
		return int32(a.u) < int32(b.u)
	case pmapi.TypeU32:
		return uint32(a.u) < uint32(b.u)
	case pmapi.Type64:
		return int64(a.u) < int64(b.u)
	case pmapi.TypeU64:
		return a.u < b.u
	}
	return a.f < b.f
}

// evalCond is the ternary operator of Dialect603 (evalCond603); that of
// DialectCurrent is evalCond638.
func (e *Evaluator) evalCond(n *enode) {
	g := n.left
	n.val.reset()
	if g.val.num <= 0 {
		n.val.setErr(g.val.num)
		return
	}
	e.evalCond603(n)
}

// evalCond638 is libpcp 6.3.8's ?:. The guard is evaluated, then the
// operands the guard selects when binding (both when it is not known
// then); an error in any is the result's. There are no values when the
// guard has none, or when an operand evaluated (other than novalue()) has
// none. Otherwise it works by position, as 6.0.3's does: a guard known
// when binding gives its operand's values as they are; else the result
// has as many values as the larger operand, value i comes from the
// operand the guard's value i selects (the last selection once the guard
// has no more values), at position i or, past its end, at position 0, and
// its instance is the true operand's i-th (the false operand's when only
// it has an instance domain). A position where novalue() is selected has
// no value: libpcp leaves a hole there and drops the last value instead
// (so the values it returns are unset memory but when those positions
// come last, where the two agree); pcpkit leaves the position out, or
// with EvalOptions.Literal fills the hole with instance 0 and value 0 (what
// libpcp returns when its memory is fresh) and drops the last values as
// libpcp does. Where libpcp reads instance numbers past the end of its
// array (or from novalue(), which crashes it), the other operand's
// instance is taken.
func (e *Evaluator) evalCond638(n *enode, res *pmapi.Result) {
	g, t, f := n.left, n.right, n.els
	bindL := !n.b.Static || n.b.StaticTrue
	bindR := !n.b.Static || !n.b.StaticTrue
	n.val.reset()
	if sts := e.eval(g, res); sts < 0 {
		n.val.setErr(sts)
		return
	}
	if bindL {
		if sts := e.eval(t, res); sts < 0 {
			n.val.setErr(sts)
			return
		}
	}
	if bindR {
		if sts := e.eval(f, res); sts < 0 {
			n.val.setErr(sts)
			return
		}
	}
	switch {
	case g.val.num <= 0:
		n.val.setErr(g.val.num)
		return
	case bindL && t.op != OpNoValue && t.val.num <= 0:
		n.val.setErr(t.val.num)
		return
	case bindR && f.op != OpNoValue && f.val.num <= 0:
		n.val.setErr(f.val.num)
		return
	}
	var num int
	var pick, instOf, other *enode
	switch {
	case !bindR:
		pick, instOf, other = t, t, t
		num = int(t.val.num)
	case !bindL:
		pick, instOf, other = f, f, f
		num = int(f.val.num)
	default:
		num = max(int(t.val.num), int(f.val.num))
		instOf, other = t, f
		if t.indom == pmapi.InDomNull && f.indom != pmapi.InDomNull {
			instOf, other = f, t
		}
	}
	holes := 0
	for i := 0; i < num; i++ {
		if bindL && bindR && i < int(g.val.num) {
			pick = t
			if isZero(&g.val.v[i], g.typ) {
				pick = f
			}
		}
		if pick.op == OpNoValue {
			holes++
			if e.opts.Literal {
				n.val.add(ival{})
			}
			continue
		}
		v := pick.val.v[0]
		if i < int(pick.val.num) {
			v = pick.val.v[i]
		}
		switch {
		case instOf.op != OpNoValue && i < int(instOf.val.num):
			v.inst = instOf.val.v[i].inst
		case i < int(other.val.num):
			v.inst = other.val.v[i].inst
		}
		n.val.add(v)
	}
	if e.opts.Literal && holes > 0 {
		n.val.v = n.val.v[:num-holes]
		n.val.num = int32(num - holes)
	}
	n.stringBug()
}

// evalCond603 is libpcp 6.0.3's ?:, which works by position rather than
// by instance: with t and f the operands, the result has max(#t, #f)
// values (none if either has none); value i comes from the operand the
// guard's value i selects (the last selection once the guard has no more
// values), at position i or, past its end, at position 0; its instance
// is that of the true operand at position i (of the false operand when
// only it has an instance domain). Where the operands and the guard have
// the same instances in the same order this is the manual page's
// per-instance rule. Past the end of the instance operand libpcp reads
// beyond its array; here the instance is then the other operand's at
// position i.
func (e *Evaluator) evalCond603(n *enode) {
	g, t, f := n.left, n.right, n.els
	if t.val.num <= 0 {
		n.val.setErr(t.val.num)
		return
	}
	if f.val.num <= 0 {
		n.val.setErr(f.val.num)
		return
	}
	num := max(int(t.val.num), int(f.val.num))
	instOf, other := t, f
	if t.indom == pmapi.InDomNull && f.indom != pmapi.InDomNull {
		instOf, other = f, t
	}
	var pick *enode
	for i := 0; i < num; i++ {
		if i < int(g.val.num) {
			pick = t
			if isZero(&g.val.v[i], g.typ) {
				pick = f
			}
		}
		v := pick.val.v[0]
		if i < int(pick.val.num) {
			v = pick.val.v[i]
		}
		switch {
		case i < int(instOf.val.num):
			v.inst = instOf.val.v[i].inst
		case i < int(other.val.num):
			v.inst = other.val.v[i].inst
		}
		n.val.add(v)
	}
	n.stringBug()
}

// stringBug reproduces libpcp's ?: over strings (6.0.3's and 6.3.8's):
// the string's length is not copied (it is that of memory libpcp never
// wrote, 0 when the memory is fresh), so every value is the empty string.
func (n *enode) stringBug() {
	if n.typ != pmapi.TypeString {
		return
	}
	for i := range n.val.v {
		if n.val.v[i].ref != nil {
			n.val.v[i].ref = &emptyValue
		}
	}
}

package derive

import (
	"errors"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// InstNamer names instances for [name] and matchinst(): the external name
// of instance inst of indom at time at (for an archive, as the instance
// domain was then; a live source may ignore the time). ok is false when
// the instance has no name.
type InstNamer interface {
	InstName(indom pmapi.InDom, inst int32, at pmapi.Timestamp) (name string, ok bool)
}

// InstLookup is an optional interface of an InstNamer: the instance
// [name] selects, found as pmLookupInDom finds it in the source (libpcp
// resolves the name to one instance; an archive's rule, for example, lets
// "15" select "1 minute"). Without it, [name] selects the instances whose
// name is name, or whose name up to its first space is name.
type InstLookup interface {
	LookupInst(indom pmapi.InDom, name string, at pmapi.Timestamp) (inst int32, ok bool)
}

// InDomLister is an optional interface of an InstNamer: the instances of
// an instance domain as pmGetInDom lists them in the source at the time
// of the fetch (for an archive, the context's current time), or the
// error it returns. DialectCurrent uses it for the constants of
// mkconst(..., meta=m) when m has an instance domain (libpcp 6.3.8 gives
// such a constant a value for each instance); without it they fail with
// PM_ERR_INDOM.
type InDomLister interface {
	InDomInsts(indom pmapi.InDom) ([]int32, error)
}

// InstNamerFunc adapts a function to InstNamer.
type InstNamerFunc func(indom pmapi.InDom, inst int32, at pmapi.Timestamp) (string, bool)

// InstName calls f.
func (f InstNamerFunc) InstName(indom pmapi.InDom, inst int32, at pmapi.Timestamp) (string, bool) {
	return f(indom, inst, at)
}

// EvalOptions configure an Evaluator.
type EvalOptions struct {
	// Names names instances for [name] and matchinst(); nil: no instance
	// has a name, so those select nothing.
	Names InstNamer
	// Literal makes delta() and rate() compute "this fetch minus the
	// previous fetch" whatever the direction of time, as libpcp does
	// (so in a backwards replay a rising counter has a negative delta).
	// By default they are computed in time order: the later of the two
	// samples minus the earlier, over the (positive) time between them,
	// which is the same in every direction of replay (see the package
	// documentation).
	Literal bool
}

// Evaluator computes the values of derived metrics from fetched values:
// libpcp's __dmprefetch and __dmpostfetch. It holds the evaluation state
// of one context: the expression trees with their buffers and the
// history delta() and rate() need. It is not safe for concurrent use.
//
// A fetch of the PMIDs req goes:
//
//	fetch := ev.Prefetch(req)     // what to ask the source for
//	res := source.Fetch(fetch)    // values of those PMIDs
//	out, err := ev.Postfetch(req, res)
//
// out has one value set per PMID of req, in order. After the first few
// fetches (which size its buffers) Postfetch allocates nothing; out and
// its values belong to the Evaluator and are valid until the next
// Postfetch (copy them to keep them).
type Evaluator struct {
	ctx  *Context
	opts EvalOptions

	metrics map[pmapi.PMID]*emetric

	// the plan for the last request
	planReq []pmapi.PMID
	plan    []planEntry
	fetch   []pmapi.PMID
	derived bool // the plan has derived metrics

	out pmapi.Result
	now pmapi.Timestamp
}

// planEntry is what Postfetch does for one requested PMID: evaluate the
// metric m (into the entry's own buffers), or copy value set fidx of the
// fetched result.
type planEntry struct {
	m      *emetric
	fidx   int
	values []pmapi.Value
	arena  []byte
}

// emetric is a derived metric's evaluation state in this Evaluator.
type emetric struct {
	pmid pmapi.PMID
	root *enode
	desc pmapi.Desc
	err  error // binding failed: the metric has no values
}

// NewEvaluator returns an Evaluator for the derived metrics of c.
func (c *Context) NewEvaluator(opts EvalOptions) *Evaluator {
	return &Evaluator{ctx: c, opts: opts, metrics: map[pmapi.PMID]*emetric{}}
}

// metric returns the evaluation state of derived PMID p, or nil when p is
// not a derived metric of the context.
func (e *Evaluator) metric(p pmapi.PMID) *emetric {
	if m, ok := e.metrics[p]; ok {
		return m
	}
	if !IsDerived(p) {
		return nil
	}
	dm := e.ctx.byPMID(p)
	if dm == nil {
		return nil
	}
	m := &emetric{pmid: p}
	b, err := e.ctx.Bind(dm)
	if err != nil {
		m.err = err
	} else {
		m.desc = b.Desc
		m.root = e.build(b, e.ctx.reg.dialect)
	}
	e.metrics[p] = m
	return m
}

// Prefetch returns the PMIDs to fetch for a request of req, as libpcp's
// __dmprefetch builds them: req itself, followed by the operands of its
// derived metrics that are not already in the list. The derived PMIDs stay
// in the list (libpcp sends them to the source, which returns no values
// or an error for them; an operand that is itself a derived metric gets
// that answer as its values). When req has no derived metrics whose
// definition binds, Prefetch returns req and Postfetch the fetched result
// as it is, as libpcp does. The slice returned belongs to the Evaluator
// and is valid until the next call.
func (e *Evaluator) Prefetch(req []pmapi.PMID) []pmapi.PMID {
	e.makePlan(req)
	if !e.derived {
		return req
	}
	return e.fetch
}

// samePlan reports whether the plan was made for req.
func (e *Evaluator) samePlan(req []pmapi.PMID) bool {
	if e.plan == nil || len(req) != len(e.planReq) {
		return false
	}
	for i, p := range req {
		if e.planReq[i] != p {
			return false
		}
	}
	return true
}

func (e *Evaluator) makePlan(req []pmapi.PMID) {
	if e.samePlan(req) {
		return
	}
	e.planReq = append(e.planReq[:0], req...)
	e.plan = make([]planEntry, len(req))
	e.fetch = append(e.fetch[:0], req...)
	e.derived = false
	for i, p := range req {
		e.plan[i].fidx = i
		if m := e.metric(p); m != nil {
			e.plan[i].m = m
			// as libpcp: only a metric with an expression makes the
			// fetch one with derived metrics
			e.derived = e.derived || m.root != nil
		}
	}
	for i := range e.plan {
		if m := e.plan[i].m; m != nil && m.root != nil {
			e.addOperands(m.root)
		}
	}
}

// addOperands appends the leaf PMIDs of a tree not yet in the fetch list.
func (e *Evaluator) addOperands(n *enode) {
	if n == nil {
		return
	}
	e.addOperands(n.left)
	e.addOperands(n.right)
	e.addOperands(n.els)
	if n.op != OpName || n.missing {
		return
	}
	for _, p := range e.fetch {
		if p == n.pmid {
			return
		}
	}
	e.fetch = append(e.fetch, n.pmid)
}

// ErrNoResult is Postfetch's error for a nil result.
var ErrNoResult = errors.New("derive: Postfetch: no result to evaluate")

// Postfetch evaluates the derived metrics of req over res, the values
// fetched for Prefetch(req), and returns the result of the request: one
// value set per PMID of req, the derived metrics' computed at the time of
// res, the others copied from res (which must then outlive the use of the
// returned result). A derived metric whose definition failed has the
// value set error PM_ERR_PMID (as in libpcp); a metric missing from res has
// PM_ERR_PMID. The result belongs to the Evaluator (see Evaluator).
func (e *Evaluator) Postfetch(req []pmapi.PMID, res *pmapi.Result) (*pmapi.Result, error) {
	if res == nil {
		return nil, ErrNoResult
	}
	e.makePlan(req)
	if !e.derived {
		return res, nil
	}
	e.now = res.Timestamp
	out := &e.out
	out.Timestamp = res.Timestamp
	if cap(out.VSets) < len(req) {
		out.VSets = make([]pmapi.ValueSet, len(req))
	}
	out.VSets = out.VSets[:len(req)]
	for i := range e.plan {
		pe := &e.plan[i]
		vs := &out.VSets[i]
		if pe.m == nil {
			*vs = e.copySet(req[i], pe.fidx, res)
			continue
		}
		e.evalMetric(pe, vs, res)
	}
	return out, nil
}

// copySet finds the value set of p in res (at index fidx when the source
// kept the order asked for).
func (e *Evaluator) copySet(p pmapi.PMID, fidx int, res *pmapi.Result) pmapi.ValueSet {
	if k := findSet(res, p, fidx); k >= 0 {
		return res.VSets[k]
	}
	return pmapi.ValueSet{PMID: p, NumVal: int32(pmapi.ErrPMID)}
}

// findSet returns the index of p's value set in res, trying hint first.
func findSet(res *pmapi.Result, p pmapi.PMID, hint int) int {
	if hint >= 0 && hint < len(res.VSets) && res.VSets[hint].PMID == p {
		return hint
	}
	for k := range res.VSets {
		if res.VSets[k].PMID == p {
			return k
		}
	}
	return -1
}

// evalMetric evaluates one requested derived metric into vs.
func (e *Evaluator) evalMetric(pe *planEntry, vs *pmapi.ValueSet, res *pmapi.Result) {
	m := pe.m
	*vs = pmapi.ValueSet{PMID: m.pmid}
	if m.root == nil {
		// as libpcp: no expression, no such metric
		vs.NumVal = int32(pmapi.ErrPMID)
		return
	}
	num := e.eval(m.root, res)
	t := m.desc.Type
	if t == pmapi.Type32 || t == pmapi.TypeU32 {
		vs.ValFmt = pmapi.ValFmtInsitu
	} else {
		vs.ValFmt = pmapi.ValFmtDptr
	}
	if num <= 0 {
		vs.NumVal = num
		return
	}
	vals := m.root.val.v[:num]
	size := 0
	for i := range vals {
		size += blockSize(&vals[i], t)
	}
	if cap(pe.arena) < size {
		pe.arena = make([]byte, 0, size+size/2)
	}
	arena := pe.arena[:0]
	if cap(pe.values) < len(vals) {
		pe.values = make([]pmapi.Value, len(vals), len(vals)+len(vals)/2)
	}
	pe.values = pe.values[:len(vals)]
	for i := range vals {
		pe.values[i], arena = encodeValue(&vals[i], t, arena)
	}
	pe.arena = arena
	vs.NumVal = num
	vs.Values = pe.values
}

// enode is a node of an expression tree with its evaluation state
// (libpcp's node_t and its info).
type enode struct {
	b     *Bound
	op    Op
	typ   pmapi.Type
	indom pmapi.InDom
	// mul and div scale this node's values as an operand of a DOUBLE
	// binary operation: (v/div)*mul.
	mul, div         float64
	left, right, els *enode
	dialect          Dialect

	val ivset

	// OpName: the operand; nested is a derived metric as an operand
	// (libpcp 6.0.3 fetches it from the source like any operand, which
	// has no values for it), missing an operand of defined() the context
	// lacks.
	pmid            pmapi.PMID
	ridx            int
	nested, missing bool

	// constants
	cval ival

	// delta(), rate(): the operand's values at the previous evaluation
	// and the times of the two evaluations.
	last      ivset
	stamp     pmapi.Timestamp
	lastStamp pmapi.Timestamp
	timeScale float64

	// [name] and matchinst(): instance matches, worked out once per
	// instance; for [name] with an InstLookup, the instance it names
	// once found.
	match    map[int32]instMatch
	fetches  int // evaluations since the last compaction of match
	instID   int32
	resolved bool
}

// instMatch is a cached instance match and the number of evaluations
// since the last compaction that saw the instance.
type instMatch struct {
	ok   bool
	used int32
}

// regexInstCompact is libpcp's REGEX_INST_COMPACT: every so many
// evaluations of a matchinst() node, instances seen in fewer than half of
// them are forgotten (matched again if they come back).
const regexInstCompact = 100

// build makes the evaluation tree of a bound expression.
func (e *Evaluator) build(b *Bound, d Dialect) *enode {
	if b == nil {
		return nil
	}
	n := &enode{b: b, op: b.Node.Op, typ: b.Desc.Type, indom: b.Desc.InDom, dialect: d,
		mul: float64(b.MulScale), div: float64(b.DivScale), ridx: -1}
	if n.mul == 0 {
		n.mul = 1
	}
	if n.div == 0 {
		n.div = 1
	}
	n.left = e.build(b.Left, d)
	n.right = e.build(b.Right, d)
	n.els = e.build(b.Else, d)
	switch n.op {
	case OpName:
		// by name: the descriptor of a metric that is just a name has
		// the derived metric's own PMID
		n.pmid = b.Desc.PMID
		if p, _, ok := e.ctx.LookupName(b.Node.Text); ok {
			n.pmid = p
		}
		n.missing = b.Missing
		n.nested = IsDerived(n.pmid)
	case OpInteger, OpDouble:
		n.cval = constValue(b.Node.Text, n.typ)
	case OpRate:
		n.timeScale = -1
	case OpInst, OpMatchInst:
		n.match = map[int32]instMatch{}
	}
	return n
}

// eval evaluates a node over res (libpcp's eval_expr): it returns the
// number of values, 0 for none, or a negative error code, which the
// nodes above pass up (count() turns it into a count of 0).
func (e *Evaluator) eval(n *enode, res *pmapi.Result) int32 {
	switch n.op {
	case OpName:
		return e.evalName(n, res)
	case OpInteger, OpDouble:
		n.val.reset()
		if n.dialect == DialectCurrent && n.indom != pmapi.InDomNull {
			return e.evalConstInDom(n)
		}
		n.val.add(n.cval)
		return 1
	case OpCond:
		if n.dialect == DialectCurrent {
			e.evalCond638(n, res)
			return n.val.num
		}
	case OpDefined:
		n.val.reset()
		v := ival{inst: pmapi.InstNull}
		if n.b.Defined {
			v.u = 1
		}
		n.val.add(v)
		return 1
	case OpNoValue, OpAnon:
		n.val.setErr(0)
		return 0
	}
	if n.left != nil {
		if sts := e.eval(n.left, res); sts < 0 {
			if n.op == OpCount {
				n.val.reset()
				n.val.add(ival{inst: pmapi.InstNull})
				return 1
			}
			if n.op == OpDelta || n.op == OpRate {
				// the failure is the history the next fetch sees
				n.last.setErr(sts)
			}
			n.val.setErr(sts)
			return sts
		}
	}
	if n.right != nil {
		if sts := e.eval(n.right, res); sts < 0 {
			n.val.setErr(sts)
			return sts
		}
	}
	if n.els != nil {
		if sts := e.eval(n.els, res); sts < 0 {
			n.val.setErr(sts)
			return sts
		}
	}
	switch {
	case n.op.IsBinary():
		e.evalBinary(n)
	case n.op == OpCond:
		e.evalCond(n)
	case n.op == OpNeg || n.op == OpNot:
		e.evalUnary(n)
	case n.op == OpInst || n.op == OpMatchInst:
		e.evalFilter(n)
	case n.op == OpScalar:
		e.evalScalar(n)
	case n.op == OpRescale:
		e.evalRescale(n)
	case n.op == OpInstant:
		n.val.copyFrom(&n.left.val)
	case n.op == OpDelta || n.op == OpRate:
		e.evalHistory(n)
	case n.op == OpAvg || n.op == OpCount || n.op == OpSum || n.op == OpMax || n.op == OpMin:
		e.evalAggregate(n)
	default:
		n.val.setErr(int32(pmapi.ErrBadDerive))
	}
	return n.val.num
}

// evalConstInDom is a constant with an instance domain (mkconst(...,
// meta=m), DialectCurrent): its value for each instance the source's
// instance domain has now (libpcp 6.3.8's adjust_constant).
func (e *Evaluator) evalConstInDom(n *enode) int32 {
	lister, ok := e.opts.Names.(InDomLister)
	if !ok {
		n.val.setErr(int32(pmapi.ErrInDom))
		return n.val.num
	}
	insts, err := lister.InDomInsts(n.indom)
	if err != nil {
		code := int32(pmapi.ErrInDom)
		if pe, ok := err.(pmapi.Error); ok {
			code = int32(pe)
		}
		n.val.setErr(code)
		return n.val.num
	}
	for _, inst := range insts {
		v := n.cval
		v.inst = inst
		n.val.add(v)
	}
	return n.val.num
}

// evalName takes an operand's values from the fetched result.
func (e *Evaluator) evalName(n *enode, res *pmapi.Result) int32 {
	n.val.reset()
	if n.missing {
		return 0
	}
	k := findSet(res, n.pmid, n.ridx)
	if k < 0 {
		n.val.setErr(int32(pmapi.ErrPMID))
		return n.val.num
	}
	n.ridx = k
	vs := &res.VSets[k]
	if vs.NumVal <= 0 {
		n.val.setErr(vs.NumVal)
		return vs.NumVal
	}
	num := int(vs.NumVal)
	if num > len(vs.Values) {
		num = len(vs.Values)
	}
	for i := 0; i < num; i++ {
		v, ok := decodeLeaf(&vs.Values[i], vs.ValFmt, n.typ)
		if !ok {
			n.val.setErr(int32(pmapi.ErrLogRec))
			return n.val.num
		}
		n.val.v = append(n.val.v, v)
	}
	n.val.num = int32(num)
	return n.val.num
}

// evalBinary is a binary operator: the left operand drives; a singular
// operand (no instance domain) is used with every instance of the other;
// over two instance domains the instances are matched by number, trying
// the same position in the right operand first, then scanning it, and a
// left instance with no match is skipped. The result has at most as many
// values as the smaller operand.
func (e *Evaluator) evalBinary(n *enode) {
	l, r := n.left, n.right
	n.val.reset()
	if l.val.num <= 0 || r.val.num <= 0 {
		return
	}
	lnull, rnull := l.indom == pmapi.InDomNull, r.indom == pmapi.InDomNull
	nl, nr := int(l.val.num), int(r.val.num)
	var numval int
	switch {
	case lnull:
		numval = nr
	case rnull:
		numval = nl
	default:
		numval = min(nl, nr)
	}
	i, j := 0, 0
	for k := 0; k < numval; {
		if i >= nl || j >= nr {
			break
		}
		if !lnull && !rnull && l.val.v[i].inst != r.val.v[j].inst {
			for j = 0; j < nr; j++ {
				if l.val.v[i].inst == r.val.v[j].inst {
					break
				}
			}
			if j == nr {
				i++
				j = 0
				continue
			}
		}
		out := e.binop(n, &l.val.v[i], &r.val.v[j])
		if !lnull {
			out.inst = l.val.v[i].inst
		} else {
			out.inst = r.val.v[j].inst
		}
		n.val.add(out)
		k++
		if !lnull {
			i++
			if !rnull {
				j++
				if j >= nr {
					j = 0
				}
			}
		} else if !rnull {
			j++
		}
	}
}

// binop computes one value of a binary operator.
func (e *Evaluator) binop(n *enode, a, b *ival) ival {
	l, r := n.left, n.right
	switch n.op {
	case OpLT, OpLE, OpEQ, OpGE, OpGT, OpNE, OpAnd, OpOr:
		// compared in the promoted type, the result a U32 0 or 1
		t := promote(l.typ, r.typ)
		x, y := convert(a, l.typ, t), convert(b, r.typ, t)
		var res bool
		if t == pmapi.TypeDouble || t == pmapi.TypeFloat {
			res = cmpFloat(n.op, x.f, y.f)
		} else {
			res = cmpInt(n.op, &x, &y, t)
		}
		if res {
			return ival{u: 1}
		}
		return ival{}
	}
	t := n.typ
	var o ival
	if t == pmapi.TypeDouble {
		lf := (toDouble(a, l.typ) / l.div) * l.mul
		rf := (toDouble(b, r.typ) / r.div) * r.mul
		switch n.op {
		case OpAdd:
			o.f = lf + rf
		case OpSub:
			o.f = lf - rf
		case OpMul:
			o.f = float64(lf * rf)
		case OpDiv:
			if lf != 0 {
				o.f = lf / rf
			}
		}
		return o
	}
	x, y := convert(a, l.typ, t), convert(b, r.typ, t)
	switch t {
	case pmapi.TypeFloat:
		lf, rf := float32(x.f), float32(y.f)
		switch n.op {
		case OpAdd:
			o.f = float64(lf + rf)
		case OpSub:
			o.f = float64(lf - rf)
		case OpMul:
			o.f = float64(float32(lf * rf))
		case OpDiv:
			if lf != 0 {
				o.f = float64(lf / rf)
			}
		}
	default:
		switch n.op {
		case OpAdd:
			o.u = fromInt(x.u+y.u, t)
		case OpSub:
			o.u = fromInt(x.u-y.u, t)
		case OpMul:
			o.u = fromInt(x.u*y.u, t)
		case OpDiv:
			// the semantic checks make every / DOUBLE
			if x.u != 0 && y.u != 0 {
				if t == pmapi.Type32 || t == pmapi.Type64 {
					o.u = fromInt(uint64(int64(x.u)/int64(y.u)), t)
				} else {
					o.u = fromInt(x.u/y.u, t)
				}
			}
		}
	}
	return o
}

func cmpFloat(op Op, x, y float64) bool {
	switch op {
	case OpLT:
		return x < y
	case OpLE:
		return x <= y
	case OpEQ:
		return x == y
	case OpGE:
		return x >= y
	case OpGT:
		return x > y
	case OpNE:
		return x != y
	case OpAnd:
		return x != 0 && y != 0
	case OpOr:
		return x != 0 || y != 0
	}
	return false
}

func cmpInt(op Op, a, b *ival, t pmapi.Type) bool {
	var c int // -1, 0, 1
	switch t {
	case pmapi.Type32, pmapi.Type64:
		x, y := int64(a.u), int64(b.u)
		if t == pmapi.Type32 {
			x, y = int64(int32(a.u)), int64(int32(b.u))
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	default:
		x, y := a.u, b.u
		if t == pmapi.TypeU32 {
			x, y = uint64(uint32(a.u)), uint64(uint32(b.u))
		}
		switch {
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	}
	switch op {
	case OpLT:
		return c < 0
	case OpLE:
		return c <= 0
	case OpEQ:
		return c == 0
	case OpGE:
		return c >= 0
	case OpGT:
		return c > 0
	case OpNE:
		return c != 0
	case OpAnd:
		return !isZero(a, t) && !isZero(b, t)
	case OpOr:
		return !isZero(a, t) || !isZero(b, t)
	}
	return false
}

// evalUnary is unary minus and !.
func (e *Evaluator) evalUnary(n *enode) {
	c := n.left
	n.val.reset()
	if c.val.num <= 0 {
		n.val.setErr(c.val.num)
		return
	}
	for i := 0; i < int(c.val.num); i++ {
		v := &c.val.v[i]
		o := ival{inst: v.inst}
		if n.op == OpNot {
			// libpcp 6.0.3 writes the U32 0 or 1 into the value of the
			// operand's type; here it is that type's 0 or 1
			if isZero(v, c.typ) {
				if isFloat(n.typ) {
					o.f = 1
				} else {
					o.u = 1
				}
			}
			n.val.add(o)
			continue
		}
		switch c.typ {
		case pmapi.Type32, pmapi.TypeU32:
			o.u = fromInt(-v.u, n.typ)
		case pmapi.Type64, pmapi.TypeU64:
			o.u = -v.u
		case pmapi.TypeFloat:
			o.f = float64(-float32(v.f))
		default:
			o.f = -v.f
		}
		n.val.add(o)
	}
}

// evalScalar is scalar(): the first value, with no instance.
func (e *Evaluator) evalScalar(n *enode) {
	c := n.left
	n.val.reset()
	if c.val.num <= 0 {
		n.val.setErr(c.val.num)
		return
	}
	v := c.val.v[0]
	v.inst = pmapi.InstNull
	n.val.add(v)
}

// evalRescale is rescale(): each value converted by pmConvScale; a value
// that cannot be converted is left out.
func (e *Evaluator) evalRescale(n *enode) {
	c := n.left
	n.val.reset()
	if c.val.num <= 0 {
		n.val.setErr(c.val.num)
		return
	}
	for i := 0; i < int(c.val.num); i++ {
		v := &c.val.v[i]
		src := convert(v, c.typ, n.typ)
		o, ok := convScale(n.typ, &src, c.b.Desc.Units, n.b.Node.Units)
		if !ok {
			continue
		}
		o.inst = v.inst
		n.val.add(o)
	}
}

// evalFilter is [name] and matchinst(): the instances whose external
// name matches, at the time of the fetch. A name is matched once per
// instance (as libpcp caches the match).
func (e *Evaluator) evalFilter(n *enode) {
	c := n.left
	n.val.reset()
	if c.val.num <= 0 {
		n.val.setErr(c.val.num)
		return
	}
	if n.op == OpInst {
		if lk, isLk := e.opts.Names.(InstLookup); isLk {
			if !n.resolved {
				n.instID, n.resolved = lk.LookupInst(c.indom, n.b.Node.Text, e.now)
			}
			if !n.resolved {
				return
			}
			for i := 0; i < int(c.val.num); i++ {
				if c.val.v[i].inst == n.instID {
					n.val.add(c.val.v[i])
				}
			}
			return
		}
	}
	for i := 0; i < int(c.val.num); i++ {
		v := &c.val.v[i]
		im, seen := n.match[v.inst]
		if !seen {
			im.ok = e.matchInst(n, c.indom, v.inst)
		}
		im.used++
		n.match[v.inst] = im
		if im.ok {
			n.val.add(*v)
		}
	}
	if n.fetches++; n.fetches >= regexInstCompact {
		for inst, im := range n.match {
			if im.used < regexInstCompact/2 {
				delete(n.match, inst)
			} else {
				n.match[inst] = instMatch{ok: im.ok}
			}
		}
		n.fetches = 0
	}
}

// matchInst decides whether instance inst passes a [name] or matchinst()
// node.
func (e *Evaluator) matchInst(n *enode, indom pmapi.InDom, inst int32) bool {
	var name string
	var ok bool
	if e.opts.Names != nil {
		name, ok = e.opts.Names.InstName(indom, inst, e.now)
	}
	node := n.b.Node
	if n.op == OpInst {
		// the name as pmLookupInDom matches it: in full, or up to its
		// first space
		if !ok {
			return false
		}
		if name == node.Text {
			return true
		}
		i := strings.IndexByte(name, ' ')
		return i >= 0 && name[:i] == node.Text
	}
	if !ok {
		// no name: no match (so matchinst(!/re/, x) keeps it)
		return node.Invert
	}
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i]
	}
	return node.MatchInstName(name) != node.Invert
}

// evalAggregate is avg(), count(), sum(), max() and min(): one value with
// no instance. Over no values avg() and sum() are 0, and max() and min()
// repeat their previous value (0 the first time), as in libpcp 6.0.3.
func (e *Evaluator) evalAggregate(n *enode) {
	c := n.left
	num := int(c.val.num)
	if num < 0 {
		num = 0
	}
	o := ival{inst: pmapi.InstNull}
	if num == 0 && (n.op == OpMax || n.op == OpMin) && len(n.val.v) == 1 {
		// libpcp 6.0.3 leaves the value of the previous evaluation
		o = n.val.v[0]
	}
	n.val.reset()
	switch n.op {
	case OpCount:
		o.u = uint64(uint32(num))
	case OpAvg:
		var f float32
		for i := 0; i < num; i++ {
			f += toFloat(&c.val.v[i], c.typ) / float32(num)
		}
		o.f = float64(f)
	case OpSum:
		for i := 0; i < num; i++ {
			v := &c.val.v[i]
			switch n.typ {
			case pmapi.TypeFloat:
				o.f = float64(float32(o.f) + float32(v.f))
			case pmapi.TypeDouble:
				o.f += v.f
			default:
				o.u = fromInt(o.u+v.u, n.typ)
			}
		}
	case OpMax, OpMin:
		for i := 0; i < num; i++ {
			v := &c.val.v[i]
			if i == 0 || better(n.op, v, &o, n.typ) {
				o.u, o.f = v.u, v.f
			}
		}
	}
	n.val.add(o)
}

// better reports whether v is a new maximum (OpMax) or minimum (OpMin)
// over cur.
func better(op Op, v, cur *ival, t pmapi.Type) bool {
	var gt, lt bool
	switch t {
	case pmapi.Type32:
		gt, lt = int32(v.u) > int32(cur.u), int32(v.u) < int32(cur.u)
	case pmapi.TypeU32:
		gt, lt = uint32(v.u) > uint32(cur.u), uint32(v.u) < uint32(cur.u)
	case pmapi.Type64:
		gt, lt = int64(v.u) > int64(cur.u), int64(v.u) < int64(cur.u)
	case pmapi.TypeU64:
		gt, lt = v.u > cur.u, v.u < cur.u
	default:
		gt, lt = v.f > cur.f, v.f < cur.f
	}
	if op == OpMax {
		return gt
	}
	return lt
}

package derive

import (
	"fmt"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Lookup finds the descriptor of an operand metric by name in a context
// (its PMNS, including other derived metrics, as libpcp's pmLookupName and
// pmLookupDesc would). The PMID of the returned descriptor identifies the
// operand.
type Lookup func(name string) (pmapi.Desc, bool)

// Bound is an expression bound to a context: a copy of the parse tree in
// which every node has its descriptor, as libpcp's bind_expr and
// check_expr compute them. An evaluator walks it; nothing here allocates
// after Bind.
type Bound struct {
	Node              *Node
	Desc              pmapi.Desc
	Left, Right, Else *Bound
	// MulScale and DivScale convert this operand's values to the scale of
	// the parent binary operator's result (map_units): v*Mul/Div, or for
	// DOUBLE values (v/Div)*Mul.
	MulScale, DivScale int
	// Defined is the value of defined(): fixed when the expression is
	// bound.
	Defined bool
	// Missing is set for the name operand of defined() that the context
	// does not have.
	Missing bool
	// Static is set for a ?: whose guard was evaluated when binding
	// (DialectCurrent); StaticTrue is its value. The operand not selected
	// is then not checked (its descriptor may be all zeros) nor
	// evaluated.
	Static, StaticTrue bool
	// Meta is the bound meta= name of a constant or of novalue()
	// (DialectCurrent): its descriptor is all that is used.
	Meta *Bound
}

// SemanticError is a failed semantic check; libpcp prints it (with
// pmprintf) when the derived metric is bound in a context, and the metric
// then fails with PM_ERR_BADDERIVE.
type SemanticError struct {
	Metric string // the derived metric's name
	Expr   string // the failing node as libpcp shows it: "a + <expr>", "RATE(x)", ...
	Reason string // "Illegal operator for counters", ...
	expr   string // the metric's expression, for pmAddDerivedMetric's message
}

func (e *SemanticError) Error() string {
	return "Semantic error: derived metric " + e.Metric + ": " + e.Expr + ": " + e.Reason
}

// Unwrap gives PM_ERR_BADDERIVE, the error libpcp returns for the metric.
func (e *SemanticError) Unwrap() error { return pmapi.ErrBadDerive }

// BindError is an operand that the context does not have. libpcp reports
// nothing (unless debugging) and the metric fails with PM_ERR_BADDERIVE.
type BindError struct {
	Metric  string
	Operand string
	// reason is libpcp 6.3.8's message, which pmAddDerivedMetric reports
	// (DialectCurrent): "Unknown operand metric", or "Metadata for operand
	// metric not available".
	reason string
}

func (e *BindError) Error() string {
	return fmt.Sprintf("derived metric %s: operand: %s: Unknown metric name", e.Metric, e.Operand)
}

// Unwrap gives PM_ERR_BADDERIVE.
func (e *BindError) Unwrap() error { return pmapi.ErrBadDerive }

// The semantic error reasons.
const (
	reasonCounters       = "Illegal operator for counters"
	reasonCounterNon     = "Illegal operator for counter and non-counter"
	reasonNonCounter     = "Illegal operator for non-counter and counter"
	reasonNonCounters    = "Illegal operator for non-counters"
	reasonLeftType       = "Non-arithmetic type for left operand"
	reasonRightType      = "Non-arithmetic type for right operand"
	reasonDims           = "Dimensions are not the same"
	reasonRightDimless   = "Non-counter and not dimensionless for right operand"
	reasonLeftDimless    = "Non-counter and not dimensionless for left operand"
	reasonIndom          = "Operands should have the same instance domain"
	reasonFuncType       = "Non-arithmetic operand for function"
	reasonNegType        = "Non-arithmetic operand for unary negation"
	reasonTimeDim        = "Incorrect time dimension for operand"
	reasonIncompatible   = "Incompatible dimensions"
	reasonTernType       = "Different types for ternary operands"
	reasonTernIndom      = "Different instance domains for ternary operands"
	reasonTernSem        = "Different semantics for ternary operands"
	reasonTernSpace      = "Different units or scale (space) for ternary operands"
	reasonTernTime       = "Different units or scale (time) for ternary operands"
	reasonTernCount      = "Different units or scale (count) for ternary operands"
	reasonGuardType      = "Non-arithmetic operand for ternary guard"
	reasonGuardScalar    = "Non-scalar ternary guard with scalar expressions"
	reasonNested         = "Illegal nested derived metric"
	reasonUnknownTernary = "Unknown metric for ternary expression"
)

// Bind binds the expression of the derived metric name in a context whose
// metrics lookup finds, checks its semantics and works out the descriptor
// of every node. The descriptor of the result is the metric's, except for
// its PMID (the caller sets it). Errors are *BindError and
// *SemanticError.
//
// isDerived, when not nil, tells whether an operand is itself a derived
// metric; DialectCurrent refuses those ("Illegal nested derived metric",
// see check638.go), while libpcp 6.0.3 binds them (using their
// descriptors).
func Bind(name string, expr *Node, d Dialect, lookup Lookup, isDerived func(string) bool) (*Bound, error) {
	b := &binder{metric: name, dialect: d, lookup: lookup, isDerived: isDerived}
	if d == DialectCurrent {
		bd, err := b.bind638(expr, nil, false)
		if err != nil {
			return nil, err
		}
		if err := b.check638(bd); err != nil {
			return nil, err
		}
		return bd, nil
	}
	bd, err := b.bind(expr, false)
	if err != nil {
		return nil, err
	}
	if err := b.check(bd); err != nil {
		return nil, err
	}
	return bd, nil
}

type binder struct {
	metric    string
	dialect   Dialect
	lookup    Lookup
	isDerived func(string) bool
}

// bind copies the tree and looks up the operands (libpcp's bind_expr).
func (b *binder) bind(n *Node, lookupErrOK bool) (*Bound, error) {
	bd := &Bound{Node: n, MulScale: 1, DivScale: 1}
	var err error
	if n.Left != nil {
		if bd.Left, err = b.bind(n.Left, n.Op == OpDefined); err != nil {
			return nil, err
		}
	}
	if n.Right != nil {
		if bd.Right, err = b.bind(n.Right, false); err != nil {
			return nil, err
		}
	}
	if n.Else != nil {
		if bd.Else, err = b.bind(n.Else, false); err != nil {
			return nil, err
		}
	}
	switch n.Op {
	case OpName:
		desc, ok := b.lookup(n.Text)
		if !ok {
			if lookupErrOK {
				bd.Missing = true
				bd.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, InDom: pmapi.InDomNull}
				return bd, nil
			}
			return nil, &BindError{Metric: b.metric, Operand: n.Text}
		}
		bd.Desc = desc
	case OpInteger, OpDouble:
		bd.Desc = constDesc(n)
	case OpAnon:
		bd.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, Type: anonTypes[n.Text], InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
	}
	return bd, nil
}

// constDesc is the descriptor of a numeric constant: U32 or DOUBLE,
// discrete, no units; mkconst() sets its own.
func constDesc(n *Node) pmapi.Desc {
	d := pmapi.Desc{PMID: pmapi.PMIDNull, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete, Type: pmapi.TypeU32}
	if n.Op == OpDouble {
		d.Type = pmapi.TypeDouble
	}
	if n.Spec != nil {
		d.Type, d.Sem, d.Units = n.Spec.Type, n.Spec.Sem, n.Spec.Units
	}
	return d
}

func isArith(t pmapi.Type) bool { return t >= pmapi.Type32 && t <= pmapi.TypeDouble }

// leafText is how libpcp names an operand in a semantic error: the name or
// the constant as written, otherwise "<expr>".
func leafText(n *Node) string {
	switch n.Op {
	case OpName, OpInteger, OpDouble:
		return n.Text
	}
	return "<expr>"
}

// nodeText is the node part of a semantic error (libpcp's report_sem_error).
func (b *binder) nodeText(n *Node) string {
	switch {
	case n.Op.IsBinary():
		return leafText(n.Left) + " " + n.Op.symbol() + " " + leafText(n.Right)
	case n.Op == OpNot || n.Op == OpNeg:
		return n.Op.symbol() + " " + leafText(n.Left)
	case n.Op.IsFunc() || n.Op == OpScalar || n.Op == OpAnon:
		// libpcp prints the operand's value: a name or a number as
		// written, the name of defined(), otherwise a NULL pointer (which
		// glibc prints as "(null)")
		arg := "(null)"
		switch {
		case n.Op == OpAnon:
			arg = n.Text
		case n.Left == nil:
		case n.Left.Op == OpName || n.Left.Op == OpInteger || n.Left.Op == OpDouble:
			arg = n.Left.Text
		case n.Left.Op == OpDefined:
			arg = n.Left.Left.Text
		}
		return n.Op.String() + "(" + arg + ")"
	case n.Op == OpCond:
		return leafText(n.Left) + " ? " + leafText(n.Right) + " : " + leafText(n.Else)
	case n.Op == OpRescale:
		u := n.Units.String()
		if u == "" {
			u = "none"
		}
		return leafText(n.Left) + " RESCALE " + u
	}
	return n.Op.String() + " "
}

func (b *binder) fail(n *Node, reason string) error {
	return &SemanticError{Metric: b.metric, Expr: b.nodeText(n), Reason: reason}
}

func (b *binder) failColon(n *Node, reason string) error {
	return &SemanticError{Metric: b.metric, Expr: leafText(n.Right) + " : " + leafText(n.Else), Reason: reason}
}

// check is libpcp's check_expr: children first, then the node.
func (b *binder) check(bd *Bound) error {
	n := bd.Node
	switch n.Op {
	case OpName, OpInteger, OpDouble:
		return nil
	case OpDefined:
		checkDefined(bd)
		return nil
	case OpAnon:
		return nil
	}
	if bd.Left != nil {
		if err := b.check(bd.Left); err != nil {
			return err
		}
	}
	if bd.Right != nil {
		if err := b.check(bd.Right); err != nil {
			return err
		}
	}
	if bd.Else != nil {
		if err := b.check(bd.Else); err != nil {
			return err
		}
	}
	switch {
	case n.Op == OpCond:
		if err := b.checkColon(bd); err != nil {
			return err
		}
		return b.checkGuard(bd)
	}
	return b.checkOp(bd)
}

// checkDefined sets defined()'s value (whether the context has the
// metric) and descriptor (a discrete U32).
func checkDefined(bd *Bound) {
	bd.Defined = !bd.Left.Missing
	bd.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
}

// checkGuard is the rules of the guard of ?:.
func (b *binder) checkGuard(bd *Bound) error {
	if !isArith(bd.Left.Desc.Type) {
		return b.fail(bd.Node, reasonGuardType)
	}
	if bd.Right.Desc.InDom == pmapi.InDomNull && bd.Else.Desc.InDom == pmapi.InDomNull &&
		bd.Left.Desc.InDom != pmapi.InDomNull {
		return b.fail(bd.Node, reasonGuardScalar)
	}
	return nil
}

// checkOp sets the descriptor of an operator or function whose operands
// are checked, and checks it.
func (b *binder) checkOp(bd *Bound) error {
	switch n := bd.Node; {
	case n.Op == OpInst || n.Op == OpMatchInst:
		bd.Desc = bd.Left.Desc
		return nil
	case n.Op.IsBinary() || n.Op == OpRescale:
		return b.mapDesc(bd)
	}
	return b.checkUnary(bd)
}

// checkUnary sets the descriptor of a unary operator or function from its
// operand's, and checks the operand.
func (b *binder) checkUnary(bd *Bound) error {
	n := bd.Node
	bd.Desc = bd.Left.Desc
	left := bd.Left.Desc
	switch n.Op {
	case OpCount:
		bd.Desc.Type = pmapi.TypeU32
		bd.Desc.Units = pmapi.Units{DimCount: 1}
		bd.Desc.Sem = pmapi.SemInstant
		bd.Desc.InDom = pmapi.InDomNull
	case OpInstant:
		if left.Sem == pmapi.SemCounter {
			bd.Desc.Sem = pmapi.SemInstant
		}
	case OpScalar:
		bd.Desc.InDom = pmapi.InDomNull
	case OpAvg, OpSum, OpMax, OpMin, OpDelta, OpRate, OpNeg:
		if !isArith(left.Type) {
			if n.Op == OpNeg {
				return b.fail(n, reasonNegType)
			}
			return b.fail(n, reasonFuncType)
		}
		if n.Op != OpSum {
			bd.Desc.Sem = pmapi.SemInstant
		}
		switch n.Op {
		case OpRate:
			if left.Units.DimTime != 0 && left.Units.DimTime != 1 {
				return b.fail(n, reasonTimeDim)
			}
		case OpAvg, OpSum, OpMax, OpMin:
			bd.Desc.InDom = pmapi.InDomNull
		}
		switch n.Op {
		case OpAvg:
			bd.Desc.Type = pmapi.TypeFloat
		case OpRate:
			bd.Desc.Type = pmapi.TypeDouble
			bd.Desc.Units.DimTime--
			if bd.Desc.Units.DimTime == 0 {
				bd.Desc.Units.ScaleTime = 0
			} else {
				bd.Desc.Units.ScaleTime = pmapi.TimeSec
			}
		case OpNeg:
			switch left.Type {
			case pmapi.TypeU32:
				bd.Desc.Type = pmapi.Type32
			case pmapi.TypeU64:
				bd.Desc.Type = pmapi.Type64
			}
		case OpDelta:
			switch left.Type {
			case pmapi.TypeU32:
				bd.Desc.Type = pmapi.Type64
			case pmapi.TypeU64:
				bd.Desc.Type = pmapi.TypeDouble
			}
		}
	}
	// OpNot and OpAnon keep the operand's descriptor as it is (libpcp
	// 6.0.3: "!x" has x's type, semantics and units).
	return nil
}

// checkColon checks the two operands of ?: (libpcp's N_COLON) and sets the
// node's descriptor from them.
func (b *binder) checkColon(bd *Bound) error {
	l, r := bd.Right, bd.Else
	bd.Desc = l.Desc
	if l.Desc.InDom != pmapi.InDomNull {
		bd.Desc.InDom = l.Desc.InDom
	} else {
		bd.Desc.InDom = r.Desc.InDom
	}
	return b.compareOperands(bd)
}

// compareOperands is the rule of ?: that its operands have the same
// metadata (instance domains: the same, or either none).
func (b *binder) compareOperands(bd *Bound) error {
	n := bd.Node
	ld, rd := bd.Right.Desc, bd.Else.Desc
	if ld.Type != rd.Type {
		return b.failColon(n, reasonTernType)
	}
	if ld.InDom != rd.InDom && ld.InDom != pmapi.InDomNull && rd.InDom != pmapi.InDomNull {
		return b.failColon(n, reasonTernIndom)
	}
	if ld.Sem != rd.Sem {
		return b.failColon(n, reasonTernSem)
	}
	lu, ru := ld.Units, rd.Units
	if lu.DimSpace != ru.DimSpace || lu.ScaleSpace != ru.ScaleSpace {
		return b.failColon(n, reasonTernSpace)
	}
	if lu.DimTime != ru.DimTime || lu.ScaleTime != ru.ScaleTime {
		return b.failColon(n, reasonTernTime)
	}
	if lu.DimCount != ru.DimCount || lu.ScaleCount != ru.ScaleCount {
		return b.failColon(n, reasonTernCount)
	}
	return nil
}

var relational = map[Op]bool{OpLT: true, OpLE: true, OpEQ: true, OpGE: true, OpGT: true, OpNE: true}

func sameDims(l, r pmapi.Units) bool {
	return l.DimCount == r.DimCount && l.DimTime == r.DimTime && l.DimSpace == r.DimSpace
}

// countOrNone reports the exception libpcp makes for + - and the relational
// operators: no dimension on one side, count^1 on the other.
func countOrNone(l, r pmapi.Units) bool {
	return l.DimTime == 0 && r.DimTime == 0 && l.DimSpace == 0 && r.DimSpace == 0 &&
		(l.DimCount == 0 && r.DimCount == 1 || l.DimCount == 1 && r.DimCount == 0)
}

func dimensionless(u pmapi.Units) bool {
	return u.DimCount == 0 && u.DimTime == 0 && u.DimSpace == 0
}

// promote is the type of a binary arithmetic result (libpcp's promote[][]).
func promote(l, r pmapi.Type) pmapi.Type {
	if l > r {
		return l
	}
	return r
}

// libpcp's relational dimension check skips operands that are numeric
// constants, but it compares the operand's value *type* with the node type
// N_INTEGER (whose value is that of PM_TYPE_U32): so any U32 operand, and
// no other (not even a DOUBLE constant), escapes the check. Checked with
// the real library: "sample.mirage > pmcd.seqnum" (Kbyte/sec, U32 none)
// binds, "sample.mirage > 3.5" does not.
const nIntegerAsType = pmapi.TypeU32

// mapDesc is libpcp's map_desc, for the binary operators and rescale().
func (b *binder) mapDesc(bd *Bound) error {
	n := bd.Node
	op := n.Op
	left := bd.Left.Desc
	if op == OpRescale {
		bd.Desc = left
		if !isArith(left.Type) {
			return b.fail(n, reasonFuncType)
		}
		if !convScaleOK(left.Units, n.Units) {
			return b.fail(n, reasonIncompatible)
		}
		bd.Desc.Units = n.Units
		return nil
	}
	right := bd.Right.Desc
	if !relational[op] && op != OpAnd && op != OpOr {
		if left.Sem == pmapi.SemCounter {
			if right.Sem == pmapi.SemCounter {
				if op != OpAdd && op != OpSub {
					return b.fail(n, reasonCounters)
				}
			} else if op != OpMul && op != OpDiv {
				return b.fail(n, reasonCounterNon)
			}
		} else if right.Sem == pmapi.SemCounter && op != OpMul {
			return b.fail(n, reasonNonCounter)
		}
	}
	// prefer the descriptor of a metric or expression over a constant's
	if lop := n.Left.Op; lop != OpInteger && lop != OpDouble {
		bd.Desc = left
	} else {
		bd.Desc = right
	}
	if left.Sem != pmapi.SemCounter && right.Sem != pmapi.SemCounter {
		if left.Sem == pmapi.SemDiscrete && right.Sem == pmapi.SemDiscrete {
			bd.Desc.Sem = pmapi.SemDiscrete
		} else {
			bd.Desc.Sem = pmapi.SemInstant
		}
	}
	if !isArith(left.Type) {
		return b.fail(n, reasonLeftType)
	}
	if !isArith(right.Type) {
		return b.fail(n, reasonRightType)
	}
	switch {
	case op == OpDiv:
		bd.Desc.Type = pmapi.TypeDouble
	case relational[op] || op == OpAnd || op == OpOr:
		bd.Desc.Type = pmapi.TypeU32
	default:
		bd.Desc.Type = promote(left.Type, right.Type)
	}
	lu, ru := left.Units, right.Units
	if (op == OpAdd || op == OpSub) && !sameDims(lu, ru) && !countOrNone(lu, ru) {
		return b.fail(n, reasonDims)
	}
	if relational[op] && left.Type != nIntegerAsType && right.Type != nIntegerAsType &&
		!sameDims(lu, ru) && !countOrNone(lu, ru) {
		return b.fail(n, reasonDims)
	}
	if (op == OpAnd || op == OpOr) && (!dimensionless(lu) || !dimensionless(ru)) {
		return b.fail(n, reasonDims)
	}
	if op == OpMul || op == OpDiv || relational[op] {
		if left.Sem == pmapi.SemCounter && right.Sem != pmapi.SemCounter && !dimensionless(ru) {
			return b.fail(n, reasonRightDimless)
		}
		if left.Sem != pmapi.SemCounter && right.Sem == pmapi.SemCounter && !dimensionless(lu) {
			return b.fail(n, reasonLeftDimless)
		}
	}
	switch {
	case op == OpAdd || op == OpSub || op == OpMul || op == OpDiv:
		mapUnits(bd)
	default:
		bd.Desc.Units = pmapi.Units{}
	}
	li, ri := left.InDom, right.InDom
	switch {
	case li != pmapi.InDomNull && ri != pmapi.InDomNull && li != ri && !(b.dialect == DialectCurrent && equivInDom(li, ri)):
		return b.fail(n, reasonIndom)
	case li != pmapi.InDomNull && ri == pmapi.InDomNull:
		bd.Desc.InDom = li
	case ri != pmapi.InDomNull && li == pmapi.InDomNull:
		bd.Desc.InDom = ri
	}
	return nil
}

// timeFactor converts time scale i to scale i+1 (nsec -> usec ... min -> hour).
var timeFactor = [...]int{1000, 1000, 1000, 60, 60}

// mapUnits is libpcp's map_units: the larger scale wins, the other operand
// gets scale factors, and any conversion makes the result DOUBLE; * and /
// add and subtract dimensions. The scale factors reproduce libpcp's,
// including its use of the right operand's time and space dimension to
// decide whether the left operand is multiplied or divided.
func mapUnits(bd *Bound) {
	l, r := bd.Left, bd.Right
	lu, ru := l.Desc.Units, r.Desc.Units
	u := &bd.Desc.Units
	if lu.DimCount != 0 && ru.DimCount != 0 {
		diff := lu.CountScale() - ru.CountScale()
		if diff > 0 {
			for i := 0; i < diff; i++ {
				scaleBy(r, ru.DimCount > 0, 10)
			}
			bd.Desc.Type = pmapi.TypeDouble
		} else if diff < 0 {
			u.ScaleCount = ru.ScaleCount
			for i := diff; i < 0; i++ {
				scaleBy(l, lu.DimCount > 0, 10)
			}
			bd.Desc.Type = pmapi.TypeDouble
		}
	}
	if lu.DimTime != 0 && ru.DimTime != 0 {
		ls, rs := int(lu.ScaleTime), int(ru.ScaleTime)
		if ls > rs {
			for i := rs; i < ls; i++ {
				scaleBy(r, ru.DimTime > 0, timeFactorAt(i))
			}
			bd.Desc.Type = pmapi.TypeDouble
		} else if ls < rs {
			u.ScaleTime = ru.ScaleTime
			for i := ls; i < rs; i++ {
				scaleBy(l, ru.DimTime > 0, timeFactorAt(i))
			}
			bd.Desc.Type = pmapi.TypeDouble
		}
	}
	if lu.DimSpace != 0 && ru.DimSpace != 0 {
		diff := int(lu.ScaleSpace) - int(ru.ScaleSpace)
		if diff > 0 {
			for i := 0; i < diff; i++ {
				scaleBy(r, ru.DimSpace > 0, 1024)
			}
			bd.Desc.Type = pmapi.TypeDouble
		} else if diff < 0 {
			u.ScaleSpace = ru.ScaleSpace
			for i := diff; i < 0; i++ {
				scaleBy(l, ru.DimSpace > 0, 1024)
			}
			bd.Desc.Type = pmapi.TypeDouble
		}
	}
	switch bd.Node.Op {
	case OpMul:
		u.DimCount = lu.DimCount + ru.DimCount
		u.DimTime = lu.DimTime + ru.DimTime
		u.DimSpace = lu.DimSpace + ru.DimSpace
	case OpDiv:
		u.DimCount = lu.DimCount - ru.DimCount
		u.DimTime = lu.DimTime - ru.DimTime
		u.DimSpace = lu.DimSpace - ru.DimSpace
	}
	if u.DimCount != 0 && lu.DimCount == 0 {
		u.ScaleCount = ru.ScaleCount
	}
	if u.DimTime != 0 && lu.DimTime == 0 {
		u.ScaleTime = ru.ScaleTime
	}
	if u.DimSpace != 0 && lu.DimSpace == 0 {
		u.ScaleSpace = ru.ScaleSpace
	}
	if u.DimCount == 0 {
		u.ScaleCount = 0
	}
	if u.DimTime == 0 {
		u.ScaleTime = 0
	}
	if u.DimSpace == 0 {
		u.ScaleSpace = 0
	}
}

// timeFactorAt guards against time scales above hour (libpcp reads past its
// table there); such units cannot come from pmParseUnitsStr.
func timeFactorAt(i int) int {
	if i >= 0 && i < len(timeFactor) {
		return timeFactor[i]
	}
	return 1
}

func scaleBy(b *Bound, div bool, f int) {
	if div {
		b.DivScale *= f
	} else {
		b.MulScale *= f
	}
}

// convScaleOK reports whether pmConvScale can convert from units in to
// units out: the dimensions must be the same, where no dimension at all
// counts as count^1.
func convScaleOK(in, out pmapi.Units) bool {
	norm := func(u pmapi.Units) pmapi.Units {
		if dimensionless(u) {
			u.DimCount = 1
		}
		return u
	}
	return sameDims(norm(in), norm(out))
}

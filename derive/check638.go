package derive

import (
	"github.com/pcpkit/pcpkit/pmapi"
)

// Binding and semantic checks of DialectCurrent: libpcp 6.3.8's bind_expr
// and check_expr, which differ from 6.0.3's in the ternary operator and
// in the metadata of mkconst() and novalue():
//
//   - every operand under ?: (the guard included) and the operand of
//     defined() is looked up lazily: a metric the context lacks is not an
//     error when binding (its descriptor is all zeros but for the PMID, so
//     its instance domain is 0.0, not PM_INDOM_NULL);
//   - a guard made of defined(), integer constants (mkconst()'s too), !,
//     && and || is evaluated when checking (eval_guard); when it is known,
//     only the operand it selects is checked (and later evaluated), and
//     its metadata is the result's;
//   - then a metric missing from an operand that is checked is "Unknown
//     metric for ternary expression";
//   - when novalue() is one of the operands the operands are not compared:
//     the result has the other operand's metadata, with the instance
//     domain of the first operand that has one (novalue(...)'s own
//     metadata, see Spec.InDom, matters only when it is selected);
//   - an operand that is itself a derived metric is "Illegal nested
//     derived metric", unless it is the whole expression or a meta= name;
//   - mkconst(..., meta=m) and novalue(meta=m) take m's descriptor, with
//     the fields their parameters set (Spec.Set) overriding it;
//   - "Operands should have the same instance domain" allows the
//     instance domains __pmEquivInDom says are equivalent (equivInDom).

// bind638 is 6.3.8's bind_expr: it copies the tree and looks the
// operands up; parent is the node above (nil at the top), lazy is
// QUEST_BIND_LAZY.
func (b *binder) bind638(n, parent *Node, lazy bool) (*Bound, error) {
	bd := &Bound{Node: n, MulScale: 1, DivScale: 1}
	next := lazy || n.Op == OpCond || n.Op == OpDefined
	var err error
	if n.Spec != nil && n.Spec.Meta != "" {
		// the meta= name is the node's left operand in libpcp
		if bd.Meta, err = b.bind638(&Node{Op: OpName, Pos: n.Pos, Text: n.Spec.Meta}, n, next); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct {
		n  *Node
		to **Bound
	}{{n.Left, &bd.Left}, {n.Right, &bd.Right}, {n.Else, &bd.Else}} {
		if c.n == nil {
			continue
		}
		if *c.to, err = b.bind638(c.n, n, next); err != nil {
			return nil, err
		}
	}
	switch n.Op {
	case OpName:
		derived := b.isDerived != nil && b.isDerived(n.Text)
		if derived && parent != nil && !isConstOrNoValue(parent.Op) {
			return nil, &SemanticError{Metric: b.metric, Expr: "operand " + n.Text, Reason: reasonNested}
		}
		desc, ok := b.lookup(n.Text)
		switch {
		case !ok && derived:
			return nil, &BindError{Metric: b.metric, Operand: n.Text, reason: reasonNoMetadata}
		case !ok && lazy:
			bd.Missing = true
			bd.Desc = pmapi.Desc{PMID: pmapi.PMIDNull}
			return bd, nil
		case !ok:
			return nil, &BindError{Metric: b.metric, Operand: n.Text, reason: reasonUnknownOperand}
		}
		bd.Desc = desc
	case OpInteger, OpDouble, OpNoValue:
		bd.Desc = specDesc(n, bd.Meta)
	case OpAnon:
		bd.Desc = pmapi.Desc{PMID: pmapi.PMIDNull, Type: anonTypes[n.Text], InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}
	}
	return bd, nil
}

// libpcp 6.3.8's messages for an operand that cannot be bound.
const (
	reasonUnknownOperand = "Unknown operand metric"
	reasonNoMetadata     = "Metadata for operand metric not available"
)

func isConstOrNoValue(op Op) bool { return op == OpInteger || op == OpDouble || op == OpNoValue }

// specDesc is the descriptor of a constant or of novalue() (libpcp 6.3.8's
// bind_desc): that of the meta= metric (all zeros but the PMID when it is
// missing), with the fields the parameters set, else the Spec's own; a
// plain constant is a discrete U32 or DOUBLE with no units.
func specDesc(n *Node, meta *Bound) pmapi.Desc {
	s := n.Spec
	if s == nil {
		return constDesc(n)
	}
	if meta == nil {
		return pmapi.Desc{PMID: pmapi.PMIDNull, Type: s.Type, InDom: s.InDom, Sem: s.Sem, Units: s.Units}
	}
	d := meta.Desc
	if s.Set&SetType != 0 {
		d.Type = s.Type
	}
	if s.Set&SetSem != 0 {
		d.Sem = s.Sem
	}
	if s.Set&SetUnits != 0 {
		d.Units = s.Units
	}
	return d
}

// evalGuard638 is libpcp 6.3.8's eval_guard: the value of a guard made of
// defined(), integer constants, !, && and || (1 or 0), or -1 when it
// cannot be known when binding. A constant is false when its digits are
// all 0 (atoi); && and || look at their right operand only when the left
// one does not decide (and an unknown left operand makes them unknown).
func evalGuard638(bd *Bound) int {
	switch n := bd.Node; n.Op {
	case OpDefined:
		if bd.Defined {
			return 1
		}
		return 0
	case OpInteger:
		for i := 0; i < len(n.Text); i++ {
			if n.Text[i] != '0' {
				return 1
			}
		}
		return 0
	case OpNot:
		if v := evalGuard638(bd.Left); v != -1 {
			return 1 - v
		}
		return -1
	case OpOr:
		v := evalGuard638(bd.Left)
		if v == 0 {
			v = evalGuard638(bd.Right)
		}
		return v
	case OpAnd:
		v := evalGuard638(bd.Left)
		if v == 1 {
			v = evalGuard638(bd.Right)
		}
		return v
	}
	return -1
}

// check638 is 6.3.8's check_expr.
func (b *binder) check638(bd *Bound) error {
	n := bd.Node
	switch n.Op {
	case OpName, OpInteger, OpDouble, OpNoValue, OpAnon:
		return nil
	case OpDefined:
		checkDefined(bd)
		return nil
	case OpCond:
		return b.checkCond638(bd)
	}
	for _, c := range []*Bound{bd.Left, bd.Right} {
		if c != nil {
			if err := b.check638(c); err != nil {
				return err
			}
		}
	}
	return b.checkOp(bd)
}

// checkCond638 checks ?: (libpcp's N_QUEST over N_COLON): the guard, then
// the operands its static value selects, then the rules of the operands,
// then the guard's.
func (b *binder) checkCond638(bd *Bound) error {
	if err := b.check638(bd.Left); err != nil {
		return err
	}
	left, right := true, true
	switch evalGuard638(bd.Left) {
	case 1:
		right = false
	case 0:
		left = false
	}
	bd.Static = !(left && right)
	bd.StaticTrue = left
	if left {
		if err := b.check638(bd.Right); err != nil {
			return err
		}
	}
	if right {
		if err := b.check638(bd.Else); err != nil {
			return err
		}
	}
	l, r := bd.Right, bd.Else
	switch {
	case left && right:
		bd.Desc = l.Desc
		if l.Node.Op == OpNoValue {
			bd.Desc = r.Desc
		}
		if l.Desc.InDom == pmapi.InDomNull {
			bd.Desc.InDom = r.Desc.InDom
		} else {
			bd.Desc.InDom = l.Desc.InDom
		}
	case left:
		bd.Desc = l.Desc
	default:
		bd.Desc = r.Desc
	}
	var missing *Bound
	if left {
		missing = missingOperand(l)
	}
	if missing == nil && right {
		missing = missingOperand(r)
	}
	if missing != nil {
		return &SemanticError{Metric: b.metric, Expr: "operand " + missing.Node.Text, Reason: reasonUnknownTernary}
	}
	if l.Node.Op != OpNoValue && r.Node.Op != OpNoValue && left && right {
		if err := b.compareOperands(bd); err != nil {
			return err
		}
	}
	return b.checkGuard(bd)
}

// missingOperand is libpcp 6.3.8's check_metrics: the first metric, in the
// order of the text, that the context lacks, in the parts of an operand of
// ?: that were checked (the operand of defined() is not looked at).
func missingOperand(bd *Bound) *Bound {
	if bd == nil {
		return nil
	}
	n := bd.Node
	if n.Op == OpDefined {
		return nil
	}
	if m := missingOperand(bd.Meta); m != nil {
		return m
	}
	if n.Op == OpCond {
		if m := missingOperand(bd.Left); m != nil {
			return m
		}
		if !bd.Static || bd.StaticTrue {
			if m := missingOperand(bd.Right); m != nil {
				return m
			}
		}
		if !bd.Static || !bd.StaticTrue {
			return missingOperand(bd.Else)
		}
		return nil
	}
	if m := missingOperand(bd.Left); m != nil {
		return m
	}
	if n.Op == OpName && bd.Missing {
		return bd
	}
	return missingOperand(bd.Right)
}

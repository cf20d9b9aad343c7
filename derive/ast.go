package derive

import (
	"regexp"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Op is the kind of an expression node.
type Op uint8

// The node kinds. The comments give the children each kind uses.
const (
	OpName      Op = iota // a metric name (Text)
	OpInteger             // an integer constant (Text, as written); Spec for mkconst()
	OpDouble              // a real constant (Text, as written); Spec for mkconst()
	OpNeg                 // -Left
	OpNot                 // !Left
	OpAdd                 // Left + Right
	OpSub                 // Left - Right
	OpMul                 // Left * Right
	OpDiv                 // Left / Right
	OpLT                  // Left < Right
	OpLE                  // Left <= Right
	OpEQ                  // Left == Right
	OpGE                  // Left >= Right
	OpGT                  // Left > Right
	OpNE                  // Left != Right
	OpAnd                 // Left && Right
	OpOr                  // Left || Right
	OpCond                // Left ? Right : Else
	OpInst                // Left[Text]: one instance, by external name
	OpMatchInst           // matchinst(/Text/, Left), or matchinst(!/Text/, Left) when Invert
	OpScalar              // scalar(Left)
	OpRescale             // rescale(Left, "Text"); Units holds the parsed units
	OpNoValue             // novalue(...) (DialectCurrent); Spec
	OpAvg                 // avg(Left)
	OpCount               // count(Left)
	OpDefined             // defined(Left), Left an OpName
	OpMax                 // max(Left)
	OpMin                 // min(Left)
	OpSum                 // sum(Left)
	OpInstant             // instant(Left)
	OpDelta               // delta(Left)
	OpRate                // rate(Left)
	OpAnon                // anon(Text): libpcp's internal event.flags/event.missed
	numOps
)

var opNames = [numOps]string{
	OpName: "NAME", OpInteger: "INTEGER", OpDouble: "DOUBLE", OpNeg: "NEG", OpNot: "NOT",
	OpAdd: "PLUS", OpSub: "MINUS", OpMul: "STAR", OpDiv: "SLASH",
	OpLT: "LT", OpLE: "LEQ", OpEQ: "EQ", OpGE: "GEQ", OpGT: "GT", OpNE: "NEQ",
	OpAnd: "AND", OpOr: "OR", OpCond: "QUEST", OpInst: "FILTERINST", OpMatchInst: "FILTERINST",
	OpScalar: "SCALAR", OpRescale: "RESCALE", OpNoValue: "NOVALUE",
	OpAvg: "AVG", OpCount: "COUNT", OpDefined: "DEFINED", OpMax: "MAX", OpMin: "MIN",
	OpSum: "SUM", OpInstant: "INSTANT", OpDelta: "DELTA", OpRate: "RATE", OpAnon: "ANON",
}

// String is libpcp's name for the node type ("PLUS", "RATE", ...), as its
// semantic error messages print function names.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "?"
}

// symbol is the operator as written, for the binary and unary operators.
func (o Op) symbol() string {
	switch o {
	case OpNeg, OpSub:
		return "-"
	case OpNot:
		return "!"
	case OpAdd:
		return "+"
	case OpMul:
		return "*"
	case OpDiv:
		return "/"
	case OpLT:
		return "<"
	case OpLE:
		return "<="
	case OpEQ:
		return "=="
	case OpGE:
		return ">="
	case OpGT:
		return ">"
	case OpNE:
		return "!="
	case OpAnd:
		return "&&"
	case OpOr:
		return "||"
	}
	return ""
}

// IsBinary reports whether o is a binary arithmetic, relational or boolean
// operator.
func (o Op) IsBinary() bool { return o >= OpAdd && o <= OpOr }

// IsFunc reports whether o is one of the functions avg ... rate.
func (o Op) IsFunc() bool { return o >= OpAvg && o <= OpRate }

var funcNames = map[Op]string{
	OpAvg: "avg", OpCount: "count", OpDefined: "defined", OpMax: "max", OpMin: "min",
	OpSum: "sum", OpInstant: "instant", OpDelta: "delta", OpRate: "rate",
}

// Spec is the metadata of a mkconst() constant or of novalue(): the
// tag=value parameters as written, in order, and the descriptor fields they
// give (later parameters override earlier ones).
type Spec struct {
	Params []SpecParam
	Type   pmapi.Type
	Sem    pmapi.Sem
	Units  pmapi.Units
	// InDom is PM_INDOM_NULL, except for novalue(...) in DialectCurrent:
	// libpcp 6.3.8 starts its metadata from what the last mkconst() or
	// novalue(...) parsed in the process left, whose instance domain is
	// 0.0 (not PM_INDOM_NULL) in a fresh process.
	InDom pmapi.InDom
	// Set lists the fields the parameters set: with meta=, only these
	// override the named metric's metadata (DialectCurrent). libpcp 6.3.8
	// keeps them until a mkconst() or novalue(...) is built, so a parse
	// that fails among the parameters passes them on to the next one.
	Set  SpecSet
	Meta string // meta=NAME (DialectCurrent), "" for none
}

// SpecSet lists the fields of a Spec its parameters set (libpcp's
// specflags).
type SpecSet uint8

// The fields of SpecSet.
const (
	SetType SpecSet = 1 << iota
	SetSem
	SetUnits
)

// SpecParam is one tag=value parameter.
type SpecParam struct {
	Tag   string // "type", "semantics", "units" or "meta"
	Value string // the value without quotes
}

// Node is one node of a parsed expression. The tree is immutable once
// parsed; Bind makes the per-context copy that carries metadata.
type Node struct {
	Op    Op
	Pos   int // byte offset of the node's first token in the expression
	Left  *Node
	Right *Node
	Else  *Node  // the false operand of OpCond
	Text  string // see Op
	// Invert is set for matchinst(!/re/, ...).
	Invert bool
	// Units are the target units of OpRescale.
	Units pmapi.Units
	// Spec is the metadata of mkconst() (OpInteger, OpDouble) and OpNoValue.
	Spec *Spec
	// Regexp is the compiled pattern of OpMatchInst.
	Regexp *regexp.Regexp
}

// Equal reports whether a and b are the same expression, ignoring
// positions.
func Equal(a, b *Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Op != b.Op || a.Text != b.Text || a.Invert != b.Invert || a.Units != b.Units {
		return false
	}
	if (a.Spec == nil) != (b.Spec == nil) {
		return false
	}
	if a.Spec != nil {
		sa, sb := a.Spec, b.Spec
		if sa.Type != sb.Type || sa.Sem != sb.Sem || sa.Units != sb.Units || sa.InDom != sb.InDom || sa.Set != sb.Set ||
			sa.Meta != sb.Meta || len(sa.Params) != len(sb.Params) {
			return false
		}
		for i := range sa.Params {
			if sa.Params[i] != sb.Params[i] {
				return false
			}
		}
	}
	return Equal(a.Left, b.Left) && Equal(a.Right, b.Right) && Equal(a.Else, b.Else)
}

// Precedence levels of the grammar (%left lines), lowest first.
const (
	precCond  = 1 // ? :
	precBool  = 2 // && ||
	precNot   = 3 // !
	precRel   = 4 // < <= == >= > !=
	precAdd   = 5 // + -, and unary minus (%prec L_MINUS)
	precMul   = 6 // * /
	precUnary = 7 // primaries: names, numbers, functions, parentheses
)

func (n *Node) prec() int {
	switch n.Op {
	case OpCond:
		return precCond
	case OpAnd, OpOr:
		return precBool
	case OpNot:
		return precNot
	case OpLT, OpLE, OpEQ, OpGE, OpGT, OpNE:
		return precRel
	case OpAdd, OpSub, OpNeg:
		return precAdd
	case OpMul, OpDiv:
		return precMul
	}
	return precUnary
}

// String prints the expression in the language it was parsed from, with
// the parentheses needed to parse back to the same tree: Parse(n.String())
// gives a tree Equal to n (for trees the parser can produce).
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

// wrap writes c, in parentheses when its precedence is below min.
func wrap(b *strings.Builder, c *Node, min int) {
	if c.prec() < min {
		b.WriteByte('(')
		c.write(b)
		b.WriteByte(')')
		return
	}
	c.write(b)
}

func (n *Node) write(b *strings.Builder) {
	switch n.Op {
	case OpName:
		b.WriteString(n.Text)
	case OpInteger, OpDouble:
		if n.Spec == nil {
			b.WriteString(n.Text)
			return
		}
		b.WriteString("mkconst(")
		b.WriteString(n.Text)
		for _, p := range n.Spec.Params {
			b.WriteString(", ")
			writeParam(b, p)
		}
		b.WriteByte(')')
	case OpNoValue:
		b.WriteString("novalue(")
		for i, p := range n.Spec.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			writeParam(b, p)
		}
		b.WriteByte(')')
	case OpNeg:
		// "-a*b" is -(a*b) (unary minus has the precedence of binary
		// minus), so only * / and another negation go without parentheses
		b.WriteByte('-')
		if n.Left.Op == OpNeg || n.Left.prec() >= precMul {
			n.Left.write(b)
		} else {
			b.WriteByte('(')
			n.Left.write(b)
			b.WriteByte(')')
		}
	case OpNot:
		// "!a>b" is !(a>b): ! binds more loosely than the relational and
		// arithmetic operators, more tightly than && ||
		b.WriteByte('!')
		wrap(b, n.Left, precNot)
	case OpAdd, OpSub, OpMul, OpDiv, OpLT, OpLE, OpEQ, OpGE, OpGT, OpNE, OpAnd, OpOr:
		// all left associative: the right operand needs parentheses at
		// equal precedence
		p := n.prec()
		wrap(b, n.Left, p)
		b.WriteByte(' ')
		b.WriteString(n.Op.symbol())
		b.WriteByte(' ')
		wrap(b, n.Right, p+1)
	case OpCond:
		// %left ?: : "a ? b : c ? d : e" is "(a ? b : c) ? d : e"
		wrap(b, n.Left, precCond+1)
		b.WriteString(" ? ")
		wrap(b, n.Right, precCond+1)
		b.WriteString(" : ")
		wrap(b, n.Else, precCond+1)
	case OpInst:
		if n.Left.Op == OpName {
			b.WriteString(n.Left.Text)
		} else {
			b.WriteByte('(')
			n.Left.write(b)
			b.WriteByte(')')
		}
		b.WriteByte('[')
		writeEscaped(b, n.Text, ']')
		b.WriteByte(']')
	case OpMatchInst:
		b.WriteString("matchinst(")
		if n.Invert {
			b.WriteByte('!')
		}
		b.WriteByte('/')
		writeEscaped(b, n.Text, '/')
		b.WriteString("/, ")
		n.Left.write(b)
		b.WriteByte(')')
	case OpScalar:
		b.WriteString("scalar(")
		n.Left.write(b)
		b.WriteByte(')')
	case OpRescale:
		b.WriteString("rescale(")
		n.Left.write(b)
		b.WriteString(", \"")
		b.WriteString(n.Text)
		b.WriteString("\")")
	case OpAnon:
		b.WriteString("anon(")
		b.WriteString(n.Text)
		b.WriteByte(')')
	default:
		if name, ok := funcNames[n.Op]; ok {
			b.WriteString(name)
			b.WriteByte('(')
			n.Left.write(b)
			b.WriteByte(')')
			return
		}
		b.WriteString("?")
	}
}

// writeParam writes a tag=value parameter: the value quoted, except a
// meta= metric name (which libpcp 6.3.8 requires unquoted).
func writeParam(b *strings.Builder, p SpecParam) {
	b.WriteString(p.Tag)
	b.WriteByte('=')
	if p.Tag == "meta" {
		b.WriteString(p.Value)
		return
	}
	b.WriteByte('"')
	b.WriteString(p.Value)
	b.WriteByte('"')
}

// writeEscaped writes s with a backslash before the delimiter and before
// each backslash, as the lexer's [instance] and /pattern/ tokens expect.
func writeEscaped(b *strings.Builder, s string, delim byte) {
	for i := 0; i < len(s); i++ {
		if s[i] == delim || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}

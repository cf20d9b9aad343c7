// Package grammar is the grammar of package derive's expression language
// (libpcp's gram.y, in its two dialects) and the generator of derive's
// parse tables from it: Files builds the LALR(1) tables with lalrgen and
// renders them as the Go files derive compiles (tables_603.go and
// tables_current.go; `go generate ./derive/` writes them).
//
// Each rule names the constant of derive's semantic action for it
// (parser.go runs them) and, for an error rule, the phrase and argument of
// the message it reports; each token names the constant derive's lexer
// returns for it.
//
// To change the language: a new token is a tok constant in derive's
// lexer.go and a token here; a new rule names a semantic action constant
// of derive's grammar.go (a new one is handled in parser.go's act). Then
// `go generate ./derive/` rewrites the tables, and derive's
// TestTablesUpToDate fails until it has been run.
package grammar

import (
	"strings"

	"github.com/pcpkit/pcpkit/derive/internal/lalrgen"
)

// dialect is one of derive's dialects: derive.Dialect603 or
// derive.DialectCurrent.
type dialect int

const (
	dialect603 dialect = iota
	dialectCurrent
)

// token is a terminal of the grammar.
type token struct {
	name  string // libpcp's L_ name
	lexer string // the derive constant the lexer returns for it
}

// tokens603 are the tokens in libpcp's declaration order (unused ones
// included; they do not change the tables).
var tokens603 = []token{
	{"L_UNDEF", "tUndef"}, {"L_ERROR", "tError"}, {"L_EOS", "tEOS"},
	{"L_PLUS", "tPlus"}, {"L_MINUS", "tMinus"}, {"L_STAR", "tStar"},
	{"L_SLASH", "tSlash"}, {"L_QUEST", "tQuest"}, {"L_COLON", "tColon"},
	{"L_LPAREN", "tLParen"}, {"L_RPAREN", "tRParen"}, {"L_AVG", "tAvg"},
	{"L_COUNT", "tCount"}, {"L_DELTA", "tDelta"}, {"L_MAX", "tMax"},
	{"L_MIN", "tMin"}, {"L_SUM", "tSum"}, {"L_ANON", "tAnon"},
	{"L_RATE", "tRate"}, {"L_INSTANT", "tInstant"}, {"L_LT", "tLT"},
	{"L_LEQ", "tLEQ"}, {"L_EQ", "tEQ"}, {"L_GEQ", "tGEQ"}, {"L_GT", "tGT"},
	{"L_NEQ", "tNEQ"}, {"L_AND", "tAnd"}, {"L_OR", "tOr"},
	{"L_MKCONST", "tMkconst"}, {"L_RESCALE", "tRescale"},
	{"L_DEFINED", "tDefined"}, {"L_MATCHINST", "tMatchinst"},
	{"L_SCALAR", "tScalar"}, {"L_TYPE", "tType"},
	{"L_SEMANTICS", "tSemantics"}, {"L_UNITS", "tUnits"},
	{"L_ASSIGN", "tAssign"}, {"L_COMMA", "tComma"},
	// libpcp declares these three and never returns them
	{"EVENT_UNIT", ""}, {"TIME_UNIT", ""}, {"SPACE_UNIT", ""},
	{"L_INTEGER", "tInteger"}, {"L_DOUBLE", "tDouble"}, {"L_NAME", "tName"},
	{"L_STRING", "tString"}, {"L_INSTNAME", "tInstname"},
	{"L_PATTERN", "tPattern"}, {"L_NOT", "tNot"},
}

// tokens638 are the tokens of libpcp 6.3.8 (DialectCurrent) in its
// declaration order: 6.0.3's with L_META and L_NOVALUE after L_MKCONST.
var tokens638 = func() []token {
	var ts []token
	for _, t := range tokens603 {
		ts = append(ts, t)
		if t.name == "L_MKCONST" {
			ts = append(ts, token{"L_META", "tMeta"}, token{"L_NOVALUE", "tNovalue"})
		}
	}
	return ts
}()

// rule is a production with what derive does when it reduces it.
type rule struct {
	lalrgen.Rule
	action string // the derive constant of the semantic action
	what   string // error rules: the message's phrase ("... expected to follow")
	after  string // error rules: what the message names
}

// spec is the grammar of one dialect.
type spec struct {
	tokens  []token
	grammar lalrgen.Grammar
	rules   []rule // rules[i] is grammar.Rules[i]
}

// opTokens are the binary operator tokens with libpcp's node type names.
var opTokens = []struct{ tok, sym, node string }{
	{"L_PLUS", "+", "PLUS"}, {"L_MINUS", "-", "MINUS"},
	{"L_STAR", "*", "STAR"}, {"L_SLASH", "/", "SLASH"},
	{"L_LT", "<", "LT"}, {"L_LEQ", "<=", "LEQ"}, {"L_EQ", "==", "EQ"},
	{"L_GEQ", ">=", "GEQ"}, {"L_GT", ">", "GT"}, {"L_NEQ", "!=", "NEQ"},
	{"L_AND", "&&", "AND"}, {"L_OR", "||", "OR"},
}

// The phrases of the "expected to follow" messages.
const (
	opStr   = "Arithmetic or relational or boolean operator"
	aexpStr = "Arithmetic expression"
	bexpStr = "Boolean expression"
	nameStr = "Metric name"
)

// grammarOf is the grammar of dialect d, rule for rule as libpcp's
// derive_parser.y.in declares it: 6.0.3's for Dialect603, 6.3.8's for
// DialectCurrent. 6.3.8 adds, in this order: the ternary operator with
// novalue() as an operand (and the rule that refuses it as both), the
// non-terminal novalue, a mkconst() error rule, meta= in spec, and
// expressions as the operand of delta(), rate() and instant() (avg(),
// count(), max(), min() and sum() still take a metric name).
func grammarOf(d dialect) spec {
	s := spec{tokens: tokens603}
	if d == dialectCurrent {
		s.tokens = tokens638
	}
	for _, t := range s.tokens {
		s.grammar.Tokens = append(s.grammar.Tokens, t.name)
	}
	s.grammar.Left = [][]string{
		{"L_QUEST", "L_COLON"},
		{"L_AND", "L_OR"},
		{"L_NOT"},
		{"L_LT", "L_LEQ", "L_EQ", "L_GEQ", "L_GT", "L_NEQ"},
		{"L_PLUS", "L_MINUS"},
		{"L_STAR", "L_SLASH"},
	}
	s.grammar.Start = "defn"
	add := func(lhs, rhs, action string) {
		s.rules = append(s.rules, rule{Rule: lalrgen.Rule{LHS: lhs, RHS: rhs}, action: action})
	}
	addPrec := func(lhs, rhs, prec, action string) {
		s.rules = append(s.rules, rule{Rule: lalrgen.Rule{LHS: lhs, RHS: rhs, Prec: prec}, action: action})
	}
	addErr := func(lhs, rhs, action, what, after string) {
		s.rules = append(s.rules, rule{Rule: lalrgen.Rule{LHS: lhs, RHS: rhs}, action: action, what: what, after: after})
	}

	// defn
	add("defn", "expr L_EOS", "aAccept")
	for _, op := range opTokens {
		if op.tok == "L_MINUS" {
			continue
		}
		addErr("defn", "expr "+op.tok+" error", "aUnexpected", "", op.sym)
		if op.tok == "L_SLASH" {
			addErr("defn", "expr L_LPAREN error", "aUnexpected", "", "(")
			addErr("defn", "expr L_RPAREN error", "aUnexpected", "", ")")
		}
	}
	for _, op := range opTokens {
		if op.tok == "L_MINUS" {
			continue
		}
		addErr("defn", op.tok+" error", "aInitial", "", op.sym)
		if op.tok == "L_SLASH" {
			addErr("defn", "L_LPAREN error", "aInitial", "", "(")
			addErr("defn", "L_RPAREN error", "aInitial", "", ")")
		}
	}
	addErr("defn", "L_QUEST error", "aInitial", "", "?")
	addErr("defn", "L_COLON error", "aInitial", "", ":")

	// expr
	add("expr", "L_LPAREN expr L_RPAREN", "aParen")
	add("expr", "L_NAME L_INSTNAME", "aNameInst")
	add("expr", "L_LPAREN expr L_RPAREN L_INSTNAME", "aParenInst")
	add("expr", "num", "aDefault")
	add("expr", "L_NAME", "aName")
	add("expr", "func", "aDefault")
	for _, op := range opTokens[:4] {
		add("expr", "expr "+op.tok+" expr", "aBinary")
	}
	addPrec("expr", "L_MINUS expr", "L_MINUS", "aUnary")
	for _, op := range opTokens[4:10] {
		add("expr", "expr "+op.tok+" expr", "aBinary")
	}
	add("expr", "expr L_QUEST expr L_COLON expr", "aCond")
	if d == dialectCurrent {
		add("expr", "expr L_QUEST novalue L_COLON expr", "aCond")
		add("expr", "expr L_QUEST expr L_COLON novalue", "aCond")
		add("expr", "expr L_QUEST novalue L_COLON novalue", "aNovalueTwice")
	}
	add("expr", "expr L_AND expr", "aBinary")
	add("expr", "expr L_OR expr", "aBinary")
	add("expr", "L_NOT expr", "aUnary")
	addErr("expr", "L_NAME error", "aFollow", opStr, "NAME")
	for _, op := range opTokens[:4] {
		addErr("expr", "expr "+op.tok+" error", "aFollow", aexpStr, op.node)
	}
	addErr("expr", "L_MINUS error", "aFollow", aexpStr, "NEG")
	for _, op := range opTokens[4:10] {
		addErr("expr", "expr "+op.tok+" error", "aFollow", aexpStr, op.node)
	}
	for _, op := range opTokens[10:] {
		addErr("expr", "expr "+op.tok+" error", "aFollow", bexpStr, op.node)
	}
	addErr("expr", "L_NOT error", "aFollow", bexpStr, "NOT")
	addErr("expr", "expr L_QUEST error", "aFollow", aexpStr, "QUEST")
	addErr("expr", "expr L_QUEST expr L_COLON error", "aFollow", aexpStr, "COLON")

	// novalue
	if d == dialectCurrent {
		add("novalue", "L_NOVALUE L_LPAREN L_RPAREN", "aNovalue")
		add("novalue", "L_NOVALUE L_LPAREN speclist L_RPAREN", "aNovalueSpec")
		addErr("novalue", "L_NOVALUE L_LPAREN error", "aFollow", "metadata keyword", "novalue(")
	}

	// regexpr, opt_bang
	add("regexpr", "opt_bang L_PATTERN", "aRegexpr")
	add("opt_bang", "L_NOT", "aBang")
	add("opt_bang", "", "aNoBang")

	// num
	add("num", "L_INTEGER", "aInteger")
	add("num", "L_DOUBLE", "aDouble")
	add("$@1", "", "aSpecInt")
	add("num", "L_MKCONST L_LPAREN L_INTEGER L_COMMA $@1 speclist L_RPAREN", "aMkconstInt")
	add("$@2", "", "aSpecDouble")
	add("num", "L_MKCONST L_LPAREN L_DOUBLE L_COMMA $@2 speclist L_RPAREN", "aMkconstDbl")
	if d == dialectCurrent {
		addErr("num", "L_MKCONST L_LPAREN L_INTEGER error", "aFollow", "metadata keyword", "mkconst(type")
	}
	add("speclist", "speclist L_COMMA spec", "aDefault")
	add("speclist", "spec", "aDefault")
	add("spec", "L_TYPE L_ASSIGN specval", "aSpecType")
	add("spec", "L_SEMANTICS L_ASSIGN specval", "aSpecSem")
	add("spec", "L_UNITS L_ASSIGN specval", "aSpecUnits")
	if d == dialectCurrent {
		add("spec", "L_META L_ASSIGN L_NAME", "aSpecMeta")
	}
	add("specval", "L_STRING", "aDefault")
	add("specval", "L_NAME", "aDefault")
	add("specval", "L_INTEGER", "aDefault")

	// func
	add("func", "L_ANON L_LPAREN L_NAME L_RPAREN", "aAnon")
	funcs := []string{"L_AVG", "L_COUNT", "L_DELTA", "L_MAX", "L_MIN", "L_SUM", "L_RATE", "L_INSTANT"}
	// the operand of each function, and what its error message says
	// must follow "f(": 6.3.8 takes expressions in delta(), rate() and
	// instant() (whose message still asks for a metric name)
	operand := func(f string) (string, string) {
		if d == dialectCurrent && (f == "L_DELTA" || f == "L_RATE" || f == "L_INSTANT") {
			if f == "L_INSTANT" {
				return "expr", nameStr
			}
			return "expr", "<expr>"
		}
		return "L_NAME", nameStr
	}
	for _, f := range funcs {
		opnd, _ := operand(f)
		add("func", f+" L_LPAREN "+opnd+" L_RPAREN", "aFunc")
	}
	add("func", "L_DEFINED L_LPAREN L_NAME L_RPAREN", "aFunc")
	add("func", "L_RESCALE L_LPAREN expr L_COMMA L_STRING L_RPAREN", "aRescale")
	add("func", "L_MATCHINST L_LPAREN regexpr L_COMMA expr L_RPAREN", "aMatchinst")
	add("func", "L_SCALAR L_LPAREN expr L_RPAREN", "aScalar")
	addErr("func", "L_ANON L_LPAREN error", "aFollow", nameStr, "anon(")
	for _, f := range funcs {
		_, what := operand(f)
		fn := strings.ToLower(strings.TrimPrefix(f, "L_"))
		addErr("func", f+" L_LPAREN error", "aFollow", what, fn+"(")
	}
	addErr("func", "L_RESCALE L_LPAREN error", "aFollow", opStr, "rescale(")
	addErr("func", "L_RESCALE L_LPAREN expr L_COMMA error", "aFollow", "Units string", "rescale(<expr>,")
	addErr("func", "L_MATCHINST L_LPAREN error", "aFollow", "<filter>, <expr>)", "matchinst(")
	addErr("func", "L_MATCHINST L_LPAREN regexpr error", "aFollow", ", <expr>)", "matchinst(<filter>")
	addErr("func", "L_MATCHINST L_LPAREN regexpr L_COMMA error", "aFollow", "<expr>)", "matchinst(<filter>,")
	addErr("func", "L_SCALAR L_LPAREN error", "aFollow", "<expr>", "scalar(")

	for _, r := range s.rules {
		s.grammar.Rules = append(s.grammar.Rules, r.Rule)
	}
	return s
}

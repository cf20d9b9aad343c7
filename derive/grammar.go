package derive

import (
	"fmt"
	"strings"
	"sync"
)

// Dialect selects the expression language.
type Dialect int

const (
	// Dialect603 is the language of libpcp 6.0.3: avg, count, delta, max,
	// min, sum, rate, instant and defined take a metric name only;
	// there is no novalue() and no mkconst(..., meta=...).
	Dialect603 Dialect = iota
	// DialectCurrent is the language of pmRegisterDerived(3) in PCP 6.3.8:
	// the functions other than defined() take expressions, and novalue()
	// and meta= are accepted. Its syntax error messages for the new
	// constructs are pcpkit's own (no 6.3.8 library was available to ask).
	DialectCurrent
)

func (d Dialect) String() string {
	if d == DialectCurrent {
		return "current"
	}
	return "6.0.3"
}

// Semantic actions of the grammar rules.
const (
	aDefault     = iota // $$ = $1
	aAccept             // defn: expr L_EOS
	aUnexpected         // defn: expr OP error      -> "Unexpected 'OP'"
	aInitial            // defn: OP error           -> "Unexpected initial 'OP'"
	aParen              // expr: ( expr )
	aNameInst           // expr: NAME INSTNAME
	aParenInst          // expr: ( expr ) INSTNAME
	aName               // expr: NAME
	aBinary             // expr: expr OP expr
	aUnary              // expr: - expr, ! expr
	aCond               // expr: expr ? expr : expr
	aFollow             // X error -> "<what> expected to follow <after>"
	aRegexpr            // regexpr: opt_bang PATTERN
	aBang               // opt_bang: NOT
	aNoBang             // opt_bang: <empty>
	aInteger            // num: INTEGER
	aDouble             // num: DOUBLE
	aSpecInt            // $@: <empty> before an integer mkconst speclist
	aSpecDouble         // $@: <empty> before a real mkconst speclist
	aMkconstInt         // num: MKCONST ( INTEGER , $@ speclist )
	aMkconstDbl         // num: MKCONST ( DOUBLE , $@ speclist )
	aSpecType           // spec: TYPE = specval
	aSpecSem            // spec: SEMANTICS = specval
	aSpecUnits          // spec: UNITS = specval
	aSpecMeta           // spec: META = specval
	aAnon               // func: ANON ( NAME )
	aFunc               // func: F ( NAME ) or F ( expr )
	aRescale            // func: RESCALE ( expr , STRING )
	aMatchinst          // func: MATCHINST ( regexpr , expr )
	aScalar             // func: SCALAR ( expr )
	aNovalueSpec        // $@: <empty> before a novalue speclist
	aNovalue            // func: NOVALUE ( ) or NOVALUE ( $@ speclist )
)

// ruleInfo carries the message arguments of error rules, keyed by rule text.
type ruleInfo struct {
	what, after string // gramerr phrase and argument
}

// langGrammar is a grammar with its tables and the per-rule message data.
type langGrammar struct {
	g     *grammar
	t     *tables
	info  []ruleInfo // per rule
	tsym  [numToks]symID
	hasTk [numToks]bool
}

var (
	grammarOnce [2]sync.Once
	grammars    [2]*langGrammar
)

func getGrammar(d Dialect) *langGrammar {
	grammarOnce[d].Do(func() { grammars[d] = buildLang(d) })
	return grammars[d]
}

// opTokens are the binary operator tokens with libpcp's node type names.
var opTokens = []struct {
	tok, sym, node string
	bool           bool
}{
	{"L_PLUS", "+", "PLUS", false}, {"L_MINUS", "-", "MINUS", false},
	{"L_STAR", "*", "STAR", false}, {"L_SLASH", "/", "SLASH", false},
	{"L_LT", "<", "LT", false}, {"L_LEQ", "<=", "LEQ", false}, {"L_EQ", "==", "EQ", false},
	{"L_GEQ", ">=", "GEQ", false}, {"L_GT", ">", "GT", false}, {"L_NEQ", "!=", "NEQ", false},
	{"L_AND", "&&", "AND", true}, {"L_OR", "||", "OR", true},
}

func buildLang(d Dialect) *langGrammar {
	var spec grammarSpec
	var info []ruleInfo
	// The tokens in libpcp's declaration order (unused ones included; they
	// do not change the tables).
	spec.tokens = []string{"L_UNDEF", "L_ERROR", "L_EOS", "L_PLUS", "L_MINUS", "L_STAR",
		"L_SLASH", "L_QUEST", "L_COLON", "L_LPAREN", "L_RPAREN", "L_AVG", "L_COUNT",
		"L_DELTA", "L_MAX", "L_MIN", "L_SUM", "L_ANON", "L_RATE", "L_INSTANT", "L_LT",
		"L_LEQ", "L_EQ", "L_GEQ", "L_GT", "L_NEQ", "L_AND", "L_OR", "L_MKCONST",
		"L_RESCALE", "L_DEFINED", "L_MATCHINST", "L_SCALAR", "L_TYPE", "L_SEMANTICS",
		"L_UNITS", "L_ASSIGN", "L_COMMA", "EVENT_UNIT", "TIME_UNIT", "SPACE_UNIT",
		"L_INTEGER", "L_DOUBLE", "L_NAME", "L_STRING", "L_INSTNAME", "L_PATTERN", "L_NOT"}
	if d == DialectCurrent {
		spec.tokens = append(spec.tokens, "L_NOVALUE", "L_META")
	}
	spec.left = [][]string{
		{"L_QUEST", "L_COLON"},
		{"L_AND", "L_OR"},
		{"L_NOT"},
		{"L_LT", "L_LEQ", "L_EQ", "L_GEQ", "L_GT", "L_NEQ"},
		{"L_PLUS", "L_MINUS"},
		{"L_STAR", "L_SLASH"},
	}
	spec.start = "defn"
	rule := func(lhs, rhs string, action int, ri ruleInfo) {
		spec.rules = append(spec.rules, ruleSpec{lhs: lhs, rhs: rhs, action: action})
		info = append(info, ri)
	}
	rulePrec := func(lhs, rhs, prec string, action int) {
		spec.rules = append(spec.rules, ruleSpec{lhs: lhs, rhs: rhs, prec: prec, action: action})
		info = append(info, ruleInfo{})
	}

	// defn
	rule("defn", "expr L_EOS", aAccept, ruleInfo{})
	for _, op := range opTokens {
		if op.tok == "L_MINUS" {
			continue
		}
		rule("defn", "expr "+op.tok+" error", aUnexpected, ruleInfo{after: op.sym})
		if op.tok == "L_SLASH" {
			rule("defn", "expr L_LPAREN error", aUnexpected, ruleInfo{after: "("})
			rule("defn", "expr L_RPAREN error", aUnexpected, ruleInfo{after: ")"})
		}
	}
	for _, op := range opTokens {
		if op.tok == "L_MINUS" {
			continue
		}
		rule("defn", op.tok+" error", aInitial, ruleInfo{after: op.sym})
		if op.tok == "L_SLASH" {
			rule("defn", "L_LPAREN error", aInitial, ruleInfo{after: "("})
			rule("defn", "L_RPAREN error", aInitial, ruleInfo{after: ")"})
		}
	}
	rule("defn", "L_QUEST error", aInitial, ruleInfo{after: "?"})
	rule("defn", "L_COLON error", aInitial, ruleInfo{after: ":"})

	// expr
	rule("expr", "L_LPAREN expr L_RPAREN", aParen, ruleInfo{})
	rule("expr", "L_NAME L_INSTNAME", aNameInst, ruleInfo{})
	rule("expr", "L_LPAREN expr L_RPAREN L_INSTNAME", aParenInst, ruleInfo{})
	rule("expr", "num", aDefault, ruleInfo{})
	rule("expr", "L_NAME", aName, ruleInfo{})
	rule("expr", "func", aDefault, ruleInfo{})
	for _, op := range opTokens[:4] {
		rule("expr", "expr "+op.tok+" expr", aBinary, ruleInfo{})
	}
	rulePrec("expr", "L_MINUS expr", "L_MINUS", aUnary)
	for _, op := range opTokens[4:10] {
		rule("expr", "expr "+op.tok+" expr", aBinary, ruleInfo{})
	}
	rule("expr", "expr L_QUEST expr L_COLON expr", aCond, ruleInfo{})
	rule("expr", "expr L_AND expr", aBinary, ruleInfo{})
	rule("expr", "expr L_OR expr", aBinary, ruleInfo{})
	rule("expr", "L_NOT expr", aUnary, ruleInfo{})
	const (
		opStr   = "Arithmetic or relational or boolean operator"
		aexpStr = "Arithmetic expression"
		bexpStr = "Boolean expression"
		nameStr = "Metric name"
	)
	rule("expr", "L_NAME error", aFollow, ruleInfo{opStr, "NAME"})
	for _, op := range opTokens[:4] {
		rule("expr", "expr "+op.tok+" error", aFollow, ruleInfo{aexpStr, op.node})
	}
	rule("expr", "L_MINUS error", aFollow, ruleInfo{aexpStr, "NEG"})
	for _, op := range opTokens[4:10] {
		rule("expr", "expr "+op.tok+" error", aFollow, ruleInfo{aexpStr, op.node})
	}
	for _, op := range opTokens[10:] {
		rule("expr", "expr "+op.tok+" error", aFollow, ruleInfo{bexpStr, op.node})
	}
	rule("expr", "L_NOT error", aFollow, ruleInfo{bexpStr, "NOT"})
	rule("expr", "expr L_QUEST error", aFollow, ruleInfo{aexpStr, "QUEST"})
	rule("expr", "expr L_QUEST expr L_COLON error", aFollow, ruleInfo{aexpStr, "COLON"})

	// regexpr, opt_bang
	rule("regexpr", "opt_bang L_PATTERN", aRegexpr, ruleInfo{})
	rule("opt_bang", "L_NOT", aBang, ruleInfo{})
	rule("opt_bang", "", aNoBang, ruleInfo{})

	// num
	rule("num", "L_INTEGER", aInteger, ruleInfo{})
	rule("num", "L_DOUBLE", aDouble, ruleInfo{})
	rule("$@1", "", aSpecInt, ruleInfo{})
	rule("num", "L_MKCONST L_LPAREN L_INTEGER L_COMMA $@1 speclist L_RPAREN", aMkconstInt, ruleInfo{})
	rule("$@2", "", aSpecDouble, ruleInfo{})
	rule("num", "L_MKCONST L_LPAREN L_DOUBLE L_COMMA $@2 speclist L_RPAREN", aMkconstDbl, ruleInfo{})
	rule("speclist", "speclist L_COMMA spec", aDefault, ruleInfo{})
	rule("speclist", "spec", aDefault, ruleInfo{})
	rule("spec", "L_TYPE L_ASSIGN specval", aSpecType, ruleInfo{})
	rule("spec", "L_SEMANTICS L_ASSIGN specval", aSpecSem, ruleInfo{})
	rule("spec", "L_UNITS L_ASSIGN specval", aSpecUnits, ruleInfo{})
	if d == DialectCurrent {
		rule("spec", "L_META L_ASSIGN specval", aSpecMeta, ruleInfo{})
	}
	rule("specval", "L_STRING", aDefault, ruleInfo{})
	rule("specval", "L_NAME", aDefault, ruleInfo{})
	rule("specval", "L_INTEGER", aDefault, ruleInfo{})

	// func
	rule("func", "L_ANON L_LPAREN L_NAME L_RPAREN", aAnon, ruleInfo{})
	funcs := []string{"L_AVG", "L_COUNT", "L_DELTA", "L_MAX", "L_MIN", "L_SUM", "L_RATE", "L_INSTANT"}
	operand := "L_NAME"
	if d == DialectCurrent {
		operand = "expr"
	}
	for _, f := range funcs {
		rule("func", f+" L_LPAREN "+operand+" L_RPAREN", aFunc, ruleInfo{})
	}
	rule("func", "L_DEFINED L_LPAREN L_NAME L_RPAREN", aFunc, ruleInfo{})
	rule("func", "L_RESCALE L_LPAREN expr L_COMMA L_STRING L_RPAREN", aRescale, ruleInfo{})
	rule("func", "L_MATCHINST L_LPAREN regexpr L_COMMA expr L_RPAREN", aMatchinst, ruleInfo{})
	rule("func", "L_SCALAR L_LPAREN expr L_RPAREN", aScalar, ruleInfo{})
	if d == DialectCurrent {
		rule("func", "L_NOVALUE L_LPAREN L_RPAREN", aNovalue, ruleInfo{})
		rule("$@3", "", aNovalueSpec, ruleInfo{})
		rule("func", "L_NOVALUE L_LPAREN $@3 speclist L_RPAREN", aNovalue, ruleInfo{})
	}
	what := nameStr
	if d == DialectCurrent {
		what = "<expr>"
	}
	rule("func", "L_ANON L_LPAREN error", aFollow, ruleInfo{nameStr, "anon("})
	for _, f := range funcs {
		fn := strings.ToLower(strings.TrimPrefix(f, "L_"))
		rule("func", f+" L_LPAREN error", aFollow, ruleInfo{what, fn + "("})
	}
	rule("func", "L_RESCALE L_LPAREN error", aFollow, ruleInfo{opStr, "rescale("})
	rule("func", "L_RESCALE L_LPAREN expr L_COMMA error", aFollow, ruleInfo{"Units string", "rescale(<expr>,"})
	rule("func", "L_MATCHINST L_LPAREN error", aFollow, ruleInfo{"<filter>, <expr>)", "matchinst("})
	rule("func", "L_MATCHINST L_LPAREN regexpr error", aFollow, ruleInfo{", <expr>)", "matchinst(<filter>"})
	rule("func", "L_MATCHINST L_LPAREN regexpr L_COMMA error", aFollow, ruleInfo{"<expr>)", "matchinst(<filter>,"})
	rule("func", "L_SCALAR L_LPAREN error", aFollow, ruleInfo{"<expr>", "scalar("})
	if d == DialectCurrent {
		rule("func", "L_NOVALUE L_LPAREN error", aFollow, ruleInfo{"<metadata>)", "novalue("})
	}

	lg := &langGrammar{g: newGrammar(spec)}
	// rule 0 is $accept
	lg.info = append([]ruleInfo{{}}, info...)
	lg.t = buildTables(lg.g)
	for t := tok(0); t < numToks; t++ {
		if id, ok := lg.g.tokenByNm[tokNames[t]]; ok && lg.g.isTerm(id) {
			lg.tsym[t] = id
			lg.hasTk[t] = true
		}
	}
	for t := tok(0); t < numToks; t++ {
		if !lg.hasTk[t] && t != tNovalue && t != tMeta {
			panic(fmt.Sprintf("derive: token %s missing from the grammar", tokNames[t]))
		}
	}
	return lg
}

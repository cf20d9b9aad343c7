package derive

// Dialect selects the expression language.
type Dialect int

const (
	// Dialect603 is the language of libpcp 6.0.3: avg, count, delta, max,
	// min, sum, rate, instant and defined take a metric name only;
	// there is no novalue() and no mkconst(..., meta=...).
	Dialect603 Dialect = iota
	// DialectCurrent is the language of libpcp 6.3.8 (checked against the
	// real library): delta(), rate() and instant() take expressions (avg,
	// count, max, min, sum and defined still take a metric name, whatever
	// pmRegisterDerived(3) says), novalue() may be an operand of ?:, and
	// mkconst() and novalue() take meta=NAME.
	DialectCurrent
)

func (d Dialect) String() string {
	if d == DialectCurrent {
		return "current"
	}
	return "6.0.3"
}

// Semantic actions of the grammar rules (derive/internal/grammar names
// them for each rule).
const (
	aDefault      = iota // $$ = $1
	aAccept              // defn: expr L_EOS
	aUnexpected          // defn: expr OP error      -> "Unexpected 'OP'"
	aInitial             // defn: OP error           -> "Unexpected initial 'OP'"
	aParen               // expr: ( expr )
	aNameInst            // expr: NAME INSTNAME
	aParenInst           // expr: ( expr ) INSTNAME
	aName                // expr: NAME
	aBinary              // expr: expr OP expr
	aUnary               // expr: - expr, ! expr
	aCond                // expr: expr ? expr : expr
	aFollow              // X error -> "<what> expected to follow <after>"
	aRegexpr             // regexpr: opt_bang PATTERN
	aBang                // opt_bang: NOT
	aNoBang              // opt_bang: <empty>
	aInteger             // num: INTEGER
	aDouble              // num: DOUBLE
	aSpecInt             // $@: <empty> before an integer mkconst speclist
	aSpecDouble          // $@: <empty> before a real mkconst speclist
	aMkconstInt          // num: MKCONST ( INTEGER , $@ speclist )
	aMkconstDbl          // num: MKCONST ( DOUBLE , $@ speclist )
	aSpecType            // spec: TYPE = specval
	aSpecSem             // spec: SEMANTICS = specval
	aSpecUnits           // spec: UNITS = specval
	aSpecMeta            // spec: META = specval
	aAnon                // func: ANON ( NAME )
	aFunc                // func: F ( NAME ) or F ( expr )
	aRescale             // func: RESCALE ( expr , STRING )
	aMatchinst           // func: MATCHINST ( regexpr , expr )
	aScalar              // func: SCALAR ( expr )
	aNovalue             // novalue: NOVALUE ( )
	aNovalueSpec         // novalue: NOVALUE ( speclist )
	aNovalueTwice        // expr: expr ? novalue : novalue -> YYERROR
)

// parseTables are the LALR(1) tables of one dialect's grammar. They are
// generated (tables_603.go, tables_current.go) from the grammar in
// derive/internal/grammar by derive/internal/lalrgen, which builds them as
// GNU Bison does: `go generate ./derive/` after a change to either.
// State 0 is never entered by a shift or a goto and rule 0 ($accept) is
// never reduced, so 0 means "none" in their fields.
type parseTables struct {
	rules  []parseRule
	states []parseState
}

// parseRule is a grammar rule as the parser reduces it.
type parseRule struct {
	lhs    int16  // the non-terminal it reduces to (an index of gotos)
	size   int16  // the number of symbols of its right-hand side
	action uint8  // the semantic action (aDefault, ...)
	what   string // error rules: the message's phrase
	after  string // error rules: what the message names
}

// parseState is one state of the parser.
type parseState struct {
	lookahead bool           // read a look-ahead token (else reduce by the default without one)
	reduce    int16          // the default reduction, 0 for none (a syntax error)
	errShift  int16          // the state entered by shifting error in recovery, 0 for none
	action    [numToks]int16 // per token: a > 0 shifts and enters state a, a < 0 reduces by rule -a, 0 takes the default
	gotos     []int16        // per non-terminal: the state entered after reducing to it
}

//go:generate go run ./internal/gentables

// tablesOf are the parse tables of dialect d.
func tablesOf(d Dialect) *parseTables {
	if d == DialectCurrent {
		return &tablesCurrent
	}
	return &tables603
}

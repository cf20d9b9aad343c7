// Package loggerconf reads pmlogger's configuration language as PCP
// 6.0.3's pmlogger does (gram.y, lex.l, after pmcpp preprocessing).
package loggerconf

import "time"

// State is the logging state a statement asks for.
type State int

// Logging states.
const (
	On    State = iota // "on"
	Off                // "off"
	Maybe              // "maybe" (mandatory only)
)

// Config is a parsed configuration file.
type Config struct {
	Statements []Statement
	Access     *Access // nil when there is no [access] section

	// PreprocessorErrors is what pmcpp wrote to stderr (its error
	// messages, each line ending in a newline), "" when it had none.
	// pmlogger does not stop on them: it parses what pmcpp output
	// before the error.
	PreprocessorErrors string

	// ListNames are the names pmlogger's first pass (pass0.c) picks
	// out of the { } lists, each once, in file order. pmlogger looks
	// them up in one pmLookupName call before parsing; Resolve uses
	// them to reproduce that call's diagnostic.
	ListNames []string
}

// Statement is one logging statement:
// [log] {mandatory on IV | mandatory off | mandatory maybe |
// [advisory] on IV | advisory off} METRICS.
type Statement struct {
	Line      int           // line of the statement's first token
	Mandatory bool          // mandatory (else advisory)
	State     State         // on, off or maybe
	Once      bool          // interval "once"
	Default   bool          // interval "default": the -t value applies
	Interval  time.Duration // "[every] N unit" (0 for once/default/off/maybe)
	Metrics   []MetricSpec  // in file order

	// Delta is the interval pmlogger schedules, in whole msec: Interval,
	// or Options.DefaultInterval for "default", 0 for once (and for
	// "N unit" with N = 0, which is also marked Once), off and maybe.
	// Statements with the same Mandatory, State and Delta share a task
	// (fetch group) in pmlogger.
	Delta time.Duration
}

// MetricSpec is a metric name with an optional instance list. Names may
// be non-leaf; the logger expands them with the source's namespace.
type MetricSpec struct {
	// Line is the line pmlogger reports in warnings about this spec:
	// the parser's line count when it acts on the spec, which is the
	// line of the token after the name (or of the closing "]").
	Line      int
	Name      string
	Instances []InstSpec // empty: all instances

	NameLine int    // line of the name itself
	File     string // file pmlogger reports for Line (changes inside %include)
}

// InstSpec is one element of an instance list: an external name (quoted
// or a bare word) or an internal instance id (a number).
type InstSpec struct {
	Name string // for IsID, the number as written
	ID   int32
	IsID bool
}

// Access is the optional [access] section. pcpkit parses it and reports
// that it is not enforced.
type Access struct {
	Rules []AccessRule
}

// AccessRule is one "allow|disallow HOSTLIST : OPLIST ;" line.
type AccessRule struct {
	Line   int
	Allow  bool
	Hosts  []string
	Ops    []string // enquire advisory mandatory all, as written ("all except a, b": all, a, b)
	Except bool     // "all except ..."

	HostLines []int // line of each host (pmlogger's "error was on line N")
}

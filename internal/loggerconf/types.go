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
}

// MetricSpec is a metric name with an optional instance list. Names may
// be non-leaf; the logger expands them with the source's namespace.
type MetricSpec struct {
	Line      int
	Name      string
	Instances []InstSpec // empty: all instances
}

// InstSpec is one element of an instance list: an external name (quoted
// or a bare word) or an internal instance id (a number).
type InstSpec struct {
	Name string
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
	Ops    []string // enquire advisory mandatory all
	Except bool     // "all except ..."
}

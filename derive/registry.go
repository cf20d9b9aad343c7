package derive

import (
	"fmt"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// DomainDerived is the reserved PMDA domain of derived metrics (libpcp's
// DYNAMIC_PMID).
const DomainDerived = pmapi.DynamicDomain

// PMID space of derived metrics (see PMIDs AND MASKING in
// pmRegisterDerived(3)):
//
//   - global metrics (pmRegisterDerived, pmLoadDerivedConfig) get 511.0.1,
//     511.0.2, ... in registration order; after item 1023 comes the next
//     cluster's item 1 (item 0 is never used), up to 511.2047.1023;
//   - per-context metrics (pmAddDerived) get 511.2047.1023, 511.2047.1022,
//     ... downwards, down to 511.0.1; libpcp also sets the top bit of the
//     32-bit PMID (the __pmID_int flag bit) for these, so 511.2047.1023 is
//     0xffdfffff, not 0x7fdfffff;
//   - pmlogger records a derived metric 511.c.i as 511.(c+2048).i
//     (Remapped), which readers treat as an ordinary metric.
const (
	maxCluster = 2047
	maxItem    = 1023
	// pmidFlag is the top bit libpcp sets in per-context derived PMIDs.
	pmidFlag = 1 << 31
)

// IsDerived reports whether pmid is a derived metric's (libpcp's
// IS_DERIVED): domain 511, cluster bit 2048 clear, item not 0. Remapped
// PMIDs in archives are not derived.
func IsDerived(pmid pmapi.PMID) bool {
	return pmid != pmapi.PMIDNull && pmid.Domain() == DomainDerived && pmid.Cluster()&2048 == 0 && pmid.Item() != 0
}

// IsRemapped reports whether pmid is a derived metric as pmlogger records
// it: domain 511 with cluster bit 2048 set.
func IsRemapped(pmid pmapi.PMID) bool {
	return pmid != pmapi.PMIDNull && pmid.Domain() == DomainDerived && pmid.Cluster()&2048 != 0
}

// Remap is the PMID pmlogger writes for the derived metric pmid
// (SET_DERIVED_LOGGED): 511.c.i becomes 511.(2048|c).i, and the flag bit of
// a per-context PMID is dropped.
func Remap(pmid pmapi.PMID) pmapi.PMID {
	return pmapi.NewPMID(pmid.Domain(), pmid.Cluster()|2048, pmid.Item())
}

// Kind is where a metric name comes from, for masking.
type Kind int

const (
	KindNone       Kind = iota // the name is undefined
	KindBase                   // a metric of the PMNS (a PMDA's, or an archive's)
	KindRemapped               // a derived metric recorded in the archive (511.2048+c.i)
	KindPerContext             // a per-context derived metric
	KindGlobal                 // a global derived metric
)

func (k Kind) String() string {
	return [...]string{"none", "base metric", "remapped", "per-context derived", "global derived"}[k]
}

// Chosen is the masking rule of pmRegisterDerived(3) (PMIDs AND MASKING):
// which of the metrics that share a name a PMAPI client gets. A base or
// remapped metric (the PMNS, which is searched first) hides the derived
// ones; a per-context derived metric hides a global one. A name cannot be
// both a base and a remapped metric.
func Chosen(base, remapped, perContext, global bool) Kind {
	switch {
	case base:
		return KindBase
	case remapped:
		return KindRemapped
	case perContext:
		return KindPerContext
	case global:
		return KindGlobal
	}
	return KindNone
}

// Metric is a registered derived metric.
type Metric struct {
	Name string
	PMID pmapi.PMID
	// Source is the expression as registered; Expr its parse.
	Source string
	Expr   *Node
	// Anon marks libpcp's anonymous metrics (event.flags, event.missed).
	Anon bool
	// Oneline and Helptext are set by "name(oneline) = ..." and
	// "name(helptext) = ..." lines of a configuration file.
	Oneline, Helptext string
	hasOneline        bool
	hasHelptext       bool
}

// Texts are the metric's help texts as libpcp gives them with
// PM_TEXT_DIRECT: the "(oneline)" and "(helptext)" lines of its
// configuration, libpcp's own for event.flags and event.missed; "" for
// one it does not have.
func (m *Metric) Texts() (oneline, help string) {
	if m.Anon {
		if t, ok := anonTexts[m.Name]; ok {
			return t[0], t[1]
		}
	}
	return m.Oneline, m.Helptext
}

// LookupText is the metric's one-line text (help false) or help text as
// pmLookupText gives a derived metric's: the "(oneline)" or "(helptext)"
// attribute as set, even to an empty string, the one-line text standing
// in for a help text never set, libpcp's own for event.flags and
// event.missed; ok is false when there is none.
func (m *Metric) LookupText(help bool) (text string, ok bool) {
	if m.Anon {
		if t, ok := anonTexts[m.Name]; ok {
			if help {
				return t[1], true
			}
			return t[0], true
		}
	}
	if help && m.hasHelptext {
		return m.Helptext, true
	}
	return m.Oneline, m.hasOneline
}

// anonTexts are libpcp's help texts for its anonymous derived metrics.
var anonTexts = map[string][2]string{
	"event.flags": {"Flags for event records",
		"An anonymous derived metric that is used to encode the event flags\n" +
			"associated with event records.   See pmUnpackEventRecords(3)."},
	"event.missed": {"Count of missed event records",
		"An anonymous derived metric that is used to encode the number of\n" +
			"event records missed because either the PMDA could not keep up\n" +
			"or the PMAPI client did not collect the event records fast\n" +
			"enough.  See pmUnpackEventRecords(3)."},
}

// Registry is the set of global derived metrics of a process: what
// pmRegisterDerived, pmRegisterDerivedMetric and pmLoadDerivedConfig
// build in libpcp. Its zero value is not usable; use NewRegistry.
type Registry struct {
	dialect Dialect
	metrics []*Metric
	byName  map[string]*Metric
	cluster uint32
	item    uint32
	// st is the parser state libpcp keeps between registrations (see
	// parserState).
	st parserState
}

// NewRegistry returns an empty registry: libpcp before its first
// __dminit, so the first metric registered gets 511.0.1.
func NewRegistry(d Dialect) *Registry {
	return &Registry{dialect: d, byName: map[string]*Metric{}}
}

// Dialect is the registry's language.
func (r *Registry) Dialect() Dialect { return r.dialect }

// Metrics lists the registered metrics in registration order.
func (r *Registry) Metrics() []*Metric { return r.metrics }

// Lookup finds a registered metric by name.
func (r *Registry) Lookup(name string) (*Metric, bool) {
	m, ok := r.byName[name]
	return m, ok
}

// LookupPMID finds a registered metric by PMID.
func (r *Registry) LookupPMID(pmid pmapi.PMID) (*Metric, bool) {
	for _, m := range r.metrics {
		if m.PMID == pmid {
			return m, true
		}
	}
	return nil, false
}

// Registration failures that are not syntax errors; libpcp reports them
// like syntax errors, at offset 0 of the expression.
const (
	msgDuplicate = "Duplicate global derived metric name"
	msgExhausted = "global PMID space exhausted"
)

// Register registers a global derived metric, as pmRegisterDerived: the
// name is not checked (pmLoadDerivedConfig checks it), a duplicate name
// fails at offset 0, and the expression is parsed. Errors are
// *SyntaxError.
func (r *Registry) Register(name, expr string) (*Metric, error) {
	return r.register(name, expr, false)
}

func (r *Registry) register(name, expr string, anon bool) (*Metric, error) {
	if _, dup := r.byName[name]; dup {
		return nil, &SyntaxError{Expr: expr, Pos: 0, Msg: msgDuplicate}
	}
	var n *Node
	if anon {
		// The parse of "anon(TYPE)", built directly: parsing would build
		// the grammar tables, which a tool that never uses a derived
		// metric should not pay for at start-up.
		n = &Node{Op: OpAnon, Pos: 0, Text: strings.TrimSuffix(strings.TrimPrefix(expr, "anon("), ")")}
		r.st.last = n
	} else {
		var err error
		if n, err = parse(expr, r.dialect, &r.st); err != nil {
			return nil, err
		}
	}
	if len(r.metrics) == 0 {
		r.cluster, r.item = 0, 1
	} else if r.item < maxItem {
		r.item++
	} else if r.cluster < maxCluster {
		r.cluster++
		r.item = 1
	} else {
		return nil, &SyntaxError{Expr: expr, Pos: 0, Msg: msgExhausted}
	}
	m := &Metric{Name: name, PMID: pmapi.NewPMID(DomainDerived, r.cluster, r.item), Source: expr, Expr: n, Anon: anon}
	r.metrics = append(r.metrics, m)
	r.byName[name] = m
	return m, nil
}

// RegisterAnon registers one of libpcp's anonymous metrics (the expression
// "anon(PM_TYPE_...)"), as __pmRegisterAnon does.
func (r *Registry) RegisterAnon(name string, typ pmapi.Type) error {
	for s, t := range anonTypes {
		if t == typ {
			_, err := r.register(name, "anon("+s+")", true)
			return err
		}
	}
	return pmapi.ErrType
}

// RegisterEventMetrics registers event.flags and event.missed (U32), as
// libpcp's __dminit does before loading any configuration: after it,
// configured metrics start at 511.0.3.
func (r *Registry) RegisterEventMetrics() {
	r.RegisterAnon("event.flags", pmapi.TypeU32)
	r.RegisterAnon("event.missed", pmapi.TypeU32)
}

// RegisterMetric is pmRegisterDerivedMetric: it registers the metric and,
// on failure, returns the message libpcp puts in errmsg (ending in a
// newline), e.g.
//
//	Error: pmRegisterDerivedMetric("my.x", ...)
//	3 *
//	   ^
//	Arithmetic expression expected to follow STAR
//
// The message line is absent when libpcp has none.
func (r *Registry) RegisterMetric(name, expr string) (string, error) {
	_, err := r.Register(name, expr)
	if err == nil {
		return "", nil
	}
	return RegisterMetricMessage(name, err.(*SyntaxError)), err
}

// RegisterMetricMessage formats pmRegisterDerivedMetric's errmsg for a
// failed registration of name.
func RegisterMetricMessage(name string, e *SyntaxError) string {
	s := fmt.Sprintf("Error: pmRegisterDerivedMetric(\"%s\", ...)\n%s\n%s\n", name, cString(e.Expr), e.Caret())
	if e.Msg != "" {
		s += e.Msg + "\n"
	}
	return s
}

// cString is s up to its first NUL byte, as C sees it.
func cString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

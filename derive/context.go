package derive

import (
	"fmt"
	"slices"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Context is the derived metrics of one PMAPI context: the registry's
// global metrics and the context's own (pmAddDerived), bound lazily
// against the context's PMNS as libpcp binds them (__dmbind) the first
// time a metric's descriptor is needed.
type Context struct {
	reg  *Registry
	pmns Lookup // the context's own metrics (PMDA or archive), searched first

	local   []*Metric
	byName  map[string]*Metric
	cluster uint32
	item    uint32

	binds   map[*Metric]*bindState
	binding map[*Metric]bool // cycle guard
}

type bindState struct {
	bound *Bound
	err   error
}

// NewContext makes the derived metric state of a context whose PMNS
// (base metrics, including remapped derived metrics of an archive) pmns
// searches.
func (r *Registry) NewContext(pmns Lookup) *Context {
	return &Context{reg: r, pmns: pmns, byName: map[string]*Metric{}, binds: map[*Metric]*bindState{}, binding: map[*Metric]bool{}}
}

// Messages of per-context registration failures.
const (
	msgDupLocal       = "Duplicate per-context derived metric name"
	msgLocalExhausted = "per-context PMID space exhausted"
)

// AddError is a failed pmAddDerived.
type AddError struct {
	Name string
	// Syntax is set for a syntax error; Semantic for a semantic one (the
	// metric is then registered, but fails with PM_ERR_BADDERIVE).
	Syntax   *SyntaxError
	Semantic *SemanticError
	// Msg is libpcp's message for other failures ("Duplicate per-context
	// derived metric name").
	Msg string
}

func (e *AddError) Error() string {
	switch {
	case e.Syntax != nil:
		return e.Syntax.Error()
	case e.Semantic != nil:
		return e.Semantic.Error()
	}
	return e.Msg
}

// Unwrap gives PM_ERR_BADDERIVE, pmAddDerivedMetric's return value.
func (e *AddError) Unwrap() error { return pmapi.ErrBadDerive }

// Message is the errmsg of pmAddDerivedMetric for this failure.
func (e *AddError) Message() string {
	switch {
	case e.Syntax != nil:
		s := fmt.Sprintf("Syntax Error: pmAddDerivedMetric(\"%s\", ...)\n%s\n%s\n", e.Name, cString(e.Syntax.Expr), e.Syntax.Caret())
		if e.Syntax.Msg != "" {
			s += e.Syntax.Msg + "\n"
		}
		return s
	case e.Semantic != nil:
		return fmt.Sprintf("Semantic Error: pmAddDerivedMetric(\"%s\", ...)\n%s\n^\n%s\n", e.Name, cString(e.Semantic.expr), e.Semantic.Reason)
	}
	return fmt.Sprintf("Error: pmAddDerivedMetric(\"%s\", ...): returns %d\n%s\n", e.Name, int32(pmapi.ErrBadDerive), e.Msg)
}

// Add defines a per-context derived metric (pmAddDerived): PMIDs count
// down from 511.2047.1023, a syntax error registers nothing, and the
// metric is bound at once, so a semantic error is returned here (the
// metric stays defined, and fails). An operand the context lacks is not
// an error here in libpcp 6.0.3 (the metric fails when used); 6.3.8
// reports it ("Unknown operand metric"), and reports the message of a
// parse that stopped without a syntax error ("x ? novalue() :
// novalue()", whose tree is the previous parse's) as a semantic error.
func (c *Context) Add(name, expr string) (*Metric, error) {
	if _, dup := c.byName[name]; dup {
		return nil, &AddError{Name: name, Msg: msgDupLocal}
	}
	n, stale, err := parseStale(expr, c.reg.dialect, &c.reg.st)
	if err != nil {
		return nil, &AddError{Name: name, Syntax: err.(*SyntaxError)}
	}
	if len(c.local) == 0 {
		c.cluster, c.item = maxCluster, maxItem
	} else if c.item > 1 {
		c.item--
	} else if c.cluster > 0 {
		c.cluster--
		c.item = maxItem
	} else {
		return nil, &AddError{Name: name, Msg: msgLocalExhausted}
	}
	m := &Metric{Name: name, PMID: pmidFlag | pmapi.NewPMID(DomainDerived, c.cluster, c.item), Source: expr, Expr: n}
	c.local = append(c.local, m)
	c.byName[name] = m
	_, err = c.Bind(m)
	if be, ok := err.(*BindError); ok && be.reason != "" {
		err = &SemanticError{Metric: name, Reason: be.reason}
	}
	if err == nil && stale {
		err = &SemanticError{Metric: name, Reason: msgNovalueTwice}
	}
	if se, ok := err.(*SemanticError); ok {
		se.expr = expr
		return m, &AddError{Name: name, Semantic: se}
	}
	return m, nil
}

// AddMetric is pmAddDerivedMetric: Add, and libpcp's errmsg on failure.
func (c *Context) AddMetric(name, expr string) (string, error) {
	_, err := c.Add(name, expr)
	if err == nil {
		return "", nil
	}
	return err.(*AddError).Message(), err
}

// LookupName resolves a name as pmLookupName does in this context: the
// PMNS first (base and remapped metrics), then per-context derived
// metrics, then global ones. A derived metric whose definition failed is
// still found (its descriptor then fails).
func (c *Context) LookupName(name string) (pmapi.PMID, Kind, bool) {
	if d, ok := c.pmns(name); ok {
		if IsRemapped(d.PMID) {
			return d.PMID, KindRemapped, true
		}
		return d.PMID, KindBase, true
	}
	if m, ok := c.byName[name]; ok {
		return m.PMID, KindPerContext, true
	}
	if m, ok := c.reg.byName[name]; ok {
		return m.PMID, KindGlobal, true
	}
	return pmapi.PMIDNull, KindNone, false
}

// derived finds the derived metric a name resolves to, if any.
func (c *Context) derived(name string) (*Metric, bool) {
	if _, ok := c.pmns(name); ok {
		return nil, false
	}
	if m, ok := c.byName[name]; ok {
		return m, true
	}
	m, ok := c.reg.byName[name]
	return m, ok
}

// Bind binds a derived metric in this context (once; the result is kept),
// as __dmbind: a metric whose name is also a metric of the PMNS is
// ignored (the PMNS wins) and fails with PM_ERR_BADDERIVE; otherwise the
// expression is bound and checked. Errors are *BindError, *SemanticError
// (which libpcp prints) or pmapi.ErrBadDerive.
func (c *Context) Bind(m *Metric) (*Bound, error) {
	if st, ok := c.binds[m]; ok {
		return st.bound, st.err
	}
	if c.binding[m] {
		// a cycle of derived metrics (libpcp recurses until it crashes)
		return nil, pmapi.ErrBadDerive
	}
	c.binding[m] = true
	defer delete(c.binding, m)
	st := &bindState{}
	if _, ok := c.pmns(m.Name); ok && !m.Anon {
		st.err = pmapi.ErrBadDerive
	} else {
		st.bound, st.err = Bind(m.Name, m.Expr, c.reg.dialect, c.operand, func(name string) bool {
			_, ok := c.derived(name)
			return ok
		})
		if st.err == nil {
			st.bound.Desc.PMID = m.PMID
		}
	}
	c.binds[m] = st
	return st.bound, st.err
}

// operand looks up an operand: the PMNS, then derived metrics (bound on
// demand, as libpcp's pmLookupDesc does for them).
func (c *Context) operand(name string) (pmapi.Desc, bool) {
	if d, ok := c.pmns(name); ok {
		return d, true
	}
	m, ok := c.derived(name)
	if !ok {
		return pmapi.Desc{}, false
	}
	b, err := c.Bind(m)
	if err != nil {
		// libpcp: the name resolves but pmLookupDesc fails, so the
		// operand is unusable; it reports no error for the outer metric
		return pmapi.Desc{}, false
	}
	return b.Desc, true
}

// Desc is pmLookupDesc for a derived metric's PMID in this context.
func (c *Context) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	m := c.byPMID(pmid)
	if m == nil {
		return pmapi.Desc{}, pmapi.ErrPMID
	}
	b, err := c.Bind(m)
	if err != nil {
		return pmapi.Desc{}, pmapi.ErrBadDerive
	}
	return b.Desc, nil
}

// Local is the context's own derived metrics (pmAddDerived), in the
// order they were added.
func (c *Context) Local() []*Metric { return c.local }

// Metrics is the derived metrics the context sees, in the order libpcp
// grafts their names into the PMNS: the registry's, then the context's
// own. The slice is the caller's to read, not to change.
func (c *Context) Metrics() []*Metric {
	if len(c.local) == 0 {
		return c.reg.metrics
	}
	return append(slices.Clip(c.reg.metrics), c.local...)
}

// Lookup finds the derived metric name names in this context: the
// context's own, else a global one (whether or not the PMNS has the name
// too).
func (c *Context) Lookup(name string) (*Metric, bool) {
	if m, ok := c.byName[name]; ok {
		return m, true
	}
	m, ok := c.reg.byName[name]
	return m, ok
}

// LookupPMID finds the derived metric of a PMID in this context: the
// context's own, else a global one a per-context metric of the same name
// does not mask.
func (c *Context) LookupPMID(pmid pmapi.PMID) (*Metric, bool) {
	m := c.byPMID(pmid)
	return m, m != nil
}

func (c *Context) byPMID(pmid pmapi.PMID) *Metric {
	for _, m := range c.local {
		if m.PMID == pmid {
			return m
		}
	}
	for _, m := range c.reg.metrics {
		if m.PMID == pmid {
			if l, ok := c.byName[m.Name]; ok && l != m {
				return nil // masked by a per-context metric
			}
			return m
		}
	}
	return nil
}

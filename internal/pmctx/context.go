// Package pmctx is the PMAPI context of pminfo and pmprobe: what their
// calls of libpcp's pmNewContext, pmTraversePMNS, pmLookupName,
// pmNameAll, pmLookupDesc, pmFetch, pmGetInDom, pmLookup*Labels and
// pmLookupText see of a source, whichever it is:
//
//   - a set of archives (package replay): one archive, a comma-separated
//     list, a directory, compressed volumes;
//   - a pmcd (package pmcd), over TCP or its unix socket;
//   - pcpkit's built-in collector (package collector), "-h @".
//
// Derived metrics (package derive) are part of every context, as libpcp
// makes them. In an archive context (and wherever the names come from a
// PMNS file, -n) every registered name is grafted into the namespace
// (after the PMNS's children of each node, a name below a leaf turning
// the leaf into a node), and a definition is bound when its descriptor is
// first looked up. In a host context a definition is bound when a
// traversal or a lookup first reaches it, and only those that bind are
// seen, after pmcd's names, in the order they were registered.
//
// The package also holds what the tools share of a run (Session), of
// pmGetOptions (Opts, Parser), pmSpecLocalPMDA (-K),
// pmMergeLabelSets (MergeLabels) and pmPrintValue (AppendValue).
package pmctx

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/replay"
	"github.com/pcpkit/pcpkit/source"
)

// Context is one PMAPI context. It is not safe for concurrent use.
type Context struct {
	kind    Kind
	arc     *replay.Context // an archive context
	live    source.Source   // a host context: a pmcd or the collector
	derived *source.Derived // a host context's derived metrics
	host    string

	reg  *derive.Registry
	dc   *derive.Context // the derived metrics of the context
	errw io.Writer       // where libpcp's derived-metric messages go

	ns      *pmns.Namespace // -n: the names
	base    []string        // the names of ns or of the archive, as grafted
	trimmed bool            // archive: ns trimmed to the archive's PMIDs
	tree    *pmns.Grafted   // a local PMNS with the derived names grafted

	origin pmapi.Timestamp     // archive: where fetches start (pmSetMode)
	noted  map[pmapi.PMID]bool // archive: semantic errors written
}

// OpenArchive is pmNewContext(PM_CONTEXT_ARCHIVE, name): name is an
// archive, a comma-separated list or a directory. The derived metrics of
// reg are available in it; ns, when not nil, is the PMNS loaded with -n
// (see TrimNamespace). Semantic errors of derived metrics are written to
// errw as they are found.
func OpenArchive(name string, reg *derive.Registry, ns *pmns.Namespace, errw io.Writer) (*Context, error) {
	rc, err := replay.Open(name)
	if err != nil {
		return nil, err
	}
	c := &Context{kind: KindArchive, arc: rc, reg: reg, errw: errw, noted: map[pmapi.PMID]bool{}}
	c.dc = rc.UseDerived(reg, derive.EvalOptions{})
	c.host = rc.Label().Hostname
	c.ns = ns
	if ns != nil {
		c.graft(ns.Traverse(""))
	} else {
		c.graft(rc.Meta().Traverse(""))
	}
	return c, nil
}

// graft makes the context's namespace: the leaf names base, in the
// PMNS's traversal order, with the registered derived metrics' names.
func (c *Context) graft(base []string) {
	c.base = base
	var derived []string
	for _, m := range c.dc.Metrics() {
		derived = append(derived, m.Name)
	}
	c.tree = pmns.NewGrafted(base, derived)
}

// AddDerived is pmAddDerivedMetric: a derived metric of this context
// alone (pminfo -r of PCP 6.3), bound at once, its name grafted into the
// context's namespace. On failure it returns libpcp's message.
func (c *Context) AddDerived(name, expr string) (string, error) {
	msg, err := c.dc.AddMetric(name, expr)
	if c.tree != nil {
		c.graft(c.base)
	}
	return msg, err
}

// TrimNamespace is pmTrimNameSpace: in an archive context whose names
// come from a PMNS file, the names of metrics the archive does not have
// are dropped (pminfo does this, pmprobe does not).
func (c *Context) TrimNamespace() {
	if c.arc == nil || c.ns == nil {
		return
	}
	meta := c.arc.Meta()
	var base []string
	for _, n := range c.ns.Traverse("") {
		if p, ok := c.ns.Lookup(n); ok {
			if _, ok := meta.Desc(p); ok {
				base = append(base, n)
			}
		}
	}
	c.trimmed = true
	c.graft(base)
}

// OpenSource makes a host context of a live source (a pmcd client or the
// built-in collector), with the derived metrics of reg bound against the
// source's metrics (the names of ns when not nil): see source.Derived. A
// traversal sees those that bind, which is decided when it first reaches
// them; their semantic errors are written to errw then.
func OpenSource(src source.Source, reg *derive.Registry, ns *pmns.Namespace, errw io.Writer) *Context {
	d := source.NewDerived(src, reg, source.DerivedOptions{Namespace: ns, Errors: errw})
	c := &Context{kind: KindHost, live: src, derived: d, dc: d.Context(), reg: reg, errw: errw, ns: ns}
	if ns != nil {
		c.graft(ns.Traverse(""))
	}
	return c
}

// OpenLocal makes a local context (package local's source src). Its
// names are libpcp's local PMNS: the PMNS file's (or -n's), each dynamic
// subtree expanded by its PMDA as a traversal reaches it, with the
// derived metrics' names grafted in whether or not they bind.
func OpenLocal(src source.Source, reg *derive.Registry, ns *pmns.Namespace, errw io.Writer) *Context {
	c := OpenSource(src, reg, ns, errw)
	c.kind = KindLocal
	return c
}

// traverseLocal is Traverse in a local context: the source's names at
// or below name with the derived metrics' names grafted in. A traversal
// the source stopped (a dynamic subtree whose PMDA is not there) gives
// the names before that point and the source's error, as libpcp's does.
func (c *Context) traverseLocal(name string, fn func(string)) error {
	names, err := c.live.Traverse(name)
	if errors.Is(err, pmapi.ErrName) {
		names, err = nil, nil
	}
	var derived []string
	for _, m := range c.dc.Metrics() {
		derived = append(derived, m.Name)
	}
	all := pmns.NewGrafted(names, derived).Traverse(name)
	if err != nil {
		// the grafted names up to the last one the source gave
		last := -1
		if len(names) > 0 {
			last = slices.Index(all, names[len(names)-1])
		}
		all = all[:last+1]
	}
	for _, n := range all {
		fn(n)
	}
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return pmapi.ErrName
	}
	return nil
}

// Kind is the kind of the context.
func (c *Context) Kind() Kind { return c.kind }

// Archive is the replay context of an archive context (nil otherwise).
func (c *Context) Archive() *replay.Context { return c.arc }

// Host is pmGetContextHostName: the archive's host, or the source's. A
// live source is asked when Host is first called, not when the context
// is made (pmcd's pmcd.hostname costs a lookup and a fetch, which
// libpcp's pmNewContext does not send either).
func (c *Context) Host() string {
	if c.host == "" && c.live != nil {
		c.host = c.live.Host()
	}
	return c.host
}

// Close closes the archives or the connection.
func (c *Context) Close() error {
	switch {
	case c.arc != nil:
		return c.arc.Close()
	case c.live != nil:
		return c.live.Close()
	}
	return nil
}

// SetOrigin sets where archive fetches start (pmSetMode(PM_MODE_FORW,
// origin) before each of them).
func (c *Context) SetOrigin(t pmapi.Timestamp) { c.origin = t }

// Rewind is pmSetMode(PM_MODE_FORW, origin, 0) on an archive context; on
// a host context it does nothing.
func (c *Context) Rewind() error {
	if c.arc == nil {
		return nil
	}
	return c.arc.SetMode(replay.Forw, c.origin, 0)
}

// Traverse is pmTraversePMNS: fn is called with each leaf name at or
// below name ("" for all of them), in libpcp's order. The error is
// pmapi.ErrName for a name that is not in the namespace.
func (c *Context) Traverse(name string, fn func(string)) error {
	if c.kind == KindLocal && c.tree == nil {
		return c.traverseLocal(name, fn)
	}
	if c.tree != nil {
		names := c.tree.Traverse(name)
		if names == nil {
			return pmapi.ErrName
		}
		for _, n := range names {
			fn(n)
		}
		return nil
	}
	names, err := c.live.Traverse(name)
	if err != nil && !errors.Is(err, pmapi.ErrName) {
		return err
	}
	names = append(names, c.derived.Traverse(name)...)
	for _, s := range names {
		fn(s)
	}
	if len(names) == 0 {
		return pmapi.ErrName
	}
	return nil
}

// LookupName is pmLookupName for one name.
func (c *Context) LookupName(name string) (pmapi.PMID, error) {
	ids, n, err := c.LookupNames([]string{name})
	if err != nil {
		return pmapi.PMIDNull, err
	}
	if n == 0 {
		return pmapi.PMIDNull, pmapi.ErrName
	}
	return ids[0], nil
}

// LookupNames is pmLookupName: one PMID per name (PMIDNull for a name not
// found) and the count libpcp returns (the names the PMNS knew, or all of
// them when the derived metrics resolved the rest). The error is for the
// exchange with a pmcd (or PM_ERR_NAME for a single unknown name).
func (c *Context) LookupNames(names []string) ([]pmapi.PMID, int, error) {
	ids := make([]pmapi.PMID, len(names))
	found := 0
	switch {
	case c.tree != nil && (c.ns != nil || c.arc != nil):
		for i, n := range names {
			ids[i] = pmapi.PMIDNull
			var p pmapi.PMID
			var ok bool
			if c.ns != nil {
				p, ok = c.ns.Lookup(n)
				if ok && c.trimmed {
					_, ok = c.arc.Meta().Desc(p)
				}
			} else {
				p, ok = c.arc.Meta().Lookup(n)
			}
			if ok {
				ids[i] = p
				found++
			}
		}
	default:
		got, err := c.live.LookupNames(names)
		if err != nil {
			return nil, 0, err
		}
		copy(ids, got)
		for _, p := range ids {
			if p != pmapi.PMIDNull {
				found++
			}
		}
	}
	if found < len(names) {
		fail := 0
		for i, n := range names {
			if ids[i] != pmapi.PMIDNull {
				continue
			}
			if p, ok := c.derivedName(n); ok {
				ids[i] = p
			} else {
				fail++
			}
		}
		if fail == 0 {
			found = len(names)
		}
	}
	if found == 0 && len(names) == 1 {
		return ids, 0, pmapi.ErrName
	}
	return ids, found, nil
}

// derivedName resolves a name among the derived metrics the context
// sees, whether or not their definitions bind, as libpcp's pmLookupName
// does.
func (c *Context) derivedName(name string) (pmapi.PMID, bool) {
	m, ok := c.dc.Lookup(name)
	if !ok {
		return pmapi.PMIDNull, false
	}
	return m.PMID, true
}

// NameAll is pmNameAll: every name of pmid, in libpcp's order.
func (c *Context) NameAll(pmid pmapi.PMID) ([]string, error) {
	if derive.IsDerived(pmid) {
		if m, ok := c.dc.LookupPMID(pmid); ok && (c.kind != KindHost || c.derived.Binds(m)) {
			return []string{m.Name}, nil
		}
	}
	var names []string
	switch {
	case c.ns != nil:
		names = c.ns.Names(pmid)
		if c.trimmed {
			if _, ok := c.arc.Meta().Desc(pmid); !ok {
				names = nil
			}
		}
	case c.arc != nil:
		names = c.arc.Meta().Names(pmid)
	default:
		n, err := c.live.NamesOf(pmid)
		if err != nil {
			return nil, err
		}
		names = n
	}
	if len(names) == 0 {
		return nil, pmapi.ErrPMID
	}
	return names, nil
}

// Desc is pmLookupDesc. A derived metric whose definition fails in this
// context gives pmapi.ErrBadDerive, its semantic error written once.
func (c *Context) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if pmid == pmapi.PMIDNull {
		return pmapi.Desc{}, pmapi.ErrPMID
	}
	if c.arc != nil {
		d, err := c.arc.Desc(pmid)
		if errors.Is(err, pmapi.ErrBadDerive) {
			c.noteSemantic(pmid)
		}
		return d, err
	}
	if derive.IsDerived(pmid) {
		return c.derived.Desc(pmid)
	}
	return c.live.Desc(pmid)
}

// noteSemantic writes a derived metric's semantic error the first time
// its descriptor is looked up in an archive context, as libpcp does when
// it binds the metric.
func (c *Context) noteSemantic(pmid pmapi.PMID) {
	if c.noted[pmid] {
		return
	}
	c.noted[pmid] = true
	m, ok := c.dc.LookupPMID(pmid)
	if !ok {
		return
	}
	if _, err := c.dc.Bind(m); err != nil {
		var se *derive.SemanticError
		if errors.As(err, &se) {
			fmt.Fprintf(c.errw, "%s\n", se.Error())
		}
	}
}

// Fetch is pmFetch. An archive context reads on from where the previous
// fetch left it (see Rewind). The result is the caller's to keep.
func (c *Context) Fetch(pmids []pmapi.PMID) (*pmapi.Result, error) {
	if c.arc != nil {
		return c.arc.Fetch(pmids)
	}
	res, _, err := c.derived.Fetch(pmids)
	if err != nil {
		return nil, err
	}
	return cloneResult(res), nil
}

// cloneResult copies a result whose slices belong to a source or an
// evaluator.
func cloneResult(r *pmapi.Result) *pmapi.Result {
	out := &pmapi.Result{Timestamp: r.Timestamp, VSets: make([]pmapi.ValueSet, len(r.VSets))}
	for i, vs := range r.VSets {
		vs.Values = append([]pmapi.Value(nil), vs.Values...)
		for k := range vs.Values {
			if vs.Values[k].Block != nil {
				vs.Values[k].Block = bytes.Clone(vs.Values[k].Block)
			}
		}
		out.VSets[i] = vs
	}
	return out
}

// SetProfile restricts the instances of indom that archive fetches
// return (pmAddProfile); nil wants them all. A host context always
// fetches every instance.
func (c *Context) SetProfile(indom pmapi.InDom, insts []int32) {
	if c.arc == nil {
		return
	}
	if insts == nil {
		c.arc.SetProfile(nil)
		return
	}
	want := make(map[int32]bool, len(insts))
	for _, i := range insts {
		want[i] = true
	}
	c.arc.SetProfile(func(d pmapi.InDom, inst int32) bool { return d != indom || want[inst] })
}

// InDom is pmGetInDom: the instances of indom now (in an archive, at the
// time of the last fetch).
func (c *Context) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	if c.arc != nil {
		insts, names, err := c.arc.InDom(indom)
		if err != nil {
			return nil, nil, err
		}
		// libpcp keeps an archive's instance domains sorted by
		// instance number (seen with pminfo -l on 20190628.04.03,
		// whose .meta lists 2.1 as 18326 21556 21573 8405 0)
		insts, names = sortInsts(insts, names)
		return insts, names, nil
	}
	return c.live.InDom(indom)
}

// sortInsts sorts an instance domain's instances, and names with them,
// by instance number (stably), in copies.
func sortInsts(insts []int32, names []string) ([]int32, []string) {
	if slices.IsSorted(insts) {
		return insts, names
	}
	type pair struct {
		inst int32
		name string
	}
	ps := make([]pair, len(insts))
	for i := range insts {
		ps[i] = pair{insts[i], names[i]}
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return cmp.Compare(a.inst, b.inst) })
	out, outNames := make([]int32, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		out[i], outNames[i] = p.inst, p.name
	}
	return out, outNames
}

// InDomArchive is pmGetInDomArchive: every instance an archive ever had.
func (c *Context) InDomArchive(indom pmapi.InDom) ([]int32, []string, error) {
	if c.arc == nil {
		return nil, nil, pmapi.ErrNotArchive
	}
	return c.arc.InDomArchive(indom)
}

// Labels is the label sets of one type (archive.LabelContext, ...) for
// ident, as pmLookupLabels gives them; nil when there are none. In an
// archive they are those in force at the time of the last fetch. The
// context labels of an archive without any are {"hostname":HOST}.
func (c *Context) Labels(typ, ident uint32) []archive.LabelSet {
	if c.arc == nil {
		if derive.IsDerived(pmapi.PMID(ident)) && (typ == archive.LabelItem || typ == archive.LabelCluster) ||
			typ == archive.LabelDomain && ident == derive.DomainDerived {
			return nil
		}
		sets, err := c.live.Labels(typ, ident)
		if err != nil {
			return nil
		}
		return sets
	}
	return ArchiveLabels(c.arc.Meta(), c.host, typ, ident, c.arc.Origin())
}

// ArchiveLabels is pmLookupLabels in an archive (metadata m, its host
// host) at time t: the label sets of one type for ident in force then;
// the context labels of an archive without any are {"hostname":HOST}.
func ArchiveLabels(m *archive.Meta, host string, typ, ident uint32, t pmapi.Timestamp) []archive.LabelSet {
	sets, found := archiveLabels(m, typ, ident, t)
	if !found && typ == archive.LabelContext {
		return []archive.LabelSet{HostLabels(host)}
	}
	return sets
}

// HostLabels is the label set libpcp makes up for a context without
// context labels: {"hostname":HOST}.
func HostLabels(host string) archive.LabelSet {
	json := `{"hostname":"` + host + `"}`
	return archive.LabelSet{Inst: pmapi.InstNull, JSON: json, Labels: []archive.LabelEntry{
		{NameOff: 2, NameLen: 8, ValueOff: 12, ValueLen: len(host) + 2},
	}}
}

// archiveLabels is __pmLogLookupLabel: the label sets of typ and ident
// in force at t: the latest record stamped at or before it, and of
// records with one stamp the first in the file (libpcp chains them
// newest first, those of one time in file order; the earlier ones have
// lost the sets a later one repeats: archive.Meta.Labels). found is false
// when the archive has no record of them at all.
func archiveLabels(m *archive.Meta, typ, ident uint32, t pmapi.Timestamp) (sets []archive.LabelSet, found bool) {
	var best *archive.LabelRecord
	for i := range m.Labels {
		lr := &m.Labels[i]
		if lr.Type != typ || lr.Ident != ident {
			continue
		}
		found = true
		if t.Before(lr.Stamp) {
			continue
		}
		if best == nil || best.Stamp.Before(lr.Stamp) {
			best = lr
		}
	}
	if best == nil {
		return nil, found
	}
	return best.Sets, true
}

// Text is pmLookupText (kind archive.TextOneLine or TextHelp, with
// TextPMID or TextInDom): help text from a pmcd, from an archive's help
// text records, or a derived metric's own.
func (c *Context) Text(kind, ident uint32) (string, error) {
	if kind&archive.TextPMID != 0 && derive.IsDerived(pmapi.PMID(ident)) {
		if m, ok := c.dc.LookupPMID(pmapi.PMID(ident)); ok {
			return derivedText(m, kind&archive.TextHelp != 0)
		}
	}
	text, err := c.text(kind, ident)
	if kind&archive.TextHelp != 0 && (err == nil && text == "" || errors.Is(err, pmapi.ErrText)) {
		// no help text, or an empty one: libpcp gives the one-line
		// text instead
		if one, oerr := c.text(kind&^archive.TextHelp|archive.TextOneLine, ident); oerr == nil {
			return one, nil
		}
	}
	return text, err
}

// text is a help text of the source, as it has it.
func (c *Context) text(kind, ident uint32) (string, error) {
	if c.arc == nil {
		return c.live.Text(kind, ident)
	}
	texts := c.arc.Meta().Texts
	if len(texts) == 0 {
		return "", pmapi.ErrNotHost
	}
	for i := len(texts) - 1; i >= 0; i-- {
		if texts[i].Type == kind && texts[i].Ident == ident {
			return texts[i].Text, nil
		}
	}
	return "", pmapi.ErrText
}

// derivedText is a derived metric's help text (derive.Metric.LookupText).
func derivedText(m *derive.Metric, help bool) (string, error) {
	if text, ok := m.LookupText(help); ok {
		return text, nil
	}
	return "", pmapi.ErrText
}

// OpenNamespace is the state of a tool that needs no context: the names
// of a PMNS file (-n) and the derived metrics, looked up without a
// source (pminfo -n FILE -m).
func OpenNamespace(ns *pmns.Namespace, reg *derive.Registry) *Context {
	c := &Context{kind: KindNone, reg: reg, ns: ns}
	c.dc = reg.NewContext(func(string) (pmapi.Desc, bool) { return pmapi.Desc{}, false })
	c.graft(ns.Traverse(""))
	return c
}

package pmlogger

import (
	"errors"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// DerivedSource is a source with derived metrics: the metrics of a
// derive.Registry (loaded from $PCP_DERIVED_CONFIG or --derived) are
// looked up, described and fetched as if the source had them, with
// their live PMIDs 511.c.i, as source.Derived binds them (libpcp's host
// context); the engine logs them as 511.(2048|c).i. Fetching a derived
// metric fetches its operands too, but only the metrics asked for are
// returned (operands are not logged unless the configuration names
// them).
type DerivedSource struct {
	wrapped
	reg *derive.Registry
	d   *source.Derived
}

// NewDerivedSource wraps src with the derived metrics of reg. The
// semantic errors of definitions that do not bind are written to errw
// (pmlogger's log) when a traversal or a descriptor lookup binds them.
func NewDerivedSource(src source.Source, reg *derive.Registry, errw io.Writer) *DerivedSource {
	return &DerivedSource{wrapped: wrapped{src}, reg: reg, d: source.NewDerived(src, reg, source.DerivedOptions{Errors: errw})}
}

// LoadDerived reads derived metric definitions as libpcp does at start-up
// (spec: derive.StartupSpec's, unreadable parts skipped) and from
// --derived FILE (an error), with event.flags and event.missed first, so
// the configured metrics start at 511.0.3. The language is that of the
// PCP version pcpkit behaves as (derive.ProcessDialect). Messages go to w.
func LoadDerived(spec, file string, w io.Writer) (*derive.Registry, int, error) {
	reg := derive.NewSpecRegistry(spec, w)
	if file != "" {
		if _, err := reg.LoadConfig(file, w); err != nil {
			return nil, 0, err
		}
	}
	return reg, len(reg.Metrics()), nil
}

// LookupNames resolves names in the source, then among derived metrics.
func (d *DerivedSource) LookupNames(names []string) ([]pmapi.PMID, error) {
	pmids, err := d.Source.LookupNames(names)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if i < len(pmids) && pmids[i] == pmapi.PMIDNull {
			if p, ok := d.d.LookupName(n); ok {
				pmids[i] = p
			}
		}
	}
	return pmids, nil
}

// Traverse adds the derived metrics at or below name that bind to the
// source's, in the order they were registered.
func (d *DerivedSource) Traverse(name string) ([]string, error) {
	names, err := d.Source.Traverse(name)
	if err != nil && !errors.Is(err, pmapi.ErrName) {
		return nil, err
	}
	names = append(names, d.d.Traverse(name)...)
	if len(names) == 0 {
		return nil, pmapi.ErrName
	}
	return names, nil
}

func (d *DerivedSource) derived(pmid pmapi.PMID) bool {
	return pmid != pmapi.PMIDNull && pmid.Domain() == derive.DomainDerived
}

// NamesOf names a derived metric by its definition.
func (d *DerivedSource) NamesOf(pmid pmapi.PMID) ([]string, error) {
	if d.derived(pmid) {
		if m, ok := d.reg.LookupPMID(pmid); ok {
			return []string{m.Name}, nil
		}
		return nil, pmapi.ErrPMID
	}
	return d.Source.NamesOf(pmid)
}

// Desc describes a derived metric from its bound expression.
func (d *DerivedSource) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if d.derived(pmid) {
		return d.d.Desc(pmid)
	}
	return d.Source.Desc(pmid)
}

// Labels: derived metrics have none of their own.
func (d *DerivedSource) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	switch typ {
	case archive.LabelDomain:
		if ident == derive.DomainDerived {
			return nil, nil
		}
	case archive.LabelItem:
		if d.derived(pmapi.PMID(ident)) {
			return nil, nil
		}
	}
	return d.Source.Labels(typ, ident)
}

// Text is a derived metric's own help text, as the real pmlogger asks
// for it (PM_TEXT_DIRECT: a missing help text is not replaced by the
// one-line one). The ident is the PMID the metric is logged under
// (511.(2048|c).i) or its live one.
func (d *DerivedSource) Text(typ uint32, ident uint32) (string, error) {
	pmid := pmapi.PMID(ident)
	if typ&archive.TextPMID == 0 || pmid == pmapi.PMIDNull || pmid.Domain() != derive.DomainDerived {
		return d.Source.Text(typ, ident)
	}
	if derive.IsRemapped(pmid) {
		pmid = pmapi.NewPMID(pmid.Domain(), pmid.Cluster()&^2048, pmid.Item())
	}
	m, ok := d.reg.LookupPMID(pmid)
	if !ok {
		return "", pmapi.ErrText
	}
	text, help := m.Texts()
	if typ&archive.TextHelp != 0 {
		text = help
	}
	if text == "" {
		return "", pmapi.ErrText
	}
	return text, nil
}

// Descs looks descriptors up in one exchange with the source (when it
// can: a descBatcher) for the source's metrics, and describes the
// derived ones; a PMID that cannot be described gets a descriptor with
// PMIDNull, as pmcd.Client.Descs answers.
func (d *DerivedSource) Descs(pmids []pmapi.PMID) ([]pmapi.Desc, error) {
	out := make([]pmapi.Desc, len(pmids))
	var base []pmapi.PMID
	for i, p := range pmids {
		if d.derived(p) {
			desc, err := d.d.Desc(p)
			if err != nil {
				desc = pmapi.Desc{PMID: pmapi.PMIDNull}
			}
			out[i] = desc
			continue
		}
		base = append(base, p)
	}
	if len(base) == 0 {
		return out, nil
	}
	descs, err := sourceDescs(d.Source, base)
	k := 0
	for i, p := range pmids {
		if d.derived(p) {
			continue
		}
		out[i] = pmapi.Desc{PMID: pmapi.PMIDNull}
		if k < len(descs) {
			out[i] = descs[k]
		}
		k++
	}
	return out, err
}

// Prefetch sends ahead, when the source can (a metaPrefetcher), the
// requests for names, label sets and help text that the source
// answers; those of derived metrics are answered here.
func (d *DerivedSource) Prefetch(reqs []pmcd.MetaRequest) error {
	return d.prefetchBut(reqs, func(r pmcd.MetaRequest) bool {
		switch r.Kind {
		case pmcd.MetaNames:
			return d.derived(pmapi.PMID(r.Ident))
		case pmcd.MetaLabels:
			return r.Type == archive.LabelDomain && r.Ident == derive.DomainDerived ||
				r.Type == archive.LabelItem && d.derived(pmapi.PMID(r.Ident))
		case pmcd.MetaText:
			p := pmapi.PMID(r.Ident)
			return r.Type&archive.TextPMID != 0 && p != pmapi.PMIDNull && p.Domain() == derive.DomainDerived
		}
		return false
	})
}

// Fetch fetches pmids with the operands of the derived ones, and
// computes those.
func (d *DerivedSource) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	return d.d.Fetch(pmids)
}

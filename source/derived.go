package source

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
)

// InstLookup is implemented by a source that finds an instance by name
// itself, as pmcd does for pmLookupInDom. Its answer is the PMDA's, whose
// rules may be its own: the proc PMDA finds "1" as "000001 /sbin/init",
// which no scan of the names would.
type InstLookup interface {
	InstID(indom pmapi.InDom, name string) (int32, error)
}

// Wrapper is implemented by a source that wraps another and passes on
// what it does not answer itself. NewDerived looks through wrappers for
// an InstLookup.
type Wrapper interface {
	Unwrap() Source
}

// DerivedOptions configure a Derived.
type DerivedOptions struct {
	// Namespace, when not nil, is the PMNS operands' names resolve in
	// (a tool's -n) instead of the source's; their descriptors still
	// come from the source.
	Namespace *pmns.Namespace
	// Errors, when not nil, receives the semantic error of a derived
	// metric whose binding fails, once per metric, as libpcp writes it
	// to stderr when it binds the metric.
	Errors io.Writer
}

// Derived binds the derived metrics of a registry to a live source, as
// libpcp does in a host context (a pmcd, or the built-in collector):
//
//   - an operand is bound as pmLookupName then pmLookupDesc in the
//     source (or the Namespace of DerivedOptions), once per name;
//   - a name the source lacks is looked up among the derived metrics
//     whether or not their definitions bind (LookupName), while a
//     traversal sees only those that bind, in the order they were
//     registered (Traverse);
//   - expr[name] selects the instance pmLookupInDom finds in the source
//     when the source is (or wraps) an InstLookup (as the real pminfo,
//     pmprobe, pmval and pmlogger do with pmcd); otherwise it takes the
//     instances named name, or name up to their first space (derive's
//     default, pmdaInstance's rule);
//   - instances are named from the source's instance domain as it is at
//     the time of the fetch (read at most once per fetch);
//   - a fetch asks the source for the metrics and the operands of the
//     derived ones, and computes those (Fetch).
//
// A Derived is not safe for concurrent use.
type Derived struct {
	src   Source
	look  InstLookup // src's own instance lookups, nil for none
	ns    *pmns.Namespace
	errw  io.Writer
	dc    *derive.Context
	ev    *derive.Evaluator
	descs map[string]pmapi.Desc // operands by name (PMIDNull: none)
	noted map[*derive.Metric]bool
	names map[pmapi.InDom]map[int32]string // read since the last Fetch
}

// NewDerived binds the derived metrics of reg to src.
func NewDerived(src Source, reg *derive.Registry, opts DerivedOptions) *Derived {
	d := &Derived{src: src, look: instLookupOf(src), ns: opts.Namespace, errw: opts.Errors,
		descs: map[string]pmapi.Desc{}, noted: map[*derive.Metric]bool{}, names: map[pmapi.InDom]map[int32]string{}}
	d.dc = reg.NewContext(d.operand)
	names := derive.InstNamer(instNames{d})
	if d.look != nil {
		names = instFinder{instNames{d}}
	}
	d.ev = d.dc.NewEvaluator(derive.EvalOptions{Names: names})
	return d
}

// instLookupOf is src's InstLookup, or that of the source it wraps.
func instLookupOf(src Source) InstLookup {
	for src != nil {
		if l, ok := src.(InstLookup); ok {
			return l
		}
		w, ok := src.(Wrapper)
		if !ok {
			return nil
		}
		src = w.Unwrap()
	}
	return nil
}

// Context is the derived metric state: the registry's metrics and the
// context's own (derive.Context.AddMetric, pmAddDerived), bound against
// the source.
func (d *Derived) Context() *derive.Context { return d.dc }

// operand finds an operand's descriptor in the source, as libpcp's
// binding does (pmLookupName, then pmLookupDesc).
func (d *Derived) operand(name string) (pmapi.Desc, bool) {
	if desc, ok := d.descs[name]; ok {
		return desc, desc.PMID != pmapi.PMIDNull
	}
	desc := pmapi.Desc{PMID: pmapi.PMIDNull}
	pmid := pmapi.PMIDNull
	if d.ns != nil {
		if p, ok := d.ns.Lookup(name); ok {
			pmid = p
		}
	} else if ids, err := d.src.LookupNames([]string{name}); err == nil && len(ids) == 1 {
		pmid = ids[0]
	}
	if pmid != pmapi.PMIDNull {
		if dd, err := d.src.Desc(pmid); err == nil {
			desc = dd
		}
	}
	d.descs[name] = desc
	return desc, desc.PMID != pmapi.PMIDNull
}

// LookupName is pmLookupName of a name the source does not have: the
// PMID of the context's own derived metric of that name, else of the
// registry's. The definition need not bind (its descriptor then fails).
func (d *Derived) LookupName(name string) (pmapi.PMID, bool) {
	if m, ok := d.dc.Lookup(name); ok {
		return m.PMID, true
	}
	return pmapi.PMIDNull, false
}

// Binds reports whether a derived metric's definition binds against the
// source. The first failure writes its semantic error, if it has one, to
// the Errors writer.
func (d *Derived) Binds(m *derive.Metric) bool {
	_, err := d.dc.Bind(m)
	if err != nil {
		d.note(m, err)
	}
	return err == nil
}

// note writes a semantic error, once per metric.
func (d *Derived) note(m *derive.Metric, err error) {
	if d.noted[m] {
		return
	}
	d.noted[m] = true
	var se *derive.SemanticError
	if d.errw != nil && errors.As(err, &se) {
		fmt.Fprintf(d.errw, "%s\n", se.Error())
	}
}

// Traverse is what pmTraversePMNS adds, after the source's names, for
// the derived metrics at or below name ("" for all): the names of those
// that bind, in the order of Metrics.
func (d *Derived) Traverse(name string) []string {
	var out []string
	for _, m := range d.dc.Metrics() {
		if name == "" || strings.HasPrefix(m.Name, name) && (len(m.Name) == len(name) || m.Name[len(name)] == '.') {
			if d.Binds(m) {
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// Desc is pmLookupDesc of a derived metric's PMID: a definition that
// does not bind is pmapi.ErrBadDerive (its semantic error written).
func (d *Derived) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	desc, err := d.dc.Desc(pmid)
	if errors.Is(err, pmapi.ErrBadDerive) {
		if m, ok := d.dc.LookupPMID(pmid); ok {
			d.Binds(m)
		}
	}
	return desc, err
}

// Fetch is pmFetch: it fetches pmids from the source with the operands
// of the derived ones and computes those. The result has one value set
// per PMID of pmids; it and its values belong to the source and to the
// evaluator until the next Fetch. changes is the source's.
func (d *Derived) Fetch(pmids []pmapi.PMID) (res *pmapi.Result, changes uint32, err error) {
	clear(d.names)
	res, changes, err = d.src.Fetch(d.ev.Prefetch(pmids))
	if err != nil {
		return nil, changes, err
	}
	res, err = d.ev.Postfetch(pmids, res)
	return res, changes, err
}

// instNames names instances for [name] and matchinst(), and lists them
// for the constants of mkconst(..., meta=m) (PCP 6.3.8's language), from
// the source's instance domains as they are now.
type instNames struct{ d *Derived }

// InstName is pmNameInDom.
func (n instNames) InstName(indom pmapi.InDom, inst int32, _ pmapi.Timestamp) (string, bool) {
	m, ok := n.d.names[indom]
	if !ok {
		insts, names, err := n.d.src.InDom(indom)
		if err != nil {
			return "", false
		}
		m = make(map[int32]string, len(insts))
		for i, id := range insts {
			if _, dup := m[id]; !dup && i < len(names) {
				m[id] = names[i]
			}
		}
		n.d.names[indom] = m
	}
	name, ok := m[inst]
	return name, ok
}

// InDomInsts is pmGetInDom.
func (n instNames) InDomInsts(indom pmapi.InDom) ([]int32, error) {
	insts, _, err := n.d.src.InDom(indom)
	return insts, err
}

// instFinder is instNames with pmLookupInDom for [name], when the source
// looks instances up itself.
type instFinder struct{ instNames }

// LookupInst is pmLookupInDom.
func (f instFinder) LookupInst(indom pmapi.InDom, name string, _ pmapi.Timestamp) (int32, bool) {
	id, err := f.d.look.InstID(indom, name)
	return id, err == nil
}

package replay

import (
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// derived is a context's derived metric state (see UseDerived).
type derived struct {
	dc   *derive.Context
	ev   *derive.Evaluator
	busy bool // fetching the operands: Fetch does no evaluation
}

// UseDerived makes the derived metrics of reg (global ones, as
// pmRegisterDerived and pmLoadDerivedConfig define them) available in the
// context, as libpcp makes them available in every archive context: names
// resolve through LookupName (the archive's own names first, so a derived
// metric the archive logged, 511.2048.N, is an ordinary metric and hides
// a definition of the same name), Desc gives their descriptors, and Fetch
// evaluates them at the time of each result, in every mode. opts sets the
// evaluation options; its Names is filled in with the archive's instance
// names (as they were at the time of the fetch) when nil. Calling
// UseDerived again starts afresh (no delta() or rate() history).
//
// The history of delta() and rate() is that of the context's fetches of
// each derived metric, whatever the mode and however SetMode moved the
// origin in between, as libpcp keeps it; see package derive for what they
// mean when the replay goes backwards.
func (c *Context) UseDerived(reg *derive.Registry, opts derive.EvalOptions) *derive.Context {
	meta := c.Meta()
	dc := reg.NewContext(func(name string) (pmapi.Desc, bool) {
		p, ok := meta.Lookup(name)
		if !ok {
			return pmapi.Desc{}, false
		}
		d, ok := meta.Desc(p)
		if !ok {
			return pmapi.Desc{}, false
		}
		return *d, true
	})
	if opts.Names == nil {
		opts.Names = archiveNames{c}
	}
	c.dm = &derived{dc: dc, ev: dc.NewEvaluator(opts)}
	return dc
}

// Derived is the context's derived metrics (nil before UseDerived).
func (c *Context) Derived() *derive.Context {
	if c.dm == nil {
		return nil
	}
	return c.dm.dc
}

// LookupName resolves a metric name as pmLookupName does in an archive
// context: the archive's names first, then derived metrics (when
// UseDerived was called). The error is pmapi.ErrName.
func (c *Context) LookupName(name string) (pmapi.PMID, error) {
	if p, ok := c.Meta().Lookup(name); ok {
		return p, nil
	}
	if c.dm != nil {
		if p, kind, ok := c.dm.dc.LookupName(name); ok && kind != derive.KindNone {
			return p, nil
		}
	}
	return pmapi.PMIDNull, pmapi.ErrName
}

// Desc is pmLookupDesc: the archive's descriptor of pmid, or a derived
// metric's. The errors are pmapi.ErrPMIDLog (no such metric in the
// archive) and pmapi.ErrBadDerive (a derived metric whose definition
// fails in this archive).
func (c *Context) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if d, ok := c.Meta().Desc(pmid); ok {
		return *d, nil
	}
	if c.dm != nil && derive.IsDerived(pmid) {
		d, err := c.dm.dc.Desc(pmid)
		if err == nil {
			return d, nil
		}
		if err == pmapi.ErrPMID {
			return pmapi.Desc{}, pmapi.ErrPMIDLog
		}
		return pmapi.Desc{}, err
	}
	return pmapi.Desc{}, pmapi.ErrPMIDLog
}

// fetchDerived is Fetch with derived metrics: the operands are fetched in
// the mode's way, then the derived metrics evaluated over them. The result
// is the context's own copy (callers may keep it).
func (c *Context) fetchDerived(pmids []pmapi.PMID) (*pmapi.Result, error) {
	dm := c.dm
	list := dm.ev.Prefetch(pmids)
	dm.busy = true
	var res *pmapi.Result
	var err error
	if c.mode != Interp && onlyDerived(list) {
		res, err = c.nextRecord(list)
	} else {
		res, err = c.Fetch(list)
	}
	dm.busy = false
	if err != nil {
		return nil, err
	}
	out, err := dm.ev.Postfetch(pmids, res)
	if err != nil {
		return nil, err
	}
	if out == res {
		return res, nil
	}
	return cloneResult(out), nil
}

// onlyDerived reports whether every PMID of list is a derived metric's.
func onlyDerived(list []pmapi.PMID) bool {
	for _, p := range list {
		if !derive.IsDerived(p) {
			return false
		}
	}
	return true
}

// nextRecord is a Forw or Back fetch of a list with no archive metrics
// (derived metrics with no operands): libpcp then takes the next record,
// whatever it holds, <mark>s aside, and the derived PMIDs have no values
// in it.
func (c *Context) nextRecord(list []pmapi.PMID) (*pmapi.Result, error) {
	for {
		r, err := c.next(nil, false)
		if err != nil {
			return nil, err
		}
		if r.IsMark() {
			continue
		}
		res := &pmapi.Result{Timestamp: r.Stamp, VSets: make([]pmapi.ValueSet, len(list))}
		for i, p := range list {
			res.VSets[i].PMID = p
		}
		return res, nil
	}
}

// cloneResult copies a result and its values.
func cloneResult(r *pmapi.Result) *pmapi.Result {
	out := &pmapi.Result{Timestamp: r.Timestamp, VSets: make([]pmapi.ValueSet, len(r.VSets))}
	n, size := 0, 0
	for i := range r.VSets {
		n += len(r.VSets[i].Values)
		for j := range r.VSets[i].Values {
			size += len(r.VSets[i].Values[j].Block)
		}
	}
	vals := make([]pmapi.Value, 0, n)
	arena := make([]byte, 0, size)
	for i := range r.VSets {
		vs := r.VSets[i]
		if len(vs.Values) > 0 {
			start := len(vals)
			for _, v := range vs.Values {
				if v.Block != nil {
					k := len(arena)
					arena = append(arena, v.Block...)
					v.Block = arena[k:len(arena):len(arena)]
				}
				vals = append(vals, v)
			}
			vs.Values = vals[start:len(vals):len(vals)]
		}
		out.VSets[i] = vs
	}
	return out
}

// archiveNames names the archive's instances for [name] and matchinst().
type archiveNames struct{ c *Context }

func (a archiveNames) InstName(indom pmapi.InDom, inst int32, t pmapi.Timestamp) (string, bool) {
	return a.c.instName(indom, inst, t)
}

// LookupInst finds an instance by name as pmLookupInDomArchive does.
func (a archiveNames) LookupInst(indom pmapi.InDom, name string, _ pmapi.Timestamp) (int32, bool) {
	id, err := a.c.LookupInDomArchive(indom, name)
	return id, err == nil
}

// InDomInsts lists the instances of indom as pmGetInDom does in the
// archive context: as of its current time (for the constants of
// mkconst(..., meta=m), DialectCurrent).
func (a archiveNames) InDomInsts(indom pmapi.InDom) ([]int32, error) {
	insts, _, err := a.c.InDom(indom)
	return insts, err
}

// instName names an instance as the archive did at time t
// (pmNameInDomArchive at the time of the fetch): the snapshot in force
// then, else any snapshot, newest first.
func (c *Context) instName(indom pmapi.InDom, inst int32, t pmapi.Timestamp) (string, bool) {
	meta := c.Meta()
	if s, ok := meta.InDomAt(indom, t); ok {
		for k, id := range s.Insts {
			if id == inst {
				return s.Names[k], true
			}
		}
	}
	h := meta.InDomHistory(indom)
	for i := len(h) - 1; i >= 0; i-- {
		for k, id := range h[i].Insts {
			if id == inst {
				return h[i].Names[k], true
			}
		}
	}
	return "", false
}

// hasDerived reports whether pmids holds a derived metric the context
// must evaluate.
func (c *Context) hasDerived(pmids []pmapi.PMID) bool {
	if c.dm == nil || c.dm.busy {
		return false
	}
	for _, p := range pmids {
		if derive.IsDerived(p) {
			return true
		}
	}
	return false
}

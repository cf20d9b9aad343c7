package pmval

import (
	"fmt"
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Derived metrics, as pmval gets them from libpcp: --derived=FILE is
// pmGetOptions' call of pmLoadDerivedConfig(FILE), which first sets up the
// process's derived metrics ($PCP_DERIVED_CONFIG, or the files of
// $PCP_VAR_DIR/config/derived when it is unset), then loads FILE (a
// ":"-separated list of files and directories). Errors in the files are
// reported on stderr as they are loaded; a file that cannot be read is an
// option error ("pmLoadDerivedConfig failed"). Without --derived the
// set-up happens when the archive context is created. Names resolve in the
// archive first; a derived metric is bound (and a semantic error printed)
// when its descriptor is looked up. Live (live.go), the same: the set-up
// happens when the connection to pmcd is made, names resolve in pmcd's
// PMNS (or -n's) first, and the operands are fetched from pmcd with the
// metric.

// loadDerived handles --derived=FILE.
func (o *options) loadDerived(arg string, stderr, pending *strings.Builder) {
	if o.derived == nil {
		o.derived = derive.NewProcessRegistry(stderr)
	}
	if _, err := o.derived.LoadConfig(arg, stderr); err != nil {
		fmt.Fprintf(pending, "pmval: pmLoadDerivedConfig failed: %s\n", archive.ErrText(err))
		o.errors++
	}
}

// processRegistry is the process's derived metrics: those --derived
// loaded, else the start-up set ($PCP_DERIVED_CONFIG), whose errors are
// printed now, as libpcp sets it up when the first context is created.
func (t *tool) processRegistry() *derive.Registry {
	if t.o.derived == nil {
		var msgs strings.Builder
		reg := derive.NewProcessRegistry(&msgs)
		t.out.Flush()
		io.WriteString(t.errw, msgs.String())
		t.o.derived = reg
	}
	return t.o.derived
}

// useDerived makes the derived metrics available in the archive context.
func (t *tool) useDerived() {
	t.c.UseDerived(t.processRegistry(), derive.EvalOptions{})
}

// derivedContext is the derived metrics of the context: the archive's,
// or those of the pmcd (live.go).
func (t *tool) derivedContext() *derive.Context {
	if t.live != nil {
		return t.live.d.Context()
	}
	return t.c.Derived()
}

// lookupDerived resolves a name the source does not have as a derived
// metric.
func (t *tool) lookupDerived(name string) (pmapi.PMID, bool) {
	dc := t.derivedContext()
	if dc == nil {
		return pmapi.PMIDNull, false
	}
	// only derived metrics: the PMNS (-n, or the source's) was searched
	p, kind, ok := dc.LookupName(name)
	return p, ok && (kind == derive.KindGlobal || kind == derive.KindPerContext)
}

// derivedDesc is pmLookupDesc of a derived metric: binding it prints its
// semantic error, if it has one, and a failed definition stops pmval.
func (t *tool) derivedDesc(name string, pmid pmapi.PMID) (*pmapi.Desc, bool) {
	dc := t.derivedContext()
	if dc == nil || !derive.IsDerived(pmid) {
		return nil, false
	}
	var d pmapi.Desc
	var err error
	if t.live != nil {
		d, err = dc.Desc(pmid)
	} else {
		d, err = t.c.Desc(pmid)
	}
	if err == nil {
		return &d, true
	}
	if m, ok := t.o.derived.Lookup(name); ok {
		if _, berr := dc.Bind(m); berr != nil {
			if se, ok := berr.(*derive.SemanticError); ok {
				t.out.Flush()
				fmt.Fprintf(t.errw, "%s\n", se.Error())
			}
		}
	}
	t.fail("pmval: pmLookupDesc: %s\n", pmapi.ErrBadDerive.Error())
	return nil, false
}

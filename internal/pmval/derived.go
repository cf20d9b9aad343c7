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
// when its descriptor is looked up.

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

// useDerived makes the derived metrics available in the archive context.
func (t *tool) useDerived() {
	reg := t.o.derived
	if reg == nil {
		var msgs strings.Builder
		reg = derive.NewProcessRegistry(&msgs)
		t.out.Flush()
		io.WriteString(t.errw, msgs.String())
		t.o.derived = reg
	}
	t.c.UseDerived(reg, derive.EvalOptions{})
}

// lookupDerived resolves a name the archive does not have as a derived
// metric.
func (t *tool) lookupDerived(name string) (pmapi.PMID, bool) {
	dc := t.c.Derived()
	if dc == nil {
		return pmapi.PMIDNull, false
	}
	// only derived metrics: the PMNS (-n, or the archive's) was searched
	p, kind, ok := dc.LookupName(name)
	return p, ok && (kind == derive.KindGlobal || kind == derive.KindPerContext)
}

// derivedDesc is pmLookupDesc of a derived metric: binding it prints its
// semantic error, if it has one, and a failed definition stops pmval.
func (t *tool) derivedDesc(name string, pmid pmapi.PMID) (*pmapi.Desc, bool) {
	dc := t.c.Derived()
	if dc == nil || !derive.IsDerived(pmid) {
		return nil, false
	}
	d, err := t.c.Desc(pmid)
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

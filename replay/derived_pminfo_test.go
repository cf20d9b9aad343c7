package replay_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// pminfoValues prints what "PCP_DERIVED_CONFIG=config pminfo -a archive
// -f names..." prints, from a replay context: the semantic errors of the
// metrics as their descriptors are looked up, then each metric's values
// from one fetch of them all at the start of the archive (pminfo's
// PM_MODE_FORW fetch), as pmPrintValue prints them.
func pminfoValues(t *testing.T, archive, cfgName, config string, names []string) (stdout, stderr string) {
	t.Helper()
	return pminfoValuesIn(t, derive.Dialect603, derive.EvalOptions{}, archive, cfgName, config, names)
}

// pminfoValuesIn is pminfoValues in dialect d, with evaluation options
// opts.
func pminfoValuesIn(t *testing.T, d derive.Dialect, opts derive.EvalOptions, archive, cfgName, config string, names []string) (stdout, stderr string) {
	t.Helper()
	var out, errs strings.Builder
	reg := derive.NewRegistry(d)
	reg.RegisterEventMetrics()
	reg.LoadConfigData(cfgName, []byte(config), &errs)
	c, err := replay.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dc := c.UseDerived(reg, opts)
	type entry struct {
		name string
		pmid pmapi.PMID
		desc pmapi.Desc
		err  error
	}
	var ents []entry
	for _, n := range names {
		e := entry{name: n}
		e.pmid, e.err = c.LookupName(n)
		if e.err != nil {
			fmt.Fprintf(&errs, "Error: %s: %s\n", n, e.err.(pmapi.Error).Error())
		} else {
			e.desc, e.err = c.Desc(e.pmid)
			if e.err != nil {
				if m, ok := reg.Lookup(n); ok {
					if _, berr := dc.Bind(m); berr != nil {
						if se, ok := berr.(*derive.SemanticError); ok {
							fmt.Fprintf(&errs, "%s\n", se.Error())
						}
					}
				}
			}
		}
		ents = append(ents, e)
	}
	for _, e := range ents {
		if e.err == pmapi.ErrName {
			continue
		}
		if e.err != nil {
			fmt.Fprintf(&out, "%s: pmLookupDesc: %s\n", e.name, pmapi.ErrBadDerive.Error())
			continue
		}
		fmt.Fprintf(&out, "\n%s\n", e.name)
		c.SetMode(replay.Forw, c.Start(), 0)
		res, ferr := c.Fetch([]pmapi.PMID{e.pmid})
		if ferr != nil {
			fmt.Fprintf(&out, "    Error: %s\n", ferr.(pmapi.Error).Error())
			continue
		}
		vs := res.VSets[0]
		if vs.NumVal <= 0 {
			if vs.NumVal < 0 {
				fmt.Fprintf(&out, "    Error: %s\n", pmapi.Error(vs.NumVal).Error())
			} else {
				out.WriteString("No value(s) available!\n")
			}
			continue
		}
		for i := range vs.Values {
			v := &vs.Values[i]
			if e.desc.InDom == pmapi.InDomNull {
				out.WriteString("    value ")
			} else {
				name := "???"
				if s, ok := instNameAt(c, e.desc.InDom, v.Inst); ok {
					name = fmt.Sprintf("%q", s)
				}
				fmt.Fprintf(&out, "    inst [%d or %s] value ", v.Inst, name)
			}
			out.Write(pmapi.AppendValue(nil, e.desc.Type, v))
			out.WriteString("\n")
		}
	}
	return out.String(), errs.String()
}

// samePminfo reports (as test errors) how pcpkit's pminfo output differs
// from the real one's.
func samePminfo(t *testing.T, what, wout, werr, gout, gerr string) bool {
	t.Helper()
	ok := true
	if d := cmp.Diff(wout, gout); d != "" {
		t.Errorf("%s stdout differs (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	if d := cmp.Diff(werr, gerr); d != "" {
		t.Errorf("%s stderr differs (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	return ok
}

func instNameAt(c *replay.Context, indom pmapi.InDom, inst int32) (string, bool) {
	h := c.Meta().InDomHistory(indom)
	for i := len(h) - 1; i >= 0; i-- {
		for k, id := range h[i].Insts {
			if id == inst {
				return h[i].Names[k], true
			}
		}
	}
	return "", false
}

// TestDerivedPminfo compares the values of derived metrics with
// PCP_DERIVED_CONFIG=FILE pminfo -a ARCHIVE -f NAMES.
func TestDerivedPminfo(t *testing.T) {
	tool := testenv.RealTool(t, "pminfo")
	n, same := 0, 0
	for i, c := range dmCases {
		archive := dmArchive(t, c.archive)
		cfg := filepath.Join(t.TempDir(), "derived.conf")
		if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range strings.Split(c.config, "\n") {
			if name, _, ok := strings.Cut(l, "="); ok {
				names = append(names, strings.TrimSpace(name))
			}
		}
		args := append([]string{"-a", archive, "-f"}, names...)
		wout, werr, _ := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="+cfg), tool, args...)
		gout, gerr := pminfoValues(t, archive, cfg, c.config, names)
		n++
		if samePminfo(t, fmt.Sprintf("case %d (%s): pminfo -f", i, c.archive), string(wout), string(werr), gout, gerr) {
			same++
		}
	}
	t.Logf("pminfo -f: %d configurations compared, %d identical", n, same)
}

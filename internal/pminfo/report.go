package pminfo

import (
	"fmt"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// report reports the batch of names, as pminfo's report(): their PMIDs
// (names that do not resolve are dropped with a message), one fetch of
// them all for -f, -l and -v (in an archive, from the origin), then each
// metric's lines.
func (t *tool) report() {
	names := t.names
	t.names = t.names[:0]
	if len(names) == 0 {
		return
	}
	f := &t.f
	pmids := make([]pmapi.PMID, len(names))
	for i := range pmids {
		pmids[i] = pmapi.PMIDNull
	}
	if f.needPMID {
		ids, _, err := t.C.LookupNames(names)
		if err != nil {
			// every name without a PMID is reported with the
			// batch's error, and dropped
			k := 0
			for i, n := range names {
				if ids == nil || ids[i] == pmapi.PMIDNull {
					if t.json != nil {
						t.jsonError(n, pmapi.PMIDNull, err)
					} else {
						fmt.Fprintf(t.Out, "%s: pmLookupName: %s\n", n, archive.ErrText(err))
					}
					continue
				}
				names[k], pmids[k] = n, ids[i]
				k++
			}
			names, pmids = names[:k], pmids[:k]
		} else {
			copy(pmids, ids)
		}
	}
	var result *pmapi.Result
	if f.value || f.label || f.verify {
		if err := t.C.Rewind(); err != nil {
			t.Fail("%s: pmSetMode failed: %s\n", t.Prog, archive.ErrText(err))
		}
		res, err := t.C.Fetch(pmids)
		if err != nil {
			for i, n := range names {
				if t.json != nil {
					t.jsonError(n, pmids[i], err)
				} else {
					fmt.Fprintf(t.Out, "%s: pmFetch: %s\n", n, archive.ErrText(err))
				}
			}
			return
		}
		result = res
	}
	for i, name := range names {
		var desc pmapi.Desc
		if f.desc || f.value || f.label || f.series || f.verify {
			d, err := t.C.Desc(pmids[i])
			if err != nil {
				if t.json != nil {
					t.jsonError(name, pmids[i], err)
				} else {
					fmt.Fprintf(t.Out, "%s: pmLookupDesc: %s\n", name, archive.ErrText(err))
				}
				continue
			}
			desc = d
		}
		if t.json != nil {
			t.jsonMetric(name, pmids[i], &desc, result, i)
			continue
		}
		if f.desc || f.help || f.value || f.label {
			t.Out.WriteByte('\n')
		}
		var vs *pmapi.ValueSet
		if f.value || f.verify {
			vs = &result.VSets[i]
			if f.force && vs.NumVal == int32(pmapi.ErrProfile) {
				var ok bool
				if vs, ok = t.fetchAll(name, pmids[i], &desc); !ok {
					continue
				}
			}
		}
		if f.verify {
			switch {
			case desc.Type == pmapi.TypeNoSupport:
				fmt.Fprintf(t.Out, "%s: Not Supported\n", name)
			case vs.NumVal < 0:
				fmt.Fprintf(t.Out, "%s: %s\n", name, pmapi.Error(vs.NumVal).Error())
			case vs.NumVal == 0:
				fmt.Fprintf(t.Out, "%s: No value(s) available\n", name)
			}
			continue
		}
		t.Out.WriteString(name)
		if f.mid {
			fmt.Fprintf(t.Out, " PMID: %s", pmids[i])
		}
		if f.fullmid {
			fmt.Fprintf(t.Out, " = %d = 0x%x", uint32(pmids[i]), uint32(pmids[i]))
		}
		if f.oneline {
			t.oneline(uint32(pmids[i]), archive.TextPMID)
		}
		t.Out.WriteByte('\n')
		if f.desc {
			t.printDesc(&desc)
		}
		if f.series {
			t.metricSeries(name, &desc)
		}
		if f.label {
			t.metricLabels(&desc)
		}
		if f.help {
			t.helpText(uint32(pmids[i]), archive.TextPMID)
		}
		if f.value {
			t.dump(&desc, vs, "")
		}
		if f.series {
			t.instanceSeries(desc.InDom)
		}
		if f.label {
			t.instanceLabels(desc.InDom, &desc)
		}
	}
}

// fetchAll is -F for a metric whose fetch wanted explicit instances
// (PM_ERR_PROFILE): every instance of the domain is asked for, in a
// fetch of its own.
func (t *tool) fetchAll(name string, pmid pmapi.PMID, desc *pmapi.Desc) (*pmapi.ValueSet, bool) {
	insts, _, err := t.C.InDom(desc.InDom)
	switch {
	case err != nil:
		fmt.Fprintf(t.Out, "%s: pmGetIndom: %s\n", name, archive.ErrText(err))
		return nil, false
	case len(insts) == 0:
		fmt.Fprintf(t.Out, "%s: pmGetIndom: No instances?\n", name)
		return nil, false
	}
	t.C.SetProfile(desc.InDom, insts)
	defer t.C.SetProfile(desc.InDom, nil)
	if err := t.C.Rewind(); err != nil {
		t.Fail("%s: pmSetMode failed: %s\n", t.Prog, archive.ErrText(err))
	}
	res, err := t.C.Fetch([]pmapi.PMID{pmid})
	if err != nil {
		fmt.Fprintf(t.Out, "%s: pmFetch: %s\n", name, archive.ErrText(err))
		return nil, false
	}
	return &res.VSets[0], true
}

// doindom reports an instance domain named on the command line.
func (t *tool) doindom(indom pmapi.InDom) {
	if t.f.verify {
		return
	}
	fmt.Fprintf(t.Out, "\nInDom: %s", indom)
	if t.f.fulliid {
		fmt.Fprintf(t.Out, " = %d =", uint32(indom))
	}
	fmt.Fprintf(t.Out, " 0x%x", uint32(indom))
	if t.f.oneline {
		t.oneline(uint32(indom), archive.TextInDom)
	}
	t.Out.WriteByte('\n')
	if t.f.label {
		t.indomLabels(indom)
	}
	if t.f.help {
		t.helpText(uint32(indom), archive.TextInDom)
	}
}

// oneline prints the one-line help text after the name (on a line of its
// own with -M or, for an instance domain, -I).
func (t *tool) oneline(ident, kind uint32) {
	text, err := t.C.Text(archive.TextOneLine|kind, ident)
	if err != nil {
		fmt.Fprintf(t.Out, " One-line Help: Error: %s", archive.ErrText(err))
		return
	}
	if kind == archive.TextPMID && t.f.fullmid || kind == archive.TextInDom && t.f.fulliid {
		t.Out.WriteString("\n    ")
	} else {
		t.Out.WriteByte(' ')
	}
	fmt.Fprintf(t.Out, "[%s]", text)
}

// helpText prints the help text, its trailing newlines removed.
func (t *tool) helpText(ident, kind uint32) {
	text, err := t.C.Text(archive.TextHelp|kind, ident)
	if err != nil {
		fmt.Fprintf(t.Out, "Full Help: Error: %s\n", archive.ErrText(err))
		return
	}
	for len(text) > 0 && text[len(text)-1] == '\n' {
		text = text[:len(text)-1]
	}
	if text == "" {
		t.Out.WriteString("Help: <empty entry>\n")
		return
	}
	t.Out.WriteString("Help:\n")
	t.Out.WriteString(text)
	t.Out.WriteByte('\n')
}

// typeNames are pminfo's names of the value types.
var typeNames = map[pmapi.Type]string{
	pmapi.Type32: "32-bit int", pmapi.TypeU32: "32-bit unsigned int",
	pmapi.Type64: "64-bit int", pmapi.TypeU64: "64-bit unsigned int",
	pmapi.TypeFloat: "float", pmapi.TypeDouble: "double", pmapi.TypeString: "string",
	pmapi.TypeAggregate: "aggregate", pmapi.TypeAggregateStat: "static aggregate",
	pmapi.TypeEvent: "event record array", pmapi.TypeHighresEvent: "highres event record array",
	pmapi.TypeNoSupport: "Not Supported",
}

// printDesc prints a descriptor (-d).
func (t *tool) printDesc(d *pmapi.Desc) {
	w := t.Out
	if name, ok := typeNames[d.Type]; ok {
		fmt.Fprintf(w, "    Data Type: %s", name)
	} else {
		fmt.Fprintf(w, "    Data Type: ??? (%d)", int32(d.Type))
	}
	fmt.Fprintf(w, "  InDom: %s", d.InDom)
	if t.f.fulliid {
		fmt.Fprintf(w, " = %d =", uint32(d.InDom))
	}
	fmt.Fprintf(w, " 0x%x\n", uint32(d.InDom))
	sem := d.Sem.String()
	fmt.Fprintf(w, "    Semantics: %s", sem)
	if sem == "???" {
		fmt.Fprintf(w, " (%d)", int32(d.Sem))
	}
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	fmt.Fprintf(w, "  Units: %s\n", units)
}

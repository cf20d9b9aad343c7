package pmprobe

import (
	"fmt"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// report prints a line for each metric: with -f and -i or -I the
// instance domain itself; otherwise the values of a fetch (in an archive,
// one metric at a time from the origin; live, batch metrics at a time).
func (t *tool) report(names []string, pmids []pmapi.PMID) {
	w := t.Out
	zone := t.Zone
	fetched := 0
	for i := 0; i < len(names); {
		batch := 1
		if t.force && (t.internal || t.external) {
			t.reportInDom(names[i], pmids[i])
			i++
			continue
		}
		var res *pmapi.Result
		var err error
		if t.Opts.Kind == pmctx.KindArchive {
			if err = t.C.Rewind(); err != nil {
				fmt.Fprintf(w, "%d %s (pmSetMode)\n", pmctx.ErrCode(err), archive.ErrText(err))
				i++
				continue
			}
			res, err = t.C.Fetch(pmids[fetched : fetched+1])
		} else {
			batch = min(t.batch, len(names)-fetched)
			res, err = t.C.Fetch(pmids[fetched : fetched+batch])
		}
		if err != nil {
			fmt.Fprintf(w, "%s %d %s (pmFetch)\n", names[fetched], pmctx.ErrCode(err), archive.ErrText(err))
			fetched += batch
			i += batch
			continue
		}
		for b := 0; b < batch; b++ {
			w.WriteString(names[fetched+b])
			w.WriteByte(' ')
			vs := &res.VSets[b]
			var desc pmapi.Desc
			if t.internal || t.external || t.values {
				d, err := t.C.Desc(pmids[fetched+b])
				if err != nil {
					fmt.Fprintf(w, "%d %s (pmLookupDesc)\n", pmctx.ErrCode(err), archive.ErrText(err))
					continue
				}
				desc = d
			}
			switch {
			case vs.NumVal < 0:
				fmt.Fprintf(w, "%d %s", vs.NumVal, pmapi.Error(vs.NumVal).Error())
			case vs.NumVal == 0:
				w.WriteString("0")
			default:
				line := strconv.AppendInt(t.line[:0], int64(vs.NumVal), 10)
				if t.values {
					for j := range vs.Values {
						line = append(line, ' ')
						line = pmctx.AppendValue(line, desc.Type, vs.ValFmt, &vs.Values[j], zone)
					}
				}
				w.Write(line)
				t.line = line
				if t.internal || t.external {
					if desc.InDom == pmapi.InDomNull {
						w.WriteString(" PM_IN_NULL")
						if t.internal && t.external {
							w.WriteString(" PM_IN_NULL")
						}
						w.WriteByte('\n')
						continue
					}
					insts, inames, err := t.instances(desc.InDom)
					if err != nil {
						fmt.Fprintf(w, "%d %s (pmGetInDom)\n", pmctx.ErrCode(err), archive.ErrText(err))
						continue
					}
					for j := range vs.Values {
						inst := vs.Values[j].Inst
						if t.internal {
							fmt.Fprintf(w, " ?%d", inst)
						}
						if t.external {
							k := 0
							for k < len(insts) && insts[k] != inst {
								k++
							}
							if k < len(insts) {
								fmt.Fprintf(w, " \"%s\"", inames[k])
							} else {
								fmt.Fprintf(w, " ?%d", inst)
							}
						}
					}
				}
			}
			w.WriteByte('\n')
		}
		fetched += batch
		i += batch
	}
}

// reportInDom is -f with -i or -I: the metric's instance domain, from
// pmGetInDom (pmGetInDomArchive for an archive), without a fetch.
func (t *tool) reportInDom(name string, pmid pmapi.PMID) {
	w := t.Out
	d, err := t.C.Desc(pmid)
	if err != nil {
		fmt.Fprintf(w, "%s %d %s (pmLookupDesc)\n", name, pmctx.ErrCode(err), archive.ErrText(err))
		return
	}
	if d.InDom == pmapi.InDomNull {
		fmt.Fprintf(w, "%s 1 PM_IN_NULL", name)
		if t.internal && t.external {
			w.WriteString(" PM_IN_NULL")
		}
		w.WriteByte('\n')
		return
	}
	insts, inames, err := t.instances(d.InDom)
	if err != nil {
		fmt.Fprintf(w, "%s %d %s (pmGetInDom)", name, pmctx.ErrCode(err), archive.ErrText(err))
	} else {
		fmt.Fprintf(w, "%s %d", name, len(insts))
		for j := range insts {
			if t.internal {
				fmt.Fprintf(w, " ?%d", insts[j])
			}
			if t.external {
				fmt.Fprintf(w, " \"%s\"", inames[j])
			}
		}
	}
	w.WriteByte('\n')
}

// instances is the instance domain asked for last (pmGetInDomArchive in
// an archive, pmGetInDom live), looked up again only for another one.
func (t *tool) instances(indom pmapi.InDom) ([]int32, []string, error) {
	if indom != t.lastInDom {
		if t.Opts.Kind == pmctx.KindArchive {
			t.insts, t.instNames, t.instErr = t.C.InDomArchive(indom)
		} else {
			t.insts, t.instNames, t.instErr = t.C.InDom(indom)
		}
		t.lastInDom = indom
	}
	return t.insts, t.instNames, t.instErr
}

// pduCounts is -V: the PDUs sent to and received from pmcd, by type (an
// archive or the built-in collector exchanges none, as the real tool's
// archive context reports).
func (t *tool) pduCounts() {
	var n pmcd.PDUCounts
	if c, ok := t.Live.(interface{ PDUCounts() pmcd.PDUCounts }); ok {
		n = c.PDUCounts()
	}
	w := t.Out
	for _, dir := range []struct {
		name   string
		counts *[pmcd.NumPDUTypes]uint64
	}{{"send", &n.Sent}, {"recv", &n.Received}} {
		fmt.Fprintf(w, "PDUs %s", dir.name)
		var total uint64
		for _, c := range dir.counts {
			fmt.Fprintf(w, " %3d", c)
			total += c
		}
		fmt.Fprintf(w, "\nTotal: %d\n", total)
	}
}

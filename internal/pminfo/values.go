package pminfo

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
)

// cache holds pminfo's caches: the instance domain and label sets it
// looked up last, kept until a different one is asked for (whatever the
// time of the context in between, as the real tool keeps them).
type cache struct {
	nameInDom  pmapi.InDom
	nameValid  bool
	insts      []int32
	instNames  []string
	instErr    error
	labelInDom pmapi.InDom
	labelValid bool
	instLabels []archive.LabelSet
	ctxLabels  []*archive.LabelSet
	ctxDone    bool
	dom        lastLabels[int64]
	indom      lastLabels[pmapi.InDom]
	cluster    lastLabels[uint32]
	item       lastLabels[pmapi.PMID]
	started    bool
}

// initCache sets the caches' keys to the real tool's initial ones (no
// domain, PM_INDOM_NULL, PM_ID_NULL), whose label sets are none.
func (t *tool) initCache() {
	if t.cache.started {
		return
	}
	null := pmapi.PMIDNull
	t.cache = cache{started: true}
	t.cache.dom.key = -1
	t.cache.indom.key = pmapi.InDomNull
	t.cache.cluster.key = null.Domain()<<12 | null.Cluster()
	t.cache.item.key = null
}

// instances is pmGetInDom of indom, cached (icache_update_name).
func (t *tool) instances(indom pmapi.InDom) ([]int32, []string, error) {
	t.initCache()
	c := &t.cache
	if !c.nameValid || c.nameInDom != indom {
		c.insts, c.instNames, c.instErr = t.C.InDom(indom)
		c.nameInDom, c.nameValid = indom, true
	}
	return c.insts, c.instNames, c.instErr
}

// instanceName names inst of indom from the cached instance domain.
func (t *tool) instanceName(indom pmapi.InDom, inst int32) (string, bool) {
	insts, names, _ := t.instances(indom)
	for i, id := range insts {
		if id == inst && i < len(names) {
			return names[i], true
		}
	}
	return "", false
}

// dump prints the values of one metric (mydump): each instance's, with
// its name, or the error or "No value(s) available!".
func (t *tool) dump(d *pmapi.Desc, vs *pmapi.ValueSet, indent string) {
	w := t.Out
	w.WriteString(indent)
	switch {
	case vs.NumVal == 0:
		w.WriteString("No value(s) available!\n")
		return
	case vs.NumVal < 0:
		fmt.Fprintf(w, "Error: %s\n", pmapi.Error(vs.NumVal).Error())
		return
	}
	for j := range vs.Values {
		v := &vs.Values[j]
		if d.InDom != pmapi.InDomNull {
			name, ok := t.instanceName(d.InDom, v.Inst)
			switch {
			case !ok && t.f.force:
				fmt.Fprintf(w, "    inst [%d \"%s\"]\n", v.Inst, "DISAPPEARED")
				continue
			case !ok:
				fmt.Fprintf(w, "pmNameIndom: indom=%s inst=%d: %s\n", d.InDom, v.Inst, pmapi.ErrInst.Error())
				fmt.Fprintf(w, "    inst [%d]", v.Inst)
			default:
				line := append(t.line[:0], "    inst ["...)
				line = strconv.AppendInt(line, int64(v.Inst), 10)
				line = append(line, " or \""...)
				line = append(line, name...)
				line = append(line, "\"]"...)
				w.Write(line)
				t.line = line
			}
		} else {
			w.WriteString("   ")
		}
		line := append(t.line[:0], " value "...)
		line = append(t.appendValue(line, d.Type, vs.ValFmt, v), '\n')
		w.Write(line)
		t.line = line
		if t.f.events && (d.Type == pmapi.TypeEvent || d.Type == pmapi.TypeHighresEvent) {
			t.eventDump(v, d.Type == pmapi.TypeHighresEvent)
		}
	}
}

// appendValue is pmPrintValue (pmctx.AppendValue) in the reporting zone.
func (t *tool) appendValue(b []byte, typ pmapi.Type, valfmt int32, v *pmapi.Value) []byte {
	return pmctx.AppendValue(b, typ, valfmt, v, t.Zone)
}

// appendStamp is pmPrintStamp or pmPrintHighResStamp in the reporting
// zone.
func (t *tool) appendStamp(b []byte, ts pmapi.Timestamp, highres bool) []byte {
	return pmctx.AppendStamp(b, ts, highres, t.Zone)
}

// eventDump prints the records of one event array value (-x), as
// pmUnpackEventRecords gives them: a record's flags, when it has any,
// are its first parameter (event.flags), and a "missed" record's count
// its second (event.missed).
func (t *tool) eventDump(v *pmapi.Value, highres bool) {
	w := t.Out
	ea, err := pmapi.DecodeEvents(v.Block, highres)
	if v.Block == nil || err != nil {
		fn := "pmUnpackEventRecords"
		if highres {
			fn = "pmUnpackHighResEventRecords"
		}
		t.Stderr("%s: %s: %s\n", t.Prog, fn, pmapi.ErrConv.Error())
		return
	}
	t.eventPMIDs()
	for r := range ea.Records {
		rec := &ea.Records[r]
		fmt.Fprintf(w, "    --- event record [%d] timestamp ", r)
		w.Write(t.appendStamp(nil, rec.Stamp, highres))
		params := t.unpack(rec)
		if len(params) == 0 {
			w.WriteString(" ---\n\tNo parameters\n")
			continue
		}
		flags := uint32(0)
		for p := range params {
			t.dumpParameter(&params[p], p, &flags)
		}
	}
}

// param is one value set of an unpacked event record.
type param struct {
	pmid  pmapi.PMID
	value pmapi.Value
}

// unpack is pmUnpackEventRecords for one record: event.flags first when
// the record has flags, then event.missed for a "missed" record, else the
// parameters (32-bit ones insitu).
func (t *tool) unpack(rec *pmapi.EventRecord) []param {
	var out []param
	if rec.Flags != 0 {
		out = append(out, param{t.flagsPMID, pmapi.Value{Inst: pmapi.InstNull, Insitu: int32(rec.Flags)}})
	}
	if rec.Flags&pmapi.EventFlagMissed != 0 {
		return append(out, param{t.missedPMID, pmapi.Value{Inst: pmapi.InstNull, Insitu: rec.NParams}})
	}
	for _, ep := range rec.Params {
		v := pmapi.Value{Inst: pmapi.InstNull, BlockType: ep.Type, Block: ep.Value}
		if (ep.Type == pmapi.Type32 || ep.Type == pmapi.TypeU32) && len(ep.Value) == 4 {
			v = pmapi.Value{Inst: pmapi.InstNull, Insitu: int32(binary.BigEndian.Uint32(ep.Value))}
		}
		out = append(out, param{ep.PMID, v})
	}
	return out
}

// eventPMIDs looks up event.flags and event.missed once.
func (t *tool) eventPMIDs() {
	if t.flagsPMID != 0 {
		return
	}
	for _, e := range []struct {
		name string
		p    *pmapi.PMID
	}{{"event.flags", &t.flagsPMID}, {"event.missed", &t.missedPMID}} {
		p, err := t.C.LookupName(e.name)
		if err != nil {
			t.Stderr("Warning: cannot get PMID for %s: %s\n", e.name, archive.ErrText(err))
			p = pmapi.NewPMID(p.Domain(), p.Cluster(), 1)
		}
		*e.p = p
	}
}

// dumpParameter prints one parameter of an event record.
func (t *tool) dumpParameter(p *param, idx int, flags *uint32) {
	w := t.Out
	names, err := t.C.NameAll(p.pmid)
	if err == nil {
		if idx == 0 {
			if p.pmid == t.flagsPMID {
				*flags = uint32(p.value.Insitu)
				fmt.Fprintf(w, " flags 0x%x (%s) ---\n", *flags, pmapi.EventFlagsString(*flags))
				return
			}
			w.WriteString(" ---\n")
		}
		if *flags&pmapi.EventFlagMissed != 0 && idx == 1 && p.pmid == t.missedPMID {
			fmt.Fprintf(w, "        ==> %d missed event records\n", p.value.Insitu)
			return
		}
		w.WriteString("    ")
		for i, n := range names {
			if i > 0 {
				w.WriteString(" or ")
			}
			w.WriteString(n)
		}
		fmt.Fprintf(w, " (%s)\n", p.pmid)
	} else {
		fmt.Fprintf(w, "\tPMID: %s\n", p.pmid)
	}
	d, err := t.C.Desc(p.pmid)
	if err != nil {
		fmt.Fprintf(w, "\tpmLookupDesc: %s\n", archive.ErrText(err))
		return
	}
	vs := pmapi.ValueSet{PMID: p.pmid, NumVal: 1, Values: []pmapi.Value{p.value}}
	t.dump(&d, &vs, "    ")
}

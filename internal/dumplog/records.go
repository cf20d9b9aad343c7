package dumplog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// dumpRecords prints the data records (-m), forwards or in reverse.
func (d *dumper) dumpRecords() int {
	first := func(r *archive.Record) {
		if !d.opt.reverse {
			return
		}
		// The real tool prints this once its first backwards fetch
		// works, with that record's time.
		b := append(d.buf, "\nLog finished at "...)
		b = pcptime.AppendCtime(b, d.z.Civil(r.Stamp.Sec))
		b = append(b, " - dump in reverse order\n"...)
		d.buf = b
		d.flushBuf()
	}
	return d.walk(first, d.record)
}

// walk fetches the data records as the real tool does (pmSetMode, then
// __pmLogFetch until PM_ERR_EOL): forwards from the start of the window
// (of the archive, without -S and -T), or in reverse from its end, with
// libpcp's rules (a record stamped before the one before it is passed
// over, positioning by the temporal index). Records that hold none of
// the metrics asked for are passed over, and <mark>s too unless -M asks
// for them; first is called before the first record kept (even one past
// the window) and fn for each record kept within the window. A damaged
// record ends the walk with the real tool's message and status 1, after
// every good record before it was handled.
func (d *dumper) walk(first func(*archive.Record), fn func(*archive.Record)) int {
	c := replay.NewContext(archive.NewSet(d.a, d.a.BaseName()))
	defer c.Release()
	mode, origin, done := replay.Forw, d.start, pmapi.Timestamp{Sec: math.MaxInt32}
	if d.opt.reverse {
		mode, done = replay.Back, pmapi.Timestamp{}
		end, err := d.a.End()
		if err != nil {
			end = pmapi.Timestamp{Sec: math.MaxInt32}
		}
		origin = end
	}
	if d.window {
		origin, done = d.winLo, d.winHi
		if d.opt.reverse {
			origin, done = d.winHi, d.winLo
		}
	}
	c.SetMode(mode, origin, 0)
	var err error
	for {
		var r *archive.Record
		if r, err = c.FetchRecord(); err != nil {
			break
		}
		if !d.wanted(r) {
			continue
		}
		if first != nil {
			first(r)
			first = nil
		}
		if cmp := r.Stamp.Compare(done); mode == replay.Forw && cmp > 0 || mode == replay.Back && cmp < 0 {
			return 0
		}
		fn(r)
	}
	if errors.Is(err, pmapi.ErrEOL) {
		return 0
	}
	d.flushBuf() // --json's lines not yet handed over
	d.out.Flush()
	fmt.Fprintf(d.errw, "pmdumplog: pmFetch: %s\n", archive.ErrText(err))
	return 1
}

// wanted reports whether r holds one of the metrics asked for (every
// record is wanted when none were), or is a <mark> and -M asks for them.
func (d *dumper) wanted(r *archive.Record) bool {
	if d.sel == nil {
		return true
	}
	if r.IsMark() {
		return d.opt.marks
	}
	for i := 0; i < r.NumPMID(); i++ {
		if d.sel[r.PMID(i)] {
			return true
		}
	}
	return false
}

// recordSize is the size pmdumplog reports with -s: computed from the
// (possibly filtered) result, not read from the file.
func (d *dumper) recordSize(r *archive.Record) int {
	n := 20
	if d.ver == 3 {
		n = 24
	}
	for i := 0; i < r.NumPMID(); i++ {
		if d.sel != nil && !d.sel[r.PMID(i)] {
			continue
		}
		n += 8
		nv := int(r.NumVal(i))
		if nv > 0 {
			n += 4 + 8*nv
			if r.ValFmt(i) != pmapi.ValFmtInsitu {
				for j := 0; j < nv; j++ {
					n += (r.BlockLen(i, j) + 4 + 3) &^ 3
				}
			}
		}
	}
	return n
}

func (d *dumper) record(r *archive.Record) {
	b := d.buf
	if r.IsMark() {
		b = append(b, '\n')
		if d.opt.sizes {
			b = fmt.Appendf(b, "[%d bytes]\n", d.recordSize(r))
		}
		b = d.stamp(b, r.Stamp)
		b = append(b, "  <mark>\n"...)
		d.buf = b
		d.flushBuf()
		return
	}
	// Which value sets to print, in what order.
	var order []int
	if d.sel != nil {
		for _, p := range d.pmids {
			for i := 0; i < r.NumPMID(); i++ {
				if r.PMID(i) == p {
					order = append(order, i)
					break
				}
			}
		}
		if len(order) == 0 {
			return
		}
	}
	n := r.NumPMID()
	if order != nil {
		n = len(order)
	}
	b = append(b, '\n')
	if d.opt.sizes {
		b = fmt.Appendf(b, "[%d bytes]\n", d.recordSize(r))
	}
	b = d.stamp(b, r.Stamp)
	if n == 1 {
		b = append(b, " 1 metric\n"...)
	} else {
		b = fmt.Appendf(b, " %d metrics\n", n)
	}
	for k := 0; k < n; k++ {
		i := k
		if order != nil {
			i = order[k]
		}
		b = d.vset(b, r, i)
	}
	d.buf = b
	d.flushBuf()
}

// snapshot is the instance domain of desc in force at t, nil if none: a
// record older than the domain's first state has no instance names
// (libpcp's pmNameInDomArchive looks for a state at or before the time
// of the record, and prints ???).
func (d *dumper) snapshot(desc *pmapi.Desc, t pmapi.Timestamp) *archive.InDomSnapshot {
	if desc == nil || desc.InDom == pmapi.InDomNull {
		return nil
	}
	s, ok := d.a.Meta().InDomAt(desc.InDom, t)
	if !ok || t.Before(s.Stamp) {
		return nil
	}
	return s
}

func lookupInst(s *archive.InDomSnapshot, inst int32) (string, bool) {
	if s == nil {
		return "", false
	}
	return s.Lookup(inst)
}

// appendInst appends `N or "name"`, or `N or ???` for an unknown instance.
func appendInst(b []byte, s *archive.InDomSnapshot, inst int32) []byte {
	b = strconv.AppendInt(b, int64(inst), 10)
	if name, ok := lookupInst(s, inst); ok {
		b = append(b, " or \""...)
		b = append(b, name...)
		return append(b, '"')
	}
	return append(b, " or ???"...)
}

// header appends "    PMID (names):", cached per PMID: it is the same on
// every record.
func (d *dumper) header(b []byte, p pmapi.PMID) []byte {
	h, ok := d.hdr[p]
	if !ok {
		h = fmt.Appendf(nil, "    %s (%s):", p, d.names(p, "<nonames>"))
		if d.hdr == nil {
			d.hdr = map[pmapi.PMID][]byte{}
		}
		d.hdr[p] = h
	}
	return append(b, h...)
}

func (d *dumper) vset(b []byte, r *archive.Record, i int) []byte {
	p := r.PMID(i)
	desc, _ := d.a.Meta().Desc(p)
	nv := r.NumVal(i)
	if desc != nil && (desc.Type == pmapi.TypeEvent || desc.Type == pmapi.TypeHighresEvent) && nv > 0 {
		for j := 0; j < int(nv); j++ {
			b = d.event(b, r, i, j, desc)
		}
		return b
	}
	b = d.header(b, p)
	switch {
	case nv == 0:
		return append(b, " No values returned!\n"...)
	case nv < 0:
		b = append(b, ' ')
		b = append(b, pmapi.Error(nv).Error()...)
		return append(b, '\n')
	}
	showInst := desc != nil && desc.InDom != pmapi.InDomNull
	snap := d.snapshot(desc, r.Stamp)
	for j := 0; j < int(nv); j++ {
		if nv > 1 {
			b = append(b, "\n        "...)
		} else {
			b = append(b, ' ')
		}
		v := r.Value(i, j)
		if showInst {
			b = append(b, "inst ["...)
			b = appendInst(b, snap, v.Inst)
			b = append(b, "] "...)
		}
		b = append(b, "value "...)
		b = d.appendValue(b, desc, &v)
	}
	return append(b, '\n')
}

func (d *dumper) appendValue(b []byte, desc *pmapi.Desc, v *pmapi.Value) []byte {
	t := pmapi.TypeAggregate
	if desc != nil {
		t = desc.Type
	}
	if v.Block == nil && desc == nil {
		t = pmapi.Type32
	}
	return pmapi.AppendValue(b, t, v)
}

// event prints one instance of an event-record-array metric.
func (d *dumper) event(b []byte, r *archive.Record, i, j int, desc *pmapi.Desc) []byte {
	p := r.PMID(i)
	v := r.Value(i, j)
	b = fmt.Appendf(b, "    %s (%s", p, d.names(p, "<nonames>"))
	if desc.InDom != pmapi.InDomNull {
		b = append(b, '[')
		b = appendInst(b, d.snapshot(desc, r.Stamp), v.Inst)
		b = append(b, ']')
	}
	b = append(b, "): "...)
	ea, err := pmapi.DecodeEvents(v.Block, desc.Type == pmapi.TypeHighresEvent)
	if err != nil {
		return fmt.Appendf(b, "%s\n", err)
	}
	nrec := len(ea.Records)
	missed := 0
	for _, er := range ea.Records {
		if er.Flags&pmapi.EventFlagMissed != 0 {
			missed += int(er.NParams)
		}
	}
	switch {
	case nrec == 0:
		return append(b, "No event records\n"...)
	case missed > 0:
		b = fmt.Appendf(b, "%d (and %d missed) event records\n", nrec, missed)
	case nrec == 1:
		b = append(b, "1 event record\n"...)
	default:
		b = fmt.Appendf(b, "%d event records\n", nrec)
	}
	for k, er := range ea.Records {
		b = fmt.Appendf(b, "        --- event record [%d] timestamp ", k)
		if ea.HighRes {
			// Observed: highres event stamps never get the -x forms.
			b = pcptime.AppendClock(b, d.z.Civil(er.Stamp.Sec))
			b = appendFrac(b, er.Stamp.Nsec, 3)
		} else {
			// Observed: event stamps stop at the -xx form.
			b = d.stampX(b, er.Stamp, 2, min(d.opt.xflag, 2))
		}
		if er.Flags != 0 {
			b = fmt.Appendf(b, " flags 0x%x (%s)", er.Flags, pmapi.EventFlagsString(er.Flags))
		}
		b = append(b, " ---\n"...)
		if er.Flags&pmapi.EventFlagMissed != 0 {
			b = fmt.Appendf(b, "        ==> %d missed event records\n", er.NParams)
			continue
		}
		// Observed: only a record with no flags and no parameters says so.
		if len(er.Params) == 0 && er.Flags == 0 {
			b = append(b, "\t          No parameters\n"...)
		}
		for _, ep := range er.Params {
			pdesc, ok := d.a.Meta().Desc(ep.PMID)
			if !ok {
				b = fmt.Appendf(b, "        PMID: %s: pmLookupDesc: %s\n", ep.PMID, pmapi.ErrPMIDLog.Error())
				continue
			}
			b = fmt.Appendf(b, "        %s (%s): value ", ep.PMID, d.names(ep.PMID, "<nonames>"))
			pv := pmapi.Value{Inst: pmapi.InstNull, BlockType: ep.Type, Block: ep.Value}
			// Unpacked event parameters of 32-bit types are insitu.
			if (ep.Type == pmapi.Type32 || ep.Type == pmapi.TypeU32) && len(ep.Value) == 4 {
				pv = pmapi.Value{Inst: pmapi.InstNull, Insitu: int32(binary.BigEndian.Uint32(ep.Value))}
			}
			b = pmapi.AppendValue(b, pdesc.Type, &pv)
			b = append(b, '\n')
		}
	}
	return b
}

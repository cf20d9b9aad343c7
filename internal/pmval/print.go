package pmval

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// howide is the default column width for values of a type.
func howide(t pmapi.Type) int {
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		return 11
	case pmapi.Type64, pmapi.TypeU64:
		return 21
	case pmapi.TypeFloat:
		return 13
	case pmapi.TypeDouble, pmapi.TypeString, pmapi.TypeAggregate, pmapi.TypeAggregateStat:
		return 21
	case pmapi.TypeEvent, pmapi.TypeHighresEvent:
		return 0
	}
	return -1
}

// typeStr is pmTypeStr.
func typeStr(t pmapi.Type) string {
	if t == pmapi.TypeNoSupport {
		return "NO_SUPPORT"
	}
	if s := t.String(); !strings.HasPrefix(s, "Type=") {
		return s
	}
	return "???" // pmTypeStr's name for a type it does not know
}

// timestamp prints a sample time: HH:MM:SS.mmm, or with -X the date and
// microseconds, with -XX nanoseconds. The milliseconds are the
// nanoseconds divided by a million, so an unnormalised time shows
// ".1000".
//
// Live reports have no timestamps: it prints nothing then.
func (t *tool) timestamp(ts pmapi.Timestamp) {
	if t.live != nil {
		return
	}
	c := t.zone.Civil(ts.Sec)
	b := t.stamp[:0]
	if t.xflag == 0 {
		b = pcptime.AppendClock(b, c)
		b = append(b, '.')
		b = appendPadded(b, int64(ts.Nsec)/1e6, 3)
	} else {
		b = pcptime.AppendCtimeDate(b, c)
		b = append(b, ' ')
		b = pcptime.AppendClock(b, c)
		b = append(b, '.')
		if t.xflag == 1 {
			b = appendPadded(b, int64(ts.Nsec)/1e3, 6)
		} else {
			b = appendPadded(b, int64(ts.Nsec), 9)
		}
		b = append(b, ' ')
		b = pcptime.AppendYear(b, c)
	}
	t.out.Write(b)
	t.stamp = b[:0]
}

// stampSep prints a sample time and the two spaces that follow it before
// a message or events; nothing live.
func (t *tool) stampSep(ts pmapi.Timestamp) {
	if t.live == nil {
		t.timestamp(ts)
		t.out.WriteString("  ")
	}
}

// appendPadded appends v with at least digits digits (%0*d).
func appendPadded(b []byte, v int64, digits int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for i := len(s); i < digits; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// ctime is pmCtime: ctime(3) in the reporting zone, with its newline.
func (t *tool) ctime(sec int64) string { return t.zone.Ctime(sec) + "\n" }

// printHeader prints the block that describes the report.
func (t *tool) printHeader() {
	w := t.out
	if !t.events {
		fmt.Fprintf(w, "metric:    %s\n", t.metric)
	}
	if t.live != nil {
		fmt.Fprintf(w, "host:      %s\n", t.host)
	} else {
		fmt.Fprintf(w, "archive:   %s\n", t.source)
		fmt.Fprintf(w, "host:      %s\n", t.host)
		// (6.0.3 prints pmCtime here, -X or not.)
		start, end := t.origin, t.finish
		if t.o.reverse {
			start, end = end, start
		}
		w.WriteString("start:     ")
		w.WriteString(t.ctime(start.Sec))
		if end.Sec != getopt.UnknownEndSec {
			w.WriteString("end:       ")
			w.WriteString(t.ctime(end.Sec))
		}
	}
	if !t.events {
		w.WriteString("semantics: ")
		switch t.desc.Sem {
		case pmapi.SemCounter:
			w.WriteString("cumulative counter")
			if !t.raw {
				w.WriteString(" (converting to rate)")
			}
		case pmapi.SemInstant:
			w.WriteString("instantaneous value")
		case pmapi.SemDiscrete:
			w.WriteString("discrete instantaneous value")
		default:
			w.WriteString("unknown")
		}
		w.WriteString("\n")
		units := t.desc.Units
		u := units.String()
		if u == "" {
			u = "none"
		}
		fmt.Fprintf(w, "units:     %s", u)
		if !t.raw && t.desc.Sem == pmapi.SemCounter {
			w.WriteString(" (converting to ")
			if units.DimTime == 0 {
				units.ScaleTime = pmapi.TimeSec
			}
			units.DimTime--
			if units.DimSpace == 0 && units.DimTime == 0 && units.DimCount == 0 {
				w.WriteString("time utilization)")
			} else {
				u := units.String()
				if u == "" {
					u = "none"
				}
				fmt.Fprintf(w, "%s)", u)
			}
		}
		w.WriteString("\n")
	}
	if t.samples < 0 {
		w.WriteString("samples:   all\n")
	} else {
		fmt.Fprintf(w, "samples:   %d\n", t.samples)
	}
	if t.samples > 1 && !t.rawArc {
		fmt.Fprintf(w, "interval:  %s sec\n", strconv.FormatFloat(t.intervalReal(), 'f', 2, 64))
	}
}

// printLabels prints the instance names as column headings.
func (t *tool) printLabels() {
	if t.events {
		return
	}
	w := t.out
	cols := t.cols
	if t.labelStyle == -1 {
		t.labelStyle = 0
		for _, p := range t.pairs {
			if len(p.name) > cols {
				t.labelStyle = 2
				break
			}
			if len(p.name) > cols-3 {
				t.labelStyle = 1
			}
		}
		if t.labelStyle == 2 {
			for i, p := range t.pairs {
				fmt.Fprintf(w, "full label for instance[%d]: %s\n", i, p.name)
			}
		}
	}
	w.WriteString("\n")
	for i, p := range t.pairs {
		if i == 0 && t.live == nil {
			switch {
			case t.xflag > 1:
				w.WriteString(strings.Repeat(" ", 34))
			case t.xflag == 1:
				w.WriteString(strings.Repeat(" ", 31))
			default:
				w.WriteString(strings.Repeat(" ", 12))
			}
		}
		if t.raw || t.desc.Sem != pmapi.SemCounter || t.labelStyle != 0 {
			w.WriteString(field(p.name, cols, cols))
			w.WriteString(" ")
		} else if t.fixed == -1 {
			w.WriteString(field(p.name, cols-3, cols-3))
			w.WriteString("    ")
		} else {
			w.WriteString(field(p.name, cols, cols))
			w.WriteString(" ")
		}
	}
	if len(t.pairs) > 0 {
		w.WriteString("\n")
	}
}

// field is printf's "%*.*s": s cut to prec bytes, right-aligned in width.
func field(s string, width, prec int) string {
	if prec >= 0 && len(s) > prec {
		s = s[:prec]
	}
	return pad(s, width)
}

// pad right-aligns s in width columns ("%*s").
func pad(s string, width int) string {
	if len(s) >= width {
		return s
	}
	return strings.Repeat(" ", width-len(s)) + s
}

// printReal prints a double as pmval does: "!" for a negative counter
// rate, -f's fixed format, or a format that keeps about four significant
// digits within the column.
func (t *tool) printReal(v float64, sem pmapi.Sem, minwidth int) {
	b := appendReal(t.scratch[:0], v, sem, minwidth, t.fixed)
	t.out.Write(b)
	t.scratch = b[:0]
}

// appendReal appends printReal's text (fixed: -f's precision, or -1).
func appendReal(b []byte, v float64, sem pmapi.Sem, minwidth, fixed int) []byte {
	var nb [32]byte
	if v < 0 && sem == pmapi.SemCounter {
		return appendPad(b, "!", minwidth)
	}
	if fixed != -1 {
		return appendPadBytes(b, appendF(nb[:0], v, fixed), minwidth)
	}
	switch {
	case v == 0:
		b = appendPadBytes(b, appendF(nb[:0], v, 0), minwidth-5)
		return append(b, ".0   "...)
	case v < 0.1 || v > 9999:
		return appendPadBytes(b, appendE(nb[:0], v, 3), minwidth)
	case v <= 0.9999:
		return appendPadBytes(b, appendF(nb[:0], v, 4), minwidth)
	case v <= 9.999:
		b = appendPadBytes(b, appendF(nb[:0], v, 3), minwidth-1)
		return append(b, ' ')
	case v <= 99.99:
		b = appendPadBytes(b, appendF(nb[:0], v, 2), minwidth-2)
		return append(b, "  "...)
	case v <= 999.9:
		b = appendPadBytes(b, appendF(nb[:0], v, 1), minwidth-3)
		return append(b, "   "...)
	default:
		b = appendPadBytes(b, appendF(nb[:0], v, 0), minwidth-5)
		return append(b, ".    "...)
	}
}

// appendSpaces appends n spaces (none if n <= 0).
func appendSpaces(b []byte, n int) []byte {
	for n > 0 {
		k := min(n, len(spaces))
		b = append(b, spaces[:k]...)
		n -= k
	}
	return b
}

// appendPadBytes appends s right-aligned in width columns ("%*s").
func appendPadBytes(b, s []byte, width int) []byte {
	return append(appendSpaces(b, width-len(s)), s...)
}

// appendPad appends s right-aligned in width columns ("%*s").
func appendPad(b []byte, s string, width int) []byte {
	return append(appendSpaces(b, width-len(s)), s...)
}

// writePaddedString writes s right-aligned in width columns ("%*s"), as
// pad.
func (t *tool) writePaddedString(s string, width int) {
	for n := width - len(s); n > 0; n -= len(spaces) {
		t.out.WriteString(spaces[:min(n, len(spaces))])
	}
	t.out.WriteString(s)
}

const spaces = "                                "

// appendF and appendE append formatF's and formatE's text to dst
// (pmapi.AppendFixed and AppendExp: strconv's digits, faster).
func appendF(dst []byte, v float64, prec int) []byte {
	if math.IsInf(v, 0) || v != v {
		return append(dst, formatF(v, prec)...)
	}
	return pmapi.AppendFixed(dst, v, prec)
}

func appendE(dst []byte, v float64, prec int) []byte {
	if math.IsInf(v, 0) || v != v {
		return append(dst, formatE(v, prec)...)
	}
	return pmapi.AppendExp(dst, v, prec)
}

// formatF is C's "%.<prec>f", with "inf" and "nan" as C prints them.
func formatF(v float64, prec int) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v != v:
		if math.Signbit(v) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// formatE is C's "%.<prec>E": a mantissa, "E", a sign and at least two
// exponent digits; "inf", "nan" as C prints them (in upper case).
func formatE(v float64, prec int) string {
	switch {
	case math.IsInf(v, 1):
		return "INF"
	case math.IsInf(v, -1):
		return "-INF"
	case v != v:
		if math.Signbit(v) {
			return "-NAN"
		}
		return "NAN"
	}
	return strconv.FormatFloat(v, 'E', prec, 64)
}

// extract is pmExtractValue of v to a double (pmapi.Value.Float64). Where
// that fails, pmval stops as the real one does: after what it printed
// (partial: the line so far, still to be written), with the function that
// asked (fn) and, if it is not negative, the value's index j in the
// message.
func (t *tool) extract(v *pmapi.Value, fn string, j int, partial []byte) float64 {
	x, err := v.Float64(t.desc.Type)
	if err != nil {
		t.out.Write(partial)
		if j >= 0 {
			fn = fmt.Sprintf("%s[%d]", fn, j)
		}
		t.fail("pmval:%s pmExtractValue: %s\n", fn, archive.ErrText(err))
	}
	return x
}

// printValue is pmPrintValue with a minimum width.
func (t *tool) printValue(v *pmapi.Value, minwidth int) {
	s := string(pmapi.AppendValue(nil, t.desc.Type, v))
	if v.Block != nil && !isTyped(t.desc.Type, v) {
		// A dump: the first of its parts takes the width.
		first, rest := dumpFirst(s)
		t.out.WriteString(pad(first, minwidth))
		t.out.WriteString(rest)
		return
	}
	t.out.WriteString(pad(s, minwidth))
}

// isTyped reports whether pmPrintValue prints a block as its type rather
// than dumping it.
func isTyped(typ pmapi.Type, v *pmapi.Value) bool {
	if v.BlockType != typ && v.BlockType != pmapi.Type32 {
		return false
	}
	switch typ {
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		return len(v.Block) == 8
	case pmapi.TypeFloat:
		return len(v.Block) == 4
	case pmapi.TypeString:
		return true
	}
	return false
}

// dumpFirst splits a dump into its first part (a number, a quoted
// string or the bracketed bytes) and the rest.
func dumpFirst(s string) (string, string) {
	if strings.HasPrefix(s, "\"") {
		// the quoted bytes are printable and hold no quote
		if j := strings.IndexByte(s[1:], '"'); j >= 0 {
			return s[:j+2], s[j+2:]
		}
	}
	if strings.HasPrefix(s, "[") {
		return s, ""
	}
	if j := strings.IndexByte(s, ' '); j >= 0 {
		return s[:j], s[j:]
	}
	return s, ""
}

// printVals prints the values of one fetch.
func (t *tool) printVals(vs *pmapi.ValueSet) {
	doReal := t.desc.Type == pmapi.TypeFloat || t.desc.Type == pmapi.TypeDouble
	// one prints value j (j -1: the value of a singular metric)
	one := func(j int, width int) {
		v := &vs.Values[max(j, 0)]
		if doReal {
			t.printReal(t.extract(v, "printvals", j, nil), t.desc.Sem, width)
		} else {
			t.printValue(v, width)
		}
	}
	if t.desc.InDom == pmapi.InDomNull {
		if vs.NumVal == 1 {
			one(-1, t.cols)
		} else {
			t.writePaddedString("?", t.cols)
		}
		t.out.WriteString("\n")
		return
	}
	for _, p := range t.pairs {
		found := false
		if j := findInst(vs.Values, p.id); j >= 0 {
			one(j, t.cols)
			found = true
		}
		if !found {
			t.writePaddedString("?", t.cols)
		}
		t.out.WriteString(" ")
	}
	t.out.WriteString("\n")
	for j := range vs.Values {
		if t.iall && !t.known(vs.Values[j].Inst) {
			t.out.WriteString("Warning: value=")
			one(j, 1)
			fmt.Fprintf(t.out, ", but instance=%d is unknown\n", vs.Values[j].Inst)
		}
	}
}

func (t *tool) known(inst int32) bool {
	// t.pairs is sorted by id.
	lo, hi := 0, len(t.pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.pairs[m].id < inst {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(t.pairs) && t.pairs[lo].id == inst
}

// allKnown reports whether every instance of vals (sorted by instance)
// is in t.pairs, walking both together.
func (t *tool) allKnown(vals []pmapi.Value) bool {
	at := 0
	for i := range vals {
		id := vals[i].Inst
		for at < len(t.pairs) && t.pairs[at].id < id {
			at++
		}
		if at == len(t.pairs) || t.pairs[at].id != id {
			return false
		}
	}
	return true
}

// sortByInst sorts a fetch's values by instance, stably (as pmval's
// qsort of them; libpcp never gives an instance twice).
func sortByInst(vals []pmapi.Value) {
	if slices.IsSortedFunc(vals, cmpInst) {
		return
	}
	slices.SortStableFunc(vals, cmpInst)
}

func cmpInst(a, b pmapi.Value) int { return cmp.Compare(a.Inst, b.Inst) }

// printRate prints the rate between two values of a counter.
func (t *tool) printRate(cur, prev *pmapi.Value, delta float64, width int) {
	t.printReal(t.rate(cur, prev, delta, nil), pmapi.SemCounter, width)
}

// rate is the rate of a counter between two values delta seconds apart
// (partial: the line printed so far, for extract). With --reverse the
// current value is the earlier one: the rate is still taken from the
// earlier value to the later.
func (t *tool) rate(cur, prev *pmapi.Value, delta float64, partial []byte) float64 {
	if t.o.reverse {
		cur, prev, delta = prev, cur, -delta
	}
	// (the real pmval's names)
	v := t.extract(cur, "printrate prev", -1, partial) - t.extract(prev, "printrate this", -1, partial)
	if v < 0 && t.counterWrap() {
		switch t.desc.Type {
		case pmapi.Type32, pmapi.TypeU32:
			v += float64(math.MaxUint32) + 1
		case pmapi.Type64, pmapi.TypeU64:
			v += float64(math.MaxUint64) + 1
		}
	}
	return v / delta
}

// findInst is the index of the first value of instance id in vals, which
// getvals has sorted by instance, or -1.
func findInst(vals []pmapi.Value, id int32) int {
	lo, hi := 0, len(vals)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if vals[m].Inst < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(vals) && vals[lo].Inst == id {
		return lo
	}
	return -1
}

// counterWrap reports whether PCP_COUNTER_WRAP is in the environment,
// even empty, as pmval's getenv(...) != NULL tests it (looked up once).
func (t *tool) counterWrap() bool {
	if t.wrapEnv == 0 {
		t.wrapEnv = -1
		if _, ok := os.LookupEnv("PCP_COUNTER_WRAP"); ok {
			t.wrapEnv = 1
		}
	}
	return t.wrapEnv > 0
}

// printRates prints the rates of a counter between two fetches.
func (t *tool) printRates(cur *pmapi.ValueSet, curStamp pmapi.Timestamp, prev *pmapi.ValueSet, prevStamp pmapi.Timestamp) {
	delta := t.scale * (realTime(curStamp) - realTime(prevStamp))
	if t.desc.InDom == pmapi.InDomNull {
		if cur.NumVal == 1 && prev.NumVal == 1 {
			t.printRate(&cur.Values[0], &prev.Values[0], delta, t.cols)
		} else {
			t.writePaddedString("?", t.cols)
		}
		t.out.WriteString("\n")
		return
	}
	// The line is made in t.line and written at once; cur's values and
	// t.pairs are both sorted by instance, so they are walked together.
	b := t.line[:0]
	fixed := t.fixed
	at := 0
	for _, p := range t.pairs {
		for at < len(cur.Values) && cur.Values[at].Inst < p.id {
			at++
		}
		j, k := -1, -1
		if at < len(cur.Values) && cur.Values[at].Inst == p.id {
			j = at
			if j < len(prev.Values) && prev.Values[j].Inst == cur.Values[j].Inst {
				k = j
			} else {
				k = findInst(prev.Values, p.id)
			}
		}
		if j >= 0 && k >= 0 {
			b = appendReal(b, t.rate(&cur.Values[j], &prev.Values[k], delta, b), pmapi.SemCounter, t.cols, fixed)
		} else {
			b = appendPad(b, "?", t.cols)
		}
		b = append(b, ' ')
	}
	b = append(b, '\n')
	t.out.Write(b)
	t.line = b[:0]
	if !t.iall || t.allKnown(cur.Values) {
		return
	}
	for j := range cur.Values {
		if t.iall && !t.known(cur.Values[j].Inst) && j < len(prev.Values) && cur.Values[j].Inst == prev.Values[j].Inst {
			t.out.WriteString("Warning: value=")
			t.printRate(&cur.Values[j], &prev.Values[j], delta, 1)
			fmt.Fprintf(t.out, ", but instance=%d is unknown\n", cur.Values[j].Inst)
		}
	}
}

// printEvents prints the event records of each instance of one fetch:
// a line with the metric, the instance and the count of records (every
// record counted, a "missed" one included; always "records"), then each
// record: its time in the reporting zone (milliseconds for EVENT,
// nanoseconds for HIGHRES_EVENT, whatever -X says), its flags if any,
// then its parameters, one a line, as "name value" with pmPrintValue's
// text of the value; a missed record says how many were missed, and a
// record with neither flags nor parameters says "No parameters". The
// first instance follows the sample time on its line; the others start
// lines of their own.
func (t *tool) printEvents(vs *pmapi.ValueSet) {
	w := t.out
	for i := range vs.Values {
		v := &vs.Values[i]
		if !t.iall && t.desc.InDom != pmapi.InDomNull && !t.known(v.Inst) {
			// -i: only the instances asked for, even from
			// pmFetchArchive (-U), which has no profile.
			continue
		}
		w.WriteString(t.metric)
		if t.desc.InDom != pmapi.InDomNull {
			fmt.Fprintf(w, "[%s]", t.eventInstName(v.Inst))
		}
		if v.Block == nil {
			// Not an event array (not seen in an archive; pmUnpack*
			// refuses an insitu value).
			fmt.Fprintf(w, ": pmUnpackEventRecords: %s\n", pmapi.ErrConv.Error())
			continue
		}
		highres := t.desc.Type == pmapi.TypeHighresEvent
		ea, err := pmapi.DecodeEvents(v.Block, highres)
		if err != nil {
			// Not seen in the shared archives: what libpcp says for a
			// damaged array is not known.
			fmt.Fprintf(w, ": pmUnpackEventRecords: %s\n", pmapi.ErrConv.Error())
			continue
		}
		fmt.Fprintf(w, ": %d event records\n", len(ea.Records))
		for k := range ea.Records {
			er := &ea.Records[k]
			c := t.zone.Civil(er.Stamp.Sec)
			b := append([]byte("  "), pcptime.AppendClock(nil, c)...)
			b = append(b, '.')
			if highres {
				b = appendPadded(b, int64(er.Stamp.Nsec), 9)
			} else {
				b = appendPadded(b, int64(er.Stamp.Nsec)/1e6, 3)
			}
			b = fmt.Appendf(b, " --- event record [%d]", k)
			if er.Flags != 0 {
				b = fmt.Appendf(b, " flags 0x%x (%s)", er.Flags, pmapi.EventFlagsString(er.Flags))
			}
			b = append(b, " ---\n"...)
			w.Write(b)
			if er.Flags&pmapi.EventFlagMissed != 0 {
				fmt.Fprintf(w, "    ==> %d missed event records\n", er.NParams)
				continue
			}
			if er.Flags == 0 && len(er.Params) == 0 {
				w.WriteString("    ==> No parameters\n")
				continue
			}
			for _, ep := range er.Params {
				t.printEventParam(ep)
			}
		}
	}
}

// printEventParam prints one parameter of an event record.
func (t *tool) printEventParam(ep pmapi.EventParam) {
	w := t.out
	name, d, ok, known := t.paramNameDesc(ep.PMID)
	if !ok {
		fmt.Fprintf(w, "\t%s: pmNameID: %s\n", ep.PMID, pmapi.ErrPMID.Error())
		return
	}
	if !known {
		// A name without a descriptor is not seen in the shared
		// archives: this follows the pmNameID line.
		fmt.Fprintf(w, "\t%s: pmLookupDesc: %s\n", name, pmapi.ErrPMIDLog.Error())
		return
	}
	if d.Type == pmapi.TypeAggregate || d.Type == pmapi.TypeAggregateStat {
		// pmval prints an aggregate as its bytes only, not as
		// pmPrintValue's dump (the static kind is inferred).
		fmt.Fprintf(w, "    %s [%x]\n", name, ep.Value)
		return
	}
	pv := pmapi.Value{Inst: pmapi.InstNull, BlockType: ep.Type, Block: ep.Value}
	// Unpacked parameters of the 32-bit types are insitu values.
	if (ep.Type == pmapi.Type32 || ep.Type == pmapi.TypeU32) && len(ep.Value) == 4 {
		pv = pmapi.Value{Inst: pmapi.InstNull, Insitu: int32(binary.BigEndian.Uint32(ep.Value))}
	}
	fmt.Fprintf(w, "    %s %s\n", name, pmapi.AppendValue(nil, d.Type, &pv))
}

// eventInstName names an instance of an event metric: by its name in
// the instance domain, or by its number when it has none.
func (t *tool) eventInstName(inst int32) string {
	for _, p := range t.pairs {
		if p.id == inst {
			return p.name
		}
	}
	if t.live != nil {
		if name, err := t.live.c.InstName(t.desc.InDom, inst); err == nil {
			return name
		}
		return strconv.Itoa(int(inst))
	}
	hist := t.c.Meta().InDomHistory(t.desc.InDom)
	for i := len(hist) - 1; i >= 0; i-- {
		for j, id := range hist[i].Insts {
			if id == inst {
				return hist[i].Names[j]
			}
		}
	}
	return strconv.Itoa(int(inst))
}

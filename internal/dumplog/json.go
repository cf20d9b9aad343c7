package dumplog

import (
	"sort"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The documents --json prints, one per line (JSON Lines; field names are
// stable, see docs/json.md), in the text's order of sections: the label
// (-l, -L), one per metric descriptor (-d), one per instance domain state
// (-i), then one per record (-m, and the default), written straight into
// the output buffer: the records stream as fast as the text.

// jsonRecord, jsonMetricValues and jsonValue are a record line, as the
// tests read it: the record's value sets in its order, each with its
// metric's fields and its values (as pminfo --json groups them).
type jsonRecord struct {
	Timestamp string             `json:"timestamp"` // jsonfmt.TimeLayout
	Sec       int64              `json:"sec"`
	Nsec      int32              `json:"nsec"`
	Mark      bool               `json:"mark,omitempty"`
	Metrics   []jsonMetricValues `json:"metrics,omitempty"`
}

type jsonMetricValues struct {
	PMID      string      `json:"pmid"`
	Name      string      `json:"name,omitempty"`
	Type      string      `json:"type,omitempty"`
	Semantics string      `json:"semantics,omitempty"`
	Units     string      `json:"units,omitempty"`
	Error     string      `json:"error,omitempty"` // numval < 0
	Values    []jsonValue `json:"values,omitempty"`
}

type jsonValue struct {
	Inst     *int32 `json:"inst,omitempty"`
	InstName string `json:"instname,omitempty"`
	Value    any    `json:"value"`
}

// jsonMetric is what a metric's value set starts with, built once per
// PMID: the object's opening and the metric's fields; and, per position in
// the value set, a value's opening up to the value for the instance last
// seen there (instance number and name encoded once, not per record).
type jsonMetric struct {
	pmid   pmapi.PMID
	sel    bool   // a metric asked for (all are, without metric names)
	prefix []byte // {"pmid":...,"name":...,"type":...,"semantics":...,"units":...
	desc   *pmapi.Desc
	snap   *archive.InDomSnapshot // the state the openings' names came from
	opens  []jsonOpen             // per value position
}

// jsonOpen is a value's opening: {"inst":N,"instname":"...","value":
// for instance inst ({"value": for a singular metric).
type jsonOpen struct {
	inst int32
	b    []byte
}

// jsonFlushAt is the size at which --json hands its lines to the output:
// large enough that they go to the file in one write, without a copy
// into the bufio.Writer's buffer.
const jsonFlushAt = 128 << 10

// dumpJSON prints the sections the options select as JSON Lines.
func (d *dumper) dumpJSON() int {
	o := &d.opt
	if o.label {
		d.jsonLabel()
	}
	if o.descs {
		d.jsonDescs()
	}
	if o.insts {
		d.jsonInDoms()
	}
	if !o.metrics {
		return 0
	}
	defer d.flushBuf()
	d.buf = make([]byte, 0, jsonFlushAt+jsonFlushAt/4) // room for the line that crosses jsonFlushAt
	return d.walk(nil, func(r *archive.Record) {
		b := append(d.buf, '{')
		b = jsonfmt.AppendStamp(b, r.Stamp.Sec, int64(r.Stamp.Nsec))
		if r.IsMark() {
			b = append(b, `,"mark":true`...)
		}
		n := 0
		for i, np := 0, r.NumPMID(); i < np; i++ {
			var m *jsonMetric
			if p := r.PMID(i); i < len(d.jsonPos) && d.jsonPos[i] != nil && d.jsonPos[i].pmid == p {
				m = d.jsonPos[i] // inline: this runs for every value set, even with one metric asked for
			} else {
				m = d.jsonMetricAt(r, i)
			}
			if m.sel {
				b, n = d.jsonValues(b, r, i, m, n)
			}
		}
		if n > 0 {
			b = append(b, ']')
		}
		d.buf = append(b, '}', '\n')
		if len(d.buf) >= jsonFlushAt {
			d.flushBuf()
		}
	})
}

// jsonValues appends value set i of r (metric m) to the "metrics" array,
// n value sets being there already, and returns the new count. A value
// set with no values and no error has no entry.
func (d *dumper) jsonValues(b []byte, r *archive.Record, i int, m *jsonMetric, n int) ([]byte, int) {
	nv := r.NumVal(i)
	if nv == 0 {
		return b, n
	}
	b = jsonSep(b, n)
	b = append(b, m.prefix...)
	if nv < 0 {
		b = append(b, `,"error":`...)
		b = jsonfmt.AppendString(b, pmapi.Error(nv).Error())
		return append(b, '}'), n + 1
	}
	if snap := d.snapshot(m.desc, r.Stamp); snap != m.snap {
		m.snap, m.opens = snap, m.opens[:0]
	}
	b = append(b, `,"values":[`...)
	for j := 0; j < int(nv); j++ {
		v := r.Value(i, j)
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, m.open(j, v.Inst)...)
		b = appendJSONValue(b, m.desc, &v, &d.scratch)
		b = append(b, '}')
	}
	return append(b, ']', '}'), n + 1
}

// jsonSep appends what comes before the n-th value set of a record: the
// "metrics" array's opening, or a comma.
func jsonSep(b []byte, n int) []byte {
	if n == 0 {
		return append(b, `,"metrics":[`...)
	}
	return append(b, ',')
}

// open returns the opening of the value at position j, of instance inst,
// named from m.snap.
func (m *jsonMetric) open(j int, inst int32) []byte {
	if j < len(m.opens) && m.opens[j].b != nil && m.opens[j].inst == inst {
		return m.opens[j].b
	}
	b := []byte{'{'}
	if inst != pmapi.InstNull {
		b = append(b, `"inst":`...)
		b = strconv.AppendInt(b, int64(inst), 10)
		if name, ok := lookupInst(m.snap, inst); ok && name != "" {
			b = append(b, `,"instname":`...)
			b = jsonfmt.AppendString(b, name)
		}
		b = append(b, ',')
	}
	b = append(b, `"value":`...)
	for len(m.opens) <= j {
		m.opens = append(m.opens, jsonOpen{})
	}
	m.opens[j] = jsonOpen{inst: inst, b: b}
	return b
}

// jsonMetricAt returns the metric of value set i of r, from the cache of
// the metric last seen at that position (records of an archive mostly
// repeat one sequence of PMIDs), else from the per-PMID one.
func (d *dumper) jsonMetricAt(r *archive.Record, i int) *jsonMetric {
	p := r.PMID(i)
	if i < len(d.jsonPos) {
		if m := d.jsonPos[i]; m != nil && m.pmid == p {
			return m
		}
	}
	m := d.jsonMetric(p)
	for len(d.jsonPos) <= i {
		d.jsonPos = append(d.jsonPos, nil)
	}
	d.jsonPos[i] = m
	return m
}

// jsonMetric returns p's cached fields.
func (d *dumper) jsonMetric(p pmapi.PMID) *jsonMetric {
	if m, ok := d.jsonMetrics[p]; ok {
		return m
	}
	desc, _ := d.a.Meta().Desc(p)
	b := append([]byte(nil), `{"pmid":"`...)
	b = append(b, p.String()...)
	b = append(b, '"')
	if n := d.ns.Names(p); len(n) > 0 {
		b = append(b, `,"name":`...)
		b = jsonfmt.AppendString(b, n[0])
	}
	if desc != nil {
		b = appendDescFields(b, desc)
	}
	m := &jsonMetric{pmid: p, sel: d.sel == nil || d.sel[p], prefix: b, desc: desc}
	if d.jsonMetrics == nil {
		d.jsonMetrics = map[pmapi.PMID]*jsonMetric{}
	}
	d.jsonMetrics[p] = m
	return m
}

// appendDescFields appends ,"type":...,"semantics":...,"units":... as
// pminfo --json names them (units "none" for none); the type alone for a
// metric not supported (NOSUPPORT).
func appendDescFields(b []byte, desc *pmapi.Desc) []byte {
	b = append(b, `,"type":`...)
	b = jsonfmt.AppendString(b, desc.Type.String())
	if desc.Type == pmapi.TypeNoSupport {
		return b // the text, pmPrintDesc, stops there too
	}
	b = append(b, `,"semantics":`...)
	b = jsonfmt.AppendString(b, desc.Sem.String())
	u := desc.Units.String()
	if u == "" {
		u = "none"
	}
	b = append(b, `,"units":`...)
	return jsonfmt.AppendString(b, u)
}

// appendJSONValue appends a value as a JSON number (integers exactly,
// finite floats as the text prints them) or string (strings; the text the
// real pmdumplog prints for aggregates, events and non-finite floats).
// scratch is a reusable buffer.
func appendJSONValue(b []byte, desc *pmapi.Desc, v *pmapi.Value, scratch *[]byte) []byte {
	t := pmapi.TypeAggregate
	if desc != nil {
		t = desc.Type
	}
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64:
		return pmapi.AppendValue(b, t, v)
	case pmapi.TypeFloat, pmapi.TypeDouble:
		start := len(b)
		b = pmapi.AppendValue(b, t, v)
		if jsonfmt.IsNumber(b[start:]) {
			return b
		}
		*scratch = append((*scratch)[:0], b[start:]...)
		return jsonfmt.AppendString(b[:start], string(*scratch))
	}
	s := pmapi.AppendValue((*scratch)[:0], t, v)
	*scratch = s
	if t == pmapi.TypeString && len(s) >= 2 {
		s = s[1 : len(s)-1] // the text's quotes
	}
	return jsonfmt.AppendString(b, string(s))
}

// jsonLabel prints {"label":{...}}: the archive label's fields.
func (d *dumper) jsonLabel() {
	l := d.a.Label()
	b := append(d.buf, `{"label":{"format_version":`...)
	b = strconv.AppendInt(b, int64(l.Version), 10)
	b = append(b, `,"host":`...)
	b = jsonfmt.AppendString(b, l.Hostname)
	b = append(b, `,"timezone":`...)
	b = jsonfmt.AppendString(b, l.TZ)
	if l.Version == 3 && l.Zoneinfo != "" {
		b = append(b, `,"zoneinfo":`...)
		b = jsonfmt.AppendString(b, l.Zoneinfo)
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(l.PID), 10)
	b = append(b, `,"features":`...)
	b = strconv.AppendUint(b, uint64(l.Features), 10)
	b = append(b, `,"start":`...)
	b = jsonfmt.AppendTime(b, l.Start.Sec, int64(l.Start.Nsec))
	b = append(b, `,"end":`...)
	if end, err := d.a.End(); err == nil {
		b = jsonfmt.AppendTime(b, end.Sec, int64(end.Nsec))
	} else {
		b = append(b, "null"...)
	}
	d.buf = append(b, "}}\n"...)
	d.flushBuf()
}

// jsonDescs prints {"desc":{...}} per metric, in the text's order.
func (d *dumper) jsonDescs() {
	m := d.a.Meta()
	h := lhash.New()
	for _, desc := range m.Descs {
		h.Add(uint32(desc.PMID))
	}
	for _, k := range h.Keys() {
		desc, _ := m.Desc(pmapi.PMID(k))
		b := append(d.buf, `{"desc":{"pmid":"`...)
		b = append(b, desc.PMID.String()...)
		b = append(b, `","names":[`...)
		for i, n := range d.ns.Names(desc.PMID) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonfmt.AppendString(b, n)
		}
		b = append(b, ']')
		if desc.InDom != pmapi.InDomNull && desc.Type != pmapi.TypeNoSupport {
			b = append(b, `,"indom":"`...)
			b = append(b, desc.InDom.String()...)
			b = append(b, '"')
		}
		b = appendDescFields(b, desc)
		d.buf = append(b, "}}\n"...)
		d.flushBuf()
	}
}

// jsonInDoms prints {"indom":{...}} per state of each instance domain, in
// the text's order, the instances sorted by number.
func (d *dumper) jsonInDoms() {
	m := d.a.Meta()
	h := lhash.New()
	for _, in := range m.InDomOrder {
		h.Add(uint32(in))
	}
	for _, k := range h.Keys() {
		in := pmapi.InDom(k)
		for _, s := range m.InDomHistory(in) {
			b := append(d.buf, `{"indom":{"indom":"`...)
			b = append(b, in.String()...)
			b = append(b, `",`...)
			b = jsonfmt.AppendStamp(b, s.Stamp.Sec, int64(s.Stamp.Nsec))
			b = append(b, `,"instances":[`...)
			idx := make([]int, len(s.Insts))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(i, j int) bool { return s.Insts[idx[i]] < s.Insts[idx[j]] })
			for n, i := range idx {
				if n > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"inst":`...)
				b = strconv.AppendInt(b, int64(s.Insts[i]), 10)
				b = append(b, `,"name":`...)
				b = jsonfmt.AppendString(b, s.Names[i])
				b = append(b, '}')
			}
			d.buf = append(b, "]}}\n"...)
			d.flushBuf()
		}
	}
}

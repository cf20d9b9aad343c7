package pminfo

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
)

// --json (pcpkit's): one JSON object per metric, one per line, in the
// order the text report would show them: name, PMID, descriptor, help
// text, merged labels and the values of one fetch (from the origin, in an
// archive), or the error that stopped the metric. See docs/json.md.

type jsonMetric struct {
	Name      string          `json:"name"`
	PMID      string          `json:"pmid,omitempty"`
	Type      string          `json:"type,omitempty"`
	InDom     string          `json:"indom,omitempty"`
	Semantics string          `json:"semantics,omitempty"`
	Units     *string         `json:"units,omitempty"` // "none" for none
	OneLine   string          `json:"oneline,omitempty"`
	Help      string          `json:"help,omitempty"`
	Labels    json.RawMessage `json:"labels,omitempty"`
	Error     string          `json:"error,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
	Sec       *int64          `json:"sec,omitempty"`
	Nsec      *int32          `json:"nsec,omitempty"`
	Values    []jsonValue     `json:"values,omitempty"`
}

type jsonValue struct {
	Inst     *int32          `json:"inst,omitempty"`
	InstName string          `json:"instname,omitempty"`
	Value    json.RawMessage `json:"value"`
}

type jsonOut struct {
	enc *json.Encoder
}

// startJSON sets --json up: every metric is described, labelled and
// fetched.
func (t *tool) startJSON() {
	f := &t.f
	f.needContext, f.needPMID = true, true
	f.desc, f.value, f.label = true, true, true
	f.verify = false
	t.json = &jsonOut{enc: json.NewEncoder(t.Out)}
}

// jsonError writes the object of a metric that could not be reported.
func (t *tool) jsonError(name string, pmid pmapi.PMID, err error) {
	m := jsonMetric{Name: name, Error: archive.ErrText(err)}
	if pmid != pmapi.PMIDNull {
		m.PMID = pmid.String()
	}
	t.json.enc.Encode(&m)
}

// jsonMetric writes the object of one metric.
func (t *tool) jsonMetric(name string, pmid pmapi.PMID, d *pmapi.Desc, res *pmapi.Result, i int) {
	m := jsonMetric{Name: name, PMID: pmid.String(), Type: d.Type.String(), Semantics: d.Sem.String()}
	if d.InDom != pmapi.InDomNull {
		m.InDom = d.InDom.String()
	}
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	m.Units = &units
	if s, err := t.C.Text(archive.TextOneLine|archive.TextPMID, uint32(pmid)); err == nil {
		m.OneLine = s
	}
	if s, err := t.C.Text(archive.TextHelp|archive.TextPMID, uint32(pmid)); err == nil {
		m.Help = s
	}
	sets := []*archive.LabelSet{t.contextLabels(), t.domainLabels(pmid.Domain())}
	if d.InDom != pmapi.InDomNull {
		sets = append(sets, t.indomLabelSet(d.InDom))
	}
	sets = append(sets, t.clusterLabels(pmid), t.itemLabels(pmid))
	if l, ok := pmctx.MergeLabels(sets, nil); ok && json.Valid([]byte(l)) {
		m.Labels = json.RawMessage(l)
	}
	if res != nil {
		ts := res.Timestamp
		m.Timestamp = jsonfmt.Time(ts.Sec, int64(ts.Nsec))
		m.Sec, m.Nsec = &ts.Sec, &ts.Nsec
		vs := &res.VSets[i]
		if vs.NumVal < 0 {
			m.Error = pmapi.Error(vs.NumVal).Error()
		}
		for k := range vs.Values {
			v := &vs.Values[k]
			jv := jsonValue{Value: t.jsonScalar(d.Type, vs.ValFmt, v)}
			if d.InDom != pmapi.InDomNull {
				inst := v.Inst
				jv.Inst = &inst
				jv.InstName, _ = t.instanceName(d.InDom, v.Inst)
			}
			m.Values = append(m.Values, jv)
		}
	}
	t.json.enc.Encode(&m)
}

// jsonScalar is a value as JSON: a number for the integer types (64-bit
// ones exactly) and finite floating point values, a string for strings,
// and pmPrintValue's text for the others (aggregates, event arrays,
// non-finite numbers).
func (t *tool) jsonScalar(typ pmapi.Type, valfmt int32, v *pmapi.Value) json.RawMessage {
	text := t.appendValue(nil, typ, valfmt, v)
	switch typ {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64:
		if _, err := strconv.ParseFloat(string(text), 64); err == nil {
			return text
		}
	case pmapi.TypeFloat, pmapi.TypeDouble:
		if f, err := strconv.ParseFloat(string(text), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return text
		}
	case pmapi.TypeString:
		if len(text) >= 2 && text[0] == '"' {
			text = text[1 : len(text)-1]
		}
	}
	b, _ := json.Marshal(string(text))
	return b
}

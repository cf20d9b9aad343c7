package pmval

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/pmapi"
)

// pmval --json (a pcpkit extension, docs/json.md): the report as JSON
// Lines, one document for the header, then one per line the text report
// would print (a sample, "No values available", or a <mark> with -U).
// The text is still produced (into io.Discard) so that the two reports
// cannot drift apart: the JSON hooks sit beside the text printers.

// jsonOut is where --json writes.
type jsonOut struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// jsonHeader is the first document: the text header's facts.
type jsonHeader struct {
	Metric    string  `json:"metric"`
	PMID      string  `json:"pmid"`
	Archive   string  `json:"archive"`
	Host      string  `json:"host"`
	Start     string  `json:"start"` // RFC 3339, UTC, nanoseconds
	End       string  `json:"end"`
	Type      string  `json:"type"`
	Semantics string  `json:"semantics"`
	Units     string  `json:"units"`
	Rate      bool    `json:"rate"`                 // counters converted to rates
	RateUnits string  `json:"rate_units,omitempty"` // the units of the rates
	Samples   int     `json:"samples"`              // -1: all
	Interval  float64 `json:"interval,omitempty"`   // seconds; absent with -U
	Reverse   bool    `json:"reverse,omitempty"`
	Raw       bool    `json:"uninterpolated,omitempty"` // -U
}

// jsonSample is one line of the report.
type jsonSample struct {
	Timestamp string      `json:"timestamp"`
	Sec       int64       `json:"sec"`
	Nsec      int32       `json:"nsec"`
	NoValues  bool        `json:"novalues,omitempty"`
	Mark      bool        `json:"mark,omitempty"`
	Values    []jsonValue `json:"values,omitempty"`
}

// jsonValue is one column: Value is a number (a rate, or a value of a
// numeric type; 64-bit integers exactly), a string, or null where the
// text shows "?" (no value for the instance) or "!" (a counter that went
// backwards), or for a non-finite double; Text is then the text's mark.
type jsonValue struct {
	Inst     *int32 `json:"inst,omitempty"`
	InstName string `json:"instname,omitempty"`
	Value    any    `json:"value"`
	Text     string `json:"text,omitempty"`
}

// startJSON turns --json on: JSON goes to the tool's writer, the text to
// nowhere.
func (t *tool) startJSON() {
	t.json = &jsonOut{w: t.out}
	t.json.enc = json.NewEncoder(t.out)
	t.json.enc.SetEscapeHTML(false)
	t.out = bufio.NewWriterSize(io.Discard, 4096)
}

func rfc3339(ts pmapi.Timestamp) string {
	return jsonfmt.Time(ts.Sec, int64(ts.Nsec))
}

func (t *tool) jsonEmit(v any) {
	if err := t.json.enc.Encode(v); err != nil {
		t.fail("pmval: %v\n", err)
	}
}

func (t *tool) jsonHeader() {
	if t.json == nil {
		return
	}
	h := jsonHeader{
		Metric: t.metric, PMID: t.pmid.String(), Archive: t.source, Host: t.host,
		Start: rfc3339(t.origin), End: rfc3339(t.finish),
		Type: t.desc.Type.String(), Semantics: t.desc.Sem.String(),
		Units: t.desc.Units.String(), Samples: t.samples, Reverse: t.o.reverse, Raw: t.rawArc,
	}
	if t.o.reverse {
		h.Start, h.End = h.End, h.Start
	}
	if h.Units == "" {
		h.Units = "none"
	}
	if !t.raw && t.desc.Sem == pmapi.SemCounter {
		h.Rate = true
		units := t.desc.Units
		if units.DimTime == 0 {
			units.ScaleTime = pmapi.TimeSec
		}
		units.DimTime--
		if units.DimSpace == 0 && units.DimTime == 0 && units.DimCount == 0 {
			h.RateUnits = "time utilization"
		} else if h.RateUnits = units.String(); h.RateUnits == "" {
			h.RateUnits = "none"
		}
	}
	if !t.rawArc {
		h.Interval = t.intervalReal()
	}
	t.jsonEmit(&h)
}

func (t *tool) jsonLine(ts pmapi.Timestamp) jsonSample {
	return jsonSample{Timestamp: rfc3339(ts), Sec: ts.Sec, Nsec: ts.Nsec}
}

func (t *tool) jsonNoValues(ts pmapi.Timestamp) {
	if t.json == nil {
		return
	}
	s := t.jsonLine(ts)
	s.NoValues = true
	t.jsonEmit(&s)
}

func (t *tool) jsonMark(ts pmapi.Timestamp) {
	if t.json == nil {
		return
	}
	s := t.jsonLine(ts)
	s.Mark = true
	t.jsonEmit(&s)
}

// jsonColumns makes the columns of a line in the text's order (the
// instances, or the one value of a singular metric), each from value(j)
// (the index in the value set, -1 for none).
func (t *tool) jsonColumns(vs *pmapi.ValueSet, value func(j int) jsonValue) []jsonValue {
	if t.desc.InDom == pmapi.InDomNull {
		j := -1
		if vs.NumVal == 1 {
			j = 0
		}
		return []jsonValue{value(j)}
	}
	out := make([]jsonValue, 0, len(t.pairs))
	for _, p := range t.pairs {
		c := value(findInst(vs.Values, p.id))
		id := p.id
		c.Inst, c.InstName = &id, p.name
		out = append(out, c)
	}
	return out
}

var missing = jsonValue{Value: nil, Text: "?"}

// jsonVals is printVals' line.
func (t *tool) jsonVals(ts pmapi.Timestamp, vs *pmapi.ValueSet) {
	if t.json == nil {
		return
	}
	s := t.jsonLine(ts)
	s.Values = t.jsonColumns(vs, func(j int) jsonValue {
		if j < 0 {
			return missing
		}
		j0 := j
		if t.desc.InDom == pmapi.InDomNull {
			j0 = -1 // printvals' message has no index
		}
		return t.jsonValue(&vs.Values[j], j0)
	})
	t.jsonEmit(&s)
}

// jsonValue is a value as JSON: numeric types as numbers (integers
// exactly), strings as strings, anything else as pmPrintValue's text.
func (t *tool) jsonValue(v *pmapi.Value, j int) jsonValue {
	switch t.desc.Type {
	case pmapi.TypeFloat, pmapi.TypeDouble:
		return jsonReal(t.extract(v, "printvals", j, nil), false)
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64:
		if v.Block == nil || isTyped(t.desc.Type, v) {
			return jsonValue{Value: json.Number(pmapi.AppendValue(nil, t.desc.Type, v))}
		}
	case pmapi.TypeString:
		if v.Block != nil && isTyped(t.desc.Type, v) {
			b := v.Block
			if n := len(b); n > 0 && b[n-1] == 0 {
				b = b[:n-1]
			}
			return jsonValue{Value: string(b)}
		}
	}
	return jsonValue{Value: string(pmapi.AppendValue(nil, t.desc.Type, v))}
}

// jsonReal is a double as JSON; a negative counter rate (the text's "!")
// and non-finite numbers are null, with the text's mark.
func jsonReal(x float64, counter bool) jsonValue {
	switch {
	case counter && x < 0:
		return jsonValue{Value: nil, Text: "!"}
	case math.IsInf(x, 0) || x != x:
		return jsonValue{Value: nil, Text: formatF(x, 0)}
	}
	return jsonValue{Value: json.Number(strconv.FormatFloat(x, 'g', -1, 64))}
}

// jsonRates is printRates' line: the rate of each instance between the
// two fetches, as printRate computes it.
func (t *tool) jsonRates(cur *pmapi.ValueSet, curStamp pmapi.Timestamp, prev *pmapi.ValueSet, prevStamp pmapi.Timestamp) {
	if t.json == nil {
		return
	}
	delta := t.scale * (realTime(curStamp) - realTime(prevStamp))
	s := t.jsonLine(curStamp)
	s.Values = t.jsonColumns(cur, func(j int) jsonValue {
		if j < 0 {
			return missing
		}
		k := -1
		if t.desc.InDom == pmapi.InDomNull {
			if prev.NumVal == 1 {
				k = 0
			}
		} else {
			k = findInst(prev.Values, cur.Values[j].Inst)
		}
		if k < 0 {
			return missing
		}
		return jsonReal(t.rate(&cur.Values[j], &prev.Values[k], delta, nil), true)
	})
	t.jsonEmit(&s)
}

package dumplog

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// jsonRecord is the document --json prints for each record, one per line.
// Field names are stable; see docs/json.md.
type jsonRecord struct {
	Timestamp string      `json:"timestamp"` // RFC 3339, UTC, nanoseconds
	Sec       int64       `json:"sec"`
	Nsec      int32       `json:"nsec"`
	Mark      bool        `json:"mark,omitempty"`
	Metrics   []jsonValue `json:"metrics,omitempty"`
}

type jsonValue struct {
	PMID     string `json:"pmid"`
	Name     string `json:"name,omitempty"`
	Error    string `json:"error,omitempty"` // numval < 0
	Inst     *int32 `json:"inst,omitempty"`
	InstName string `json:"instname,omitempty"`
	Type     string `json:"type,omitempty"`
	Value    any    `json:"value,omitempty"`
}

// dumpJSON prints one JSON document per record (honouring -r, -S/-T, -M
// and metric names as the text form does).
func (d *dumper) dumpJSON() int {
	enc := json.NewEncoder(d.out)
	var encErr error
	rc := d.walk(nil, func(r *archive.Record) {
		if encErr != nil {
			return
		}
		jr := jsonRecord{Timestamp: rfc3339(r.Stamp), Sec: r.Stamp.Sec, Nsec: r.Stamp.Nsec, Mark: r.IsMark()}
		for i := 0; i < r.NumPMID(); i++ {
			p := r.PMID(i)
			if d.sel != nil && !d.sel[p] {
				continue
			}
			jr.Metrics = d.jsonValues(jr.Metrics, r, i)
		}
		encErr = enc.Encode(&jr)
	})
	if encErr != nil {
		return 1
	}
	return rc
}

// jsonValues appends the values of value set i of r.
func (d *dumper) jsonValues(out []jsonValue, r *archive.Record, i int) []jsonValue {
	p := r.PMID(i)
	desc, _ := d.a.Meta().Desc(p)
	base := jsonValue{PMID: p.String()}
	if n := d.ns.Names(p); len(n) > 0 {
		base.Name = n[0]
	}
	if desc != nil {
		base.Type = desc.Type.String()
	}
	nv := r.NumVal(i)
	if nv < 0 {
		base.Error = pmapi.Error(nv).Error()
		return append(out, base)
	}
	for j := 0; j < int(nv); j++ {
		v := r.Value(i, j)
		jv := base
		if v.Inst != pmapi.InstNull {
			inst := v.Inst
			jv.Inst = &inst
			jv.InstName, _ = d.instName(desc, v.Inst, r.Stamp)
		}
		jv.Value = jsonScalar(desc, &v)
		out = append(out, jv)
	}
	return out
}

func rfc3339(t pmapi.Timestamp) string {
	return time.Unix(t.Sec, int64(t.Nsec)).UTC().Format("2006-01-02T15:04:05.000000000Z")
}

// jsonScalar gives a value as a JSON number or string; other types (and
// non-finite floats) become the text pmdumplog would print.
func jsonScalar(desc *pmapi.Desc, v *pmapi.Value) any {
	if desc == nil {
		return string(pmapi.AppendValue(nil, pmapi.TypeAggregate, v))
	}
	switch desc.Type {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64:
		return json.Number(pmapi.AppendValue(nil, desc.Type, v))
	case pmapi.TypeFloat, pmapi.TypeDouble:
		s := string(pmapi.AppendValue(nil, desc.Type, v))
		var f float64
		if _, err := fmt.Sscan(s, &f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return json.Number(s)
		}
		return s
	case pmapi.TypeString:
		s := string(pmapi.AppendValue(nil, desc.Type, v))
		if len(s) >= 2 {
			s = s[1 : len(s)-1]
		}
		return s
	}
	return string(pmapi.AppendValue(nil, desc.Type, v))
}

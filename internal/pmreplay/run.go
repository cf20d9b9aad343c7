package pmreplay

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// run replays and prints.
func (r *report) run() error {
	if err := r.c.SetMode(replay.Interp, r.origin, r.delta); err != nil {
		return fmt.Errorf("pmreplay: %s\n", archive.ErrText(err))
	}
	if !r.o.json && !r.o.noHeader {
		r.header()
	}
	for n := r.samples; n != 0; n-- {
		res, err := r.c.Fetch(r.pmids)
		if errors.Is(err, pmapi.ErrEOL) {
			break
		}
		if err != nil {
			return fmt.Errorf("pmreplay: %s\n", archive.ErrText(err))
		}
		if !r.o.json && res.Timestamp.Nsec >= 1e9 {
			// pmrep 6.0.3 turns the time into a datetime with
			// microseconds and fails on an unnormalised one (a
			// billion nanoseconds): it stops here, exit status 1.
			r.out.Flush()
			return errors.New("pmreplay: a sample time of 1000000000 nanoseconds (pmrep 6.0.3 fails here: \"ValueError: microsecond must be in 0..999999\")\n")
		}
		r.sample(res)
		if r.o.json {
			r.jsonLine(res.Timestamp)
		} else {
			r.csvLine(res.Timestamp)
		}
		r.prev = res
	}
	return nil
}

// header is pmrep's CSV header line.
func (r *report) header() {
	b := append(r.line[:0], "Time"...)
	for _, m := range r.metrics {
		for _, c := range m.cols {
			name := m.name
			if m.desc.InDom != pmapi.InDomNull {
				name += "-" + c.name
			}
			if r.o.delimiter != "" {
				name = strings.ReplaceAll(name, r.o.delimiter, " ")
			}
			name = strings.NewReplacer("\n", " ", "\"", " ").Replace(name)
			b = append(b, r.o.delimiter...)
			b = append(b, '"')
			b = append(b, name...)
			b = append(b, '"')
		}
	}
	b = append(b, '\n')
	r.out.Write(b)
	r.line = b
}

// sample computes the values of every column from a fetch, as pmrep's
// fetchgroup items do. The items are walked last metric first (the
// fetchgroup links each new item in at the head of its list), which
// decides which of them refreshes an instance domain cache they share.
func (r *report) sample(res *pmapi.Result) {
	for k := len(r.metrics) - 1; k >= 0; k-- {
		m := r.metrics[k]
		vs := &res.VSets[k]
		if vs.NumVal == 0 && m.desc.Sem == pmapi.SemDiscrete {
			// the fetchgroup preserves discrete values while a
			// sample has none
			continue
		}
		for i := range m.vals {
			m.vals[i] = value{}
		}
		if vs.NumVal < 0 {
			continue
		}
		var cache *indomCache
		if m.desc.InDom != pmapi.InDomNull {
			cache = r.indomCache(m.desc.InDom, vs)
		}
		for j := range vs.Values {
			v := &vs.Values[j]
			if cache != nil && !cache.insts[v.Inst] {
				continue // no name: a transient instance, skipped
			}
			col := m.column(v.Inst)
			if col < 0 {
				continue
			}
			if m.vals[col].ok {
				continue // the first of one instance is reported
			}
			m.vals[col] = r.convert(m, k, v, res)
		}
	}
}

// column is the column of instance inst, -1 if none.
func (m *metric) column(inst int32) int {
	if m.desc.InDom == pmapi.InDomNull {
		return 0
	}
	for i := range m.cols {
		if m.cols[i].inst == inst {
			return i
		}
	}
	return -1
}

// indomCache is the fetchgroup's cache of pmGetInDom, one for each
// instance domain, shared by the metrics of that domain (libpcp 6.0.3's
// fetchgroup keeps one table of them). It is filled the first time an
// item of the domain looks at a fetch, values or none (a discrete
// metric's empty sample returns before that), and again whenever a fetch
// holds an instance it does not know, or after pmGetInDom failed; each
// time with the instance domain as of the context's time after the fetch
// (the next sample's), the latest one at or before it, an error when
// none is.
func (r *report) indomCache(indom pmapi.InDom, vs *pmapi.ValueSet) *indomCache {
	c := r.indoms[indom]
	if c == nil {
		c = &indomCache{}
		r.indoms[indom] = c
	}
	if c.refreshed {
		for _, v := range vs.Values {
			if !c.insts[v.Inst] {
				c.refreshed = false
				break
			}
		}
	}
	if !c.refreshed {
		c.insts = map[int32]bool{}
		t := r.c.Origin()
		s, ok := r.c.Meta().InDomAt(indom, t)
		// PM_ERR_INDOM_LOG before the first: asked again next time
		c.refreshed = ok && !t.Before(s.Stamp)
		if c.refreshed {
			for _, id := range s.Insts {
				c.insts[id] = true
			}
		}
	}
	return c
}

// convert is the fetchgroup's value of v (metric m, k-th in the fetch).
func (r *report) convert(m *metric, k int, v *pmapi.Value, res *pmapi.Result) value {
	typ := m.desc.Type
	if typ == pmapi.TypeString {
		if v.Block == nil {
			return value{}
		}
		b := v.Block
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return value{ok: true, kind: 's', s: string(b)}
	}
	x, err := v.Float64(typ)
	if err != nil {
		return value{}
	}
	if m.rate {
		if r.prev == nil {
			return value{} // PM_ERR_AGAIN
		}
		pv := &r.prev.VSets[k]
		if pv.NumVal < 0 {
			return value{}
		}
		var p *pmapi.Value
		for j := range pv.Values {
			if m.desc.InDom == pmapi.InDomNull || pv.Values[j].Inst == v.Inst {
				p = &pv.Values[j]
				break
			}
		}
		if p == nil {
			return value{}
		}
		px, err := p.Float64(typ)
		if err != nil {
			return value{}
		}
		dt := pcptime.Sub(res.Timestamp, r.prev.Timestamp)
		if dt < 1e-9 {
			dt = 1e-9
		}
		d := x - px
		if d < 0 {
			if !r.wrap {
				return value{}
			}
			switch typ {
			case pmapi.Type32, pmapi.TypeU32:
				d += float64(math.MaxUint32) + 1
			case pmapi.Type64, pmapi.TypeU64:
				d += float64(math.MaxUint64) + 1
			}
		}
		d /= dt
		d = d * m.timeConv / 1
		d *= m.timeMult
		return stuff(d, m.otype)
	}
	if m.convert {
		return stuff(x, m.otype)
	}
	// pmExtractValue to the metric's own type
	switch typ {
	case pmapi.Type32:
		return value{ok: true, kind: 'i', i: int64(v.Insitu)}
	case pmapi.TypeU32:
		return value{ok: true, kind: 'u', u: uint64(uint32(v.Insitu))}
	case pmapi.Type64:
		if len(v.Block) < 8 {
			return value{}
		}
		return value{ok: true, kind: 'i', i: int64(v.HostUint64())}
	case pmapi.TypeU64:
		if len(v.Block) < 8 {
			return value{}
		}
		return value{ok: true, kind: 'u', u: v.HostUint64()}
	}
	return value{ok: true, kind: 'f', f: x}
}

// stuff is __pmStuffDoubleValue: a double to the output type, nothing
// when it does not fit.
func stuff(x float64, typ pmapi.Type) value {
	{
		switch typ {
		case pmapi.Type32:
			if x > math.MaxInt32 || x < math.MinInt32 {
				return value{}
			}
			return value{ok: true, kind: 'i', i: int64(int32(x))}
		case pmapi.TypeU32:
			if x > math.MaxUint32 || x < 0 {
				return value{}
			}
			return value{ok: true, kind: 'u', u: uint64(uint32(x))}
		case pmapi.Type64:
			if x > 9223372036854775807 || x < -9223372036854775808 {
				return value{}
			}
			return value{ok: true, kind: 'i', i: int64(x)}
		case pmapi.TypeU64:
			if x > 18446744073709551615 || x < 0 {
				return value{}
			}
			return value{ok: true, kind: 'u', u: toUint64(x)}
		case pmapi.TypeFloat:
			if math.Abs(x) > math.MaxFloat32 {
				return value{}
			}
			return value{ok: true, kind: 'f', f: float64(float32(x))}
		}
		return value{ok: true, kind: 'f', f: x}
	}
}

// toUint64 is C's (uint64_t)double on x86-64.
func toUint64(x float64) uint64 {
	if x >= 9223372036854775808 {
		return uint64(int64(x-9223372036854775808)) ^ (1 << 63)
	}
	return uint64(int64(x))
}

// csvLine is one line of pmrep's CSV: the time in seconds, then each
// column's value (nothing where there is none).
func (r *report) csvLine(ts pmapi.Timestamp) {
	b := appendTime(r.line[:0], r.zone.Civil(ts.Sec))
	delim := r.o.delimiter
	for _, m := range r.metrics {
		for i := range m.vals {
			b = append(b, delim...)
			v := &m.vals[i]
			if !v.ok {
				continue
			}
			switch v.kind {
			case 's':
				b = append(b, '"')
				b = append(b, r.cleanString(v.s)...)
				b = append(b, '"')
			case 'i':
				b = strconv.AppendInt(b, v.i, 10)
			case 'u':
				b = strconv.AppendUint(b, v.u, 10)
			default:
				switch {
				case math.IsInf(v.f, 1):
					b = append(b, "inf"...)
				case math.IsInf(v.f, -1):
					b = append(b, "-inf"...)
				case v.f != v.f:
					b = append(b, "NaN"...)
				default:
					b = strconv.AppendFloat(b, v.f, 'f', m.prec, 64)
				}
			}
		}
	}
	b = append(b, '\n')
	r.out.Write(b)
	r.line = b
}

// cleanString is pmrep's treatment of a string value: the delimiter
// replaced (by "_", or by " " when it is "_"; not when it is white
// space), newlines and double quotes by spaces.
func (r *report) cleanString(s string) string {
	d := r.o.delimiter
	if d != "" && strings.TrimSpace(d) != "" {
		if d != "_" {
			s = strings.ReplaceAll(s, d, "_")
		} else {
			s = strings.ReplaceAll(s, d, " ")
		}
	}
	return strings.NewReplacer("\n", " ", "\"", " ").Replace(s)
}

// appendTime is strftime("%Y-%m-%d %H:%M:%S").
func appendTime(b []byte, c pcptime.Civil) []byte {
	b = appendInt(b, c.Year, 4)
	b = append(b, '-')
	b = appendInt(b, c.Month, 2)
	b = append(b, '-')
	b = appendInt(b, c.Day, 2)
	b = append(b, ' ')
	b = appendInt(b, c.Hour, 2)
	b = append(b, ':')
	b = appendInt(b, c.Minute, 2)
	b = append(b, ':')
	return appendInt(b, c.Second, 2)
}

func appendInt[T ~int | ~int64 | ~int32](b []byte, v T, digits int) []byte {
	s := strconv.FormatInt(int64(v), 10)
	for i := len(s); i < digits; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// jsonLine is one sample as JSON (docs/json.md): the time, then every
// column with a value, full precision.
func (r *report) jsonLine(ts pmapi.Timestamp) {
	b := append(r.line[:0], `{"timestamp":"`...)
	b = time.Unix(ts.Sec, int64(ts.Nsec)).UTC().AppendFormat(b, jsonfmt.TimeLayout)
	b = append(b, `","sec":`...)
	b = strconv.AppendInt(b, ts.Sec, 10)
	b = append(b, `,"nsec":`...)
	b = strconv.AppendInt(b, int64(ts.Nsec), 10)
	b = append(b, `,"metrics":[`...)
	first := true
	for _, m := range r.metrics {
		for i := range m.vals {
			v := &m.vals[i]
			if !v.ok {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"name":`...)
			b = appendJSONString(b, m.name)
			if m.desc.InDom != pmapi.InDomNull {
				b = append(b, `,"inst":`...)
				b = strconv.AppendInt(b, int64(m.cols[i].inst), 10)
				b = append(b, `,"instname":`...)
				b = appendJSONString(b, m.cols[i].name)
			}
			b = append(b, `,"value":`...)
			switch v.kind {
			case 's':
				b = appendJSONString(b, v.s)
			case 'i':
				b = strconv.AppendInt(b, v.i, 10)
			case 'u':
				b = strconv.AppendUint(b, v.u, 10)
			default:
				if math.IsInf(v.f, 0) || v.f != v.f {
					b = appendJSONString(b, strconv.FormatFloat(v.f, 'g', -1, 64))
				} else {
					b = strconv.AppendFloat(b, v.f, 'g', -1, 64)
				}
			}
			b = append(b, '}')
		}
	}
	b = append(b, "]}\n"...)
	r.out.Write(b)
	r.line = b
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

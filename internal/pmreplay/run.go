package pmreplay

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/jsonfmt"
	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// run replays and prints.
func (r *report) run() error {
	if !r.o.json && !r.o.noHeader {
		r.header()
	}
	// the samples replayed on every core (sampler.Each)
	return r.s.Each(runtime.GOMAXPROCS(0), func(ts pmapi.Timestamp) error {
		if !r.o.json && ts.Nsec >= 1e9 {
			// pmrep 6.0.3 turns the time into a datetime with
			// microseconds and fails on an unnormalised one (a
			// billion nanoseconds): it stops here, exit status 1.
			r.out.Flush()
			return errors.New("pmreplay: a sample time of 1000000000 nanoseconds (pmrep 6.0.3 fails here: \"ValueError: microsecond must be in 0..999999\")\n")
		}
		if r.o.json {
			r.jsonLine(ts)
		} else {
			r.csvLine(ts)
		}
		return nil
	})
}

// header is pmrep's CSV header line.
func (r *report) header() {
	b := append(r.line[:0], "Time"...)
	for _, m := range r.s.Metrics {
		for _, c := range m.Cols {
			name := m.Name
			if m.Desc.InDom != pmapi.InDomNull {
				name += "-" + c.Name
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

// csvLine is one line of pmrep's CSV: the time in seconds, then each
// column's value (nothing where there is none).
func (r *report) csvLine(ts pmapi.Timestamp) {
	b := appendTime(r.line[:0], r.s.Zone.Civil(ts.Sec))
	delim := r.o.delimiter
	for _, m := range r.s.Metrics {
		for i := range m.Vals {
			b = append(b, delim...)
			v := &m.Vals[i]
			if !v.OK {
				continue
			}
			switch v.Kind {
			case sampler.KindString:
				b = append(b, '"')
				b = append(b, r.cleanString(v.S)...)
				b = append(b, '"')
			case sampler.KindSigned:
				b = strconv.AppendInt(b, v.I, 10)
			case sampler.KindUnsigned:
				b = strconv.AppendUint(b, v.U, 10)
			default:
				switch {
				case math.IsInf(v.F, 1):
					b = append(b, "inf"...)
				case math.IsInf(v.F, -1):
					b = append(b, "-inf"...)
				case v.F != v.F:
					b = append(b, "NaN"...)
				default:
					b = strconv.AppendFloat(b, v.F, 'f', r.prec, 64)
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
	for _, m := range r.s.Metrics {
		for i := range m.Vals {
			v := &m.Vals[i]
			if !v.OK {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"name":`...)
			b = appendJSONString(b, m.Name)
			if m.Desc.InDom != pmapi.InDomNull {
				b = append(b, `,"inst":`...)
				b = strconv.AppendInt(b, int64(m.Cols[i].Inst), 10)
				b = append(b, `,"instname":`...)
				b = appendJSONString(b, m.Cols[i].Name)
			}
			b = append(b, `,"value":`...)
			switch v.Kind {
			case sampler.KindString:
				b = appendJSONString(b, v.S)
			case sampler.KindSigned:
				b = strconv.AppendInt(b, v.I, 10)
			case sampler.KindUnsigned:
				b = strconv.AppendUint(b, v.U, 10)
			default:
				if math.IsInf(v.F, 0) || v.F != v.F {
					b = appendJSONString(b, strconv.FormatFloat(v.F, 'g', -1, 64))
				} else {
					b = strconv.AppendFloat(b, v.F, 'g', -1, 64)
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

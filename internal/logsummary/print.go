package logsummary

import (
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// appendFixed appends f as C's printf("%.*f", prec, f).
func appendFixed(dst []byte, f float64, prec int) []byte {
	return pmapi.AppendFloatF(dst, f, prec)
}

// appendStamp appends a time of day with milliseconds, and with -i/-I over
// a window longer than a day the date and year too, in quotes.
func (s *summary) appendStamp(b []byte, t tv) []byte {
	c := s.z.Civil(t.sec)
	if s.dayflag {
		b = append(b, '\'')
		b = pcptime.AppendCtimeDate(b, c)
		b = append(b, ' ')
	}
	b = pcptime.AppendClock(b, c)
	b = pcptime.AppendFraction(b, t.usec*1000, 3)
	if s.dayflag {
		b = append(b, ' ')
		b = appendYear4(b, c)
		b = append(b, '\'')
	}
	return b
}

// appendYear4 appends the year as "%4.4s" of ctime's year field.
func appendYear4(b []byte, c pcptime.Civil) []byte {
	var y [24]byte
	ys := pcptime.AppendYear(y[:0], c)
	if len(ys) > 4 {
		ys = ys[:4]
	}
	return append(b, ys...)
}

// printLabel prints -l: the first archive's label and the time window.
func (s *summary) printLabel() {
	l := s.set.Label()
	b := s.buf[:0]
	b = append(b, "Log Label (Log Format Version "...)
	b = strconv.AppendInt(b, int64(l.Version), 10)
	b = append(b, ")\nPerformance metrics from host "...)
	b = append(b, l.Hostname...)
	b = append(b, '\n')
	line := func(b []byte, what string, t tv) []byte {
		c := s.z.Civil(t.sec)
		b = append(b, what...)
		b = pcptime.AppendCtimeDate(b, c)
		b = append(b, ' ')
		b = pcptime.AppendClock(b, c)
		b = pcptime.AppendFraction(b, t.usec*1000, 3)
		b = append(b, ' ')
		b = appendYear4(b, c)
		return append(b, '\n')
	}
	b = line(b, "  commencing ", s.winStart)
	if s.winEnd.sec == intMax {
		b = append(b, "  ending     UNKNOWN\n"...)
	} else {
		b = line(b, "  ending     ", s.winEnd)
	}
	s.out.Write(b)
	s.buf = b
}

// printHeader prints -H: the names of the columns.
func (s *summary) printHeader() {
	d := s.delimiter
	b := append(s.buf[:0], "metric"...)
	col := func(on bool, name string) {
		if on {
			b = append(b, d)
			b = append(b, name...)
		}
	}
	col(s.stocaveflag, "stochastic_average")
	col(s.timeaveflag, "time_average")
	col(s.sumflag, "sum")
	col(s.minflag, "minimum")
	col(s.mintimeflag, "minimum_time")
	col(s.maxflag, "maximum")
	col(s.maxtimeflag, "maximum_time")
	col(s.countflag, "count")
	col(s.nbins > 0, "bins")
	b = append(b, d)
	b = append(b, "units\n"...)
	s.out.Write(b)
	s.buf = b
}

// instName is the external name of inst, looked up in every instance
// domain snapshot, newest first, as pmNameInDom does for an archive.
func (s *summary) instName(indom pmapi.InDom, inst int32) (string, bool) {
	if indom == pmapi.InDomNull {
		return "", false
	}
	h := s.meta.InDomHistory(indom)
	for i := len(h) - 1; i >= 0; i-- {
		if n, ok := h[i].Lookup(inst); ok {
			return n, true
		}
	}
	return "", false
}

// printSummary prints the lines of the metric called name, once: a metric
// with several names is printed under the first one visited.
func (s *summary) printSummary(name string) {
	pmid, ok := s.ns.Lookup(name)
	if !ok {
		return
	}
	m := s.stats.metrics[pmid]
	if m == nil || m.printed {
		return
	}
	m.printed = true
	d := s.delimiter
	p := s.precision
	for k := range m.insts {
		in := &m.insts[k]
		if m.desc.Sem == pmapi.SemDiscrete {
			// extend discrete values to the end of the window
			diff := s.winEnd.minus(in.lasttime).real()
			in.stocave += in.lastval
			in.timeave += in.lastval * diff
			in.lasttime = s.winEnd
			in.count++
		}
		metricspan := in.lasttime.minus(in.firsttime).real()
		star := m.desc.Sem == pmapi.SemCounter && metricspan/s.logspan <= 0.1

		b := s.buf[:0]
		iname, named := s.instName(m.desc.InDom, in.inst)
		if !named {
			if s.msp != nil && len(s.msp.Insts) > 0 && m.desc.InDom == pmapi.InDomNull {
				break
			}
			if star {
				b = append(b, '*')
			}
			b = append(b, name...)
			b = append(b, d)
			if m.desc.InDom != pmapi.InDomNull {
				b = append(b, '[')
				b = strconv.AppendUint(b, uint64(uint32(in.inst)), 10)
				b = append(b, ']')
			}
		} else {
			if s.msp != nil && len(s.msp.Insts) > 0 {
				found := false
				for _, want := range s.msp.Insts {
					if want == iname {
						found = true
						break
					}
				}
				if !found {
					continue
				}
			}
			if star {
				b = append(b, '*')
			}
			b = append(b, name...)
			b = append(b, d, '[', '"')
			b = append(b, iname...)
			b = append(b, '"', ']')
		}

		var r *row
		if s.doc != nil {
			s.doc.rows = append(s.doc.rows, row{
				metric: name, pmid: pmid, hasInst: m.desc.InDom != pmapi.InDomNull, inst: in.inst,
				named: named, instName: iname, shortSpan: star,
			})
			r = &s.doc.rows[len(s.doc.rows)-1]
		}
		if m.desc.Sem == pmapi.SemCounter {
			if metricspan <= 0 {
				if r != nil {
					r.insufficient = true
					r.units = unitsText(m.desc.Units)
					continue
				}
				b = append(b, d)
				b = append(b, "- insufficient archive data.\n"...)
				s.out.Write(b)
				s.buf = b
				continue
			}
			in.stocave /= float64(in.count)
			in.timeave /= metricspan * m.scale
		} else {
			in.stocave /= float64(in.count)
			if metricspan == 0 {
				metricspan = 1
			}
			in.timeave /= metricspan
		}
		if r != nil {
			if m.desc.Sem == pmapi.SemDiscrete {
				in.count = in.count - uint32(in.markcount) - 1
			}
			r.stocave, r.timeave, r.sum, r.min, r.max = in.stocave, in.timeave, in.sum, in.min, in.max
			r.mintime, r.maxtime, r.count = in.mintime, in.maxtime, in.count
			for j := 0; j < s.nbins; j++ {
				if j > 0 && in.min == in.max {
					r.bins = append(r.bins, bin{le: math.NaN()})
					continue
				}
				r.bins = append(r.bins, bin{le: (in.max-in.min)/float64(s.nbins)*float64(j+1) + in.min, count: in.bins.get(j)})
			}
			r.units = unitsText(m.desc.Units)
			continue
		}
		num := func(on bool, v float64) {
			if on {
				b = append(b, d)
				b = appendFixed(b, v, p)
			}
		}
		num(s.stocaveflag, in.stocave)
		num(s.timeaveflag, in.timeave)
		num(s.sumflag, in.sum)
		num(s.minflag, in.min)
		if s.mintimeflag {
			b = append(b, d)
			b = s.appendStamp(b, in.mintime)
		}
		num(s.maxflag, in.max)
		if s.maxtimeflag {
			b = append(b, d)
			b = s.appendStamp(b, in.maxtime)
		}
		if m.desc.Sem == pmapi.SemDiscrete {
			in.count = in.count - uint32(in.markcount) - 1
		}
		if s.countflag {
			b = append(b, d)
			b = strconv.AppendUint(b, uint64(in.count), 10)
		}
		for j := 0; j < s.nbins; j++ {
			if j > 0 && in.min == in.max {
				b = append(b, d, '[', ']', d, '0')
				if len(b) > 64<<10 {
					s.out.Write(b)
					b = b[:0]
				}
				continue
			}
			b = append(b, d, '[', '<', '=')
			b = appendFixed(b, (in.max-in.min)/float64(s.nbins)*float64(j+1)+in.min, p)
			b = append(b, ']', d)
			b = strconv.AppendUint(b, uint64(in.bins.get(j)), 10)
			if len(b) > 64<<10 {
				s.out.Write(b)
				b = b[:0]
			}
		}
		b = append(b, d)
		if u := m.desc.Units.AppendString(b); len(u) > len(b) {
			b = u
		} else {
			b = append(b, "none"...)
		}
		b = append(b, '\n')
		s.out.Write(b)
		s.buf = b
	}
}

// unitsText is the units column: the units, or "none".
func unitsText(u pmapi.Units) string {
	if s := u.String(); s != "" {
		return s
	}
	return "none"
}

package pcptime

import (
	"time"

	"github.com/pcpkit/pcpkit/pmapi"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// Window is a time window as libpcp's pmParseHighResTimeWindow(3) computes
// it from -S, -T, -A and -O. The nanoseconds may be 1000000000 (libpcp
// adds timestamps without normalising an exact carry), which formats as
// ".1000000000" in a "%09d" field.
type Window struct {
	Start  pmapi.Timestamp // first instant of interest
	End    pmapi.Timestamp // last instant of interest (may precede Start)
	Origin pmapi.Timestamp // initial sample time (-O; Start by default)
}

// WindowSpec holds the arguments of -S, -T, -A and -O. A nil pointer is an
// option that was not given; an empty string is an empty argument, which
// libpcp treats differently (an empty -S is midnight today, an empty -T or
// -O the end of the window, an empty -A an error).
type WindowSpec struct {
	Start, End, Align, Origin *string

	// Now is the current time, used by the getdate(3)-style forms that
	// refer to it ("yesterday", "10:00 EST", a weekday name ...). The
	// zero value means time.Now().
	Now time.Time
}

// ParseWindow is ParseWindowSpec with the four arguments given as strings,
// an empty string meaning that the option was not given.
func ParseWindow(start, end, align, origin string, archiveStart, archiveEnd pmapi.Timestamp, zone *Zone) (w Window, warning, err *ParseError) {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return ParseWindowSpec(WindowSpec{Start: opt(start), End: opt(end), Align: opt(align), Origin: opt(origin)},
		archiveStart, archiveEnd, zone)
}

// ParseWindowSpec computes the time window for an archive spanning
// archiveStart to archiveEnd, with times of day in zone (the reporting
// zone: $TZ, -z or -Z), as pmParseHighResTimeWindow(3) does:
//
//   - A bound is "[+]interval" (after the reference: the archive start for
//     -S, the window start for -T and -O), "-interval" (before the archive
//     end for -S and -T, the window end for -O), or "@datetime", absolute in
//     zone; leading white space is skipped.
//   - A datetime in ctime(3) order ("Mon Mar  4 13:07:47 1996", "Nov 14",
//     "22:13:21.5", "10:00pm 2023") takes its missing high-order fields from
//     the reference time and advances a day, month or year when the first
//     given field is earlier than the reference's (so "@10:00" after a
//     22:13 reference is 10:00 the next day, but "@22:13:19" stays on the
//     same day, before the reference). It is converted with glibc's
//     mktime, whose guess for an ambiguous or missing local time depends
//     on its previous call; the bounds of one window share that state as
//     they do in a tool.
//   - Other datetimes ("2023-11-14 22:13:21", "14 Nov 2023", "yesterday",
//     "2 hours ago", "Wed", "10:00 EST") go through a getdate(3) grammar
//     (see getdate.go): relative expressions count from the archive end
//     when they say "ago" or are negative and from the reference
//     otherwise, the rest from spec.Now. A bound that is not a valid
//     interval is also tried with getdate (so "3x" is 03:00 today in
//     military zone X).
//   - Start is raised to the archive start, End lowered to the archive
//     end; Origin (default Start, then unchecked) is brought into
//     [Start, End].
//   - -A aligns Start up to a multiple of the interval since the epoch,
//     and an explicit Origin too (or down to the last multiple before End
//     if up passes it); when that is impossible the unaligned time stays
//     and warning says "alignment specified by -A switch could not be
//     applied" (with an empty Message if a later -T or -O was parsed:
//     libpcp drops the text but still returns 0; the tools print nothing
//     for warnings).
//
// On an error (libpcp returns -1) err is set and the window is zero. Its
// Input is the bound after its '+', '-' or '@': for "@datetime" the ctime
// parser's complaint ("unexpected value", "more information expected"),
// otherwise the interval parser's. The tools print "<prog>: invalid time
// window." (pmdumplog and pmval via pmGetOptions), then err.Message(),
// then an empty line, and exit 1.
//
// Known gaps: getdate forms combining "today", "yesterday" or "tomorrow"
// with relative units can differ by an hour near a change of daylight
// time; "-" or "+" followed by nothing valid is taken as getdate's
// midnight today, which libpcp treats differently for "-".
func ParseWindowSpec(spec WindowSpec, archiveStart, archiveEnd pmapi.Timestamp, zone *Zone) (w Window, warning, err *ParseError) {
	if zone == nil {
		zone = LocalZone()
	}
	now := spec.Now
	if now.IsZero() {
		now = time.Now()
	}
	p := &windowParser{zone: zone, mk: &mktimer{zone: zone}, now: now}
	logStart, logEnd := fromTimestamp(archiveStart), fromTimestamp(archiveEnd)
	start, end := logStart, logEnd

	var delta int64 // alignment in nanoseconds; 0 for none
	if spec.Align != nil {
		sec, nsec, _, e := ParseInterval(*spec.Align)
		if e != nil {
			return Window{}, nil, e.(*ParseError)
		}
		delta = sec*1e9 + nsec
		if delta <= 0 {
			return Window{}, nil, &ParseError{Input: *spec.Align, Problem: problemAlign}
		}
	}
	alignWarning := func() *ParseError {
		return &ParseError{Input: *spec.Align, Problem: problemAlign, Warning: true}
	}

	if spec.Start != nil {
		t, e := p.parseTime(*spec.Start, logStart, logEnd)
		if e != nil {
			return Window{}, nil, e
		}
		start = t
		if start.before(logStart) {
			start = logStart
		}
	}
	if delta > 0 {
		if a := start.alignUp(delta); logEnd.before(a) {
			warning = alignWarning()
		} else {
			start = a
		}
	}
	// libpcp forgets the text of an earlier warning when it parses -T or
	// -O (but still returns 0).
	forget := func() {
		if warning != nil {
			warning = &ParseError{Warning: true}
		}
	}
	if spec.End != nil {
		t, e := p.parseTime(*spec.End, start, logEnd)
		if e != nil {
			return Window{}, nil, e
		}
		forget()
		end = t
		if logEnd.before(end) {
			end = logEnd
		}
	}
	origin := start
	if spec.Origin != nil {
		t, e := p.parseTime(*spec.Origin, start, end)
		if e != nil {
			return Window{}, nil, e
		}
		forget()
		origin = t
		if origin.before(start) {
			origin = start
		} else if end.before(origin) {
			origin = end
		}
		if delta > 0 {
			// Up, or if that passes the end the last aligned time
			// before the end. Timestamps compare field by field, so
			// an unnormalised end like (t, 1000000000) precedes the
			// aligned (t+1, 0).
			a := origin.alignUp(delta)
			if end.before(a) {
				n := end.nanos()
				a = fromNanos(n - n%delta)
			}
			if a.before(start) || end.before(a) {
				warning = alignWarning()
			} else {
				origin = a
			}
		}
	}
	return Window{Start: start.timestamp(), End: end.timestamp(), Origin: origin.timestamp()}, warning, nil
}

// timespec is a struct timespec with libpcp's arithmetic.
type timespec struct{ sec, nsec int64 }

func fromTimestamp(t pmapi.Timestamp) timespec { return timespec{t.Sec, int64(t.Nsec)} }

func (t timespec) timestamp() pmapi.Timestamp {
	return pmapi.Timestamp{Sec: t.sec, Nsec: int32(t.nsec)}
}

func (t timespec) before(u timespec) bool {
	return t.sec < u.sec || t.sec == u.sec && t.nsec < u.nsec
}

// add is pmtimespecAdd: it carries only when the nanoseconds exceed
// 1000000000, so an exact 1000000000 stays.
func (t timespec) add(u timespec) timespec {
	r := timespec{t.sec + u.sec, t.nsec + u.nsec}
	if r.nsec > 1e9 {
		r.nsec -= 1e9
		r.sec++
	}
	return r
}

// sub is pmtimespecSub.
func (t timespec) sub(u timespec) timespec {
	r := timespec{t.sec - u.sec, t.nsec - u.nsec}
	if r.nsec < 0 {
		r.nsec += 1e9
		r.sec--
	}
	return r
}

func (t timespec) nanos() int64 { return t.sec*1e9 + t.nsec }

func fromNanos(n int64) timespec { return timespec{n / 1e9, n % 1e9} }

// alignUp rounds t up to a multiple of delta nanoseconds since the epoch.
func (t timespec) alignUp(delta int64) timespec {
	n := t.nanos()
	if r := n % delta; r != 0 {
		n += delta - r
	}
	return fromNanos(n)
}

// windowParser holds what the bounds of one window share: the zone, the
// mktime state and the current time.
type windowParser struct {
	zone *Zone
	mk   *mktimer
	now  time.Time
}

// parseTime interprets one bound (__pmParseHighResTime): ref is the
// reference for "+interval" and "@datetime", end the base for "-interval".
func (p *windowParser) parseTime(s string, ref, end timespec) (timespec, *ParseError) {
	i := 0
	for i < len(s) && cnum.IsSpace(s[i]) {
		i++
	}
	sign := 1
	absolute := false
	if i < len(s) {
		switch s[i] {
		case '+':
			i++
		case '-':
			sign = -1
			i++
		case '@':
			absolute = true
			i++
		}
	}
	rest := s[i:]
	if absolute {
		f, perr := parseCtime(rest)
		if perr == nil {
			if t, ok := p.convertCtime(f, ref); ok {
				return t, nil
			}
			perr = &ParseError{Input: rest, Problem: problemUnexpected}
		}
		if t, ok := p.getDate(rest, ref, end); ok {
			return t, nil
		}
		return timespec{}, perr
	}
	sec, nsec, _, err := ParseInterval(rest)
	if err == nil {
		iv := timespec{sec, nsec}
		if sign < 0 {
			return end.sub(iv), nil
		}
		return ref.add(iv), nil
	}
	if t, ok := p.getDate(rest, ref, end); ok {
		return t, nil
	}
	return timespec{}, err.(*ParseError)
}

// convertCtime turns parsed ctime fields into an instant (__pmConvertTime):
// missing high-order fields come from the reference time in the reporting
// zone, advancing by one unit when the highest given field is earlier than
// the reference's.
func (p *windowParser) convertCtime(f ctimeFields, ref timespec) (timespec, bool) {
	o := p.zone.Civil(ref.sec)
	year, mon, mday, hour, min, sec, nsec := f.year, f.mon, f.mday, f.hour, f.min, f.sec, f.nsec
	if year < 0 {
		year = int64(o.Year)
		if mon < 0 {
			mon = int64(o.Month - 1)
			if mday < 0 {
				mday = int64(o.Day)
				if hour < 0 {
					hour, min, sec, nsec = int64(o.Hour), int64(o.Minute), int64(o.Second), ref.nsec
				} else if hour < int64(o.Hour) {
					mday++
				}
			} else if mday < int64(o.Day) {
				mon++
			}
		} else if mon < int64(o.Month-1) {
			year++
		}
	}
	t, ok := p.mk.mktime(year, mon, mday, hour, min, sec)
	if !ok {
		return timespec{}, false
	}
	return timespec{t, nsec}, true
}

package pcptime

import (
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// ctimeFields is a date and time as libpcp's ctime-style parser leaves it
// (the "@datetime" of -S/-T/-O): -1 marks a missing high-order field,
// missing low-order fields already hold their defaults (January, day 1,
// 00:00:00).
type ctimeFields struct {
	year, mon, mday, hour, min, sec int64 // year is the full year, mon 0..11
	nsec                            int64
}

var (
	ctimeDays   = [...]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
	ctimeMonths = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
)

// ctimeParser walks one string.
type ctimeParser struct {
	s string
	i int
}

func (p *ctimeParser) skipSpace() {
	for p.i < len(p.s) && cnum.IsSpace(p.s[p.i]) {
		p.i++
	}
}

// name3 matches the first three letters of one of names, in any case and
// with nothing required after them ("Nov14" is November 14th, "Novem" is
// an error at "em").
func (p *ctimeParser) name3(names []string) int {
	p.skipSpace()
	if p.i+3 > len(p.s) {
		return -1
	}
	w := strings.ToLower(p.s[p.i : p.i+3])
	for k, n := range names {
		if w == n {
			p.i += 3
			return k
		}
	}
	return -1
}

// integer reads a number as strtol does (leading white space, a sign,
// decimal digits) and takes it only when it lies in [lo, hi]; otherwise
// nothing is consumed.
func (p *ctimeParser) integer(lo, hi int64) (int64, bool) {
	j := p.i
	for j < len(p.s) && cnum.IsSpace(p.s[j]) {
		j++
	}
	neg := false
	if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
		neg = p.s[j] == '-'
		j++
	}
	if j >= len(p.s) || !isDigit(p.s[j]) {
		return 0, false
	}
	var v int64
	big := false
	for ; j < len(p.s) && isDigit(p.s[j]); j++ {
		if v > 1e15 {
			big = true
			continue
		}
		v = v*10 + int64(p.s[j]-'0')
	}
	if neg {
		v = -v
	}
	if big || v < lo || v > hi {
		return 0, false
	}
	p.i = j
	return v, true
}

// seconds reads seconds with strtod, in [0, 61].
func (p *ctimeParser) seconds() (float64, bool) {
	j := p.i
	for j < len(p.s) && cnum.IsSpace(p.s[j]) {
		j++
	}
	d, n := strtod(p.s[j:])
	if n == 0 || d < 0 || d > 61 {
		return 0, false
	}
	p.i = j + n
	return d, true
}

// parseCtime interprets s as libpcp's __pmParseCtime does: in the order of
// ctime(3), an optional weekday (ignored), month, day of the month, time
// "hh[:mm[:ss[.frac]]]", "am"/"pm" and year, each optional. A number that
// could be the day or the hour is the hour when no month precedes it or a
// ':' follows it. Low-order fields missing below the highest one given
// default to January, 1, 00:00:00.
func parseCtime(s string) (ctimeFields, *ParseError) {
	f := ctimeFields{-1, -1, -1, -1, -1, -1, -1}
	p := &ctimeParser{s: s}
	fail := func(pos int, problem string) (ctimeFields, *ParseError) {
		return ctimeFields{}, &ParseError{Input: s, Pos: pos, Problem: problem}
	}

	wday := p.name3(ctimeDays[:])
	f.mon = int64(p.name3(ctimeMonths[:]))
	if v, ok := p.integer(0, 31); ok {
		f.mday = v
	}
	if v, ok := p.integer(0, 23); ok {
		f.hour = v
	}
	if f.hour < 0 && f.mday >= 0 && f.mday <= 23 {
		p2 := *p
		p2.skipSpace()
		if f.mon < 0 || p2.i < len(s) && s[p2.i] == ':' {
			f.hour, f.mday = f.mday, -1
		}
	}
	// A ':' makes a time (hour 0 if none came before), with minutes (0 if
	// no number follows) and after a second ':' seconds with an optional
	// fraction.
	p.skipSpace()
	if p.i < len(s) && s[p.i] == ':' {
		p.i++
		if f.hour < 0 {
			f.hour = 0
		}
		f.min = 0
		if v, ok := p.integer(0, 59); ok {
			f.min = v
		}
		p.skipSpace()
		if p.i < len(s) && s[p.i] == ':' {
			p.i++
			f.sec, f.nsec = 0, 0
			if d, ok := p.seconds(); ok {
				f.sec = int64(d)
				f.nsec = extendedNanos(d-float64(f.sec), false)
			}
		}
	}
	// "am" or "pm" as a word of its own, only after an hour of 0..12.
	p.skipSpace()
	if p.i+2 <= len(s) {
		w := strings.ToLower(s[p.i : p.i+2])
		if (w == "am" || w == "pm") && (p.i+2 == len(s) || !isAlpha(s[p.i+2])) {
			if f.hour < 0 || f.hour > 12 {
				return fail(p.i, problemUnexpected)
			}
			if w == "pm" && f.hour < 12 {
				f.hour += 12
			} else if w == "am" && f.hour == 12 {
				f.hour = 0
			}
			p.i += 2
		}
	}
	if v, ok := p.integer(1900, 9999); ok {
		f.year = v
	}
	p.skipSpace()
	if p.i < len(s) {
		return fail(p.i, problemUnexpected)
	}
	if f.mday == 0 && f.hour >= 0 {
		// Day 0 with a time counts as no day.
		f.mday = -1
	}
	if wday >= 0 && f.mon < 0 && f.mday < 0 ||
		f.hour >= 0 && f.min < 0 && f.mday < 0 && f.mon < 0 && f.year < 0 {
		return fail(len(s), problemMoreInfo)
	}
	// Defaults for the low-order fields below the highest one given.
	fields := []*int64{&f.year, &f.mon, &f.mday, &f.hour, &f.min, &f.sec, &f.nsec}
	defaults := []int64{0, 0, 1, 0, 0, 0, 0}
	top := -1
	for k, v := range fields {
		if *v >= 0 {
			top = k
			break
		}
	}
	if top >= 0 {
		for k := top + 1; k < len(fields); k++ {
			if *fields[k] < 0 {
				*fields[k] = defaults[k]
			}
		}
	}
	return f, nil
}

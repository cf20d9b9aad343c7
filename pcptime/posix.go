package pcptime

import "github.com/pcpkit/pcpkit/internal/cnum"

// This file interprets POSIX TZ rule strings ("std offset [dst [offset]
// [,start[/time],end[/time]]]") with the GNU C library's semantics,
// including its treatment of malformed strings: whatever was parsed before
// the first error stays in effect, and the rest keeps its zero value.

// ruleKind is the form of a daylight saving change date.
type ruleKind uint8

const (
	ruleDay    ruleKind = iota // "n": zero-based day of the year, counting February 29
	ruleJulian                 // "Jn": day 1..365 of the year, never counting February 29
	ruleMonth                  // "Mm.w.d": day d of week w of month m
)

// tzRule is one half of a rule string: the standard part (index 0, with the
// date daylight time starts) or the daylight part (index 1, with the date
// it ends).
type tzRule struct {
	name    string
	offset  int64 // seconds east of UTC
	kind    ruleKind
	m, n, d uint16 // month, week and day for ruleMonth; d is the day for the others
	secs    int64  // local time of day of the change, in seconds
	parsed  bool   // the date and time parsed completely
}

// posixTZ is a parsed rule string.
type posixTZ struct {
	r [2]tzRule
}

const secsPerDay = 86400

// utcRules is the zone the C library falls back to when nothing is
// specified: UTC, named "UTC".
func utcRules() posixTZ {
	var tz posixTZ
	tz.r[0].name, tz.r[1].name = "UTC", "UTC"
	return tz
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// scanUshort converts an unsigned short at s[i:] as the C library's
// sscanf("%hu") does: leading white space is skipped, a sign is allowed, the
// digits are converted with strtoul (so "-1" is 65535 and overflow gives
// 65535) and the result is truncated to 16 bits. It returns the value and
// the index after the number, or ok=false when no digits follow.
func scanUshort(s string, i int) (v uint16, next int, ok bool) {
	for i < len(s) && cnum.IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, i, false
	}
	var u uint64
	overflow := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if u > (^uint64(0)-d)/10 {
			overflow = true
		}
		u = u*10 + d
	}
	switch {
	case overflow:
		u = ^uint64(0)
	case neg:
		u = -u
	}
	return uint16(u), i, true
}

// scanClock reads "hh[:mm[:ss]]" as sscanf("%hu%n:%hu%n:%hu%n") does,
// storing each field as it converts. It returns the number of fields
// converted and how far the last complete field reached (consumed is 0 when
// no field converted).
func scanClock(s string, hh, mm, ss *uint16) (fields, consumed int) {
	v, i, ok := scanUshort(s, 0)
	if !ok {
		return 0, 0
	}
	*hh, consumed, fields = v, i, 1
	if i >= len(s) || s[i] != ':' {
		return
	}
	v, i, ok = scanUshort(s, i+1)
	if !ok {
		return
	}
	*mm, consumed, fields = v, i, 2
	if i >= len(s) || s[i] != ':' {
		return
	}
	v, i, ok = scanUshort(s, i+1)
	if !ok {
		return
	}
	*ss, consumed, fields = v, i, 3
	return
}

// parseName reads a zone abbreviation: three or more letters, or "<...>"
// holding three or more letters, digits, '+' or '-'.
func parseName(s string, i int) (name string, next int, ok bool) {
	p := i
	for p < len(s) && isAlpha(s[p]) {
		p++
	}
	if p-i >= 3 {
		return s[i:p], p, true
	}
	if i >= len(s) || s[i] != '<' {
		return "", i, false
	}
	start := i + 1
	p = start
	for p < len(s) && (isAlpha(s[p]) || isDigit(s[p]) || s[p] == '+' || s[p] == '-') {
		p++
	}
	if p >= len(s) || s[p] != '>' || p-start < 3 {
		return "", i, false
	}
	return s[start:p], p + 1, true
}

// parseOffset reads the offset of rule which (0 standard, 1 daylight). The
// POSIX sign is inverted: "5" and "+5" are five hours west. Hours are
// capped at 24 and minutes and seconds at 59. A missing daylight offset
// defaults to one hour ahead of standard time; a missing standard offset
// is an error (and leaves it at zero).
func (tz *posixTZ) parseOffset(s string, i, which int) (next int, ok bool) {
	if which == 0 && (i >= len(s) || s[i] != '+' && s[i] != '-' && !isDigit(s[i])) {
		return i, false
	}
	sign := int64(-1)
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		if s[i] == '-' {
			sign = 1
		}
		i++
	}
	var hh, mm, ss uint16
	fields, consumed := scanClock(s[i:], &hh, &mm, &ss)
	if fields > 0 {
		h, m, sec := int64(hh), int64(mm), int64(ss)
		tz.r[which].offset = sign * (min(sec, 59) + min(m, 59)*60 + min(h, 24)*3600)
	} else if which == 0 {
		tz.r[0].offset = 0
		return i, false
	} else {
		tz.r[1].offset = tz.r[0].offset + 3600
	}
	return i + consumed, true
}

// parseRule reads the change date and time of rule which.
func (tz *posixTZ) parseRule(s string, i, which int) (next int, ok bool) {
	r := &tz.r[which]
	if i < len(s) && s[i] == ',' {
		i++
	}
	switch {
	case i < len(s) && (s[i] == 'J' || isDigit(s[i])):
		r.kind = ruleDay
		if s[i] == 'J' {
			r.kind = ruleJulian
			i++
			if i >= len(s) || !isDigit(s[i]) {
				return i, false
			}
		}
		// strtoul: the digits (a sign cannot occur here).
		p := i
		var d uint64
		big := false
		for p < len(s) && isDigit(s[p]) {
			d = d*10 + uint64(s[p]-'0')
			if d > 1000 {
				big = true
			}
			p++
		}
		if big || d > 365 || r.kind == ruleJulian && d == 0 {
			return i, false
		}
		r.d = uint16(d)
		i = p
	case i < len(s) && s[i] == 'M':
		r.kind = ruleMonth
		// sscanf("M%hu.%hu.%hu%n"), storing fields as they convert.
		v, p, okv := scanUshort(s, i+1)
		if !okv {
			return i, false
		}
		r.m = v
		if p >= len(s) || s[p] != '.' {
			return i, false
		}
		v, p, okv = scanUshort(s, p+1)
		if !okv {
			return i, false
		}
		r.n = v
		if p >= len(s) || s[p] != '.' {
			return i, false
		}
		v, p, okv = scanUshort(s, p+1)
		if !okv {
			return i, false
		}
		r.d = v
		if r.m < 1 || r.m > 12 || r.n < 1 || r.n > 5 || r.d > 6 {
			return i, false
		}
		i = p
	case i >= len(s):
		// No rule at all: the United States rules since 2007.
		r.kind = ruleMonth
		if which == 0 {
			r.m, r.n, r.d = 3, 2, 0
		} else {
			r.m, r.n, r.d = 11, 1, 0
		}
	default:
		return i, false
	}
	if i < len(s) && s[i] != '/' && s[i] != ',' {
		return i, false
	}
	if i < len(s) && s[i] == '/' {
		i++
		if i >= len(s) {
			return i, false
		}
		neg := s[i] == '-'
		if neg {
			i++
		}
		hh, mm, ss := uint16(2), uint16(0), uint16(0)
		_, consumed := scanClock(s[i:], &hh, &mm, &ss)
		i += consumed
		r.secs = int64(hh)*3600 + int64(mm)*60 + int64(ss)
		if neg {
			r.secs = -r.secs
		}
	} else {
		r.secs = 2 * 3600
	}
	r.parsed = true
	return i, true
}

// defaultRulesFunc supplies the "posixrules" file rewritten for a rule
// string that names a daylight zone without giving its rules; nil when
// there is none.
type defaultRulesFunc func(std, dst string, stdOff, dstOff int64) *tzFile

// parsePosixTZ interprets s. When s names a daylight saving zone without
// rules and defaults yields a file, that file is returned instead.
func parsePosixTZ(s string, defaults defaultRulesFunc) (posixTZ, *tzFile) {
	var tz posixTZ
	name, i, ok := parseName(s, 0)
	if !ok {
		return tz, nil
	}
	tz.r[0].name = name
	if i, ok = tz.parseOffset(s, i, 0); !ok {
		return tz, nil
	}
	if i >= len(s) {
		// No daylight saving time.
		tz.r[1].name, tz.r[1].offset = tz.r[0].name, tz.r[0].offset
		return tz, nil
	}
	if name, j, ok := parseName(s, i); ok {
		tz.r[1].name = name
		i, _ = tz.parseOffset(s, j, 1)
		if i >= len(s) || s[i] == ',' && i+1 == len(s) {
			if defaults != nil {
				if f := defaults(tz.r[0].name, tz.r[1].name, tz.r[0].offset, tz.r[1].offset); f != nil {
					return tz, f
				}
			}
		}
	}
	if i, ok = tz.parseRule(s, i, 0); ok {
		tz.parseRule(s, i, 1)
	}
	return tz, nil
}

// isLeap reports whether year is a Gregorian leap year.
func isLeap(year int64) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}

// monthStart holds the day of the year each month starts on, for common
// and leap years, laid out as one array so that the out-of-range months a
// malformed rule can leave behind index its neighbours.
var monthStart = [26]int64{
	0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365,
	0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366,
}

func monthStartAt(i int) int64 {
	if i < 0 || i >= len(monthStart) {
		return 0
	}
	return monthStart[i]
}

// change returns the instant rule r takes effect in year. Like the C
// library, it counts from January 1st 1970 for every year up to 1970 (so
// before 1970 every rule acts on dates of 1970 in that year's calendar).
func (r *tzRule) change(year int64) int64 {
	if year == 0 && !r.parsed {
		// The C library caches the change per year and marks the cache
		// of a rule that never parsed as computed for year 0, with
		// change 0.
		return 0
	}
	var t int64
	if year > 1970 {
		t = ((year-1970)*365 + (year-1)/4 - 1970/4 - ((year-1)/100 - 1970/100) + ((year-1)/400 - 1970/400)) * secsPerDay
	}
	switch r.kind {
	case ruleJulian:
		t += (int64(r.d) - 1) * secsPerDay
		if r.d >= 60 && isLeap(year) {
			t += secsPerDay
		}
	case ruleDay:
		t += int64(r.d) * secsPerDay
	case ruleMonth:
		row := 0
		if isLeap(year) {
			row = 13
		}
		m := int64(r.m)
		t += monthStartAt(row+int(m)-1) * secsPerDay
		// Zeller's congruence for the weekday of the 1st of the month,
		// with C's truncating division.
		m1 := (m+9)%12 + 1
		yy0 := year
		if m <= 2 {
			yy0--
		}
		yy1, yy2 := yy0/100, yy0%100
		dow := ((26*m1-2)/10 + 1 + yy2 + yy2/4 + yy1/4 - 2*yy1) % 7
		if dow < 0 {
			dow += 7
		}
		d := int64(r.d) - dow
		if d < 0 {
			d += 7
		}
		monthLen := monthStartAt(row+int(m)) - monthStartAt(row+int(m)-1)
		for i := uint16(1); i < r.n; i++ {
			if d+7 >= monthLen {
				break
			}
			d += 7
		}
		t += d * secsPerDay
	}
	return t - r.offset + r.secs
}

// lookup returns the offset, abbreviation and daylight flag at sec. The
// rules are applied for the UTC year of sec.
func (tz *posixTZ) lookup(sec int64) (offset int64, abbrev string, isDST bool) {
	year := utcYear(sec)
	c0 := tz.r[0].change(year)
	c1 := tz.r[1].change(year)
	if c0 > c1 {
		// Southern hemisphere: daylight time spans the new year.
		isDST = sec < c1 || sec >= c0
	} else {
		isDST = sec >= c0 && sec < c1
	}
	r := &tz.r[0]
	if isDST {
		r = &tz.r[1]
	}
	return r.offset, r.name, isDST
}

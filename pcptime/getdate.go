package pcptime

import (
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// This file implements the getdate(3)-style grammar libpcp falls back to
// for time window bounds its ctime-style parser rejects (the classic
// public-domain getdate.y grammar): dates such as "2023-11-14",
// "11/14/23", "14-Nov-2023", "14 Nov 2023", "Nov 14, 2023" and
// "20231114"; times "22:13[:21]" with "am"/"pm" or a numeric zone
// "-0500"; zone names ("UTC", "EST", "EDT", military letters); weekday
// names with ordinals ("next Wed"); relative units ("2 hours ago",
// "-1 day", "last month", "fortnight"); "yesterday", "today", "tomorrow"
// and "now". As in the original, years must lie in 1970..2038 and a bare
// number is a time ("2023" is 20:23), a date (more than 10000:
// "20231114") or, after a date and a time, the year.
//
// How libpcp chooses "now" was measured, not derived: an expression with a
// counted relative unit ("2 hours", "last week") or with two or more
// relative units ("this hour") counts from the end of the archive if it
// holds "ago" or a negative count and from the start otherwise; anything
// else counts from the real current time. "today", "yesterday" and
// "tomorrow" name that day at midnight (or at the time given).

type gdKind uint8

const (
	gdEnd gdKind = iota
	gdUnum
	gdSnum
	gdMonth
	gdDay
	gdMerid
	gdZone
	gdDayZone
	gdDST
	gdMinuteUnit
	gdSecUnit
	gdMonthUnit
	gdAgo
	gdDayRel // today, yesterday, tomorrow (libpcp's variant)
	gdChar
	gdUnknown
)

type gdToken struct {
	kind gdKind
	val  int64
	c    byte
}

const (
	merid24 = iota
	meridAM
	meridPM
)

var gdMonths = []struct {
	name string
	val  int64
}{
	{"january", 1}, {"february", 2}, {"march", 3}, {"april", 4}, {"may", 5}, {"june", 6},
	{"july", 7}, {"august", 8}, {"september", 9}, {"sept", 9}, {"october", 10},
	{"november", 11}, {"december", 12},
}

var gdDays = []struct {
	name string
	val  int64
}{
	{"sunday", 0}, {"monday", 1}, {"tuesday", 2}, {"tues", 2}, {"wednesday", 3}, {"wednes", 3},
	{"thursday", 4}, {"thur", 4}, {"thurs", 4}, {"friday", 5}, {"saturday", 6},
}

// gdZones are zone names with their offsets in minutes WEST of UTC.
var gdZones = map[string]struct {
	kind gdKind
	west int64
}{
	"gmt": {gdZone, 0}, "ut": {gdZone, 0}, "utc": {gdZone, 0}, "wet": {gdZone, 0},
	"bst": {gdDayZone, 0}, "wat": {gdZone, 60}, "at": {gdZone, 120}, "ast": {gdZone, 240},
	"adt": {gdDayZone, 240}, "est": {gdZone, 300}, "edt": {gdDayZone, 300}, "cst": {gdZone, 360},
	"cdt": {gdDayZone, 360}, "mst": {gdZone, 420}, "mdt": {gdDayZone, 420}, "pst": {gdZone, 480},
	"pdt": {gdDayZone, 480}, "yst": {gdZone, 540}, "ydt": {gdDayZone, 540}, "hst": {gdZone, 600},
	"hdt": {gdDayZone, 600}, "cat": {gdZone, 600}, "ahst": {gdZone, 600}, "nt": {gdZone, 660},
	"idlw": {gdZone, 720}, "cet": {gdZone, -60}, "met": {gdZone, -60}, "mewt": {gdZone, -60},
	"mest": {gdDayZone, -60}, "swt": {gdZone, -60}, "sst": {gdDayZone, -60}, "fwt": {gdZone, -60},
	"fst": {gdDayZone, -60}, "eet": {gdZone, -120}, "bt": {gdZone, -180}, "zp4": {gdZone, -240},
	"zp5": {gdZone, -300}, "zp6": {gdZone, -360}, "wast": {gdZone, -420}, "wadt": {gdDayZone, -420},
	"cct": {gdZone, -480}, "jst": {gdZone, -540}, "east": {gdZone, -600}, "eadt": {gdDayZone, -600},
	"gst": {gdZone, -600}, "nzt": {gdZone, -720}, "nzst": {gdZone, -720}, "nzdt": {gdDayZone, -720},
	"idle": {gdZone, -720},
}

var gdUnits = map[string]gdToken{
	"year": {kind: gdMonthUnit, val: 12}, "month": {kind: gdMonthUnit, val: 1},
	"fortnight": {kind: gdMinuteUnit, val: 14 * 24 * 60}, "week": {kind: gdMinuteUnit, val: 7 * 24 * 60},
	"day": {kind: gdMinuteUnit, val: 24 * 60}, "hour": {kind: gdMinuteUnit, val: 60},
	"minute": {kind: gdMinuteUnit, val: 1}, "min": {kind: gdMinuteUnit, val: 1},
	"second": {kind: gdSecUnit, val: 1}, "sec": {kind: gdSecUnit, val: 1},
}

var gdOther = map[string]gdToken{
	"tomorrow": {kind: gdDayRel, val: 1}, "yesterday": {kind: gdDayRel, val: -1},
	"today": {kind: gdDayRel, val: 0}, "now": {kind: gdMinuteUnit, val: 0},
	"last": {kind: gdUnum, val: -1}, "this": {kind: gdMinuteUnit, val: 0},
	"next": {kind: gdUnum, val: 2}, "first": {kind: gdUnum, val: 1},
	"third": {kind: gdUnum, val: 3}, "fourth": {kind: gdUnum, val: 4}, "fifth": {kind: gdUnum, val: 5},
	"sixth": {kind: gdUnum, val: 6}, "seventh": {kind: gdUnum, val: 7}, "eighth": {kind: gdUnum, val: 8},
	"ninth": {kind: gdUnum, val: 9}, "tenth": {kind: gdUnum, val: 10}, "eleventh": {kind: gdUnum, val: 11},
	"twelfth": {kind: gdUnum, val: 12}, "ago": {kind: gdAgo},
}

// lookupWord classifies a word as the classic lexer does.
func lookupWord(word string) gdToken {
	w := strings.ToLower(word)
	switch w {
	case "am", "a.m.":
		return gdToken{kind: gdMerid, val: meridAM}
	case "pm", "p.m.":
		return gdToken{kind: gdMerid, val: meridPM}
	}
	// Months and days: the full name, or three letters (four with a
	// trailing '.').
	abbrev := ""
	if len(w) == 3 {
		abbrev = w
	} else if len(w) == 4 && w[3] == '.' {
		abbrev = w[:3]
	}
	for _, m := range gdMonths {
		if abbrev != "" && strings.HasPrefix(m.name, abbrev) || abbrev == "" && w == m.name {
			return gdToken{kind: gdMonth, val: m.val}
		}
	}
	for _, d := range gdDays {
		if abbrev != "" && strings.HasPrefix(d.name, abbrev) || abbrev == "" && w == d.name {
			return gdToken{kind: gdDay, val: d.val}
		}
	}
	if w == "dst" {
		return gdToken{kind: gdDST}
	}
	if z, ok := gdZones[w]; ok {
		return gdToken{kind: z.kind, val: z.west}
	}
	if u, ok := gdUnits[w]; ok {
		return u
	}
	if len(w) > 1 && w[len(w)-1] == 's' {
		if u, ok := gdUnits[w[:len(w)-1]]; ok {
			return u
		}
	}
	if o, ok := gdOther[w]; ok {
		return o
	}
	// Military zones: single letters but 'j'.
	if len(w) == 1 && isAlpha(w[0]) && w[0] != 'j' {
		c := int64(w[0])
		var h int64
		switch {
		case c <= 'i':
			h = c - 'a' + 1
		case c <= 'm':
			h = c - 'k' + 10
		case c <= 'y':
			h = -(c - 'n' + 1)
		}
		return gdToken{kind: gdZone, val: h * 60}
	}
	// Without periods, a zone name.
	if strings.Contains(w, ".") {
		if z, ok := gdZones[strings.ReplaceAll(w, ".", "")]; ok {
			return gdToken{kind: z.kind, val: z.west}
		}
	}
	return gdToken{kind: gdUnknown}
}

// gdLex splits s into tokens.
func gdLex(s string) []gdToken {
	var toks []gdToken
	i := 0
	for {
		for i < len(s) && (cnum.IsSpace(s[i]) || s[i] == '@') {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if isDigit(c) || c == '-' || c == '+' {
			sign := int64(0)
			if c == '-' || c == '+' {
				sign = 1
				if c == '-' {
					sign = -1
				}
				i++
				if i >= len(s) || !isDigit(s[i]) {
					continue // a lone sign is skipped
				}
			}
			var v int64
			for i < len(s) && isDigit(s[i]) {
				v = v*10 + int64(s[i]-'0')
				if v > 1<<40 {
					v = 1 << 40
				}
				i++
			}
			if sign != 0 {
				toks = append(toks, gdToken{kind: gdSnum, val: sign * v})
			} else {
				toks = append(toks, gdToken{kind: gdUnum, val: v})
			}
			continue
		}
		if isAlpha(c) {
			j := i
			for j < len(s) && (isAlpha(s[j]) || s[j] == '.') {
				j++
			}
			toks = append(toks, lookupWord(s[i:j]))
			i = j
			continue
		}
		if c == '(' {
			depth := 0
			for i < len(s) {
				if s[i] == '(' {
					depth++
				} else if s[i] == ')' {
					depth--
				}
				i++
				if depth == 0 {
					break
				}
			}
			continue
		}
		toks = append(toks, gdToken{kind: gdChar, c: c})
		i++
	}
	return append(toks, gdToken{kind: gdEnd})
}

// gdState is what the grammar collects.
type gdState struct {
	year, month, day          int64
	hour, minutes, seconds    int64
	meridian                  int
	timezone                  int64 // minutes west
	dstMode                   int   // 0 maybe, 1 on, 2 off
	relSeconds, relMonth      int64
	relDay, relHour, relMin   int64 // the same split by unit, for the mktime path
	relSec                    int64
	dayOrdinal, dayNumber     int64
	dayRel                    int64
	haveDate, haveDay         int
	haveRel, haveTime         int
	haveZone, haveDayRel      int
	counted, negative, agoSet bool // for choosing "now"
}

const (
	dstMaybe = iota
	dstOn
	dstOff
)

// gdParse runs the grammar over the tokens; false on a syntax error.
func gdParse(toks []gdToken, st *gdState) bool {
	k := 0
	peek := func(n int) gdToken {
		if k+n < len(toks) {
			return toks[k+n]
		}
		return gdToken{kind: gdEnd}
	}
	isChar := func(t gdToken, c byte) bool { return t.kind == gdChar && t.c == c }
	relunit := func(count int64, counted bool, unit gdToken) {
		st.haveRel++
		if counted {
			st.counted = true
			if count < 0 {
				st.negative = true
			}
		}
		switch unit.kind {
		case gdMinuteUnit:
			st.relSeconds += count * unit.val * 60
			switch {
			case unit.val%(24*60) == 0:
				st.relDay += count * unit.val / (24 * 60)
			case unit.val == 60:
				st.relHour += count
			default:
				st.relMin += count * unit.val
			}
		case gdSecUnit:
			st.relSeconds += count * unit.val
			st.relSec += count * unit.val
		case gdMonthUnit:
			st.relMonth += count * unit.val
		}
		if peek(0).kind == gdAgo {
			k++
			st.relSeconds, st.relMonth = -st.relSeconds, -st.relMonth
			st.relDay, st.relHour, st.relMin, st.relSec = -st.relDay, -st.relHour, -st.relMin, -st.relSec
			st.agoSet = true
		}
	}
	isUnit := func(t gdToken) bool {
		return t.kind == gdMinuteUnit || t.kind == gdSecUnit || t.kind == gdMonthUnit
	}
	// timeTail reads what may follow "hh:mm[:ss]": a meridian or a
	// numeric zone.
	timeTail := func() {
		st.meridian = merid24
		switch t := peek(0); t.kind {
		case gdMerid:
			st.meridian = int(t.val)
			k++
		case gdSnum:
			st.dstMode = dstOff
			st.timezone = -(t.val%100 + (t.val/100)*60)
			k++
		}
	}
	for {
		t := peek(0)
		switch t.kind {
		case gdEnd:
			return true
		case gdUnum:
			n1 := peek(1)
			switch {
			case isChar(n1, ':'):
				if peek(2).kind != gdUnum {
					return false
				}
				st.hour, st.minutes, st.seconds = t.val, peek(2).val, 0
				k += 3
				if isChar(peek(0), ':') {
					if peek(1).kind != gdUnum {
						return false
					}
					st.seconds = peek(1).val
					k += 2
				}
				timeTail()
				st.haveTime++
			case n1.kind == gdMerid:
				st.hour, st.minutes, st.seconds, st.meridian = t.val, 0, 0, int(n1.val)
				k += 2
				st.haveTime++
			case isChar(n1, '/'):
				if peek(2).kind != gdUnum {
					return false
				}
				st.month, st.day = t.val, peek(2).val
				k += 3
				if isChar(peek(0), '/') {
					if peek(1).kind != gdUnum {
						return false
					}
					st.year = peek(1).val
					k += 2
				}
				st.haveDate++
			case n1.kind == gdSnum:
				if peek(2).kind != gdSnum {
					return false
				}
				st.year, st.month, st.day = t.val, -n1.val, -peek(2).val
				k += 3
				st.haveDate++
			case n1.kind == gdMonth:
				st.day, st.month = t.val, n1.val
				k += 2
				switch n2 := peek(0); n2.kind {
				case gdSnum:
					st.year = -n2.val
					k++
				case gdUnum:
					st.year = n2.val
					k++
				}
				st.haveDate++
			case n1.kind == gdDay:
				st.dayOrdinal, st.dayNumber = t.val, n1.val
				k += 2
				st.haveDay++
			case isUnit(n1):
				k += 2
				relunit(t.val, true, n1)
			default:
				k++
				switch {
				case st.haveTime > 0 && st.haveDate > 0 && st.haveRel == 0:
					st.year = t.val
				case t.val > 10000:
					st.haveDate++
					st.day, st.month, st.year = t.val%100, t.val/100%100, t.val/10000
				default:
					st.haveTime++
					if t.val < 100 {
						st.hour, st.minutes = t.val, 0
					} else {
						st.hour, st.minutes = t.val/100, t.val%100
					}
					st.seconds, st.meridian = 0, merid24
				}
			}
		case gdSnum:
			if !isUnit(peek(1)) {
				return false
			}
			k += 2
			relunit(t.val, true, peek(-1))
		case gdMonth:
			if peek(1).kind != gdUnum {
				return false
			}
			st.month, st.day = t.val, peek(1).val
			k += 2
			if isChar(peek(0), ',') && peek(1).kind == gdUnum {
				st.year = peek(1).val
				k += 2
			}
			st.haveDate++
		case gdDay:
			st.dayOrdinal, st.dayNumber = 1, t.val
			k++
			if isChar(peek(0), ',') {
				k++
			}
			st.haveDay++
		case gdZone:
			st.timezone = t.val
			st.dstMode = dstOff
			k++
			if peek(0).kind == gdDST {
				st.dstMode = dstOn
				k++
			}
			st.haveZone++
		case gdDayZone:
			st.timezone, st.dstMode = t.val, dstOn
			k++
			st.haveZone++
		case gdMinuteUnit, gdSecUnit, gdMonthUnit:
			k++
			relunit(1, false, t)
		case gdDayRel:
			st.dayRel += t.val
			st.haveDayRel++
			k++
		default:
			return false
		}
	}
}

// getDate interprets s with the getdate grammar; ref and end are the
// window's reference and end (the archive start and end for -S).
func (p *windowParser) getDate(s string, ref, end timespec) (timespec, bool) {
	st := gdState{dstMode: dstMaybe}
	if !gdParse(gdLex(s), &st) {
		return timespec{}, false
	}
	if st.haveTime > 1 || st.haveZone > 1 || st.haveDate > 1 || st.haveDay > 1 ||
		st.haveDayRel > 0 && st.haveDate > 0 {
		return timespec{}, false
	}
	now := p.now.Unix()
	if st.counted || st.haveRel >= 2 {
		if st.agoSet || st.negative {
			now = end.sec
		} else {
			now = ref.sec
		}
	}
	z := p.zone
	tm := z.Civil(now)
	st.year, st.month, st.day = orDefault(st.haveDate, st.year, int64(tm.Year)),
		orDefault(st.haveDate, st.month, int64(tm.Month)), orDefault(st.haveDate, st.day, int64(tm.Day))
	if st.haveZone == 0 {
		st.timezone = -int64(tm.Offset) / 60
		if tm.IsDST {
			st.timezone += 60
		}
	}
	var start int64
	if st.haveDayRel > 0 {
		// "today", "yesterday", "tomorrow": that calendar day of now's
		// local date, at the time given or midnight, plus the relative
		// seconds, through mktime (measured on the 2023 changes of
		// daylight time).
		if st.haveTime == 0 {
			st.hour, st.minutes, st.seconds, st.meridian = 0, 0, 0, merid24
		}
		h, ok := gdToHour(st.hour, st.meridian)
		if !ok {
			return timespec{}, false
		}
		t, ok := p.mk.mktime(int64(tm.Year), int64(tm.Month-1)+st.relMonth, int64(tm.Day)+st.dayRel+st.relDay,
			h+st.relHour, st.minutes+st.relMin, st.seconds+st.relSec)
		if !ok {
			return timespec{}, false
		}
		if st.haveZone > 0 {
			return timespec{}, false
		}
		if st.haveDay > 0 {
			t += p.gdRelativeDate(t, st.dayOrdinal, st.dayNumber)
		}
		return timespec{t, 0}, true
	}
	if st.haveDate > 0 || st.haveTime > 0 || st.haveDay > 0 {
		t, ok := p.gdConvert(st.month, st.day, st.year, st.hour, st.minutes, st.seconds, st.meridian, st.dstMode, st.timezone)
		if !ok {
			return timespec{}, false
		}
		start = t
	} else {
		start = now
		if st.haveRel == 0 {
			start -= int64(tm.Hour*3600 + tm.Minute*60 + tm.Second)
		}
	}
	start += st.relSeconds
	if st.relMonth != 0 {
		d, ok := p.gdRelativeMonth(start, st.relMonth, st.timezone)
		if !ok {
			return timespec{}, false
		}
		start += d
	}
	if st.haveDay > 0 && st.haveDate == 0 {
		start += p.gdRelativeDate(start, st.dayOrdinal, st.dayNumber)
	}
	if start == -1 {
		start = 0
	}
	return timespec{start, 0}, true
}

func orDefault(have int, v, def int64) int64 {
	if have > 0 {
		return v
	}
	return def
}

// gdConvert is the grammar's Convert: a local date and time (with the zone
// offset given or assumed) to an instant, with the original's limits.
func (p *windowParser) gdConvert(month, day, year, hours, minutes, seconds int64, meridian, dstMode int, tzWest int64) (int64, bool) {
	if year < 0 {
		year = -year
	}
	if year < 69 {
		year += 2000
	} else if year < 100 {
		year += 1900
	}
	if year < 1970 || year > 2038 || month < 1 || month > 12 || day < 1 {
		return 0, false
	}
	mdays := []int64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if isLeap(year) {
		mdays[1] = 29
	}
	if day > mdays[month-1] {
		return 0, false
	}
	julian := dateToDays(year, month, day)*secsPerDay + tzWest*60
	tod, ok := gdToSeconds(hours, minutes, seconds, meridian)
	if !ok {
		return 0, false
	}
	julian += tod
	if dstMode == dstOn {
		julian -= 3600
	} else if dstMode == dstMaybe {
		if _, _, dst := p.zone.Lookup(julian); dst {
			julian -= 3600
		}
	}
	return julian, true
}

// gdToHour converts an hour with its meridian to 0..23.
func gdToHour(h int64, meridian int) (int64, bool) {
	switch meridian {
	case merid24:
		if h < 0 || h > 23 {
			return 0, false
		}
	default:
		if h < 1 || h > 12 {
			return 0, false
		}
		if h == 12 {
			h = 0
		}
		if meridian == meridPM {
			h += 12
		}
	}
	return h, true
}

func gdToSeconds(h, m, s int64, meridian int) (int64, bool) {
	if m < 0 || m > 59 || s < 0 || s > 59 {
		return 0, false
	}
	switch meridian {
	case merid24:
		if h < 0 || h > 23 {
			return 0, false
		}
	case meridAM, meridPM:
		if h < 1 || h > 12 {
			return 0, false
		}
		if h == 12 {
			h = 0
		}
		if meridian == meridPM {
			h += 12
		}
	}
	return (h*60+m)*60 + s, true
}

// gdDSTCorrect is the original's DSTcorrect: the distance from start to
// future corrected by their difference in hour of the day.
func (p *windowParser) gdDSTCorrect(start, future int64) int64 {
	sd := int64(p.zone.Civil(start).Hour+1) % 24
	fd := int64(p.zone.Civil(future).Hour+1) % 24
	return (future - start) + (sd-fd)*3600
}

func (p *windowParser) gdRelativeDate(start, ordinal, number int64) int64 {
	tm := p.zone.Civil(start)
	now := start + secsPerDay*((number-int64(tm.Weekday)+7)%7)
	if ordinal <= 0 {
		now += 7 * secsPerDay * ordinal
	} else {
		now += 7 * secsPerDay * (ordinal - 1)
	}
	return p.gdDSTCorrect(start, now)
}

func (p *windowParser) gdRelativeMonth(start, relMonth, tzWest int64) (int64, bool) {
	tm := p.zone.Civil(start)
	month := 12*int64(tm.Year) + int64(tm.Month-1) + relMonth
	year := month / 12
	month = month%12 + 1
	t, ok := p.gdConvert(month, int64(tm.Day), year, int64(tm.Hour), int64(tm.Minute), int64(tm.Second), merid24, dstMaybe, tzWest)
	if !ok {
		return 0, false
	}
	return p.gdDSTCorrect(start, t), true
}

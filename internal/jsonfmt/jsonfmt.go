// Package jsonfmt holds what pcpkit's JSON outputs share (docs/json.md):
// the one timestamp format of every tool, and the appenders the
// streaming writers build their lines with, without encoding/json's
// reflection and allocations.
package jsonfmt

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// TimeLayout is every JSON time of pcpkit's tools: RFC 3339 in UTC, with
// nine fractional digits (nanoseconds; microsecond sources are
// zero-padded) and "Z".
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// AppendTime appends the time sec seconds and nsec nanoseconds after the
// epoch, normalised (an nsec of 1e9 or more carries into the seconds), as
// a JSON string in TimeLayout.
func AppendTime(b []byte, sec int64, nsec int64) []byte {
	b = append(b, '"')
	if 0 <= sec && sec < maxFastSec && 0 <= nsec && nsec < 1e9 {
		b = appendUTC(b, sec, nsec)
	} else {
		b = time.Unix(sec, nsec).UTC().AppendFormat(b, TimeLayout)
	}
	return append(b, '"')
}

// maxFastSec is 10000-01-01T00:00:00Z: appendUTC writes the times before
// it (four-digit years), time's AppendFormat the others.
const maxFastSec = 253402300800

// appendUTC appends TimeLayout's text of a time from 1970 to 9999 with
// nsec in [0, 1e9), as time's AppendFormat writes it, without its layout
// parsing (a sample's time is on every line of a tool's output): the date
// from the day number by the civil-from-days arithmetic of the proleptic
// Gregorian calendar.
func appendUTC(b []byte, sec, nsec int64) []byte {
	days, s := sec/86400, sec%86400
	z := days + 719468 // days since 0000-03-01
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	year := yoe + era*400
	if month > 12 {
		month -= 12
		year++
	}
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	b = append2(b, month)
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, s/3600)
	b = append(b, ':')
	b = append2(b, s/60%60)
	b = append(b, ':')
	b = append2(b, s%60)
	b = append(b, '.')
	var frac [9]byte
	for i := 8; i >= 0; i-- {
		frac[i] = byte('0' + nsec%10)
		nsec /= 10
	}
	b = append(b, frac[:]...)
	return append(b, 'Z')
}

// append2 appends n (0 to 99) in two digits.
func append2(b []byte, n int64) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// Time is AppendTime's text without the quotes, for encoding/json users.
func Time(sec int64, nsec int64) string {
	return time.Unix(sec, nsec).UTC().Format(TimeLayout)
}

// AppendStamp appends the three fields of a sample time, as every tool's
// JSON lines carry it: "timestamp" (AppendTime), "sec" and "nsec" (the
// numbers as the source gives them), without surrounding braces or a
// leading comma.
func AppendStamp(b []byte, sec int64, nsec int64) []byte {
	b = append(b, `"timestamp":`...)
	b = AppendTime(b, sec, nsec)
	b = append(b, `,"sec":`...)
	b = strconv.AppendInt(b, sec, 10)
	b = append(b, `,"nsec":`...)
	return strconv.AppendInt(b, nsec, 10)
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, as
// encoding/json writes it (without its HTML escaping).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// IsNumber reports whether s, as C's printf writes a finite integer or
// floating-point number, is a JSON number as it is: digits, sign, point
// and exponent only ("inf", "nan" and the like are not).
func IsNumber(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return s[0] != '+' && s[0] != '.' && s[len(s)-1] != '.'
}

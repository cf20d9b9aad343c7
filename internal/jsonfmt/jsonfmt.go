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
	b = time.Unix(sec, nsec).UTC().AppendFormat(b, TimeLayout)
	return append(b, '"')
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

package pcptime

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// ParseError is a failure to parse an interval, a time window bound or an
// alignment, carrying what libpcp puts in its error message: the text it
// was parsing, the byte offset of the problem and the complaint.
type ParseError struct {
	Input   string // the text shown on the first line of the message
	Pos     int    // byte offset in Input of the caret
	Problem string // "unexpected value", "Null or empty specification", ...
	Warning bool   // only a warning (pmParseTimeWindow returned 0), not an error
}

// Message returns the message exactly as libpcp builds it (empty for a
// warning whose message libpcp discarded, see ParseWindowSpec): the input, a
// newline, a caret line that repeats the input's white space characters
// and turns every other byte before Pos into a space, then "^ -- ", the
// problem and a newline:
//
//	1x
//	 ^ -- unexpected value
func (e *ParseError) Message() string {
	if e.Problem == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(e.Input)
	b.WriteByte('\n')
	for i := 0; i < e.Pos && i < len(e.Input); i++ {
		if c := e.Input[i]; cnum.IsSpace(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteString("^ -- ")
	b.WriteString(e.Problem)
	b.WriteByte('\n')
	return b.String()
}

// Error returns Message without its final newline.
func (e *ParseError) Error() string {
	return strings.TrimSuffix(e.Message(), "\n")
}

const (
	problemUnexpected = "unexpected value"
	problemEmpty      = "Null or empty specification"
	problemMoreInfo   = "more information expected"
	problemAlign      = "alignment specified by -A switch could not be applied"
)

// intervalUnits are pmParseInterval's units, matched without regard to
// case after one trailing 's' is removed: so "10ms" is ten minutes ("m")
// and "10msec" ten milliseconds. The value is the number of seconds, or
// for the sub-second units the divisor.
var intervalUnits = []struct {
	name   string
	mul    float64
	divide bool
}{
	{"nanosecond", 1e9, true}, {"nsec", 1e9, true},
	{"microsecond", 1e6, true}, {"usec", 1e6, true},
	{"millisecond", 1e3, true}, {"msec", 1e3, true},
	{"second", 1, false}, {"sec", 1, false}, {"s", 1, false},
	{"minute", 60, false}, {"min", 60, false}, {"m", 60, false},
	{"hour", 3600, false}, {"hr", 3600, false}, {"h", 3600, false},
	{"day", 86400, false}, {"d", 86400, false},
}

// ParseInterval parses an interval as libpcp's pmParseHighResInterval(3)
// does (the -t, -A and relative -S/-T/-O arguments): one or more terms
// "number[unit]" that are added up, white space anywhere, the number in
// strtod(3) syntax (so "0x10" and "1e3" work), no unit meaning seconds.
// Units are nanosecond, nsec, microsecond, usec, millisecond, msec, second,
// sec, s, minute, min, m, hour, hr, h, day and d in any case, with one
// trailing "s" removed first, so "10ms" is ten MINUTES. A negative number
// or one above 2^63 is rejected; "nan" is not.
//
// The total is a double; sec is its integer part and nsec the rest in
// nanoseconds rounded half up in the x87 extended precision the C code
// gets, and NOT normalised: "0.9999999999" gives sec=0, nsec=1000000000.
// A NaN or out-of-range total gives math.MinInt64 for both, as the C
// conversion does.
//
// On failure errPos is the byte offset the caret points at and err is a
// *ParseError whose Message is libpcp's: the input, a newline, the caret
// line "^ -- unexpected value" (or "^ -- Null or empty specification" for
// an empty string). A tool prints it after its own line, e.g. "pmval: -t
// argument not in pmParseHighResInterval(3) format:".
func ParseInterval(s string) (sec, nsec int64, errPos int, err error) {
	total, pos, ok := intervalSeconds(s)
	if !ok {
		problem := problemUnexpected
		if s == "" {
			problem = problemEmpty
		}
		return 0, 0, pos, &ParseError{Input: s, Pos: pos, Problem: problem}
	}
	sec, nsec = secondsToTimespec(total)
	return sec, nsec, 0, nil
}

// intervalSeconds adds up the terms of s; on failure it returns the
// offset of the offending text.
func intervalSeconds(s string) (total float64, errPos int, ok bool) {
	if s == "" {
		return 0, 0, false
	}
	i := 0
	for {
		for i < len(s) && cnum.IsSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return total, 0, true
		}
		d, n := strtod(s[i:])
		if n == 0 || d < 0 || d > 9223372036854775807.0 {
			return 0, i, false
		}
		i += n
		for i < len(s) && cnum.IsSpace(s[i]) {
			i++
		}
		start := i
		for i < len(s) && isAlpha(s[i]) {
			i++
		}
		if i == start {
			total += d
			continue
		}
		unit := s[start:i]
		if n := len(unit); unit[n-1] == 's' || unit[n-1] == 'S' {
			unit = unit[:n-1]
		}
		found := false
		if unit == "" {
			total += d // a lone "s": seconds
			found = true
		}
		for _, u := range intervalUnits {
			if found {
				break
			}
			if strings.EqualFold(unit, u.name) {
				if u.divide {
					total += d / u.mul
				} else {
					total += d * u.mul
				}
				found = true
			}
		}
		if !found {
			return 0, start, false
		}
	}
}

// secondsToTimespec splits a double number of seconds as libpcp does:
// seconds by truncation, then ((long double)(t - sec) * 1e9 + 0.5)
// truncated.
func secondsToTimespec(t float64) (sec, nsec int64) {
	if math.IsNaN(t) || t >= 9223372036854775808.0 || t < -9223372036854775808.0 {
		return math.MinInt64, math.MinInt64
	}
	sec = int64(t)
	return sec, extendedNanos(t-float64(sec), true) // the subtraction is exact
}

// extendedNanos returns frac*1e9 (plus 0.5 when round is set), truncated,
// computed in the x87 80-bit extended precision that C's long double
// arithmetic uses on x86: a 64-bit significand, rounding to nearest even
// after each operation.
func extendedNanos(frac float64, round bool) int64 {
	x := new(big.Float).SetPrec(64).SetFloat64(frac)
	x.Mul(x, new(big.Float).SetPrec(64).SetFloat64(1e9))
	if round {
		x.Add(x, new(big.Float).SetPrec(64).SetFloat64(0.5))
	}
	n, _ := x.Int64() // truncates towards zero
	return n
}

// strtod converts the longest prefix of s that C's strtod accepts (after
// no leading white space: callers skip it), returning the value and the
// number of bytes used (0 if none).
func strtod(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := i > 0 && s[0] == '-'
	rest := s[i:]
	lower := strings.ToLower(rest[:min(len(rest), 8)])
	switch {
	case strings.HasPrefix(lower, "infinity"):
		return signed(math.Inf(1), neg), i + 8
	case strings.HasPrefix(lower, "inf"):
		return signed(math.Inf(1), neg), i + 3
	case strings.HasPrefix(lower, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isAlpha(s[j]) || isDigit(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		return signed(math.NaN(), neg), n
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if v, n, ok := hexFloat(rest[2:]); ok {
			return signed(v, neg), i + 2 + n
		}
		// Just the "0".
		return signed(0, neg), i + 1
	}
	j := i
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	v, err := strconv.ParseFloat(s[:j], 64)
	if err != nil {
		// Out of range: strtod gives ±HUGE_VAL or 0 with ERANGE.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, j
		}
		return 0, 0
	}
	return v, j
}

func signed(v float64, neg bool) float64 {
	if neg {
		return -v
	}
	return v
}

// hexFloat converts the hexadecimal digits (with optional point and 'p'
// exponent) at the start of s, which follows "0x".
func hexFloat(s string) (float64, int, bool) {
	isHex := func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
	j, digits := 0, 0
	for j < len(s) && isHex(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHex(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	mant := s[:j]
	exp := "p0"
	if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = s[j:k]
			j = k
		}
	}
	v, err := strconv.ParseFloat("0x"+mant+exp, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0, false
		}
	}
	return v, j, true
}

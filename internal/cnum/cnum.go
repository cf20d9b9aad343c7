// Package cnum reads numbers as the C library does (in the C locale),
// for the tools' options, configuration files and expressions whose
// parsing and error messages follow the real tools' strtol, strtoll,
// strtoull and atof calls.
package cnum

import (
	"math"
	"strconv"
)

// IsSpace is C's isspace in the C locale.
func IsSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// Prefix splits off what C's integer conversions read in base 10:
// leading white space, an optional sign, then digits. It returns the
// sign, the digits ("" when there are none) and the offset of the first
// byte after them.
func Prefix(s string) (neg bool, digits string, end int) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return neg, s[i:j], j
}

// Strtol is C's strtol(s, &endp, 10) with a 64-bit long: it returns the
// value and the offset of the first byte not used, which is 0 when there
// are no digits (C sets endp to s then). Out-of-range values saturate as
// strtol's do.
func Strtol(s string) (v int64, end int) {
	_, d, end := Prefix(s)
	if d == "" {
		return 0, 0
	}
	return Strtoll(s), end
}

// Strtoll is strtoll(s, NULL, 10): saturating at the 64-bit limits.
func Strtoll(s string) int64 {
	neg, d, _ := Prefix(s)
	u, err := strconv.ParseUint(d, 10, 64)
	if err != nil && d != "" {
		u = math.MaxUint64
	}
	if neg {
		if u > 1<<63 {
			return math.MinInt64
		}
		return -int64(u)
	}
	if u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}

// Strtoull is strtoull(s, NULL, 10): saturating, and negated (modulo
// 2^64) for a leading minus.
func Strtoull(s string) uint64 {
	neg, d, _ := Prefix(s)
	u, err := strconv.ParseUint(d, 10, 64)
	if err != nil && d != "" {
		return math.MaxUint64
	}
	if neg {
		return -u
	}
	return u
}

// StrtolBase is strtol(s, &endp, base) for a base from 2 to 36 without
// a prefix ("0x" is not read): the value and the rest of s after the
// digits, or s itself when there are none. Out-of-range values saturate.
func StrtolBase(s string, base int) (int64, string) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var u uint64
	over := false
	for ; i < len(s); i++ {
		d := digitVal(s[i])
		if d < 0 || d >= base {
			break
		}
		if u > (math.MaxUint64-uint64(d))/uint64(base) {
			over = true
		} else {
			u = u*uint64(base) + uint64(d)
		}
	}
	if i == start {
		return 0, s
	}
	switch {
	case neg && (over || u > 1<<63):
		return math.MinInt64, s[i:]
	case neg:
		return -int64(u), s[i:]
	case over || u > math.MaxInt64:
		return math.MaxInt64, s[i:]
	}
	return int64(u), s[i:]
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// Atof is atof(s): the longest prefix of s (after white space) that is a
// decimal floating point number, 0 when there is none; out of range, ±Inf
// or 0 as strtod gives.
func Atof(s string) float64 {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			end = k
		}
	}
	f, _ := strconv.ParseFloat(s[start:end], 64)
	return f
}

package pmapi

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// equalFoldASCII compares a and b ignoring ASCII case only, as strncasecmp
// does in the C locale.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && equalFoldASCII(s[:len(prefix)], prefix)
}

func isHexDigit(c byte) bool {
	return isCDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanCFloat reads a number at the start of s the way the C library's
// strtod does (the caller has checked that s starts with a digit, "." or
// "-"), returning its value and length. ok is false when strtod would
// convert nothing or would set ERANGE: on overflow, and when the result is
// below the smallest normal double (tininess after rounding) and inexact,
// including a nonzero number that rounds to zero.
//
// Accepted: an optional sign; "inf", "infinity", "nan" and "nan(chars)"
// (any case); a decimal mantissa with an optional "e" exponent; "0x" and a
// hexadecimal mantissa with an optional "p" exponent. An exponent marker
// without digits is not part of the number.
func scanCFloat(s string) (v float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "infinity"):
		return math.Copysign(math.Inf(1), signOf(neg)), i + 8, true
	case hasPrefixFold(rest, "inf"):
		return math.Copysign(math.Inf(1), signOf(neg)), i + 3, true
	case hasPrefixFold(rest, "nan"):
		n = i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isCDigit(s[j]) || s[j] == '_' || 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		nan := math.Float64frombits(0x7ff8000000000000)
		if neg {
			nan = math.Float64frombits(0xfff8000000000000)
		}
		return nan, n, true
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if v, m, ok, found := scanHexFloat(rest[2:], neg); found {
			return v, i + 2 + m, ok
		}
	}
	// decimal
	var mant strings.Builder
	j := i
	digits := 0
	fracDigits := 0
	for j < len(s) && isCDigit(s[j]) {
		mant.WriteByte(s[j])
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isCDigit(s[j]) {
			mant.WriteByte(s[j])
			j++
			digits++
			fracDigits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	exp, j := scanExponent(s, j, 'e')
	text := mant.String()
	e := exp - int64(fracDigits)
	str := text + "e" + strconv.FormatInt(e, 10)
	if neg {
		str = "-" + str
	}
	f, err := strconv.ParseFloat(str, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, 0, false
	}
	if math.IsInf(f, 0) {
		return f, j, false // overflow: ERANGE
	}
	if strings.Trim(text, "0") == "" {
		return f, j, true // an exact zero
	}
	if f == 0 {
		return f, j, false // underflow to zero
	}
	if math.Abs(f) > minNormal {
		return f, j, true
	}
	// near or below the smallest normal: decide exactly
	r, okr := new(big.Rat).SetString(str)
	if !okr {
		return 0, 0, false
	}
	return f, j, !tinyInexact(r)
}

const minNormal = 0x1p-1022

func signOf(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// scanExponent reads an optional exponent marked by marker (or its upper
// case) at s[j:], saturating its value; it returns j unchanged when the
// marker is not followed by digits.
func scanExponent(s string, j int, marker byte) (int64, int) {
	if j >= len(s) || s[j]|0x20 != marker {
		return 0, j
	}
	k := j + 1
	eneg := false
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		eneg = s[k] == '-'
		k++
	}
	if k >= len(s) || !isCDigit(s[k]) {
		return 0, j
	}
	var e int64
	for k < len(s) && isCDigit(s[k]) {
		if e < 1e9 {
			e = e*10 + int64(s[k]-'0')
		}
		k++
	}
	if eneg {
		e = -e
	}
	return e, k
}

// scanHexFloat reads the part of a hexadecimal float after "0x". found is
// false when there is no hexadecimal digit, in which case strtod reads only
// the "0".
func scanHexFloat(s string, neg bool) (v float64, n int, ok, found bool) {
	j := 0
	var mant big.Int
	digits := 0
	fracDigits := 0
	for j < len(s) && isHexDigit(s[j]) {
		mant.Lsh(&mant, 4)
		mant.Or(&mant, big.NewInt(int64(hexVal(s[j]))))
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && isHexDigit(s[k]) {
			mant.Lsh(&mant, 4)
			mant.Or(&mant, big.NewInt(int64(hexVal(s[k]))))
			k++
			digits++
			fracDigits++
		}
		if digits > 0 {
			j = k
		}
	}
	if digits == 0 {
		return 0, 0, false, false
	}
	exp, j := scanExponent(s, j, 'p')
	e := exp - 4*int64(fracDigits)
	if mant.Sign() == 0 {
		return math.Copysign(0, signOf(neg)), j, true, true
	}
	// |value| = mant * 2^e; bound e so that the exact arithmetic stays small
	bits := int64(mant.BitLen())
	switch {
	case e+bits > 1100:
		return math.Copysign(math.Inf(1), signOf(neg)), j, false, true
	case e+bits < -1200:
		return math.Copysign(0, signOf(neg)), j, false, true
	}
	r := new(big.Rat).SetInt(&mant)
	if e >= 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e))))
	} else {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(-e))))
	}
	if neg {
		r.Neg(r)
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return f, j, false, true
	}
	if f == 0 || math.Abs(f) <= minNormal {
		return f, j, !tinyInexact(r), true
	}
	return f, j, true, true
}

func hexVal(c byte) byte {
	switch {
	case isCDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// tinyInexact reports whether the nonzero exact value r, rounded to 53
// bits with an unbounded exponent, is below the smallest normal double while
// the double nearest r is not exactly r: glibc's strtod sets ERANGE then.
func tinyInexact(r *big.Rat) bool {
	if r.Sign() == 0 {
		return false
	}
	if _, exact := r.Float64(); exact {
		return false
	}
	x := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).SetRat(r)
	x.Abs(x)
	return x.Cmp(big.NewFloat(minNormal)) < 0
}

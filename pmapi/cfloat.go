package pmapi

import (
	"math"
	"math/big"
	"math/bits"
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

// pow10u are the powers of ten that fit in a uint64.
var pow10u = [20]uint64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// scaleRound computes |f| * 10^k exactly (f finite and nonzero, 0 <= k <=
// 19) and returns its integer part and the integer C's printf rounds it
// to (to nearest, ties to even), with ok false when either does not fit
// in 63 bits or |f| is out of the range handled (then the caller uses
// strconv, which gives the same digits more slowly).
func scaleRound(f float64, k int) (floor, round uint64, ok bool) {
	b := math.Float64bits(f) &^ (1 << 63)
	exp := int(b >> 52)
	mant := b & (1<<52 - 1)
	if exp == 0 {
		return 0, 0, false // subnormal: tiny, leave it to strconv
	}
	mant |= 1 << 52
	// |f| = mant * 2^-s
	s := 1075 - exp
	if s < 1 || s > 127 || k < 0 || k > 19 {
		return 0, 0, false
	}
	hi, lo := bits.Mul64(mant, pow10u[k])
	// q = (hi:lo) >> s, r = (hi:lo) mod 2^s
	var q, rHi, rLo uint64
	if s < 64 {
		if hi>>s != 0 {
			return 0, 0, false
		}
		q = hi<<(64-s) | lo>>s
		rLo = lo & (1<<s - 1)
	} else {
		q = hi >> (s - 64)
		rHi, rLo = hi&(1<<(s-64)-1), lo
	}
	if q >= 1<<63 {
		return 0, 0, false
	}
	// Compare r with half = 2^(s-1).
	var cmp int
	if s <= 64 {
		half := uint64(1) << (s - 1)
		switch {
		case rLo > half:
			cmp = 1
		case rLo < half:
			cmp = -1
		}
	} else {
		half := uint64(1) << (s - 65)
		switch {
		case rHi > half || rHi == half && rLo != 0:
			cmp = 1
		case rHi < half:
			cmp = -1
		}
	}
	round = q
	if cmp > 0 || cmp == 0 && q&1 == 1 {
		round++
	}
	return q, round, true
}

// appendFrac appends q / 10^prec with prec decimals ("%.<prec>f" of an
// integer count of 10^-prec).
func appendFrac(dst []byte, q uint64, prec int) []byte {
	var buf [24]byte
	i := len(buf)
	for n := 0; n < prec; n++ {
		i--
		buf[i] = byte('0' + q%10)
		q /= 10
	}
	if prec > 0 {
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = byte('0' + q%10)
		q /= 10
		if q == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}

// AppendFixed appends f as C's printf("%.<prec>f") does (0 <= prec),
// for a finite f: exactly the digits strconv.AppendFloat(dst, f, 'f',
// prec, 64) gives (the exact binary value rounded half to even), by
// integer arithmetic when the scaled value fits in 63 bits.
func AppendFixed(dst []byte, f float64, prec int) []byte {
	if f != 0 && prec <= 19 {
		q, ok := quickRound(math.Abs(f), prec)
		if !ok {
			_, q, ok = scaleRound(f, prec)
		}
		if ok {
			if f < 0 {
				dst = append(dst, '-')
			}
			return appendFrac(dst, q, prec)
		}
	}
	return strconv.AppendFloat(dst, f, 'f', prec, 64)
}

// AppendExp appends f as C's printf("%.<prec>E") does (0 <= prec), for a
// finite f: exactly the digits of strconv.AppendFloat(dst, f, 'E', prec,
// 64), by integer arithmetic for |f| below 10^prec+1 (down to about
// 10^-15), strconv otherwise.
func AppendExp(dst []byte, f float64, prec int) []byte {
	if f == 0 || prec > 17 {
		return strconv.AppendFloat(dst, f, 'E', prec, 64)
	}
	// x: the decimal exponent, 10^x <= |f| < 10^(x+1), guessed from
	// the binary exponent (floor(e2*log10(2)): x or one less) and put
	// right by the exact integer part of |f| * 10^(prec-x), which must
	// have prec+1 digits.
	e2 := int(math.Float64bits(f)>>52&0x7ff) - 1023
	x := (e2 * 78913) >> 18
	a := math.Abs(f)
	if x >= -pow10fBias && x+1 < len(pow10f)-pow10fBias && a >= pow10f[x+1+pow10fBias] {
		x++ // a guess still: the powers of ten below 1 are inexact
	}
	// Mostly, one multiplication or division gives the digits: when
	// y, within a relative 2^-53 of |f| * 10^(prec-x), is surely at
	// least 10^prec (in the decade guessed) and its rounding is certain.
	// A y that rounds to 10^(prec+1) is that power of ten whether the
	// exact value is just below it (rounding up) or in the next decade.
	if y, ok := scaledY(a, prec-x); ok && y > float64(pow10u[prec])*(1+0x1p-50) {
		if q, ok := quickRoundY(y); ok && q <= pow10u[prec+1] {
			if q == pow10u[prec+1] {
				q /= 10
				x++
			}
			return appendExp(dst, f < 0, q, prec, x)
		}
	}
	for range 3 {
		k := prec - x
		if k < 0 {
			break
		}
		fl, q, ok := scaleRound(f, k)
		if !ok {
			break
		}
		switch {
		case fl < pow10u[prec]:
			x--
			continue
		case fl >= pow10u[prec+1]:
			x++
			continue
		}
		if q == pow10u[prec+1] {
			// rounded up to the next power of ten
			q /= 10
			x++
		}
		return appendExp(dst, f < 0, q, prec, x)
	}
	return strconv.AppendFloat(dst, f, 'E', prec, 64)
}

// appendExp appends the digits q (prec+1 of them) as d.ddd and the
// exponent x: "%.<prec>E".
func appendExp(dst []byte, neg bool, q uint64, prec, x int) []byte {
	if neg {
		dst = append(dst, '-')
	}
	dst = appendFrac(dst, q, prec)
	dst = append(dst, 'E')
	if x < 0 {
		dst = append(dst, '-')
		x = -x
	} else {
		dst = append(dst, '+')
	}
	if x < 100 {
		return append(dst, byte('0'+x/10), byte('0'+x%10))
	}
	return strconv.AppendInt(dst, int64(x), 10)
}

// pow10exact[k] is 10^k, exact in a float64 up to 10^22.
var pow10exact = [23]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// quickRound is a * 10^k (a > 0, 0 <= k) rounded to an integer as C's
// printf rounds (the exact product, to nearest, ties to even), by one
// floating-point multiplication: its result is within a relative 2^-53
// of the product, so the rounding is certain unless the product is that
// close to a half-integer; ok is false then, or out of range.
func quickRound(a float64, k int) (uint64, bool) {
	if k < 0 || k > 22 {
		return 0, false
	}
	return quickRoundY(a * pow10exact[k])
}

// scaledY is a * 10^k in floating point: one multiplication, or for a
// negative k a division by 10^-k, so within a relative 2^-53 of it.
func scaledY(a float64, k int) (float64, bool) {
	switch {
	case k >= 0 && k <= 22:
		return a * pow10exact[k], true
	case k < 0 && k >= -22:
		return a / pow10exact[-k], true
	}
	return 0, false
}

func quickRoundY(y float64) (uint64, bool) {
	if !(y < 0x1p52) {
		return 0, false
	}
	fl := math.Floor(y)
	d := y - fl - 0.5 // exact
	if math.Abs(d) <= y*0x1p-50 {
		return 0, false
	}
	q := uint64(fl)
	if d > 0 {
		q++
	}
	return q, true
}

// pow10f[i] is 10^(i-pow10fBias) as a float64 (nearest).
var pow10f = func() (t [2*pow10fBias + 1]float64) {
	for i := range t {
		t[i] = math.Pow(10, float64(i-pow10fBias))
	}
	return
}()

const pow10fBias = 24

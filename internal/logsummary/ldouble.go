package logsummary

import (
	"math"
	"math/big"
	"math/bits"
)

// toReal converts a time in seconds and microseconds to a double as
// libpcp's pmtimevalToReal does on x86-64: in long double (64-bit
// mantissa) arithmetic, sec + usec/1000000, then rounded to double. Doing
// it in double arithmetic instead differs in the last bit now and then,
// which shows in averages printed with many digits.
//
// Each step rounds to nearest, ties to even, as the x87 unit does: the
// quotient to 64 bits, the sum to 64 bits, the result to 53 bits. It is
// computed with 128-bit integers, without allocating.
func toReal(sec, usec int64) float64 {
	if usec == 0 {
		return float64(sec)
	}
	if sec < 0 || usec < 0 || usec >= 1e6 || sec >= 1<<40 {
		return toRealBig(sec, usec)
	}
	// q = m * 2^-e, m in [2^63, 2^64): usec/1e6 rounded to 64 bits.
	u := uint64(usec)
	e := 63 + 20 - bits.Len64(u)
	var m uint64
	for {
		hi, lo := shl128(0, u, uint(e))
		if hi >= 1e6 {
			e--
			continue
		}
		q, r := bits.Div64(hi, lo, 1e6)
		if q < 1<<63 {
			e++
			continue
		}
		m = q
		if 2*r > 1e6 || 2*r == 1e6 && m&1 == 1 {
			m++
			if m == 0 {
				m, e = 1<<63, e-1
			}
		}
		break
	}
	// n = sec*2^e + m, exactly (sec < 2^40 and e <= 84 keep it in 128
	// bits), then rounded to 64 significant bits: M * 2^k.
	hi, lo := shl128(0, uint64(sec), uint(e))
	var c uint64
	lo, c = bits.Add64(lo, m, 0)
	hi += c
	M, k := round128(hi, lo, 64)
	k -= e
	// Then to 53 bits.
	M53, k53 := round128(0, M, 53)
	return math.Ldexp(float64(M53), k+k53)
}

// shl128 shifts the 128-bit (hi, lo) left by s < 128.
func shl128(hi, lo uint64, s uint) (uint64, uint64) {
	switch {
	case s == 0:
		return hi, lo
	case s >= 64:
		return lo << (s - 64), 0
	}
	return hi<<s | lo>>(64-s), lo << s
}

// round128 rounds the 128-bit (hi, lo) to n <= 64 significant bits, ties
// to even, and returns the mantissa and its exponent: (hi, lo) ~ m * 2^k.
func round128(hi, lo uint64, n int) (m uint64, k int) {
	l := 128 - bits.LeadingZeros64(hi)
	if hi == 0 {
		l = bits.Len64(lo)
	}
	if l <= n {
		return lo, 0
	}
	s := uint(l - n) // bits to drop, >= 1
	// m = (hi, lo) >> s; rest = the dropped bits compared with half.
	var rest, half uint64
	var restHi, halfHi uint64
	if s >= 64 {
		m = hi >> (s - 64)
		restHi, rest = hi&(1<<(s-64)-1), lo
		if s == 64 {
			restHi, halfHi, half = 0, 0, 1<<63
		} else {
			halfHi, half = 1<<(s-65), 0
		}
	} else {
		m = hi<<(64-s) | lo>>s
		rest, half = lo&(1<<s-1), 1<<(s-1)
	}
	up := false
	switch {
	case restHi > halfHi || restHi == halfHi && rest > half:
		up = true
	case restHi == halfHi && rest == half:
		up = m&1 == 1
	}
	k = int(s)
	if up {
		m++
		if bits.Len64(m) > n {
			m >>= 1
			k++
		}
	}
	return m, k
}

// toRealBig is toReal for the cases the fast path does not cover.
func toRealBig(sec, usec int64) float64 {
	q := new(big.Float).SetPrec(64).SetInt64(usec)
	q.Quo(q, new(big.Float).SetPrec(64).SetInt64(1e6))
	s := new(big.Float).SetPrec(64).SetInt64(sec)
	s.Add(s, q)
	f, _ := s.Float64()
	return f
}

package pcptime

import (
	"math"
	"math/bits"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Sub is a-b in seconds as libpcp's __pmTimestampSub computes it (libpcp
// 6.0.3, util.c; interpolation, archive positioning, pmdumplog -xx):
//
//	(double)(a.sec - b.sec + (long double)(a.nsec - b.nsec) / 1e9)
//
// The seconds difference is a 64-bit and the nanoseconds difference a
// 32-bit integer subtraction (both wrap as the machine's do, and nothing
// is normalised: an nsec of 1000000000 counts as a whole second); the
// quotient and the sum are each rounded to the 64-bit significand of the
// x87 long double, the sum then to a double, all to nearest even. It
// allocates nothing.
//
// It is here rather than a method of pmapi.Timestamp because it is
// libpcp's time arithmetic, like the rest of this package, with its long
// double emulation; pcptime imports pmapi, so pmapi cannot call it.
func Sub(a, b pmapi.Timestamp) float64 {
	return secNsec(subFields(a, b))
}

// subFields is __pmTimestampSub's two differences: the nanoseconds in
// 32 bits.
func subFields(a, b pmapi.Timestamp) (ds, dn int64) {
	return a.Sec - b.Sec, int64(a.Nsec - b.Nsec)
}

// SubBorrow is a-b in seconds as libpcp 6.0.3's derived metrics compute
// the interval of rate() (derive_fetch.c): pmtimespecDec, which borrows a
// second when the nanoseconds difference is negative, then
// pmtimespecToReal, sec + (long double)nsec / 1e9 rounded as in Sub. The
// nanoseconds are 64-bit longs there, so they do not wrap. Where the
// nanoseconds go down it can differ from Sub in the last bit: for one
// pair in 7,000 of random stamps up to 10 s apart, and one backwards
// difference of less than a second in 800 (-1 + 0.999818 is not -0.000182
// in long double).
func SubBorrow(a, b pmapi.Timestamp) float64 {
	return secNsec(decFields(a, b))
}

// decFields is pmtimespecDec: the two differences, a second borrowed when
// the nanoseconds one is negative.
func decFields(a, b pmapi.Timestamp) (ds, dn int64) {
	ds, dn = a.Sec-b.Sec, int64(a.Nsec)-int64(b.Nsec)
	if dn < 0 {
		dn += 1e9
		ds--
	}
	return ds, dn
}

// ToReal is t in seconds as libpcp's pmtimespecToReal computes it:
// t.sec + (long double)t.nsec / 1e9, rounded as in Sub. With t.Nsec a
// whole number of microseconds it is pmtimevalToReal of the timeval too
// (usec / 1e6 and usec*1000 / 1e9 are the same number, rounded the same
// way).
func ToReal(t pmapi.Timestamp) float64 {
	return secNsec(t.Sec, int64(t.Nsec))
}

// secNsec is ds + dn/1e9 computed as the x87 computes
// ds + (long double)dn / 1e9 and stores it as a double: the quotient
// rounded to 64 significant bits, the sum rounded to 64 bits, then to 53,
// each to nearest even. |dn| must be below 2^34. The common cases take
// the double arithmetic of fastSub; the rest, exactSum.
func secNsec(ds, dn int64) float64 {
	if dn == 0 {
		return float64(ds) // the sum is exact: one rounding, to a double
	}
	if dn%1e9 == 0 && ds < 1<<62 && ds > -1<<62 {
		return float64(ds + dn/1e9) // an exact quotient and an exact sum
	}
	if f, ok := fastSub(ds, dn); ok {
		return f
	}
	return exactSum(ds, dn)
}

// fastSub is ds + dn/1e9 as secNsec computes it, in double arithmetic,
// when that is certain to give the same double; ok false when it might
// not.
//
// The exact value is X = N/1e9, N = ds*1e9 + dn nanoseconds; when |N| <=
// 2^53, float64(N)/1e9 is X rounded once to a double (f). The long double
// steps round twice to 64 bits, each off by at most 2^-64 of the larger
// of |X| and |dn/1e9| (no larger than |X| unless ds and dn have opposite
// signs and |ds| < 2, or |dn| >= 1e9, both left to exactSum), which is
// 2^-10 of a unit in the last place of f: rounding that to a double gives
// f too unless X lies within 2^-10 units of a point halfway between two
// doubles. That is checked with the exact error of f, N - 1e9*f, which
// FMA gives to 53 bits; powers of two (whose units differ on either side)
// are left to exactSum as well.
func fastSub(ds, dn int64) (float64, bool) {
	const lim = 1 << 53
	if ds != 0 && (ds < 0) != (dn < 0) && ds > -2 && ds < 2 {
		return 0, false
	}
	if dn >= 1e9 || dn <= -1e9 {
		return 0, false // unnormalised: |dn/1e9| might exceed |X|
	}
	if ds > lim/1000000000 || ds < -lim/1000000000 {
		return fastSubLarge(ds, dn)
	}
	n := ds*1e9 + dn
	if n > lim || n < -lim {
		return 0, false
	}
	f := float64(n) / 1e9
	if math.Float64bits(f)&(1<<52-1) == 0 {
		return 0, false // a power of two (or zero)
	}
	af := math.Abs(f)
	ulp := math.Nextafter(af, math.Inf(1)) - af
	err := math.Abs(math.FMA(-1e9, f, float64(n))) / 1e9
	if math.Abs(err-ulp/2) <= ulp/256 {
		return 0, false
	}
	return f, true
}

// fastSubLarge is fastSub for |ds| of more than 2^53 nanoseconds (such
// as times since the epoch) and at most 2^53 seconds, |dn| < 1e9. The
// sum float64(ds) + float64(dn)/1e9 is X rounded to a double but for the
// rounding of dn/1e9, which is off by less than 2^-53, far less than
// 2^-10 of a unit in the last place of X here (|X| > 2^23, a unit of at
// least 2^-29); its own rounding error is found exactly (Fast2Sum, |ds| >=
// 1 > |dn/1e9|), and the same check as fastSub's made with it.
func fastSubLarge(ds, dn int64) (float64, bool) {
	if ds > 1<<53 || ds < -(1<<53) {
		return 0, false
	}
	a := float64(ds)
	q := float64(dn) / 1e9
	f := a + q
	if math.Float64bits(f)&(1<<52-1) == 0 {
		return 0, false
	}
	err := math.Abs(q - (f - a))
	af := math.Abs(f)
	ulp := math.Nextafter(af, math.Inf(1)) - af
	if math.Abs(err-ulp/2) <= ulp/256 {
		return 0, false
	}
	return f, true
}

// exactSum is secNsec in integer arithmetic, for any ds and 0 < |dn| <
// 2^34: the quotient as a 64-bit significand (quotient), then the sum
// (sumRound).
func exactSum(ds, dn int64) float64 {
	Q, k := quotient(abs64(dn))
	return sumRound(ds, Q, k, dn < 0)
}

// sumRound is ds + q, q = ±Q * 2^-k (negative when qneg), rounded to 64
// significant bits and then to 53, each to nearest even, for 2^63 <= Q <
// 2^64 and 60 <= k <= 93. The sum ds*2^k ± Q is formed in 128 bits; when
// |ds|*2^k needs more than 126, the low bits of Q that do not fit (at
// most 31) are replaced by a sticky bit: they lie more than 60 bits below
// the point where the sum is rounded, so only whether they are zero
// matters.
func sumRound(ds int64, Q uint64, k int, qneg bool) float64 {
	if ds == 0 {
		return ldexpRound53(Q, -k, qneg)
	}
	d, neg := abs64(ds), ds < 0
	shift := uint(k)
	var sticky bool
	if l := bits.Len64(d) + k; l > 126 {
		s := uint(l - 126)
		sticky = Q&(1<<s-1) != 0
		Q >>= s
		shift -= s
	}
	e := -int(shift)
	hi, lo := shl128(0, d, shift)
	if qneg == neg {
		var c uint64
		lo, c = bits.Add64(lo, Q, 0)
		hi += c
	} else {
		if sticky {
			// d*2^k - (Q + f), 0 < f < 1, is (d*2^k - Q - 1) + (1-f);
			// Q has lost at least one bit, so it does not overflow.
			Q++
		}
		var b uint64
		lo, b = bits.Sub64(lo, Q, 0)
		hi, b = bits.Sub64(hi, 0, b)
		if b != 0 {
			// |q| > |ds| (only for small ds, never with sticky bits):
			// the sum has the sign of q.
			lo, b = bits.Sub64(0, lo, 0)
			hi, _ = bits.Sub64(0, hi, b)
			neg = !neg
		}
		if hi == 0 && lo == 0 {
			return 0
		}
	}
	if sticky {
		// The discarded fraction stands as half a unit of a new last
		// bit: the sum is then in the same open interval between
		// rounding points as the exact one.
		hi, lo = hi<<1|lo>>63, lo<<1|1
		e--
	}
	// Round to 64 significant bits.
	S := lo
	if hi != 0 {
		sh := uint(64 - bits.LeadingZeros64(hi)) // bits above the low 64
		S = hi<<(64-sh) | lo>>sh
		rest := lo << (64 - sh) // the dropped bits, left-aligned
		if rest > 1<<63 || rest == 1<<63 && S&1 == 1 {
			S++
			if S == 0 {
				S, sh = 1<<63, sh+1
			}
		}
		e += int(sh)
	}
	return ldexpRound53(S, e, neg)
}

// quotient is a/1e9 rounded to a 64-bit significand, to nearest even:
// Q * 2^-k with 2^63 <= Q < 2^64, for 0 < a < 2^34.
func quotient(a uint64) (Q uint64, k int) {
	// a*2^k/1e9 is at least 2^93/1e9 > 2^63, and below 2^64 unless
	// a*2^k >= 1e9*2^64, when one bit less does.
	k = 94 - bits.Len64(a)
	hi, lo := shl128(0, a, uint(k))
	if hi >= 1e9 {
		k--
		hi, lo = shl128(0, a, uint(k))
	}
	Q, r := bits.Div64(hi, lo, 1e9)
	// No remainder is exactly half of 1e9 = 2^9 * 5^9: a*2^k is a
	// multiple of 2^9, and 5e8 is not, so there are no ties to even.
	if 2*r > 1e9 {
		Q++
		if Q == 0 {
			Q, k = 1<<63, k-1
		}
	}
	return Q, k
}

// ldexpRound53 is ±S * 2^e as a double, S (nonzero, at most 64 bits)
// rounded to 53 significant bits, to nearest even: x87's store of a long
// double to a double, for values well inside the normal range.
func ldexpRound53(S uint64, e int, neg bool) float64 {
	if l := bits.Len64(S); l > 53 {
		sh := uint(l - 53)
		F := S >> sh
		r := S & (1<<sh - 1)
		half := uint64(1) << (sh - 1)
		if r > half || r == half && F&1 == 1 {
			F++ // 2^53 when it carries, still exact as a double
		}
		S, e = F, e+int(sh)
	}
	f := math.Ldexp(float64(S), e)
	if neg {
		f = -f
	}
	return f
}

// abs64 is |x| as an unsigned number (2^63 for math.MinInt64).
func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// shl128 is (hi:lo) << n, for n < 128.
func shl128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n == 0:
		return hi, lo
	case n >= 64:
		return lo << (n - 64), 0
	}
	return hi<<n | lo>>(64-n), lo << n
}

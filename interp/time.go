package interp

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/pcpkit/pcpkit/pmapi"
)

// subber computes timestamp differences in seconds as libpcp's
// __pmTimestampSub does: the seconds plus the nanoseconds divided by 1e9,
// both steps in the x87 80-bit long double (64-bit significand, rounding
// to nearest even), the sum then rounded to a double. It keeps its big
// numbers between calls so that it allocates nothing.
type subber struct {
	q, s, billion big.Float
}

func newSubber() *subber {
	s := &subber{}
	s.q.SetPrec(64).SetMode(big.ToNearestEven)
	s.s.SetPrec(64).SetMode(big.ToNearestEven)
	s.billion.SetPrec(64).SetInt64(1e9)
	return s
}

// sub returns a-b in seconds.
func (s *subber) sub(a, b pmapi.Timestamp) float64 {
	f, ds, dn, ok := quickSub(a, b)
	if ok {
		return f
	}
	return s.subBig(ds, dn)
}

// quickSub is a-b in seconds when no big.Float arithmetic is needed (ok);
// otherwise it returns the seconds and nanoseconds differences for subBig.
func quickSub(a, b pmapi.Timestamp) (f float64, ds, dn int64, ok bool) {
	ds = a.Sec - b.Sec
	dn = int64(a.Nsec) - int64(b.Nsec)
	if dn == 0 {
		return float64(ds), ds, dn, true
	}
	if dn%1e9 == 0 {
		return float64(ds + dn/1e9), ds, dn, true
	}
	if f, ok := fastSub(ds, dn); ok {
		return f, ds, dn, true
	}
	if f, ok := subExact(ds, dn); ok {
		return f, ds, dn, true
	}
	return 0, ds, dn, false
}

// subBig is sub for the seconds and nanoseconds differences, in
// big.Float arithmetic of 64-bit significands.
func (s *subber) subBig(ds, dn int64) float64 {
	s.q.SetInt64(dn)
	s.q.Quo(&s.q, &s.billion)
	s.s.SetInt64(ds)
	s.s.Add(&s.s, &s.q)
	f, _ := s.s.Float64()
	return f
}

// Sub is a-b in seconds as libpcp computes it (__pmTimestampSub): in long
// double precision, rounded to a double.
func Sub(a, b pmapi.Timestamp) float64 {
	f, ds, dn, ok := quickSub(a, b)
	if ok {
		return f
	}
	return newSubber().subBig(ds, dn)
}

// AddDelta advances t by delta nanoseconds as libpcp advances an
// interpolation origin: the delta's seconds and nanoseconds (both with the
// sign of delta) are added field by field, then the nanoseconds are
// brought back while they are above 1e9 or below 0, so that exactly
// 1000000000 nanoseconds is left as it is.
func AddDelta(t pmapi.Timestamp, delta int64) pmapi.Timestamp {
	sec := t.Sec + delta/1e9
	nsec := int64(t.Nsec) + delta%1e9
	for nsec > 1e9 {
		sec++
		nsec -= 1e9
	}
	for nsec < 0 {
		sec--
		nsec += 1e9
	}
	return pmapi.Timestamp{Sec: sec, Nsec: int32(nsec)}
}

// fastSub is ds + dn/1e9 as sub computes it, in double arithmetic, when
// that is certain to give the same double; ok false when it might not.
//
// The exact value is X = N/1e9, N = ds*1e9 + dn nanoseconds; when |N| <=
// 2^53, float64(N)/1e9 is X rounded once to a double (f). The long double
// steps of sub round twice to 64 bits, each off by at most 2^-64 of the
// larger of |X| and |dn/1e9| (no larger than |X| unless ds and dn have
// opposite signs and |ds| < 2, which is left to subBig), which is 2^-10
// of a unit in the last place of f: rounding that to a double gives f
// too unless X lies within 2^-10 units of a point halfway between two
// doubles. That is checked with the exact error of f, N - 1e9*f, which
// FMA gives to 53 bits; powers of two (whose units differ on either
// side) are left to subBig as well.
func fastSub(ds, dn int64) (float64, bool) {
	const lim = 1 << 53
	if ds != 0 && (ds < 0) != (dn < 0) && ds > -2 && ds < 2 {
		return 0, false
	}
	if ds > lim/1000000000 || ds < -lim/1000000000 {
		return fastSubLarge(ds, dn)
	}
	n := ds*1e9 + dn
	if n > lim || n < -lim {
		return 0, false
	}
	f := float64(n) / 1e9
	bits := math.Float64bits(f)
	if bits&(1<<52-1) == 0 {
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
// as times since the epoch). The sum float64(ds) + float64(dn)/1e9 is X
// rounded to a double but for the rounding of dn/1e9, which is off by
// less than 2^-53, far less than a 2^-10 of a unit in the last place of
// X here; its own rounding error is found exactly (Fast2Sum, |ds| >= 1
// > |dn/1e9|), and the same check as fastSub's made with it.
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

// subExact is ds + dn/1e9 as sub computes it, in integer arithmetic: the
// quotient rounded to a 64-bit significand, the sum rounded to 64 bits,
// then to a double, each to nearest even, as the x87 does. ok is false
// when the numbers do not fit its 128-bit sums (|dn| over 2^32, or
// seconds too large for the quotient's scale).
func subExact(ds, dn int64) (float64, bool) {
	if dn == 0 || dn > 1<<32 || dn < -(1<<32) || ds > 1<<40 || ds < -(1<<40) {
		return 0, false
	}
	neg := dn < 0
	a := uint64(dn)
	if neg {
		a = uint64(-dn)
	}
	// q = Q * 2^-k, 2^63 <= Q < 2^64, rounded to nearest even.
	k := 63 + 30 - (bits.Len64(a) - 1)
	var Q uint64
	for {
		hi, lo := shl128(0, a, uint(k))
		if hi >= 1e9 {
			k--
			continue
		}
		q, r := bits.Div64(hi, lo, 1e9)
		if q < 1<<63 {
			k++
			continue
		}
		if 2*r > 1e9 || 2*r == 1e9 && q&1 == 1 {
			q++
			if q == 0 {
				q, k = 1<<63, k-1
			}
		}
		Q = q
		break
	}
	// T = |ds| * 2^k +/- Q, the exact sum scaled by 2^k.
	sneg := neg
	var thi, tlo uint64
	if ds != 0 {
		d := uint64(ds)
		dneg := ds < 0
		if dneg {
			d = uint64(-ds)
		}
		if bits.Len64(d)+k > 126 {
			return 0, false
		}
		dhi, dlo := shl128(0, d, uint(k))
		if dneg == neg {
			var c uint64
			tlo, c = bits.Add64(dlo, Q, 0)
			thi, _ = bits.Add64(dhi, 0, c)
		} else {
			var b uint64
			tlo, b = bits.Sub64(dlo, Q, 0)
			thi, b = bits.Sub64(dhi, 0, b)
			if b != 0 { // |q| > |ds|: cannot be, |q| <= 4.3 and |ds| >= 1 aside
				return 0, false
			}
		}
		sneg = dneg
	} else {
		tlo = Q
	}
	if thi == 0 && tlo == 0 {
		return 0, true
	}
	// S = T rounded to 64 significant bits, S * 2^e.
	e := -k
	var S uint64
	if l := 128 - lz128(thi, tlo); l > 64 {
		sh := uint(l - 64)
		S, _ = shr128(thi, tlo, sh)
		rhi, rlo := lowBits128(thi, tlo, sh)
		hhi, hlo := shl128(0, 1, sh-1)
		if cmp128(rhi, rlo, hhi, hlo) > 0 || cmp128(rhi, rlo, hhi, hlo) == 0 && S&1 == 1 {
			S++
			if S == 0 {
				S, sh = 1<<63, sh+1
			}
		}
		e += int(sh)
	} else {
		S = tlo
	}
	// f = S rounded to 53 bits.
	if l := bits.Len64(S); l > 53 {
		sh := uint(l - 53)
		F := S >> sh
		r := S & (1<<sh - 1)
		half := uint64(1) << (sh - 1)
		if r > half || r == half && F&1 == 1 {
			F++
			if F == 1<<53 {
				F, sh = 1<<52, sh+1
			}
		}
		S, e = F, e+int(sh)
	}
	f := math.Ldexp(float64(S), e)
	if sneg {
		f = -f
	}
	return f, true
}

func shl128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n == 0:
		return hi, lo
	case n >= 128:
		return 0, 0
	case n >= 64:
		return lo << (n - 64), 0
	}
	return hi<<n | lo>>(64-n), lo << n
}

func shr128(hi, lo uint64, n uint) (uint64, uint64) {
	switch {
	case n == 0:
		return lo, hi
	case n >= 64:
		return hi >> (n - 64), 0
	}
	return lo>>n | hi<<(64-n), hi >> n
}

// lowBits128 is the low n bits of hi:lo.
func lowBits128(hi, lo uint64, n uint) (uint64, uint64) {
	if n >= 64 {
		return hi & (1<<(n-64) - 1), lo
	}
	return 0, lo & (1<<n - 1)
}

func lz128(hi, lo uint64) int {
	if hi != 0 {
		return bits.LeadingZeros64(hi)
	}
	return 64 + bits.LeadingZeros64(lo)
}

func cmp128(ahi, alo, bhi, blo uint64) int {
	switch {
	case ahi != bhi:
		if ahi < bhi {
			return -1
		}
		return 1
	case alo < blo:
		return -1
	case alo > blo:
		return 1
	}
	return 0
}

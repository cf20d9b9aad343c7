package interp

import (
	"math/big"

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
	ds := a.Sec - b.Sec
	dn := int64(a.Nsec) - int64(b.Nsec)
	if dn == 0 {
		return float64(ds)
	}
	if dn%1e9 == 0 {
		return float64(ds + dn/1e9)
	}
	s.q.SetInt64(dn)
	s.q.Quo(&s.q, &s.billion)
	s.s.SetInt64(ds)
	s.s.Add(&s.s, &s.q)
	f, _ := s.s.Float64()
	return f
}

// Sub is a-b in seconds as libpcp computes it (__pmTimestampSub): in long
// double precision, rounded to a double.
func Sub(a, b pmapi.Timestamp) float64 { return newSubber().sub(a, b) }

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

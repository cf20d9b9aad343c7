package interp

import (
	"github.com/pcpkit/pcpkit/pmapi"
)

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

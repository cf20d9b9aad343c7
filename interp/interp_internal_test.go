package interp

import (
	"math"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

func TestAddDelta(t *testing.T) {
	for _, c := range []struct {
		t     pmapi.Timestamp
		delta int64
		want  pmapi.Timestamp
	}{
		{pmapi.Timestamp{Sec: 10, Nsec: 0}, 1500e6, pmapi.Timestamp{Sec: 11, Nsec: 500e6}},
		// exactly 1e9 nanoseconds is left as it is
		{pmapi.Timestamp{Sec: 10, Nsec: 500e6}, 500e6, pmapi.Timestamp{Sec: 10, Nsec: 1e9}},
		{pmapi.Timestamp{Sec: 10, Nsec: 600e6}, 500e6, pmapi.Timestamp{Sec: 11, Nsec: 100e6}},
		{pmapi.Timestamp{Sec: 10, Nsec: 100e6}, -500e6, pmapi.Timestamp{Sec: 9, Nsec: 600e6}},
		{pmapi.Timestamp{Sec: 10, Nsec: 0}, -2500e6, pmapi.Timestamp{Sec: 7, Nsec: 500e6}},
		{pmapi.Timestamp{Sec: 10, Nsec: 1e9}, -1, pmapi.Timestamp{Sec: 10, Nsec: 1e9 - 1}},
	} {
		if got := AddDelta(c.t, c.delta); got != c.want {
			t.Errorf("AddDelta(%v, %d) = %v, want %v", c.t, c.delta, got, c.want)
		}
	}
}

func TestConversions(t *testing.T) {
	if got := toInt32(math.NaN()); got != math.MinInt32 {
		t.Errorf("toInt32(NaN) = %d", got)
	}
	if got := toInt32(3e9); got != math.MinInt32 {
		t.Errorf("toInt32(3e9) = %d", got)
	}
	if got := toInt32(-2.9); got != -2 {
		t.Errorf("toInt32(-2.9) = %d", got)
	}
	if got := toUint32(4294967295.5); got != 4294967295 {
		t.Errorf("toUint32(4294967295.5) = %d", got)
	}
	if got := toUint32(-1); got != 4294967295 {
		t.Errorf("toUint32(-1) = %d", got)
	}
	if got := toUint64(9223372036854775808); got != 1<<63 {
		t.Errorf("toUint64(2^63) = %d", got)
	}
	if got := toUint64(-1); got != math.MaxUint64 {
		t.Errorf("toUint64(-1) = %d", got)
	}
	// x86-64: 2^64-2^63 does not fit an int64 either: the conversion
	// gives 0x8000000000000000, and the xor with 2^63 then 0
	if got := toUint64(18446744073709551616); got != 0 {
		t.Errorf("toUint64(2^64) = %d", got)
	}
}

package pmapi

import (
	"math"
	"testing"
)

// TestAppendFloatF checks C's %.3f; the expected texts came from
// coreutils printf (the C library): for v in 0.5 2.5 1.005 -0.0 1e20
// 123.456; do printf '%.3f\n' $v; done
func TestAppendFloatF(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		prec int
		want string
	}{
		{0.5, 3, "0.500"}, {2.5, 3, "2.500"}, {1.005, 3, "1.005"},
		{math.Copysign(0, -1), 3, "-0.000"}, {1e20, 3, "100000000000000000000.000"},
		{123.456, 3, "123.456"}, {1.5, -1, "1.500000"},
		{math.Inf(1), 3, "inf"}, {math.Inf(-1), 3, "-inf"}, {math.NaN(), 3, "nan"},
	} {
		if got := string(AppendFloatF(nil, tc.f, tc.prec)); got != tc.want {
			t.Errorf("AppendFloatF(%v, %d) = %q, want %q", tc.f, tc.prec, got, tc.want)
		}
	}
}

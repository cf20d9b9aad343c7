package logsummary

import (
	"math/rand"
	"testing"
)

// TestToReal checks the integer emulation of long double arithmetic
// against math/big.
func TestToReal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	check := func(sec, usec int64) {
		if got, want := toReal(sec, usec), toRealBig(sec, usec); got != want {
			t.Fatalf("toReal(%d, %d) = %v, want %v", sec, usec, got, want)
		}
	}
	for _, sec := range []int64{0, 1, 2, 59, 60, 86400, 1 << 20, 1700000000, 2147483647, 1<<40 - 1} {
		for _, usec := range []int64{0, 1, 2, 3, 5, 7, 10, 125000, 250000, 500000, 999999, 999998, 333333, 1000, 100} {
			check(sec, usec)
		}
	}
	for i := 0; i < 1000000; i++ {
		sec := r.Int63n(1 << uint(r.Intn(41)))
		check(sec, r.Int63n(1e6))
	}
}

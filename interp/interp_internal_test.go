package interp

import (
	"math"
	"math/rand/v2"
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

func TestSub(t *testing.T) {
	for _, c := range []struct {
		a, b pmapi.Timestamp
		want float64
	}{
		{pmapi.Timestamp{Sec: 5}, pmapi.Timestamp{Sec: 2}, 3},
		{pmapi.Timestamp{Sec: 5, Nsec: 500e6}, pmapi.Timestamp{Sec: 2}, 3.5},
		{pmapi.Timestamp{Sec: 2}, pmapi.Timestamp{Sec: 5, Nsec: 250e6}, -3.25},
		{pmapi.Timestamp{Sec: 1, Nsec: 1e9}, pmapi.Timestamp{Sec: 1}, 1},
		// 1/1e9 in long double, added to 1 and rounded once to a double
		{pmapi.Timestamp{Sec: 1, Nsec: 1}, pmapi.Timestamp{}, 1.000000001},
	} {
		if got := Sub(c.a, c.b); got != c.want {
			t.Errorf("Sub(%v, %v) = %.17g, want %.17g", c.a, c.b, got, c.want)
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

// TestFastSub checks fastSub against the long double arithmetic of
// subBig on random and awkward differences.
func TestFastSub(t *testing.T) {
	s := newSubber()
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(ds, dn int64) {
		if dn == 0 || dn%1e9 == 0 {
			return
		}
		f, ok := fastSub(ds, dn)
		if !ok {
			return
		}
		if want := s.subBig(ds, dn); f != want {
			t.Fatalf("fastSub(%d, %d) = %v, long double gives %v", ds, dn, f, want)
		}
	}
	fast := 0
	for i := 0; i < 2000000; i++ {
		var ds int64
		switch i % 4 {
		case 0:
			ds = rng.Int64N(5) - 2
		case 1:
			ds = rng.Int64N(200000) - 100000
		case 2:
			ds = rng.Int64N(2e7) - 1e7
			if i%6 == 2 {
				ds = rng.Int64N(1 << 40)
			}
		case 3:
			ds = 1.7e9 + rng.Int64N(1e8) - 5e7 // times since the epoch
			if i%8 == 3 {
				ds = -ds
			}
		}
		dn := rng.Int64N(2e9-1) - (1e9 - 1)
		if i%7 == 0 {
			dn = (rng.Int64N(2000) - 1000) * 1000 // microseconds
		}
		check(ds, dn)
		if _, ok := fastSub(ds, dn); ok {
			fast++
		}
	}
	if fast < 1000000 {
		t.Errorf("the fast path took only %d of 2000000", fast)
	}
	for ds := int64(-3); ds <= 3; ds++ {
		for _, dn := range []int64{1, -1, 999999999, -999999999, 500000000, -500000000, 1000, -1000} {
			check(ds, dn)
		}
	}
}

// TestSubExact checks subExact, the integer emulation of the long double
// arithmetic, against subBig, including the near ties of microsecond
// times that fastSub leaves alone.
func TestSubExact(t *testing.T) {
	s := newSubber()
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for i := 0; i < 1000000; i++ {
		var ds, dn int64
		switch i % 5 {
		case 0:
			ds = rng.Int64N(5) - 2
		case 1:
			ds = 1.7e9 + rng.Int64N(1e8)
		case 2:
			ds = rng.Int64N(1<<40) - 1<<39
		case 3:
			ds = rng.Int64N(2e6) - 1e6
		default:
			ds = 0
		}
		dn = rng.Int64N(2e9-1) - (1e9 - 1)
		if i%3 == 0 {
			dn = (rng.Int64N(2e6) - 1e6) * 1000
		}
		if i%11 == 0 {
			dn = 1e9
		}
		if dn == 0 || dn%1e9 == 0 && i%11 != 0 {
			continue
		}
		got, ok := subExact(ds, dn)
		if !ok {
			continue
		}
		n++
		if want := s.subBig(ds, dn); got != want {
			t.Fatalf("subExact(%d, %d) = %v, long double gives %v", ds, dn, got, want)
		}
	}
	if n < 800000 {
		t.Errorf("only %d compared", n)
	}
}

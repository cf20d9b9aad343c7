package pmapi

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkFast compares AppendFixed and AppendExp with strconv, the
// reference (C's printf rounds the same way: the exact binary value, half
// to even).
func checkFast(t *testing.T, f float64) {
	t.Helper()
	for prec := 0; prec <= 6; prec++ {
		if got, want := string(AppendFixed(nil, f, prec)), strconv.FormatFloat(f, 'f', prec, 64); got != want {
			t.Fatalf("AppendFixed(%v (%#x), %d) = %q, want %q", f, math.Float64bits(f), prec, got, want)
		}
		if got, want := string(AppendExp(nil, f, prec)), strconv.FormatFloat(f, 'E', prec, 64); got != want {
			t.Fatalf("AppendExp(%v (%#x), %d) = %q, want %q", f, math.Float64bits(f), prec, got, want)
		}
	}
}

func TestAppendFixedExpAwkward(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 2.5, 0.125, 0.375, 9.9995, 9.9999, 0.09999, 0.1,
		9999, 9999.5, 9999.49, 10000, 99.995, 999.95, 0.00005, 0.00015, 1e-5, 1e-15, 1e-16, 1e-20, 1e-300,
		5e-324, 1e300, math.MaxFloat64, 1 << 53, 1<<63 - 1, 1 << 63, 1e19, 1e18, 123456789.125, 0.045, 1.0005,
		2.675, 1.005, 0.0001, 0.001, 0.01, 100, 1000, 99999.5}
	for _, v := range vals {
		checkFast(t, v)
		checkFast(t, -v)
	}
	// Ties and near-ties at each precision: k/10^p + 1/(2*10^p), and
	// neighbours.
	for p := 0; p <= 6; p++ {
		for k := 0; k < 20000; k++ {
			v := (float64(k) + 0.5) / math.Pow(10, float64(p))
			checkFast(t, v)
			checkFast(t, math.Nextafter(v, 0))
			checkFast(t, math.Nextafter(v, math.Inf(1)))
		}
	}
	// Powers of ten and their neighbours (decade changes).
	for e := -25; e <= 25; e++ {
		v := math.Pow(10, float64(e))
		for _, w := range []float64{v, math.Nextafter(v, 0), math.Nextafter(v, 2*v), v * 0.99995, v * 0.999949999, v * 0.99999} {
			checkFast(t, w)
		}
	}
}

func TestAppendFixedExpRandom(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		var v float64
		switch i % 5 {
		case 4: // rates of small counts, as pmval prints them
			v = float64(rng.IntN(100000)) / 1000 / (float64(rng.IntN(3)+1) * 10 / 3)
		case 0: // any bits
			v = math.Float64frombits(rng.Uint64())
			if math.IsInf(v, 0) || v != v {
				continue
			}
		case 1: // rates: a wide log-uniform range
			v = math.Pow(10, rng.Float64()*24-12)
		case 2: // short decimals, often ties
			v = float64(rng.IntN(100000000)) / math.Pow(10, float64(rng.IntN(9)))
		default: // counter differences over a delta
			v = float64(rng.Uint64N(1<<40)) / (float64(rng.IntN(20000)+1) / 1000)
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		checkFast(t, v)
	}
}

func BenchmarkAppendFixed(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendFixed(buf[:0], 123.456+float64(i&1023), 2)
	}
}

func BenchmarkAppendExp(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = AppendExp(buf[:0], 0.00123456+float64(i&1023)*1e-6, 3)
	}
}

func BenchmarkStrconvF(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = strconv.AppendFloat(buf[:0], 123.456+float64(i&1023), 'f', 2, 64)
	}
}

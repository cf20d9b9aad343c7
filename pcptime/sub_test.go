package pcptime

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// refSecNsec is ds + dn/1e9 in math/big, each step rounded to a 64-bit
// significand to nearest even, then to the nearest double: the reference
// for secNsec, independent of its integer arithmetic.
func refSecNsec(ds, dn int64) float64 {
	q := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).SetInt64(dn)
	q.Quo(q, new(big.Float).SetPrec(64).SetInt64(1e9))
	s := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).SetInt64(ds)
	s.Add(s, q)
	f, _ := s.Float64()
	return f
}

// refSub and refSubBorrow are Sub and SubBorrow with refSecNsec.
func refSub(a, b pmapi.Timestamp) float64 { return refSecNsec(subFields(a, b)) }

func refSubBorrow(a, b pmapi.Timestamp) float64 { return refSecNsec(decFields(a, b)) }

// subCases are differences whose doubles libpcp 6.0.3 computes as
// written (the bits are what __pmTimestampSub and pmtimespecDec +
// pmtimespecToReal return on x86-64; TestSubMatchesLibpcp asks them
// again).
var subCases = []struct {
	a, b        pmapi.Timestamp
	sub, borrow uint64 // math.Float64bits of Sub and SubBorrow
}{
	{ts(5, 0), ts(2, 0), 0x4008000000000000, 0x4008000000000000},
	{ts(5, 500e6), ts(2, 0), 0x400c000000000000, 0x400c000000000000},
	{ts(2, 0), ts(5, 250e6), 0xc00a000000000000, 0xc00a000000000000},
	// an unnormalised nsec of 1e9 is a whole second
	{ts(1, 1e9), ts(1, 0), 0x3ff0000000000000, 0x3ff0000000000000},
	{ts(1, 0), ts(1, 1e9), 0xbff0000000000000, 0xbff0000000000000},
	{ts(1, 1), ts(0, 0), 0x3ff000000044b830, 0x3ff000000044b830},
	// near 0 and 1e9 nanoseconds
	{ts(1700000000, 1), ts(1700000000, 999999999), 0xbfeffffffeed1f41, 0xbfeffffffeed1f41},
	{ts(1700000000, 999999999), ts(1699999999, 1), 0x3fffffffff768fa1, 0x3fffffffff768fa1},
	// the plain double sum is one bit off
	{ts(1700000000, 24488000), ts(1700000003, 717146000), 0xc00d8a90470a808d, 0xc00d8a90470a808d},
	{ts(1700000003, 195490000), ts(1700000001, 747654000), 0x3ff72a5614df8b15, 0x3ff72a5614df8b15},
	// borrowing a second changes the last bit
	{ts(1700000006, 381038000), ts(1700000004, 479950000), 0x3ffe6adb402d16b9, 0x3ffe6adb402d16ba},
	{ts(1700000002, 736196000), ts(1700000000, 793534000), 0x3fff1524bfd2e947, 0x3fff1524bfd2e946},
	// a backwards difference within a second: -1 + 0.999818 is not
	// -0.000182 in long double
	{ts(5, 0), ts(5, 182000), 0xbf27dae81882adc5, 0xbf27dae81882adc4},
	// huge seconds: the nanoseconds vanish in the rounding, or the
	// seconds wrap (the borrow too)
	{ts(math.MaxInt64, 999999999), ts(0, 0), 0x43e0000000000000, 0x43e0000000000000},
	{ts(math.MinInt64, 0), ts(0, 1), 0xc3e0000000000000, 0x43e0000000000000},
	{ts(math.MaxInt64, 0), ts(math.MinInt64, 0), 0xbff0000000000000, 0xbff0000000000000},
	{ts(1<<53+1, 500e6), ts(0, 0), 0x4340000000000001, 0x4340000000000001},
	// nanoseconds out of range wrap in 32 bits (Sub) and not in 64 (SubBorrow)
	{ts(0, math.MaxInt32), ts(0, -1e9), 0xbff25c17d0926559, 0x40092e0be8047a7d},
}

func TestSubTable(t *testing.T) {
	for _, c := range subCases {
		if got := math.Float64bits(Sub(c.a, c.b)); got != c.sub {
			t.Errorf("Sub(%v, %v) = %#x (%.17g), want %#x (%.17g)", c.a, c.b,
				got, math.Float64frombits(got), c.sub, math.Float64frombits(c.sub))
		}
		if got := math.Float64bits(SubBorrow(c.a, c.b)); got != c.borrow {
			t.Errorf("SubBorrow(%v, %v) = %#x (%.17g), want %#x (%.17g)", c.a, c.b,
				got, math.Float64frombits(got), c.borrow, math.Float64frombits(c.borrow))
		}
	}
}

// stampGen draws timestamps from wide and narrow ranges, with nsec near 0
// and 1e9, exactly 1e9, microsecond stamps, and now and then any int32.
func stampGen() *rapid.Generator[pmapi.Timestamp] {
	sec := rapid.OneOf(
		rapid.Int64Range(-3, 3),
		rapid.Int64Range(1.7e9-50, 1.7e9+50),
		rapid.Int64Range(-1<<40, 1<<40),
		rapid.Int64Range(1<<53-1e6, 1<<53+1e6),
		rapid.Int64(),
		rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1}),
	)
	nsec := rapid.OneOf(
		rapid.Int32Range(0, 999999999),
		rapid.Int32Range(0, 10),
		rapid.Int32Range(999999990, 1e9),
		rapid.Map(rapid.Int32Range(0, 999999), func(us int32) int32 { return us * 1000 }),
		rapid.Int32(),
	)
	return rapid.Custom(func(t *rapid.T) pmapi.Timestamp {
		return pmapi.Timestamp{Sec: sec.Draw(t, "sec"), Nsec: nsec.Draw(t, "nsec")}
	})
}

// nearGen draws b near a: the differences of successive samples.
func nearGen(a pmapi.Timestamp) *rapid.Generator[pmapi.Timestamp] {
	return rapid.Custom(func(t *rapid.T) pmapi.Timestamp {
		ds := rapid.Int64Range(-5, 5).Draw(t, "ds")
		return pmapi.Timestamp{Sec: a.Sec - ds, Nsec: rapid.Int32Range(0, 1e9).Draw(t, "nsec")}
	})
}

// TestSubRapid checks Sub, SubBorrow and each path of secNsec against the
// math/big reference.
func TestSubRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := stampGen().Draw(t, "a")
		var b pmapi.Timestamp
		if rapid.Bool().Draw(t, "near") {
			b = nearGen(a).Draw(t, "b")
		} else {
			b = stampGen().Draw(t, "b")
		}
		if got, want := Sub(a, b), refSub(a, b); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Sub(%v, %v) = %.17g, want %.17g", a, b, got, want)
		}
		if got, want := SubBorrow(a, b), refSubBorrow(a, b); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("SubBorrow(%v, %v) = %.17g, want %.17g", a, b, got, want)
		}
		ds, dn := subFields(a, b)
		checkPaths(t, ds, dn)
	})
}

// checkPaths checks fastSub (when it answers) and exactSum on their own.
func checkPaths(t interface{ Fatalf(string, ...any) }, ds, dn int64) {
	if dn == 0 {
		return
	}
	want := refSecNsec(ds, dn)
	if f, ok := fastSub(ds, dn); ok && math.Float64bits(f) != math.Float64bits(want) {
		t.Fatalf("fastSub(%d, %d) = %.17g, want %.17g", ds, dn, f, want)
	}
	if f := exactSum(ds, dn); math.Float64bits(f) != math.Float64bits(want) {
		t.Fatalf("exactSum(%d, %d) = %.17g, want %.17g", ds, dn, f, want)
	}
}

// TestSumRound checks the 64-bit rounding of the sum on significands
// that quotients of whole nanoseconds by 1e9 never give (they are never
// that close to a power of two), so that the sticky bit decides ties.
func TestSumRound(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, ds int64, Q uint64, k int, qneg bool) {
		q := new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetUint64(Q), -k)
		if qneg {
			q.Neg(q)
		}
		x := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).SetInt64(ds)
		x.Add(x, q)
		want, _ := x.Float64()
		if got := sumRound(ds, Q, k, qneg); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("sumRound(%d, %#x, %d, %v) = %.17g, want %.17g", ds, Q, k, qneg, got, want)
		}
	}
	// 2^62+512 + 0.25 + 2^-65: 2^62+512.5 in long double, then 2^62+1024
	// (without the sticky bit, a tie to 2^62+512, then to 2^62); and
	// 2^62+1536 - 0.25 - 2^-65: 2^62+1535.5, then 2^62+1024 (not 2^62+2048).
	check(t, 1<<62+512, 1<<63+1, 65, false)
	check(t, 1<<62+1536, 1<<63+1, 65, true)
	rapid.Check(t, func(t *rapid.T) {
		ds := rapid.OneOf(rapid.Int64(), rapid.Int64Range(-20, 20),
			rapid.Map(rapid.Uint64(), func(u uint64) int64 { return int64(u | 1<<62) })).Draw(t, "ds")
		Q := rapid.OneOf(rapid.Uint64Range(1<<63, math.MaxUint64),
			rapid.Uint64Range(1<<63, 1<<63+8), rapid.Uint64Range(3<<62, 3<<62+8),
			rapid.Uint64Range(math.MaxUint64-8, math.MaxUint64)).Draw(t, "Q")
		check(t, ds, Q, rapid.IntRange(60, 93).Draw(t, "k"), rapid.Bool().Draw(t, "qneg"))
	})
}

// TestSubPaths checks the paths on many random differences of the kinds
// replays make, and that the fast one takes most of them.
func TestSubPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fast := 0
	const n = 1000000
	for i := 0; i < n; i++ {
		var ds int64
		switch i % 5 {
		case 0:
			ds = rng.Int64N(5) - 2
		case 1:
			ds = rng.Int64N(200000) - 100000
		case 2:
			ds = rng.Int64N(1<<41) - 1<<40
		case 3:
			ds = 1.7e9 + rng.Int64N(1e8) - 5e7 // times since the epoch
		case 4:
			ds = int64(rng.Uint64()) >> rng.IntN(64)
		}
		dn := rng.Int64N(2e9-1) - (1e9 - 1)
		switch i % 7 {
		case 0:
			dn = (rng.Int64N(2000) - 1000) * 1000 // microseconds
		case 1:
			dn = rng.Int64N(1<<33) - 1<<32 // anything SubBorrow can see
		}
		checkPaths(t, ds, dn)
		if _, ok := fastSub(ds, dn); ok {
			fast++
		}
	}
	if fast < n/2 {
		t.Errorf("the fast path took only %d of %d", fast, n)
	}
	for ds := int64(-3); ds <= 3; ds++ {
		for _, dn := range []int64{1, -1, 999999999, -999999999, 500000000, -500000000, 1000, -1000,
			1e9, -1e9, 4e9, -4e9, 1<<32 - 1, -(1<<32 - 1)} {
			checkPaths(t, ds, dn)
		}
	}
}

// TestSubDiffers shows what the two libpcp computations and a plain
// double sum give on stamps a few seconds apart: how often the last bit
// differs (a test that Sub is not the plain sum, nor SubBorrow).
func TestSubDiffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	plain, borrow := 0, 0
	const n = 200000
	for i := 0; i < n; i++ {
		a := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		b := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		s := Sub(a, b)
		if s != float64(a.Sec-b.Sec)+float64(a.Nsec-b.Nsec)/1e9 {
			plain++
		}
		if s != SubBorrow(a, b) {
			borrow++
		}
	}
	t.Logf("of %d pairs, the plain double sum differs from Sub in %d, SubBorrow in %d", n, plain, borrow)
	if plain == 0 || borrow == 0 {
		t.Errorf("no differences: plain %d, borrow %d", plain, borrow)
	}
}

func TestSubAllocs(t *testing.T) {
	a, b := ts(1700000003, 62815000), ts(1700000000, 999818000)
	var sink float64
	if n := testing.AllocsPerRun(1000, func() {
		sink += Sub(a, b) + SubBorrow(a, b) + exactSum(1<<62+3, -123456789)
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
	_ = sink
}

// TestSubMatchesLibpcp compares Sub and SubBorrow bit for bit with
// libpcp's own functions and with gcc's long double, on the table and on
// random stamps.
func TestSubMatchesLibpcp(t *testing.T) {
	var pairs [][2]pmapi.Timestamp
	for _, c := range subCases {
		pairs = append(pairs, [2]pmapi.Timestamp{c.a, c.b})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		a := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		b := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		switch i % 4 {
		case 1:
			a.Nsec, b.Nsec = a.Nsec/1000*1000, b.Nsec/1000*1000
		case 2:
			a.Sec, b.Sec = int64(rng.Uint64()), int64(rng.Uint64())>>rng.IntN(64)
		case 3:
			a.Nsec, b.Nsec = int32(rng.Uint32()), int32(rng.Uint32())
		}
		pairs = append(pairs, [2]pmapi.Timestamp{a, b})
	}
	lines := make([]string, len(pairs))
	for i, p := range pairs {
		lines[i] = fmt.Sprintf("S %d %d %d %d", p[0].Sec, p[0].Nsec, p[1].Sec, p[1].Nsec)
	}
	out := runPCP(t, lines)
	for i, p := range pairs {
		f := strings.Fields(out[i])
		if len(f) != 4 {
			t.Fatalf("%s: helper said %q", lines[i], out[i])
		}
		var bits [4]uint64
		for j := range f {
			v, err := strconv.ParseUint(f[j], 16, 64)
			if err != nil {
				t.Fatalf("%s: helper said %q", lines[i], out[i])
			}
			bits[j] = v
		}
		if bits[0] != bits[2] || bits[1] != bits[3] {
			t.Errorf("%s: libpcp %x %x, gcc long double %x %x", lines[i], bits[0], bits[1], bits[2], bits[3])
		}
		if got := math.Float64bits(Sub(p[0], p[1])); got != bits[0] {
			t.Errorf("Sub(%v, %v) = %x, libpcp's __pmTimestampSub %x", p[0], p[1], got, bits[0])
		}
		if got := math.Float64bits(SubBorrow(p[0], p[1])); got != bits[1] {
			t.Errorf("SubBorrow(%v, %v) = %x, libpcp's pmtimespecDec+pmtimespecToReal %x", p[0], p[1], got, bits[1])
		}
	}
}

// TestToReal compares ToReal with libpcp's pmtimespecToReal, and with
// its pmtimevalToReal for whole microseconds, bit for bit, and with the
// math/big reference of the timeval's sec + usec/1e6.
func TestToReal(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var stamps []pmapi.Timestamp
	for i := 0; i < 20000; i++ {
		s := ts(int64(rng.Uint64())>>rng.IntN(64), int32(rng.IntN(1e9)))
		if i%2 == 0 {
			s.Nsec -= s.Nsec % 1000
		}
		if i%5 == 0 {
			s.Sec = -s.Sec
		}
		stamps = append(stamps, s)
	}
	stamps = append(stamps, ts(0, 1e9), ts(-1, 999999000), ts(math.MinInt64, 999999999), ts(1700000000, 123456000))
	for _, s := range stamps {
		if s.Nsec%1000 != 0 {
			continue
		}
		q := new(big.Float).SetPrec(64).SetInt64(int64(s.Nsec / 1000))
		q.Quo(q, new(big.Float).SetPrec(64).SetInt64(1e6))
		x := new(big.Float).SetPrec(64).SetInt64(s.Sec)
		want, _ := x.Add(x, q).Float64()
		if got := ToReal(s); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ToReal(%v) = %.17g, sec + usec/1e6 in long double is %.17g", s, got, want)
		}
	}
	lines := make([]string, len(stamps))
	for i, s := range stamps {
		lines[i] = fmt.Sprintf("R %d %d", s.Sec, s.Nsec)
	}
	out := runPCP(t, lines)
	for i, s := range stamps {
		var spec, val uint64
		if _, err := fmt.Sscanf(out[i], "%x %x", &spec, &val); err != nil {
			t.Fatalf("%s: helper said %q", lines[i], out[i])
		}
		got := math.Float64bits(ToReal(s))
		if got != spec {
			t.Errorf("ToReal(%v) = %x, pmtimespecToReal %x", s, got, spec)
		}
		if s.Nsec%1000 == 0 && got != val {
			t.Errorf("ToReal(%v) = %x, pmtimevalToReal %x", s, got, val)
		}
	}
}

// subBenchStamps are differences of the kinds replays make: epoch stamps
// microseconds and nanoseconds apart, a few seconds either way.
func subBenchStamps() [][2]pmapi.Timestamp {
	rng := rand.New(rand.NewPCG(9, 10))
	p := make([][2]pmapi.Timestamp, 1024)
	for i := range p {
		a := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		b := ts(1.7e9+rng.Int64N(10), int32(rng.IntN(1e9)))
		if i%2 == 0 {
			a.Nsec, b.Nsec = a.Nsec/1000*1000, b.Nsec/1000*1000
		}
		p[i] = [2]pmapi.Timestamp{a, b}
	}
	return p
}

// benchDiff times f over subBenchStamps.
func benchDiff(b *testing.B, f func(a, b pmapi.Timestamp) float64) {
	p := subBenchStamps()
	b.ReportAllocs()
	var sink float64
	for i := 0; b.Loop(); i++ {
		q := &p[i&1023]
		sink += f(q[0], q[1])
	}
	_ = sink
}

func BenchmarkSub(b *testing.B) { benchDiff(b, Sub) }

func BenchmarkSubBorrow(b *testing.B) { benchDiff(b, SubBorrow) }

// BenchmarkExactSum is the path that differences near a tie take.
func BenchmarkExactSum(b *testing.B) {
	benchDiff(b, func(a, b pmapi.Timestamp) float64 { return exactSum(subFields(a, b)) })
}

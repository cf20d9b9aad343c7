package pmapi

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func pvUnhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// block makes a value block with payload p (as stored in an archive).
func pvBlock(vtype Type, p string) *Value { return &Value{BlockType: vtype, Block: pvUnhex(p)} }

func pvInsitu(w int32) *Value { return &Value{Insitu: w} }

// TestAppendValueArchives: values as stored in real archives, and the text
// that `TZ=UTC pmdumplog -a` prints after "value " for them.
func TestAppendValueArchives(t *testing.T) {
	for _, c := range []struct {
		what string
		t    Type
		v    *Value
		want string
	}{
		// synth3.0, first record: the blocks 0300000c 00000000000003e8,
		// 0500000c 4024000000000000, 04000008 3fc00000, 06000006 6100 7e7e
		// (vlen 6: "a" and its NUL, then padding)
		{"synth3 synth.ctr32", TypeU32, pvInsitu(100), "100"},
		{"synth3 synth.ctrms", TypeU64, pvBlock(TypeU64, "00000000000003e8"), "1000"},
		{"synth3 synth.inst", TypeDouble, pvBlock(TypeDouble, "4024000000000000"), "10"},
		{"synth3 synth.multi", TypeFloat, pvBlock(TypeFloat, "3fc00000"), "1.5"},
		{"synth3 synth.str", TypeString, pvBlock(TypeString, "6100"), `"a"`},
		{"synth3 synth.once", Type32, pvInsitu(42), "42"},
		// sample3.0
		{"sample3 sample.milliseconds", TypeDouble, pvBlock(TypeDouble, "40380fdf3b645a1d"), "24.062"},
		{"sample3 sample.milliseconds", TypeDouble, pvBlock(TypeDouble, "40c1a006e978d4fe"), "9024.054"},
		{"sample3 sample.negative.instant.m_double", TypeDouble, pvBlock(TypeDouble, "c0c3878000000000"), "-9999"},
		{"sample3 sample.double.million", TypeDouble, pvBlock(TypeDouble, "412e848000000000"), "1000000"},
		{"sample3 sample.event.param_64", Type64, pvBlock(Type64, "fffffffffffffffd"), "-3"},
		{"sample3 sample.event.param_u64", TypeU64, pvBlock(TypeU64, "000000000000000b"), "11"},
		{"sample3 sample.event.param_float", TypeFloat, pvBlock(TypeFloat, "c1880000"), "-17"},
		{"sample3 sample.string.null", TypeString, pvBlock(TypeString, "00"), `""`},
		{"sample3 sample.aggregate.hullo", TypeAggregate, pvBlock(TypeAggregate, hex.EncodeToString([]byte("hullo world!"))),
			`"hullo world!" [68756c6c6f20776f726c6421]`},
		{"sample3 sample.event.param_aggregate", TypeAggregate, pvBlock(TypeAggregate, "0103070f1f3f7fff"),
			"18410503204342530817 -1.371380375612005e+306 [0103070f1f3f7fff]"},
		// A copy of synth3 whose .meta was edited to give synth.ctrms,
		// synth.inst, synth.multi and synth.str the type AGGREGATE, and
		// synth.ctr32 the type DOUBLE: libpcp had turned the numeric blocks
		// to host order, and dumps them so.
		{"edited synth3 synth.ctrms", TypeAggregate, pvBlock(TypeU64, "00000000000003e8"), "1000 4.940656458412465e-321 [e803000000000000]"},
		{"edited synth3 synth.inst", TypeAggregate, pvBlock(TypeDouble, "4024000000000000"), "4621819117588971520 10 [0000000000002440]"},
		{"edited synth3 synth.multi", TypeAggregate, pvBlock(TypeFloat, "3fc00000"), "1.5 [0000c03f]"},
		{"edited synth3 synth.str", TypeAggregate, pvBlock(TypeString, "6100"), "[6100]"},
		{"edited synth3 synth.ctr32", TypeDouble, pvInsitu(100), "100 1.4012985e-43 0x64"},
	} {
		if got := string(AppendValue(nil, c.t, c.v)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
	}
}

// TestAppendValueLibpcp: cases made by calling the real libpcp's
// pmPrintValue(stdout, valfmt, type, &value, 1) from a small C program on
// hand-made values (the payloads below are in archive order; numeric blocks
// were handed to pmPrintValue in host order). About 300,000 random cases
// (every type, matching and mismatching block types, payloads of 0..19
// bytes) were compared the same way, with no difference.
func TestAppendValueLibpcp(t *testing.T) {
	for _, c := range []struct {
		t    Type
		v    *Value
		want string
	}{
		// insitu
		{Type32, pvInsitu(-5), "-5"},
		{Type32, pvInsitu(math.MinInt32), "-2147483648"},
		{TypeU32, pvInsitu(-5), "4294967291"},
		{TypeU32, pvInsitu(-1), "4294967295"},
		{TypeFloat, pvInsitu(0x3f800000), "1"},
		{TypeFloat, pvInsitu(0x3f47ae14), "0.77999997"},
		{TypeFloat, pvInsitu(0x7fc00000), "nan"},
		{TypeFloat, pvInsitu(-1), "-nan"},
		{TypeUnknown, pvInsitu(-7), "4294967289 0xfffffff9"}, // the float is a NaN
		{TypeNoSupport, pvInsitu(-7), "4294967289 0xfffffff9"},
		{TypeUnknown, pvInsitu(0), "0 0 0x0"},
		{TypeAggregate, pvInsitu(5), "5 7.0064923e-45 0x5"},
		{Type64, pvInsitu(5), "5 7.0064923e-45 0x5"},
		{TypeDouble, pvInsitu(5), "5 7.0064923e-45 0x5"},
		{TypeString, pvInsitu(5), "5 7.0064923e-45 0x5"},
		// typed blocks
		{Type64, pvBlock(Type64, "fffffffffffffffd"), "-3"},
		{Type64, pvBlock(Type64, "8000000000000000"), "-9223372036854775808"},
		{TypeU64, pvBlock(TypeU64, "ffffffffffffffff"), "18446744073709551615"},
		{TypeFloat, pvBlock(TypeFloat, "3f47ae14"), "0.77999997"},
		{TypeFloat, pvBlock(TypeFloat, "7fc00000"), "nan"},
		{TypeFloat, pvBlock(TypeFloat, "ff800000"), "-inf"},
		{TypeDouble, pvBlock(TypeDouble, "4058ac9a0ed1d10c"), "98.69690294732953"},
		{TypeDouble, pvBlock(TypeDouble, "8000000000000000"), "-0"},
		{TypeDouble, pvBlock(TypeDouble, "0000000000000001"), "4.940656458412465e-324"},
		{TypeDouble, pvBlock(TypeDouble, "7ff0000000000000"), "inf"},
		{TypeDouble, pvBlock(TypeDouble, "fff0000000000000"), "-inf"},
		{TypeDouble, pvBlock(TypeDouble, "7ff8000000000000"), "nan"},
		{TypeDouble, pvBlock(TypeDouble, "fff8000000000000"), "-nan"},
		{TypeString, pvBlock(TypeString, "4142004344"), `"AB"`},
		{TypeString, pvBlock(TypeString, "22410a095c"), "\"\"A\n\t\\\""}, // not escaped
		{TypeString, pvBlock(TypeString, ""), `""`},
		// a block of type 0 counts as the metric's type
		{TypeU64, pvBlock(Type32, "0500000000000000"), "5"}, // (not turned: 0 is no numeric block type)
		{TypeString, pvBlock(Type32, "41"), `"A"`},
		// dumped: block type mismatch, wrong size, aggregates, unknown types
		{TypeString, pvBlock(TypeAggregate, "41"), `"A" [41]`},
		{TypeDouble, pvBlock(TypeAggregate, "000000000000f83f"), "4609434218613702656 1.5 [000000000000f83f]"},
		{TypeAggregate, pvBlock(TypeDouble, "3ff8000000000000"), "4609434218613702656 1.5 [000000000000f83f]"},
		{TypeFloat, pvBlock(TypeAggregate, "0000c03f"), "1.5 [0000c03f]"},
		{TypeDouble, pvBlock(TypeFloat, "3fc00000"), "1.5 [0000c03f]"},
		{TypeU64, pvBlock(TypeU64, "0807060504030201090a"), "[0102030405060708090a]"}, // libpcp turns the first 8 bytes (inferred)
		{TypeDouble, pvBlock(TypeDouble, "0000"), "[0000]"},
		{Type32, pvBlock(Type32, "05000000"), "7.0064923e-45 [05000000]"},
		{TypeU32, pvBlock(TypeU32, "ffffffff"), "[ffffffff]"},
		{TypeAggregate, pvBlock(TypeAggregate, ""), `"" []`},
		{TypeAggregate, pvBlock(TypeAggregate, "01020304"), "1.5399896e-36 [01020304]"},
		{TypeAggregate, pvBlock(TypeAggregate, "0102030405"), "[0102030405]"},
		{TypeAggregate, pvBlock(TypeAggregate, "0000c07f"), "[0000c07f]"},
		{TypeAggregate, pvBlock(TypeAggregate, "414243"), `"ABC" [414243]`},
		{TypeAggregate, pvBlock(TypeAggregate, "7f"), "[7f]"},
		{TypeAggregate, pvBlock(TypeAggregate, "20"), `" " [20]`},
		{TypeAggregate, pvBlock(TypeAggregate, "2241205c7e7f"), "[2241205c7e7f]"},
		{TypeAggregate, pvBlock(TypeAggregate, "4142434445464748"), `5208208757389214273 1.583980010380482e+40 "ABCDEFGH" [4142434445464748]`},
		{TypeAggregate, pvBlock(TypeAggregate, "0000000000000000"), "0 0 [0000000000000000]"},
		{TypeAggregate, pvBlock(TypeAggregate, "000000000000f87f"), "9221120237041090560 [000000000000f87f]"},
		{TypeAggregate, pvBlock(TypeAggregate, "000000000000f0ff"), "18442240474082181120 -inf [000000000000f0ff]"},
		{TypeAggregateStat, pvBlock(TypeAggregateStat, "414243"), `"ABC" [414243]`},
		{TypeUnknown, pvBlock(TypeAggregate, "41424344"), `781.03522 "ABCD" [41424344]`},
		{Type(99), pvBlock(Type(99), "41424344"), `781.03522 "ABCD" [41424344]`},
	} {
		if got := string(AppendValue(nil, c.t, c.v)); got != c.want {
			t.Errorf("%v %+v: got %q, want %q", c.t, c.v, got, c.want)
		}
	}
}

func TestAppendValueAllocs(t *testing.T) {
	vals := []struct {
		t Type
		v *Value
	}{
		{TypeU32, pvInsitu(100)},
		{TypeUnknown, pvInsitu(5)},
		{TypeU64, pvBlock(TypeU64, "00000000000003e8")},
		{TypeDouble, pvBlock(TypeDouble, "40380fdf3b645a1d")},
		{TypeFloat, pvBlock(TypeFloat, "3fc00000")},
		{TypeString, pvBlock(TypeString, "6100")},
		{TypeAggregate, pvBlock(TypeAggregate, "0103070f1f3f7fff")},
		{TypeAggregate, pvBlock(TypeDouble, "4024000000000000")},
	}
	buf := make([]byte, 0, 256)
	for _, c := range vals {
		if n := testing.AllocsPerRun(100, func() { buf = AppendValue(buf[:0], c.t, c.v) }); n != 0 {
			t.Errorf("%v: %v allocations", c.t, n)
		}
	}
}

func BenchmarkAppendValue(b *testing.B) {
	vals := []struct {
		t Type
		v *Value
	}{
		{TypeU32, pvInsitu(100)},
		{TypeU64, pvBlock(TypeU64, "00000000000003e8")},
		{TypeDouble, pvBlock(TypeDouble, "40380fdf3b645a1d")},
		{TypeFloat, pvBlock(TypeFloat, "3fc00000")},
		{TypeString, pvBlock(TypeString, "6100")},
		{TypeAggregate, pvBlock(TypeAggregate, "0103070f1f3f7fff")},
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := vals[i%len(vals)]
		buf = AppendValue(buf[:0], c.t, c.v)
	}
}

// TestAppendFloatG: the expected strings are C's printf, from coreutils'
// printf given the exact value as a hexadecimal float, e.g.
// `/usr/bin/printf '%.8g' 0x1.8f5c28f5c28f6p-01` (which prints 0.78).
// AppendFloatG was also compared with glibc's printf("%.*g") for 400,000
// doubles (random bits, decimals, floats, values near powers of ten and
// halfway cases) at precisions 0, 1, 2, 3, 6, 8, 15, 16, 17, 20 and 25,
// with no difference.
func TestAppendFloatG(t *testing.T) {
	for _, c := range []struct {
		f    float64
		prec int
		want string
	}{
		{0x0p00, 1, "0"},
		{0x0p00, 3, "0"},
		{0x0p00, 6, "0"},
		{0x0p00, 8, "0"},
		{0x0p00, 16, "0"},
		{0x0p00, 17, "0"},
		{0x1p00, 1, "1"},
		{0x1p00, 3, "1"},
		{0x1p00, 6, "1"},
		{0x1p00, 8, "1"},
		{0x1p00, 16, "1"},
		{0x1p00, 17, "1"},
		{-0x1p00, 1, "-1"},
		{-0x1p00, 3, "-1"},
		{-0x1p00, 6, "-1"},
		{-0x1p00, 8, "-1"},
		{-0x1p00, 16, "-1"},
		{-0x1p00, 17, "-1"},
		{0x1p-01, 1, "0.5"},
		{0x1p-01, 3, "0.5"},
		{0x1p-01, 6, "0.5"},
		{0x1p-01, 8, "0.5"},
		{0x1p-01, 16, "0.5"},
		{0x1p-01, 17, "0.5"},
		{0x1.999999999999ap-04, 1, "0.1"},
		{0x1.999999999999ap-04, 3, "0.1"},
		{0x1.999999999999ap-04, 6, "0.1"},
		{0x1.999999999999ap-04, 8, "0.1"},
		{0x1.999999999999ap-04, 16, "0.1"},
		{0x1.999999999999ap-04, 17, "0.10000000000000001"},
		{0x1.8f5c28f5c28f6p-01, 1, "0.8"},
		{0x1.8f5c28f5c28f6p-01, 3, "0.78"},
		{0x1.8f5c28f5c28f6p-01, 6, "0.78"},
		{0x1.8f5c28f5c28f6p-01, 8, "0.78"},
		{0x1.8f5c28f5c28f6p-01, 16, "0.78"},
		{0x1.8f5c28f5c28f6p-01, 17, "0.78000000000000003"},
		{0x1.5555555555555p-02, 1, "0.3"},
		{0x1.5555555555555p-02, 3, "0.333"},
		{0x1.5555555555555p-02, 6, "0.333333"},
		{0x1.5555555555555p-02, 8, "0.33333333"},
		{0x1.5555555555555p-02, 16, "0.3333333333333333"},
		{0x1.5555555555555p-02, 17, "0.33333333333333331"},
		{0x1.5555555555555p-01, 1, "0.7"},
		{0x1.5555555555555p-01, 3, "0.667"},
		{0x1.5555555555555p-01, 6, "0.666667"},
		{0x1.5555555555555p-01, 8, "0.66666667"},
		{0x1.5555555555555p-01, 16, "0.6666666666666666"},
		{0x1.5555555555555p-01, 17, "0.66666666666666663"},
		{0x1.ad7f29abcaf48p-24, 1, "1e-07"},
		{0x1.ad7f29abcaf48p-24, 3, "1e-07"},
		{0x1.ad7f29abcaf48p-24, 6, "1e-07"},
		{0x1.ad7f29abcaf48p-24, 8, "1e-07"},
		{0x1.ad7f29abcaf48p-24, 16, "1e-07"},
		{0x1.ad7f29abcaf48p-24, 17, "9.9999999999999995e-08"},
		{0x1.043561a88293p67, 1, "2e+20"},
		{0x1.043561a88293p67, 3, "1.5e+20"},
		{0x1.043561a88293p67, 6, "1.5e+20"},
		{0x1.043561a88293p67, 8, "1.5e+20"},
		{0x1.043561a88293p67, 16, "1.5e+20"},
		{0x1.043561a88293p67, 17, "1.5e+20"},
		{0x1.82ca8e4c6dadap06, 1, "1e+02"},
		{0x1.82ca8e4c6dadap06, 3, "96.7"},
		{0x1.82ca8e4c6dadap06, 6, "96.6978"},
		{0x1.82ca8e4c6dadap06, 8, "96.697808"},
		{0x1.82ca8e4c6dadap06, 16, "96.69780845088408"},
		{0x1.82ca8e4c6dadap06, 17, "96.697808450884082"},
		{0x1.80fdf3b645a1dp04, 1, "2e+01"},
		{0x1.80fdf3b645a1dp04, 3, "24.1"},
		{0x1.80fdf3b645a1dp04, 6, "24.062"},
		{0x1.80fdf3b645a1dp04, 8, "24.062"},
		{0x1.80fdf3b645a1dp04, 16, "24.062"},
		{0x1.80fdf3b645a1dp04, 17, "24.062000000000001"},
		{0x1.7d784p26, 1, "1e+08"},
		{0x1.7d784p26, 3, "1e+08"},
		{0x1.7d784p26, 6, "1e+08"},
		{0x1.7d784p26, 8, "1e+08"},
		{0x1.7d784p26, 16, "100000000"},
		{0x1.7d784p26, 17, "100000000"},
		{0x1.7d783fcp26, 1, "1e+08"},
		{0x1.7d783fcp26, 3, "1e+08"},
		{0x1.7d783fcp26, 6, "1e+08"},
		{0x1.7d783fcp26, 8, "99999999"},
		{0x1.7d783fcp26, 16, "99999999"},
		{0x1.7d783fcp26, 17, "99999999"},
		{0x1.78c29cp23, 1, "1e+07"},
		{0x1.78c29cp23, 3, "1.23e+07"},
		{0x1.78c29cp23, 6, "1.23457e+07"},
		{0x1.78c29cp23, 8, "12345678"},
		{0x1.78c29cp23, 16, "12345678"},
		{0x1.78c29cp23, 17, "12345678"},
		{0x1.d6f3454p26, 1, "1e+08"},
		{0x1.d6f3454p26, 3, "1.23e+08"},
		{0x1.d6f3454p26, 6, "1.23457e+08"},
		{0x1.d6f3454p26, 8, "1.2345679e+08"},
		{0x1.d6f3454p26, 16, "123456789"},
		{0x1.d6f3454p26, 17, "123456789"},
		{0x1.c6bf52634p49, 1, "1e+15"},
		{0x1.c6bf52634p49, 3, "1e+15"},
		{0x1.c6bf52634p49, 6, "1e+15"},
		{0x1.c6bf52634p49, 8, "1e+15"},
		{0x1.c6bf52634p49, 16, "1000000000000000"},
		{0x1.c6bf52634p49, 17, "1000000000000000"},
		{0x1.1c37937e08p53, 1, "1e+16"},
		{0x1.1c37937e08p53, 3, "1e+16"},
		{0x1.1c37937e08p53, 6, "1e+16"},
		{0x1.1c37937e08p53, 8, "1e+16"},
		{0x1.1c37937e08p53, 16, "1e+16"},
		{0x1.1c37937e08p53, 17, "10000000000000000"},
		{0x1.6345785d8ap56, 1, "1e+17"},
		{0x1.6345785d8ap56, 3, "1e+17"},
		{0x1.6345785d8ap56, 6, "1e+17"},
		{0x1.6345785d8ap56, 8, "1e+17"},
		{0x1.6345785d8ap56, 16, "1e+17"},
		{0x1.6345785d8ap56, 17, "1e+17"},
		{0x1.7d783ffcccccdp26, 1, "1e+08"},
		{0x1.7d783ffcccccdp26, 3, "1e+08"},
		{0x1.7d783ffcccccdp26, 6, "1e+08"},
		{0x1.7d783ffcccccdp26, 8, "1e+08"},
		{0x1.7d783ffcccccdp26, 16, "99999999.95"},
		{0x1.7d783ffcccccdp26, 17, "99999999.950000003"},
		{0x1.a36e2eb1c432dp-14, 1, "0.0001"},
		{0x1.a36e2eb1c432dp-14, 3, "0.0001"},
		{0x1.a36e2eb1c432dp-14, 6, "0.0001"},
		{0x1.a36e2eb1c432dp-14, 8, "0.0001"},
		{0x1.a36e2eb1c432dp-14, 16, "0.0001"},
		{0x1.a36e2eb1c432dp-14, 17, "0.0001"},
		{0x1.4f8b588e368f1p-17, 1, "1e-05"},
		{0x1.4f8b588e368f1p-17, 3, "1e-05"},
		{0x1.4f8b588e368f1p-17, 6, "1e-05"},
		{0x1.4f8b588e368f1p-17, 8, "1e-05"},
		{0x1.4f8b588e368f1p-17, 16, "1e-05"},
		{0x1.4f8b588e368f1p-17, 17, "1.0000000000000001e-05"},
		{0x1.02e85be111841p-13, 1, "0.0001"},
		{0x1.02e85be111841p-13, 3, "0.000123"},
		{0x1.02e85be111841p-13, 6, "0.000123457"},
		{0x1.02e85be111841p-13, 8, "0.00012345679"},
		{0x1.02e85be111841p-13, 16, "0.000123456789"},
		{0x1.02e85be111841p-13, 17, "0.000123456789"},
		{0x1.a36e2e6b65cccp-14, 1, "0.0001"},
		{0x1.a36e2e6b65cccp-14, 3, "0.0001"},
		{0x1.a36e2e6b65cccp-14, 6, "0.0001"},
		{0x1.a36e2e6b65cccp-14, 8, "9.9999999e-05"},
		{0x1.a36e2e6b65cccp-14, 16, "9.9999999e-05"},
		{0x1.a36e2e6b65cccp-14, 17, "9.9999998999999995e-05"},
		{0x1.a36e2e8e94ffcp-14, 1, "0.0001"},
		{0x1.a36e2e8e94ffcp-14, 3, "0.0001"},
		{0x1.a36e2e8e94ffcp-14, 6, "0.0001"},
		{0x1.a36e2e8e94ffcp-14, 8, "9.9999999e-05"},
		{0x1.a36e2e8e94ffcp-14, 16, "9.999999949999999e-05"},
		{0x1.a36e2e8e94ffcp-14, 17, "9.9999999499999993e-05"},
		{0x1.4p01, 1, "2"},
		{0x1.4p01, 3, "2.5"},
		{0x1.4p01, 6, "2.5"},
		{0x1.4p01, 8, "2.5"},
		{0x1.4p01, 16, "2.5"},
		{0x1.4p01, 17, "2.5"},
		{0x1.cp01, 1, "4"},
		{0x1.cp01, 3, "3.5"},
		{0x1.cp01, 6, "3.5"},
		{0x1.cp01, 8, "3.5"},
		{0x1.cp01, 16, "3.5"},
		{0x1.cp01, 17, "3.5"},
		{0x1p-03, 1, "0.1"},
		{0x1p-03, 3, "0.125"},
		{0x1p-03, 6, "0.125"},
		{0x1p-03, 8, "0.125"},
		{0x1p-03, 16, "0.125"},
		{0x1p-03, 17, "0.125"},
		{0x1.8p-02, 1, "0.4"},
		{0x1.8p-02, 3, "0.375"},
		{0x1.8p-02, 6, "0.375"},
		{0x1.8p-02, 8, "0.375"},
		{0x1.8p-02, 16, "0.375"},
		{0x1.8p-02, 17, "0.375"},
		{0x1.7e43c8800759cp996, 1, "1e+300"},
		{0x1.7e43c8800759cp996, 3, "1e+300"},
		{0x1.7e43c8800759cp996, 6, "1e+300"},
		{0x1.7e43c8800759cp996, 8, "1e+300"},
		{0x1.7e43c8800759cp996, 16, "1e+300"},
		{0x1.7e43c8800759cp996, 17, "1.0000000000000001e+300"},
		{0x1.56e1fc2f8f359p-997, 1, "1e-300"},
		{0x1.56e1fc2f8f359p-997, 3, "1e-300"},
		{0x1.56e1fc2f8f359p-997, 6, "1e-300"},
		{0x1.56e1fc2f8f359p-997, 8, "1e-300"},
		{0x1.56e1fc2f8f359p-997, 16, "1e-300"},
		{0x1.56e1fc2f8f359p-997, 17, "1e-300"},
		{math.MaxFloat64, 1, "2e+308"},
		{math.MaxFloat64, 3, "1.8e+308"},
		{math.MaxFloat64, 6, "1.79769e+308"},
		{math.MaxFloat64, 8, "1.7976931e+308"},
		{math.MaxFloat64, 16, "1.797693134862316e+308"},
		{math.MaxFloat64, 17, "1.7976931348623157e+308"},
		{0x1p-1074, 1, "5e-324"},
		{0x1p-1074, 3, "4.94e-324"},
		{0x1p-1074, 6, "4.94066e-324"},
		{0x1p-1074, 8, "4.9406565e-324"},
		{0x1p-1074, 16, "4.940656458412465e-324"},
		{0x1p-1074, 17, "4.9406564584124654e-324"},
		{0x1p-1022, 1, "2e-308"},
		{0x1p-1022, 3, "2.23e-308"},
		{0x1p-1022, 6, "2.22507e-308"},
		{0x1p-1022, 8, "2.2250739e-308"},
		{0x1p-1022, 16, "2.225073858507201e-308"},
		{0x1p-1022, 17, "2.2250738585072014e-308"},
		{0x1p52, 1, "5e+15"},
		{0x1p52, 3, "4.5e+15"},
		{0x1p52, 6, "4.5036e+15"},
		{0x1p52, 8, "4.5035996e+15"},
		{0x1p52, 16, "4503599627370496"},
		{0x1p52, 17, "4503599627370496"},
		{0x1p53, 1, "9e+15"},
		{0x1p53, 3, "9.01e+15"},
		{0x1p53, 6, "9.0072e+15"},
		{0x1p53, 8, "9.0071993e+15"},
		{0x1p53, 16, "9007199254740992"},
		{0x1p53, 17, "9007199254740992"},
		{0x1.edd2f1a9fbe77p06, 1, "1e+02"},
		{0x1.edd2f1a9fbe77p06, 3, "123"},
		{0x1.edd2f1a9fbe77p06, 6, "123.456"},
		{0x1.edd2f1a9fbe77p06, 8, "123.456"},
		{0x1.edd2f1a9fbe77p06, 16, "123.456"},
		{0x1.edd2f1a9fbe77p06, 17, "123.456"},
		{-0x1.0624dd2ab4b96p-10, 1, "-0.001"},
		{-0x1.0624dd2ab4b96p-10, 3, "-0.001"},
		{-0x1.0624dd2ab4b96p-10, 6, "-0.001"},
		{-0x1.0624dd2ab4b96p-10, 8, "-0.001"},
		{-0x1.0624dd2ab4b96p-10, 16, "-0.000999999999"},
		{-0x1.0624dd2ab4b96p-10, 17, "-0.00099999999900000002"},
		{0x1.8f5c28p-01, 1, "0.8"},
		{0x1.8f5c28p-01, 3, "0.78"},
		{0x1.8f5c28p-01, 6, "0.78"},
		{0x1.8f5c28p-01, 8, "0.77999997"},
		{0x1.8f5c28p-01, 16, "0.7799999713897705"},
		{0x1.8f5c28p-01, 17, "0.77999997138977051"},
		{0x1.555556p-02, 1, "0.3"},
		{0x1.555556p-02, 3, "0.333"},
		{0x1.555556p-02, 6, "0.333333"},
		{0x1.555556p-02, 8, "0.33333334"},
		{0x1.555556p-02, 16, "0.3333333432674408"},
		{0x1.555556p-02, 17, "0.3333333432674408"},
		{0x1.ad7f2ap-24, 1, "1e-07"},
		{0x1.ad7f2ap-24, 3, "1e-07"},
		{0x1.ad7f2ap-24, 6, "1e-07"},
		{0x1.ad7f2ap-24, 8, "1e-07"},
		{0x1.ad7f2ap-24, 16, "1.000000011686097e-07"},
		{0x1.ad7f2ap-24, 17, "1.0000000116860974e-07"},
		{0x1p24, 1, "2e+07"},
		{0x1p24, 3, "1.68e+07"},
		{0x1p24, 6, "1.67772e+07"},
		{0x1p24, 8, "16777216"},
		{0x1p24, 16, "16777216"},
		{0x1p24, 17, "16777216"},
		{0x1.fffffep127, 1, "3e+38"},
		{0x1.fffffep127, 3, "3.4e+38"},
		{0x1.fffffep127, 6, "3.40282e+38"},
		{0x1.fffffep127, 8, "3.4028235e+38"},
		{0x1.fffffep127, 16, "3.402823466385289e+38"},
		{0x1.fffffep127, 17, "3.4028234663852886e+38"},
		{-0x1.f3f1f0f070304p1016, 1, "-1e+306"},
		{-0x1.f3f1f0f070304p1016, 3, "-1.37e+306"},
		{-0x1.f3f1f0f070304p1016, 6, "-1.37138e+306"},
		{-0x1.f3f1f0f070304p1016, 8, "-1.3713804e+306"},
		{-0x1.f3f1f0f070304p1016, 16, "-1.371380375612005e+306"},
		{-0x1.f3f1f0f070304p1016, 17, "-1.3713803756120051e+306"},
		{0x1.b1ae4d6e2ef5p69, 1, "1e+21"},
		{0x1.b1ae4d6e2ef5p69, 3, "1e+21"},
		{0x1.b1ae4d6e2ef5p69, 6, "1e+21"},
		{0x1.b1ae4d6e2ef5p69, 8, "1e+21"},
		{0x1.b1ae4d6e2ef5p69, 16, "1e+21"},
		{0x1.b1ae4d6e2ef5p69, 17, "1e+21"},
		{0x1.0f0cf064dd592p73, 1, "1e+22"},
		{0x1.0f0cf064dd592p73, 3, "1e+22"},
		{0x1.0f0cf064dd592p73, 6, "1e+22"},
		{0x1.0f0cf064dd592p73, 8, "1e+22"},
		{0x1.0f0cf064dd592p73, 16, "1e+22"},
		{0x1.0f0cf064dd592p73, 17, "1e+22"},
		{0x1p-1074, 1, "5e-324"},
		{0x1p-1074, 3, "4.94e-324"},
		{0x1p-1074, 6, "4.94066e-324"},
		{0x1p-1074, 8, "4.9406565e-324"},
		{0x1p-1074, 16, "4.940656458412465e-324"},
		{0x1p-1074, 17, "4.9406564584124654e-324"},
		{0x1.3333333333333p-02, 1, "0.3"},
		{0x1.3333333333333p-02, 3, "0.3"},
		{0x1.3333333333333p-02, 6, "0.3"},
		{0x1.3333333333333p-02, 8, "0.3"},
		{0x1.3333333333333p-02, 16, "0.3"},
		{0x1.3333333333333p-02, 17, "0.29999999999999999"},
		{0x1.2d6878p20, 1, "1e+06"},
		{0x1.2d6878p20, 3, "1.23e+06"},
		{0x1.2d6878p20, 6, "1.23457e+06"},
		{0x1.2d6878p20, 8, "1234567.5"},
		{0x1.2d6878p20, 16, "1234567.5"},
		{0x1.2d6878p20, 17, "1234567.5"},
		{0x1.78c296p23, 1, "1e+07"},
		{0x1.78c296p23, 3, "1.23e+07"},
		{0x1.78c296p23, 6, "1.23457e+07"},
		{0x1.78c296p23, 8, "12345675"},
		{0x1.78c296p23, 16, "12345675"},
		{0x1.78c296p23, 17, "12345675"},
		{0x1.a36e2eb1c432dp-15, 1, "5e-05"},
		{0x1.a36e2eb1c432dp-15, 3, "5e-05"},
		{0x1.a36e2eb1c432dp-15, 6, "5e-05"},
		{0x1.a36e2eb1c432dp-15, 8, "5e-05"},
		{0x1.a36e2eb1c432dp-15, 16, "5e-05"},
		{0x1.a36e2eb1c432dp-15, 17, "5.0000000000000002e-05"},
		// printf '%.8g' inf -inf nan -nan
		{math.Inf(1), 8, "inf"},
		{math.Inf(-1), 8, "-inf"},
		{math.NaN(), 8, "nan"},
		{math.Copysign(math.NaN(), -1), 8, "-nan"},
		{0.5, 0, "0.5"}, // %.0g is %.1g
		{2.5, 0, "2"},
		{math.Copysign(0, -1), 8, "-0"},
	} {
		if got := string(AppendFloatG(nil, c.f, c.prec)); got != c.want {
			t.Errorf("%%.%dg of %v (%x): got %q, want %q", c.prec, c.f, c.f, got, c.want)
		}
	}
}

// refFloatG is a plain implementation of C's %.<prec>g from the exact
// decimal expansion that math/big gives (rounded half to even).
func refFloatG(f float64, prec int) string {
	if prec == 0 {
		prec = 1
	}
	e := new(big.Float).SetFloat64(f).Text('e', prec-1) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exps)
	trim := func(s string) string {
		if strings.Contains(s, ".") {
			s = strings.TrimRight(s, "0")
			s = strings.TrimSuffix(s, ".")
		}
		return s
	}
	if x < -4 || x >= prec {
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		xs := strconv.Itoa(x)
		if len(xs) < 2 {
			xs = "0" + xs
		}
		return trim(mant) + "e" + sign + xs
	}
	return trim(new(big.Float).SetFloat64(f).Text('f', prec-1-x))
}

func TestAppendFloatGProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var f float64
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			f = math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		case 1:
			f = float64(rapid.Int64Range(-1e12, 1e12).Draw(t, "n")) / math.Pow(10, float64(rapid.IntRange(0, 12).Draw(t, "d")))
		case 2:
			f = float64(math.Float32frombits(rapid.Uint32().Draw(t, "fbits")))
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return
		}
		prec := rapid.IntRange(0, 30).Draw(t, "prec")
		if got, want := string(AppendFloatG(nil, f, prec)), refFloatG(f, prec); got != want {
			t.Fatalf("%%.%dg of %x: got %q, want %q", prec, f, got, want)
		}
	})
}

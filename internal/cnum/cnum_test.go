package cnum

import (
	"math"
	"testing"
)

func TestStrtol(t *testing.T) {
	for _, c := range []struct {
		in  string
		v   int64
		end int
	}{
		{"42", 42, 2},
		{"  -7x", -7, 4},
		{"+3 ", 3, 2},
		{"", 0, 0},
		{"abc", 0, 0},
		{" -", 0, 0},
		{"99999999999999999999", math.MaxInt64, 20},
		{"-99999999999999999999k", math.MinInt64, 21},
		{"\t\n12", 12, 4},
	} {
		v, end := Strtol(c.in)
		if v != c.v || end != c.end {
			t.Errorf("Strtol(%q) = %d, %d; want %d, %d", c.in, v, end, c.v, c.end)
		}
	}
}

func TestStrtollStrtoull(t *testing.T) {
	for _, c := range []struct {
		in  string
		ll  int64
		ull uint64
	}{
		{"42", 42, 42},
		{" \t-7", -7, 1<<64 - 7},
		{"+3x", 3, 3},
		{"", 0, 0},
		{"x1", 0, 0},
		{"9223372036854775807", math.MaxInt64, math.MaxInt64},
		{"9223372036854775808", math.MaxInt64, 1 << 63},
		{"-9223372036854775808", math.MinInt64, 1 << 63},
		{"-9223372036854775809", math.MinInt64, 1<<63 - 1},
		{"18446744073709551615", math.MaxInt64, math.MaxUint64},
		{"18446744073709551616", math.MaxInt64, math.MaxUint64},
		{"-99999999999999999999", math.MinInt64, math.MaxUint64},
	} {
		if got := Strtoll(c.in); got != c.ll {
			t.Errorf("Strtoll(%q) = %d, want %d", c.in, got, c.ll)
		}
		if got := Strtoull(c.in); got != c.ull {
			t.Errorf("Strtoull(%q) = %d, want %d", c.in, got, c.ull)
		}
	}
}

func TestStrtolBase(t *testing.T) {
	for _, c := range []struct {
		in   string
		base int
		v    int64
		rest string
	}{
		{"255.1", 10, 255, ".1"},
		{"ff:0", 16, 255, ":0"},
		{"FFFF", 16, 65535, ""},
		{" -12z", 10, -12, "z"},
		{"g", 16, 0, "g"},
		{"", 10, 0, ""},
		{"-", 10, 0, "-"},
		{"777", 8, 511, ""},
		{"8", 8, 0, "8"},
		{"99999999999999999999999", 10, math.MaxInt64, ""},
		{"-99999999999999999999999:", 10, math.MinInt64, ":"},
	} {
		v, rest := StrtolBase(c.in, c.base)
		if v != c.v || rest != c.rest {
			t.Errorf("StrtolBase(%q, %d) = %d, %q; want %d, %q", c.in, c.base, v, rest, c.v, c.rest)
		}
	}
}

func TestAtof(t *testing.T) {
	for _, c := range []struct {
		in  string
		out float64
	}{
		{"1.5", 1.5},
		{"  -2e3x", -2000},
		{"3e", 3},
		{"3e+", 3},
		{".5", 0.5},
		{"5.", 5},
		{".", 0},
		{"", 0},
		{"abc", 0},
		{"1e999", math.Inf(1)},
		{"-1e999", math.Inf(-1)},
		{"1e-999", 0},
	} {
		if got := Atof(c.in); got != c.out {
			t.Errorf("Atof(%q) = %g, want %g", c.in, got, c.out)
		}
	}
}

func TestPrefix(t *testing.T) {
	neg, d, end := Prefix("\v -0012ab")
	if !neg || d != "0012" || end != 7 {
		t.Errorf("Prefix = %v %q %d", neg, d, end)
	}
}

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

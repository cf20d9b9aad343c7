// Package cnum reads numbers as the C library does, for the tools'
// options whose parsing (and error messages) follow the real tools'
// strtol calls.
package cnum

import (
	"math"
	"strconv"
)

// IsSpace is C's isspace in the C locale.
func IsSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// Strtol is C's strtol(s, &endp, 10): leading white space, an optional
// sign, then decimal digits. It returns the value and the offset of the
// first byte not used, which is 0 when there are no digits (C sets endp
// to s then). Out-of-range values saturate as strtol's do.
func Strtol(s string) (v int64, end int) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return 0, 0
	}
	v, err := strconv.ParseInt(s[i:k], 10, 64)
	if err != nil {
		if s[i] == '-' {
			v = math.MinInt64
		} else {
			v = math.MaxInt64
		}
	}
	return v, k
}

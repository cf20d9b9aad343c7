package dumplog

import (
	"github.com/pcpkit/pcpkit/pcptime"
	"strconv"
)

// fracDigits is how many fraction digits a version's stamps carry.
func fracDigits(version int) int {
	if version == 3 {
		return 9
	}
	return 6
}

// appendFrac appends '.' and the fraction: 9 digits (v3) or 6 (v2). A
// negative one (a damaged stamp, QA badti-2) is printed as printf's %06d
// prints it, the sign within the width: ".-00004".
func appendFrac(b []byte, nsec int32, version int) []byte {
	digits := fracDigits(version)
	if nsec >= 0 {
		return pcptime.AppendFraction(b, int64(nsec), digits)
	}
	v := -int64(nsec)
	if digits == 6 {
		v /= 1000
	}
	s := strconv.FormatInt(v, 10)
	b = append(b, '.', '-')
	for i := len(s) + 1; i < digits; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

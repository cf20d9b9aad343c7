package dumplog

import (
	"github.com/pcpkit/pcpkit/pcptime"
)

// fracDigits is how many fraction digits a version's stamps carry.
func fracDigits(version int) int {
	if version == 3 {
		return 9
	}
	return 6
}

// appendFrac appends '.' and the fraction: 9 digits (v3) or 6 (v2).
func appendFrac(b []byte, nsec int32, version int) []byte {
	return pcptime.AppendFraction(b, int64(nsec), fracDigits(version))
}

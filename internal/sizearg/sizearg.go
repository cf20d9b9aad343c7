// Package sizearg reads the size arguments of pmlogger's -s and -v and of
// PCP 6.3's pmlogextract -v as their ParseSize reads them: a count of
// records, a number of bytes or a length of time.
package sizearg

import (
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/pcptime"
)

// Limit is a size argument: a count of samples (records), a number of
// bytes or a duration (at most one is set).
type Limit struct {
	Samples  int64
	Bytes    int64
	Duration time.Duration
}

// IsZero reports whether no limit is set.
func (l Limit) IsZero() bool { return l.Samples <= 0 && l.Bytes <= 0 && l.Duration <= 0 }

// Parse is ParseSize: a positive sample count, a byte size (b, K, M, G
// with their spellings, after lower-casing the suffix and dropping one
// trailing "s"), or an interval (pmParseInterval). It returns the
// argument as the real tools print it in their error (modified in place
// by that parsing) and whether it is valid.
func Parse(arg string) (Limit, string, bool) {
	x, k := cnum.Strtol(arg)
	if x <= 0 {
		return Limit{}, arg, false
	}
	if k == len(arg) {
		return Limit{Samples: x}, arg, true
	}
	// A number followed by something else.
	suf := strings.ToLower(arg[k:])
	suf = strings.TrimSuffix(suf, "s")
	shown := arg[:k] + suf
	switch suf {
	case "b", "byte":
		return Limit{Bytes: x}, shown, true
	case "k", "kb", "kib", "kbyte", "kibibyte", "kilobyte":
		return Limit{Bytes: x * 1024}, shown, true
	case "m", "mb", "mib", "mbyte", "mebibyte", "megabyte":
		return Limit{Bytes: x * 1024 * 1024}, shown, true
	case "g", "gb", "gib", "gbyte", "gibibyte", "gigabyte":
		return Limit{Bytes: x * 1024 * 1024 * 1024}, shown, true
	}
	sec, nsec, _, err := pcptime.ParseInterval(shown)
	if err != nil || sec < 0 {
		return Limit{}, shown, false
	}
	return Limit{Duration: time.Duration(sec)*time.Second + time.Duration(nsec)}, shown, true
}

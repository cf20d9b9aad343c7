package sizearg

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		arg   string
		want  Limit
		shown string
		ok    bool
	}{
		{"10", Limit{Samples: 10}, "10", true},
		{" 5", Limit{Samples: 5}, " 5", true},
		{"10b", Limit{Bytes: 10}, "10b", true},
		{"10Kbytes", Limit{Bytes: 10240}, "10kbyte", true},
		{"10KiB", Limit{Bytes: 10240}, "10kib", true},
		{"2M", Limit{Bytes: 2 << 20}, "2m", true},
		{"1G", Limit{Bytes: 1 << 30}, "1g", true},
		{"10ms", Limit{Bytes: 10 << 20}, "10m", true}, // the trailing "s" goes first
		{"10sec", Limit{Duration: 10 * time.Second}, "10sec", true},
		{"10secs", Limit{Duration: 10 * time.Second}, "10sec", true},
		{"999msec", Limit{Duration: 999 * time.Millisecond}, "999msec", true},
		{"1.5", Limit{Duration: 1500 * time.Millisecond}, "1.5", true},
		{"1.5K", Limit{}, "1.5k", false},
		{"10 K", Limit{}, "10 k", false},
		{"0.5", Limit{}, "0.5", false},
		{"0", Limit{}, "0", false},
		{"0b", Limit{}, "0b", false},
		{"-1", Limit{}, "-1", false},
		{"1x", Limit{}, "1x", false},
	} {
		got, shown, ok := Parse(c.arg)
		if got != c.want || shown != c.shown || ok != c.ok {
			t.Errorf("Parse(%q) = %+v %q %v, want %+v %q %v", c.arg, got, shown, ok, c.want, c.shown, c.ok)
		}
	}
}

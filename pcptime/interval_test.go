package pcptime

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestParseIntervalTable pins results confirmed with libpcp's
// pmParseHighResInterval (and, for "10ms" and "1x", with
// `pmval -a .../synth3 -t 10ms synth.disc`, which samples every ten
// minutes, and `pmval -a .../synth3 -t 1x synth.disc`, which prints the
// message below after "pmval: -t argument not in pmParseHighResInterval(3)
// format:").
func TestParseIntervalTable(t *testing.T) {
	for _, tc := range []struct {
		in        string
		sec, nsec int64
		pos       int
		msg       string
	}{
		{in: "10ms", sec: 600},
		{in: "10msec", nsec: 10000000},
		{in: "1.5", sec: 1, nsec: 500000000},
		{in: "1 hour 15 mins 30 secs", sec: 4530},
		{in: "4d6.5h", sec: 369000},
		{in: "5s5", sec: 10},
		{in: "1ss", sec: 1},
		{in: "1SS", sec: 1},
		{in: "1HOURS", sec: 3600},
		{in: "0x10", sec: 16},
		{in: "1e3", sec: 1000},
		{in: " ", sec: 0},
		{in: "-0", sec: 0},
		{in: "0.9999999999", sec: 0, nsec: 1000000000}, // not normalised
		{in: "26.7nanosecond 73e-12hr", nsec: 289},     // extended precision rounding
		{in: "2.5e-9", nsec: 3},
		{in: "1.5nsec", nsec: 1},
		{in: "nan", sec: -1 << 63, nsec: -1 << 63},
		{in: "5e18 5e18", sec: -1 << 63, nsec: -1 << 63},
		{in: "1x", pos: 1, msg: "1x\n ^ -- unexpected value\n"},
		{in: "", pos: 0, msg: "\n^ -- Null or empty specification\n"},
		{in: "-5", pos: 0, msg: "-5\n^ -- unexpected value\n"},
		{in: "1 2 x", pos: 4, msg: "1 2 x\n    ^ -- unexpected value\n"},
		{in: "5 sec sec", pos: 6, msg: "5 sec sec\n      ^ -- unexpected value\n"},
		{in: "1 nan", pos: 2, msg: "1 nan\n  ^ -- unexpected value\n"},
		{in: "1e19", pos: 0, msg: "1e19\n^ -- unexpected value\n"},
		{in: "inf", pos: 0, msg: "inf\n^ -- unexpected value\n"},
		{in: "1us", pos: 1, msg: "1us\n ^ -- unexpected value\n"},
		{in: "1.5e", pos: 3, msg: "1.5e\n   ^ -- unexpected value\n"},
		{in: "\t\t5x", pos: 3, msg: "\t\t5x\n\t\t ^ -- unexpected value\n"},
	} {
		sec, nsec, pos, err := ParseInterval(tc.in)
		if tc.msg != "" {
			pe, ok := err.(*ParseError)
			if !ok || pe.Message() != tc.msg || pos != tc.pos {
				t.Errorf("ParseInterval(%q): pos %d err %v, want pos %d message %q", tc.in, pos, err, tc.pos, tc.msg)
			}
			continue
		}
		if err != nil || sec != tc.sec || nsec != tc.nsec {
			t.Errorf("ParseInterval(%q) = %d, %d, %v; want %d, %d", tc.in, sec, nsec, err, tc.sec, tc.nsec)
		}
	}
}

// intervalCorpus generates interval strings, valid and not.
func intervalCorpus(r *rand.Rand, n int) []string {
	units := []string{"", "nsec", "usec", "msec", "sec", "min", "hour", "day", "nanosecond", "microseconds",
		"millisecond", "s", "m", "h", "d", "hr", "MS", "Secs", "x", "us", "ss", "minutess", "e", "hours"}
	nums := func() string {
		switch r.Intn(9) {
		case 0:
			return fmt.Sprintf("%d.%0*d", r.Intn(100), r.Intn(12)+1, r.Int63n(1e12))
		case 1:
			return fmt.Sprintf("%.*f", r.Intn(11), r.Float64()*[]float64{1, 10, 1000, 1e6}[r.Intn(4)])
		case 2:
			return fmt.Sprintf("%de-%d", r.Intn(999)+1, r.Intn(12)+1)
		case 3:
			return fmt.Sprintf("0x%x", r.Intn(4096))
		case 4:
			return []string{"nan", "inf", "-0", "+3", "-2", ".5", "5.", ".", "+", "1e", "9.3e18", "1e18", "0x", "0x1p3"}[r.Intn(14)]
		default:
			return fmt.Sprint(r.Int63n(int64(1) << uint(r.Intn(40)+1)))
		}
	}
	var out []string
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j := r.Intn(3) + 1; j > 0; j-- {
			if r.Intn(4) == 0 {
				b.WriteString([]string{" ", "  ", "\t"}[r.Intn(3)])
			}
			b.WriteString(nums())
			if r.Intn(3) == 0 {
				b.WriteByte(' ')
			}
			b.WriteString(units[r.Intn(len(units))])
			if r.Intn(3) == 0 {
				b.WriteByte(' ')
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestParseIntervalAgainstLibpcp compares thousands of strings with
// libpcp's pmParseHighResInterval.
func TestParseIntervalAgainstLibpcp(t *testing.T) {
	getPCPHelper(t)
	inputs := intervalCorpus(rand.New(rand.NewSource(7)), 4000)
	checkIntervals(t, inputs)
}

func checkIntervals(t testing.TB, inputs []string) {
	lines := make([]string, len(inputs))
	for i, s := range inputs {
		lines[i] = "I " + hexArg(&s)
	}
	out := runPCP(t, lines)
	bad := 0
	for i, s := range inputs {
		var rc int
		var sec, nsec int64
		var emsg string
		fmt.Sscan(out[i], &rc, &sec, &nsec, &emsg)
		want, _ := unhexOut(emsg)
		gs, gn, _, err := ParseInterval(s)
		got := ""
		if err != nil {
			got = err.(*ParseError).Message()
			gs, gn = 0, 0
		}
		if rc < 0 {
			sec, nsec = 0, 0
		}
		if gs != sec || gn != nsec || got != want {
			bad++
			if bad < 20 {
				t.Errorf("ParseInterval(%q) = %d.%d %q; libpcp %d.%d %q", s, gs, gn, got, sec, nsec, want)
			}
		}
	}
}

// TestParseIntervalRapid checks random decimal intervals with random units.
func TestParseIntervalRapid(t *testing.T) {
	getPCPHelper(t)
	var inputs []string
	rapid.Check(t, func(rt *rapid.T) {
		whole := rapid.Int64Range(0, 1<<40).Draw(rt, "whole")
		frac := rapid.StringMatching(`[0-9]{0,12}`).Draw(rt, "frac")
		unit := rapid.SampledFrom([]string{"", "s", "ms", "msec", "usec", "nsec", "min", "h", "d"}).Draw(rt, "unit")
		inputs = append(inputs, fmt.Sprintf("%d.%s%s", whole, frac, unit))
	})
	checkIntervals(t, inputs)
}

package pcptime

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// synth3 spans 22:13:20 to 22:13:45.25 UTC on 2023-11-14; its records are
// at these offsets (seconds, a <mark> at 26.001).
var (
	synth3Start   = pmapi.Timestamp{Sec: 1700000000}
	synth3End     = pmapi.Timestamp{Sec: 1700000025, Nsec: 250000000}
	synth3Records = []pmapi.Timestamp{{Sec: 1700000000}, {Sec: 1700000001}, {Sec: 1700000003},
		{Sec: 1700000004, Nsec: 500000000}, {Sec: 1700000006}, {Sec: 1700000006, Nsec: 1000000},
		{Sec: 1700000020}, {Sec: 1700000021}, {Sec: 1700000025, Nsec: 250000000}}
)

func ts(sec int64, nsec int32) pmapi.Timestamp { return pmapi.Timestamp{Sec: sec, Nsec: nsec} }

func sp(s string) *string { return &s }

type windowCase struct {
	zone                 string
	start, end, al, orig *string
	wantStart, wantEnd   pmapi.Timestamp
	wantOrigin           *pmapi.Timestamp
	wantErr              string // libpcp's message, "" if none
	wantWarn             bool
}

// windowCases were confirmed with libpcp's pmParseHighResTimeWindow for
// synth3's bounds, and the ones without -A/-O also with the real tool:
// `TZ=UTC PCP_DERIVED_CONFIG= pmdumplog -S ... -T ... synth3` prints exactly
// the records inside [wantStart, wantEnd] (TestWindowAgainstPmdumplog runs
// them), e.g. -S @22:13:23 -T @22:13:26 prints 22:13:23, 22:13:24.5 and
// 22:13:26; -S 3 -T 2s prints 22:13:23 and 22:13:24.5; -S -5 prints
// 22:13:41 and 22:13:45.25; -S foo prints "pmdumplog: invalid time
// window." and the message.
var windowCases = []windowCase{
	{zone: "UTC", wantStart: ts(1700000000, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@22:13:23"), end: sp("@22:13:26"), wantStart: ts(1700000003, 0), wantEnd: ts(1700000006, 0)},
	{zone: "UTC", start: sp("3"), end: sp("2s"), wantStart: ts(1700000003, 0), wantEnd: ts(1700000005, 0)},
	{zone: "UTC", start: sp("+3"), end: sp("-2"), wantStart: ts(1700000003, 0), wantEnd: ts(1700000023, 250000000)},
	{zone: "UTC", start: sp("-5"), wantStart: ts(1700000020, 250000000), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", end: sp("-20"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000005, 250000000)},
	{zone: "UTC", start: sp("-100"), end: sp("100"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@22:13:26.001"), wantStart: ts(1700000006, 1000000), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@22:13:19"), end: sp("@22:13:21"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000001, 0)},
	{zone: "UTC", start: sp("@Tue Nov 14 22:13:40 2023"), wantStart: ts(1700000020, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@Nov 14 22:13:21.5"), end: sp("@22:13:41"), wantStart: ts(1700000001, 500000000), wantEnd: ts(1700000021, 0)},
	{zone: "UTC", start: sp("@2023-11-14 22:13:24"), wantStart: ts(1700000004, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@10:00"), wantStart: ts(1700042400, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("@22:13:50"), wantStart: ts(1700000030, 0), wantEnd: ts(1700000025, 250000000)},
	{zone: "EST5EDT", start: sp("@17:13:23"), end: sp("@17:13:24.5"), wantStart: ts(1700000003, 0), wantEnd: ts(1700000004, 500000000)},
	{zone: "Australia/Melbourne", start: sp("@09:13:21"), end: sp("@Wed Nov 15 09:13:23 2023"), wantStart: ts(1700000001, 0), wantEnd: ts(1700000003, 0)},
	{zone: "UTC", start: sp("0.75"), end: sp("0.25"), wantStart: ts(1700000000, 750000000), wantEnd: ts(1700000000, 1000000000)},
	{zone: "UTC", start: sp("0.9999999999"), wantStart: ts(1700000000, 1000000000), wantEnd: ts(1700000025, 250000000)},
	{zone: "UTC", start: sp("0.5"), end: sp("1"), al: sp("2"), wantStart: ts(1700000002, 0), wantEnd: ts(1700000003, 0)},
	{zone: "UTC", al: sp("1m"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000025, 250000000), wantWarn: true,
		wantErr: "1m\n^ -- alignment specified by -A switch could not be applied\n"},
	{zone: "UTC", al: sp("10"), orig: sp("-3"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000025, 250000000), wantOrigin: tsp(1700000020, 0)},
	{zone: "UTC", start: sp("3"), end: sp("5"), orig: sp("-1"), wantStart: ts(1700000003, 0), wantEnd: ts(1700000008, 0), wantOrigin: tsp(1700000007, 0)},
	{zone: "UTC", start: sp("foo"), wantErr: "foo\n^ -- unexpected value\n"},
	{zone: "UTC", start: sp("1 2 x"), wantErr: "1 2 x\n    ^ -- unexpected value\n"},
	{zone: "UTC", start: sp("@13:00pm"), wantErr: "13:00pm\n     ^ -- unexpected value\n"},
	{zone: "UTC", start: sp("@Tue Nov 14 22:13:21 2023 x"), wantStart: ts(1700000000, 0), wantEnd: ts(1700000025, 250000000)}, // getdate: zone X, +11
	{zone: "UTC", start: sp("@Nov 14 22:13:21 2023 foo"), wantErr: "Nov 14 22:13:21 2023 foo\n                     ^ -- unexpected value\n"},
	{zone: "UTC", start: sp("+-5"), wantErr: "-5\n^ -- unexpected value\n"},
	{zone: "UTC", al: sp("0"), wantErr: "0\n^ -- alignment specified by -A switch could not be applied\n"},
}

func tsp(sec int64, nsec int32) *pmapi.Timestamp { t := ts(sec, nsec); return &t }

func (c windowCase) String() string {
	f := func(s *string) string {
		if s == nil {
			return "-"
		}
		return fmt.Sprintf("%q", *s)
	}
	return fmt.Sprintf("TZ=%s S=%s T=%s A=%s O=%s", c.zone, f(c.start), f(c.end), f(c.al), f(c.orig))
}

func TestParseWindowTable(t *testing.T) {
	for _, c := range windowCases {
		w, warn, err := ParseWindowSpec(WindowSpec{Start: c.start, End: c.end, Align: c.al, Origin: c.orig},
			synth3Start, synth3End, LoadZone(c.zone))
		if c.wantErr != "" && !c.wantWarn {
			if err == nil || err.Message() != c.wantErr {
				t.Errorf("%v: err %v, want %q", c, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: unexpected error %q", c, err.Message())
			continue
		}
		if c.wantWarn != (warn != nil) || warn != nil && warn.Message() != c.wantErr {
			t.Errorf("%v: warning %v, want %q", c, warn, c.wantErr)
		}
		wantOrigin := c.wantStart
		if c.wantOrigin != nil {
			wantOrigin = *c.wantOrigin
		}
		if w.Start != c.wantStart || w.End != c.wantEnd || w.Origin != wantOrigin {
			t.Errorf("%v: got %v, want start %v end %v origin %v", c, w, c.wantStart, c.wantEnd, wantOrigin)
		}
	}
}

// TestWindowAgainstPmdumplog runs the real pmdumplog with the table's -S
// and -T and checks that it prints exactly the records of synth3 inside
// the window this package computes.
func TestWindowAgainstPmdumplog(t *testing.T) {
	tool, err := exec.LookPath("pmdumplog")
	if err != nil {
		t.Skip("no pmdumplog")
	}
	archive := "../../shared/pcp-made-archives/synth3"
	if _, err := os.Stat(archive + ".meta"); err != nil {
		t.Skipf("no synth3 archive: %v", err)
	}
	for _, c := range windowCases {
		if c.al != nil || c.orig != nil {
			continue
		}
		args := []string{"-Z", c.zone}
		if c.start != nil {
			args = append(args, "-S", *c.start)
		}
		if c.end != nil {
			args = append(args, "-T", *c.end)
		}
		args = append(args, archive)
		cmd := exec.Command(tool, args...)
		cmd.Env = append(os.Environ(), "TZ=UTC", "PCP_DERIVED_CONFIG=")
		out, _ := cmd.CombinedOutput()
		if c.wantErr != "" {
			want := "pmdumplog: invalid time window.\n" + c.wantErr + "\n"
			if !strings.Contains(string(out), want) {
				t.Errorf("pmdumplog %v: output %q lacks %q", args, out, want)
			}
			continue
		}
		w, _, perr := ParseWindowSpec(WindowSpec{Start: c.start, End: c.end}, synth3Start, synth3End, LoadZone(c.zone))
		if perr != nil {
			t.Errorf("%v: %v", c, perr)
			continue
		}
		zone := LoadZone(c.zone)
		var want []string
		for _, r := range synth3Records {
			if !before(r, w.Start) && !before(w.End, r) {
				want = append(want, string(AppendStamp(nil, zone.Civil(r.Sec), int64(r.Nsec), 9)))
			}
		}
		var got []string
		for _, line := range strings.Split(string(out), "\n") {
			if len(line) > 18 && line[2] == ':' && line[5] == ':' && line[8] == '.' {
				got = append(got, line[:18])
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("pmdumplog %v printed %v; window %v holds %v", args, got, w, want)
		}
	}
}

func before(a, b pmapi.Timestamp) bool { return a.Sec < b.Sec || a.Sec == b.Sec && a.Nsec < b.Nsec }

// windowCorpus generates window arguments that do not depend on the
// current time.
func windowCorpus(r *rand.Rand, n int) [][4]*string {
	intervals := []string{"3", "+3", "-3", "2.5", "-0.25", "0.75", "100", "-100", "1m", "10", "0.9999999999", "1e-10",
		"5 sec", "- 5", "x", "1x", "", " ", "1 2 x", "+-5", "0", "0.3", "1.25", "-0", "7"}
	datetimes := []string{"@", "@ ", "@22:13:23", "@22:13:19", "@22:13", "@21:59:59", "@10:00", "@22:13:26.001",
		"@Nov 14", "@Nov 15", "@Nov", "@Dec", "@Oct", "@2024", "@2022", "@25", "@0 10:00", "@31 10:00",
		"@Tue Nov 14 22:13:40 2023", "@Nov 14 22:13:21.123456789", "@10:00pm", "@12:30am", "@13:00pm",
		"@Tue", "@14", "@2023-11-14 22:13:24", "@11/14/2023", "@14-Nov-2023 22:13:30", "@Nov 14, 2023 22:13",
		"@2023-11-14 22:13:21.5", "@foo", "@Nov 14 23:59:60", "@Feb 30", "@Jan 0",
		"@2 hours ago", "@5 sec", "@-1 day", "@+1 day", "@1 hour ago 3 hours", "@last week", "@next week",
		"@1 month ago", "@today 2 hours ago", "@Wed 2 hours", "@this hour"}
	pick := func() *string {
		switch r.Intn(4) {
		case 0:
			return nil
		case 1:
			s := intervals[r.Intn(len(intervals))]
			return &s
		default:
			s := datetimes[r.Intn(len(datetimes))]
			return &s
		}
	}
	out := make([][4]*string, n)
	for i := range out {
		out[i] = [4]*string{pick(), pick(), nil, nil}
		if r.Intn(3) == 0 {
			a := []string{"1", "2", "3", "10", "0.3", "1m", "0.5", "1h"}[r.Intn(8)]
			out[i][2] = &a
		}
		if r.Intn(3) == 0 {
			out[i][3] = pick()
		}
	}
	return out
}

// TestParseWindowAgainstLibpcp compares random windows with libpcp's
// pmParseHighResTimeWindow, one fresh process per window (glibc's mktime
// keeps state between calls in a process, as ParseWindowSpec does within
// one window).
func TestParseWindowAgainstLibpcp(t *testing.T) {
	getPCPHelper(t)
	seed, n := int64(5), 600
	if v := os.Getenv("PCPTIME_WINDOW_SEED"); v != "" {
		fmt.Sscan(v, &seed)
		n = 3000
	}
	r := rand.New(rand.NewSource(seed))
	zones := []string{"UTC", "America/New_York", "EST5EDT", "XST5XDT", "Australia/Melbourne",
		"AEST-10AEDT,M10.1.0,M4.1.0/3", "Asia/Kolkata"}
	bounds := [][2]pmapi.Timestamp{
		{synth3Start, synth3End},
		{ts(1699156800, 0), ts(1699300000, 250000000)}, // around the 2023 fall back in New York
		{ts(1678593600, 300000000), ts(1678700000, 0)}, // around the 2023 spring forward
		{ts(1000000000, 0), ts(1900000000, 0)},
	}
	specs := windowCorpus(r, n)
	checkWindows(t, r, zones, bounds, specs, false)
}

func checkWindows(t *testing.T, r *rand.Rand, zones []string, bounds [][2]pmapi.Timestamp, specs [][4]*string, retry bool) {
	type job struct {
		zone string
		b    [2]pmapi.Timestamp
		s    [4]*string
	}
	jobs := make([]job, len(specs))
	for i, s := range specs {
		jobs[i] = job{zones[r.Intn(len(zones))], bounds[r.Intn(len(bounds))], s}
	}
	bad := 0
	for _, j := range jobs {
		line := fmt.Sprintf("W %s %d %d %d %d %s %s %s %s", hexArg(&j.zone), j.b[0].Sec, j.b[0].Nsec, j.b[1].Sec, j.b[1].Nsec,
			hexArg(j.s[0]), hexArg(j.s[1]), hexArg(j.s[2]), hexArg(j.s[3]))
		now := time.Now()
		out := runPCP(t, []string{line})[0]
		var rc int
		var s1, n1, s2, n2, s3, n3 int64
		var emsg string
		fmt.Sscan(out, &rc, &s1, &n1, &s2, &n2, &s3, &n3, &emsg)
		want, _ := unhexOut(emsg)
		if rc >= 0 {
			want = fmt.Sprintf("%d %d.%09d %d.%09d %d.%09d %q", rc, s1, n1, s2, n2, s3, n3, want)
		} else {
			want = fmt.Sprintf("%d %q", rc, want)
		}
		w, warn, err := ParseWindowSpec(WindowSpec{Start: j.s[0], End: j.s[1], Align: j.s[2], Origin: j.s[3], Now: now},
			j.b[0], j.b[1], LoadZone(j.zone))
		var got string
		switch {
		case err != nil:
			got = fmt.Sprintf("-1 %q", err.Message())
		default:
			rc, msg := 1, ""
			if warn != nil {
				rc, msg = 0, warn.Message()
			}
			got = fmt.Sprintf("%d %d.%09d %d.%09d %d.%09d %q", rc, w.Start.Sec, w.Start.Nsec, w.End.Sec, w.End.Nsec,
				w.Origin.Sec, w.Origin.Nsec, msg)
		}
		if got != want {
			bad++
			if bad <= 25 {
				t.Errorf("TZ=%s [%v .. %v] %s:\n got %s\nwant %s", j.zone, j.b[0], j.b[1], strings.TrimPrefix(fmt.Sprint(windowCase{start: j.s[0], end: j.s[1], al: j.s[2], orig: j.s[3]}), "TZ= "), got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d windows differ", bad, len(jobs))
	}
}

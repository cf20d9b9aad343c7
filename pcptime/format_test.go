package pcptime

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestAppendFormats(t *testing.T) {
	z := LoadZone("UTC")
	for _, tc := range []struct {
		sec    int64
		nsec   int64
		digits int
		ctime  string
		stamp  string
		full   string
	}{
		{1700000000, 0, 9, "Tue Nov 14 22:13:20 2023", "22:13:20.000000000", "Tue Nov 14 22:13:20.000000000 2023"},
		{902428472, 257504000, 6, "Thu Aug  6 18:34:32 1998", "18:34:32.257504", "Thu Aug  6 18:34:32.257504 1998"},
		{1700000002, 500000000, 3, "Tue Nov 14 22:13:22 2023", "22:13:22.500", "Tue Nov 14 22:13:22.500 2023"},
		{1700000002, 999999999, 3, "Tue Nov 14 22:13:22 2023", "22:13:22.999", "Tue Nov 14 22:13:22.999 2023"},
		{1700000002, 1000000000, 3, "Tue Nov 14 22:13:22 2023", "22:13:22.1000", "Tue Nov 14 22:13:22.1000 2023"},
		{-62135596800, 0, 0, "Mon Jan  1 00:00:00 1", "00:00:00", "Mon Jan  1 00:00:00 1"},
		{253402300799, 0, 1, "Fri Dec 31 23:59:59 9999", "23:59:59.0", "Fri Dec 31 23:59:59.0 9999"},
		{253402300800, 0, 9, "Sat Jan  1 00:00:00 10000", "00:00:00.000000000", "Sat Jan  1 00:00:00.000000000 10000"},
	} {
		c := z.Civil(tc.sec)
		if got := string(AppendCtime(nil, c)); got != tc.ctime {
			t.Errorf("AppendCtime(%d) = %q, want %q", tc.sec, got, tc.ctime)
		}
		if got := z.Ctime(tc.sec); got != tc.ctime {
			t.Errorf("Ctime(%d) = %q, want %q", tc.sec, got, tc.ctime)
		}
		if got := string(AppendStamp(nil, c, tc.nsec, tc.digits)); got != tc.stamp {
			t.Errorf("AppendStamp(%d, %d, %d) = %q, want %q", tc.sec, tc.nsec, tc.digits, got, tc.stamp)
		}
		if got := string(AppendCtimeStamp(nil, c, tc.nsec, tc.digits)); got != tc.full {
			t.Errorf("AppendCtimeStamp(%d, %d, %d) = %q, want %q", tc.sec, tc.nsec, tc.digits, got, tc.full)
		}
	}
	if got := string(AppendCtimeDate([]byte("x "), z.Civil(902428472))); got != "x Thu Aug  6" {
		t.Errorf("AppendCtimeDate = %q", got)
	}
	if got := string(AppendYear(nil, z.Civil(902428472))); got != "1998" {
		t.Errorf("AppendYear = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() {
		var buf [64]byte
		_ = AppendCtimeStamp(buf[:0], z.Civil(1700000000), 5, 9)
	}); n != 0 {
		t.Errorf("AppendCtimeStamp allocates %v times", n)
	}
}

// TestCtimeAgainstCLibrary compares AppendCtime with asctime(3)'s layout
// as date(1) prints it ("%a %b %e %H:%M:%S %Y").
func TestCtimeAgainstCLibrary(t *testing.T) {
	if _, err := exec.LookPath("date"); err != nil {
		t.Skip("no date(1)")
	}
	for _, tz := range []string{"UTC", "EST5EDT", "AEST-10AEDT,M10.1.0,M4.1.0/3", "Asia/Kolkata"} {
		for _, sec := range []int64{0, 902428472, 1700000000, 1699162200, -1000000000, 4102444800} {
			cmd := exec.Command("date", "-d", "@"+itoa(sec), "+%a %b %e %H:%M:%S %Y")
			cmd.Env = append(os.Environ(), "TZ="+tz)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(string(out), "\n")
			if got := LoadZone(tz).Ctime(sec); got != want {
				t.Errorf("TZ=%s @%d: %q, date says %q", tz, sec, got, want)
			}
		}
	}
}

func itoa(v int64) string { return string(appendInt(nil, v, 1)) }

// TestStampsAgainstPmdumplog runs the real pmdumplog -x on synth3 in
// several reporting zones (-Z) and compares its record timestamps, and the
// -L label of the QA archive ok-foo (a v2 archive whose label holds the
// rule string "EST-11EST-10,87/2:00,297/2:00"), with and without -z.
func TestStampsAgainstPmdumplog(t *testing.T) {
	tool, err := exec.LookPath("pmdumplog")
	if err != nil {
		t.Skip("no pmdumplog")
	}
	synth := "../../shared/pcp-made-archives/synth3"
	if _, err := os.Stat(synth + ".meta"); err != nil {
		t.Skipf("no synth3: %v", err)
	}
	run := func(args ...string) string {
		cmd := exec.Command(tool, args...)
		cmd.Env = append(os.Environ(), "TZ=UTC", "PCP_DERIVED_CONFIG=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pmdumplog %v: %v", args, err)
		}
		return string(out)
	}
	for _, tz := range []string{"UTC", "EST5EDT", "AEST-10AEDT,M10.1.0,M4.1.0/3", "XST5XDT", ":Europe/Berlin",
		"Asia/Kolkata", "<+0530>-5:30", "garbage!", "EST5xy", "CST+6"} {
		var got []string
		for _, line := range strings.Split(run("-x", "-Z", tz, synth), "\n") {
			if len(line) > 34 && line[3] == ' ' && line[13] == ':' {
				got = append(got, line[:34])
			}
		}
		var want []string
		z := LoadZone(tz)
		for _, r := range synth3Records {
			want = append(want, string(AppendCtimeStamp(nil, z.Civil(r.Sec), int64(r.Nsec), 9)))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("-Z %q:\n got %q\nwant %q", tz, got, want)
		}
	}
	foo := "../../shared/pcp-qa-archives/ok-foo"
	if _, err := os.Stat(foo + ".meta"); err != nil {
		t.Skipf("no ok-foo: %v", err)
	}
	for _, c := range []struct {
		flag, zone string
	}{{"-L", "UTC"}, {"-z", "EST-11EST-10,87/2:00,297/2:00"}} {
		args := []string{"-L", foo}
		if c.flag == "-z" {
			args = []string{"-z", "-L", foo}
		}
		out := run(args...)
		z := LoadZone(c.zone)
		// commencing Thu Aug  6 18:34:32.257504 1998 (UTC)
		want := "    commencing " + string(AppendCtimeStamp(nil, z.Civil(902428472), 257504000, 6))
		if !strings.Contains(out, want+"\n") {
			t.Errorf("pmdumplog %v: no %q in\n%s", args, want, out)
		}
	}
}

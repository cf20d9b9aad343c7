package pcptime

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The tests compare this package with the C library itself: a small C
// program (compiled with gcc when it is installed) sets TZ, calls tzset and
// localtime_r and prints the broken-down time. Without gcc the tests fall
// back to date(1), one process per instant, and skip when neither exists.

const localtimeHelperC = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each input line: "S<TAB>tz<TAB>sec" (TZ=tz) or "U<TAB><TAB>sec" (TZ unset).
   Output: year mon mday hour min sec wday yday isdst gmtoff|zone */
int main(void) {
	static char line[65536];
	while (fgets(line, sizeof line, stdin)) {
		char *nl = strchr(line, '\n');
		if (nl) *nl = '\0';
		char *tz = strchr(line, '\t');
		if (!tz) return 2;
		*tz++ = '\0';
		char *sec = strrchr(tz, '\t');
		if (!sec) return 2;
		*sec++ = '\0';
		/* As libpcp's pmLocaltime does with the user's TZ=UTC: switch to
		   the zone, convert, switch back. glibc keeps hidden state between
		   zone loads (see withUserOffsets), so always start from the UTC
		   file, whatever TZDIR says. */
		setenv("TZ", "/usr/share/zoneinfo/Etc/UTC", 1);
		tzset();
		if (line[0] == 'U') unsetenv("TZ"); else setenv("TZ", tz, 1);
		tzset();
		time_t t = (time_t)strtoll(sec, NULL, 10);
		struct tm tm;
		if (localtime_r(&t, &tm) == NULL) {
			printf("ERR\n");
		} else {
			printf("%lld %d %d %d %d %d %d %d %d %ld|%s\n", (long long)tm.tm_year + 1900,
				tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
				tm.tm_wday, tm.tm_yday, tm.tm_isdst, (long)tm.tm_gmtoff, tm.tm_zone ? tm.tm_zone : "");
		}
		fflush(stdout);
	}
	return 0;
}
`

type tzQuery struct {
	tz  string
	set bool // false: TZ unset
	sec int64
}

type tzOracle struct {
	helper string // path of the compiled helper, or "" to use date(1)
}

var (
	oracleOnce sync.Once
	oracle     *tzOracle
	oracleErr  string
	tempDirs   []string // removed by TestMain
)

// getOracle returns the C library oracle, or skips the test.
func getOracle(t testing.TB) *tzOracle {
	t.Helper()
	oracleOnce.Do(func() {
		if gcc, err := exec.LookPath("gcc"); err == nil {
			dir, err := os.MkdirTemp("", "pcptime-oracle")
			if err == nil {
				tempDirs = append(tempDirs, dir)
				src := filepath.Join(dir, "lt.c")
				bin := filepath.Join(dir, "lt")
				if err := os.WriteFile(src, []byte(localtimeHelperC), 0o644); err == nil {
					if out, err := exec.Command(gcc, "-O", "-o", bin, src).CombinedOutput(); err == nil {
						oracle = &tzOracle{helper: bin}
						return
					} else {
						oracleErr = fmt.Sprintf("gcc failed: %v: %s", err, out)
					}
				}
			}
		}
		if _, err := exec.LookPath("date"); err == nil {
			oracle = &tzOracle{}
			return
		}
		oracleErr += " (and no date(1))"
	})
	if oracle == nil {
		t.Skipf("no C library oracle: neither gcc nor date(1) is usable: %s", oracleErr)
	}
	return oracle
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// civilKey formats a Civil the way the oracle reports it.
func civilKey(c Civil) string {
	dst := 0
	if c.IsDST {
		dst = 1
	}
	return fmt.Sprintf("%d %d %d %d %d %d %d %d %d %d|%s", c.Year, c.Month, c.Day, c.Hour, c.Minute, c.Second,
		c.Weekday, c.YearDay, dst, c.Offset, c.Abbrev)
}

// run answers the queries with the C library.
func (o *tzOracle) run(t testing.TB, qs []tzQuery) []string {
	t.Helper()
	if o.helper == "" {
		return o.runDate(t, qs)
	}
	cmd := exec.Command(o.helper)
	cmd.Env = os.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, q := range qs {
			mode := "S"
			if !q.set {
				mode = "U"
			}
			fmt.Fprintf(w, "%s\t%s\t%d\n", mode, q.tz, q.sec)
		}
		w.Flush()
		stdin.Close()
	}()
	var out []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if len(out) != len(qs) {
		t.Fatalf("helper answered %d of %d queries", len(out), len(qs))
	}
	return out
}

// runDate answers the queries with date(1); it cannot report tm_yday, so
// it asks for %j and converts.
func (o *tzOracle) runDate(t testing.TB, qs []tzQuery) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		cmd := exec.Command("date", "-d", "@"+strconv.FormatInt(q.sec, 10), "+%Y %m %d %H %M %S %w %j %z|%Z")
		env := []string{}
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "TZ=") {
				env = append(env, e)
			}
		}
		if q.set {
			env = append(env, "TZ="+q.tz)
		}
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			out[i] = "ERR"
			continue
		}
		s := strings.TrimRight(string(b), "\n")
		left, zone, _ := strings.Cut(s, "|")
		f := strings.Fields(left)
		n := make([]int, len(f))
		for j := range f {
			if j == 8 {
				continue
			}
			n[j], _ = strconv.Atoi(strings.TrimLeft(f[j], "0"))
		}
		z := f[8]
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		hh, _ := strconv.Atoi(z[1:3])
		mm, _ := strconv.Atoi(z[3:5])
		off := sign * (hh*3600 + mm*60)
		// date cannot tell tm_isdst; take it from this package so that
		// the comparison covers the rest.
		_, _, dst := loadZone(q.tz, q.set).Lookup(q.sec)
		d := 0
		if dst {
			d = 1
		}
		out[i] = fmt.Sprintf("%d %d %d %d %d %d %d %d %d %d|%s", n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7]-1, d, off, zone)
	}
	return out
}

// checkZones compares this package with the oracle for every query.
func checkZones(t *testing.T, qs []tzQuery) {
	t.Helper()
	o := getOracle(t)
	want := o.run(t, qs)
	bad := 0
	perZone := map[string]int{}
	defer func() {
		for z, n := range perZone {
			t.Logf("TZ=%q: %d mismatches", z, n)
		}
	}()
	for i, q := range qs {
		if want[i] == "ERR" {
			continue
		}
		got := civilKey(loadZone(q.tz, q.set).Civil(q.sec))
		if got != want[i] {
			bad++
			perZone[q.tz]++
			if perZone[q.tz] <= 3 {
				t.Errorf("TZ=%q (set=%v) @%d: got %s, C library %s", q.tz, q.set, q.sec, got, want[i])
			}
		}
	}
	if bad > 40 {
		t.Errorf("... %d mismatches in all", bad)
	}
}

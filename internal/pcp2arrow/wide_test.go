package pcp2arrow

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// runExport runs pcp2arrow in process with args and -o a file in a temporary
// directory, and returns the file.
func runExport(t *testing.T, args ...string) string {
	t.Helper()
	testenv.Setenv(t)
	file := filepath.Join(t.TempDir(), "out.parquet")
	var out, errb bytes.Buffer
	if rc := Main(append([]string{"-o", file}, args...), &out, &errb); rc != 0 {
		t.Fatalf("pcp2arrow %s: exit %d: %s", strings.Join(args, " "), rc, errb.String())
	}
	return file
}

// reportable are the metrics of archive a that pmrep reports (of the
// types it can, with their instance domain in the archive), in traversal
// order, and the archive's time zone.
func reportable(t *testing.T, a string) ([]string, string) {
	t.Helper()
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var names []string
	for _, n := range c.Meta().Traverse("") {
		if p, ok := c.Meta().Lookup(n); ok {
			d, ok := c.Meta().Desc(p)
			if ok && d.Type >= 0 && d.Type <= 6 && (d.InDom == pmapi.InDomNull || len(c.Meta().InDomHistory(d.InDom)) > 0) {
				names = append(names, n)
			}
		}
	}
	return names, c.Label().TZ
}

// interop skips t unless PCP_INTEROP=1, and returns the real pmrep and
// DuckDB.
func interop(t *testing.T) (pmrep string, duck func(sql string) table) {
	t.Helper()
	if !testenv.Interop() {
		t.Skip("PCP_INTEROP=1 compares with the real pmrep")
	}
	return testenv.RealTool(t, "pmrep"), duckDB(t)
}

// wideArchives are the archives the wide layout is compared on: the
// committed ones, and shared ones with several volumes and compression
// (20190628.04.03), marks and instance changes (changeinst, gap2,
// mirage, markmerge), counters that wrap (wrap), a long one (bug-1044),
// a multi-archive directory (multi-xz) and floating point values that
// are NaN and infinite (value-test).
func wideArchives(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	as := []string{
		filepath.Join(root, "testdata", "archives", "pmcd-v2"),
		filepath.Join(root, "testdata", "archives", "pmcd-v3"),
		filepath.Join(root, "testdata", "archives", "sample-v3"),
	}
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	for _, n := range []string{"20190628.04.03", "changeinst", "gap2", "mirage", "markmerge", "wrap", "bug-1044", "multi-xz", "value-test"} {
		as = append(as, filepath.Join(qa, n))
	}
	return as
}

// wideAsPmrep compares DuckDB's reading of pcp2arrow's wide file for
// archive a (time zone hostTZ) with the real pmrep's CSV (-P 9), for the
// options opts and the metrics names, cell by cell (compareWide). It
// returns false when pmrep refuses the options (an invalid time window,
// an error), without comparing.
func wideAsPmrep(t *testing.T, pmrep pmrepRun, duck func(string) table, a, hostTZ string, opts, names []string) bool {
	t.Helper()
	const prec = 9
	args := append(append([]string{"-a", a}, opts...), names...)
	name := filepath.Base(a) + " " + strings.Join(opts, " ")
	wout, werr, wrc := pmrep(t, append([]string{"-o", "csv", "-P", strconv.Itoa(prec)}, args...))
	if wrc != 0 {
		if !pmrepRefused(werr) {
			t.Errorf("%s: pmrep exit %d: %s", name, wrc, werr)
		}
		return false
	}
	file := runExport(t, args...)
	zone := pcptime.LoadZone("UTC")
	for i, o := range opts {
		switch o {
		case "-z":
			zone = pcptime.LoadZone(hostTZ)
		case "-Z":
			zone = pcptime.LoadZone(opts[i+1])
		}
	}
	if diffs := compareWide(duck(wideQuery(file)), string(wout), zone, prec, 10); len(diffs) > 0 {
		t.Errorf("%s: DuckDB's reading differs from pmrep -o csv:\n%s", name, strings.Join(diffs, "\n"))
	}
	return true
}

// pmrepRefused reports whether pmrep's standard error (of a failed run)
// says it refused the options on the archive ("Invalid time window",
// a PCP error) or stopped at a sample time it cannot print (pmrep 6.0.3's
// ValueError at a time of exactly 10^9 nanoseconds, value-test with -t
// 1.5: docs/pmreplay.md), where there is nothing to compare.
func pmrepRefused(stderr []byte) bool {
	s := string(stderr)
	return strings.Contains(s, "Invalid time window") || strings.Contains(s, "Error")
}

// TestInteropWideDuckDB is the proof of the wide layout: for each
// archive and option set, DuckDB's reading of pcp2arrow's file equals
// the real `pmrep -a ARCH -o csv` (with -P 9 for the digits) cell by
// cell: the same columns in order, a row per CSV line, null where pmrep
// prints nothing, integers equal, other numbers within a relative 1e-6
// (or pmrep's rounding), strings equal.
func TestInteropWideDuckDB(t *testing.T) {
	pmrep, duck := interop(t)
	compareWideAll(t, duck, hostPmrep(pmrep))
}

// pmrepRun runs a pmrep with args and returns its output and exit status.
type pmrepRun func(t *testing.T, args []string) (stdout, stderr []byte, exitCode int)

// hostPmrep runs the host's real pmrep (its path).
func hostPmrep(pmrep string) pmrepRun {
	return func(t *testing.T, args []string) ([]byte, []byte, int) {
		return testenv.RunCommand(t, "", testenv.RealEnv(), "/usr/bin/python3", append([]string{pmrep}, args...)...)
	}
}

// compareWideAll is TestInteropWideDuckDB with pmrep run by pmrep.
func compareWideAll(t *testing.T, duck func(string) table, pmrep pmrepRun) {
	n := 0
	for _, a := range wideArchives(t) {
		names, hostTZ := reportable(t, a)
		for _, opts := range [][]string{
			{"-t", "13"}, {"-t", "1.5", "-r"}, {"-t", "4", "-S", "+3", "-T", "+40"},
			{"-t", "2", "-z"}, {"-t", "0.7", "-Z", "EST5EDT", "-S", "@ 00:00:01"}, {"-t", "1min", "-s", "5"},
			{"-T", "+20", "-s", "4"},
		} {
			if !wideAsPmrep(t, pmrep, duck, a, hostTZ, opts, names) {
				continue // pmrep refuses these options on this archive
			}
			n++
		}
	}
	if n < 50 {
		t.Errorf("only %d comparisons", n)
	}
	t.Logf("%d files compared with pmrep, every cell", n)
}

// TestInteropLongDuckDB is the proof of the long layout: DuckDB's reading
// of pcp2arrow --layout=long has a row for every numeric field of the real
// `pmrep -a ARCH -o csv -P 9`, in its order, with its time, metric,
// instance and value (within a relative 1e-6 or pmrep's rounding), and
// the archive's host.
func TestInteropLongDuckDB(t *testing.T) {
	pmrep, duck := interop(t)
	compareLongAll(t, duck, hostPmrep(pmrep))
}

// compareLongAll is TestInteropLongDuckDB with pmrep run by pmrep.
func compareLongAll(t *testing.T, duck func(string) table, pmrep pmrepRun) {
	const prec = 9
	n := 0
	for _, a := range wideArchives(t) {
		names, _ := reportable(t, a)
		c, err := replay.Open(a)
		if err != nil {
			t.Fatal(err)
		}
		host := c.Label().Hostname
		c.Close()
		for _, opts := range [][]string{{"-t", "13"}, {"-t", "1.5", "-r"}, {"-t", "4", "-S", "+3", "-T", "+40"}} {
			args := append(append([]string{"-a", a}, opts...), names...)
			name := filepath.Base(a) + " " + strings.Join(opts, " ")
			wout, werr, wrc := pmrep(t, append([]string{"-o", "csv", "-P", strconv.Itoa(prec)}, args...))
			if wrc != 0 {
				if !pmrepRefused(werr) {
					t.Errorf("%s: pmrep exit %d: %s", name, wrc, werr)
				}
				continue
			}
			file := runExport(t, append([]string{"--layout=long"}, args...)...)
			if diffs := compareLong(duck(longQuery(file)), string(wout), host, pcptime.LoadZone("UTC"), prec, 10); len(diffs) > 0 {
				t.Errorf("%s: DuckDB's reading of --layout=long differs from pmrep -o csv:\n%s", name, strings.Join(diffs, "\n"))
			}
			n++
		}
	}
	t.Logf("%d long files compared with pmrep, every value", n)
}

package pcp2arrow

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInteropOptionsDuckDB is the proof of pmrep's options beyond the
// time window: alignment (-A), instance filters (-i: names, regular
// expressions, PIDs, commands; live with -j, after the ranking with
// -n), ranking (-J), limits (-8, -9), -R and derived metrics (-e). For
// each, DuckDB's reading of pcp2arrow's wide file equals the real
// `pmrep -a ARCH -o csv -P 9` with the same options, cell by cell.
func TestInteropOptionsDuckDB(t *testing.T) {
	pmrep, duck := interop(t)
	root := testenv.RepoRoot(t)
	pmcd := filepath.Join(root, "testdata", "archives", "pmcd-v3")
	sample := filepath.Join(root, "testdata", "archives", "sample-v3")
	pidstat := filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), "pcp-pidstat")
	pmcdNames, _ := reportable(t, pmcd)
	sampleNames, _ := reportable(t, sample)
	procs := []string{"proc.psinfo.utime", "proc.psinfo.rss", "proc.nprocs", "proc.psinfo.cmd"}
	n := 0
	for _, c := range []struct {
		archive string
		opts    []string
		names   []string
	}{
		{pmcd, []string{"-t", "7", "-A", "5s"}, pmcdNames},
		{pmcd, []string{"-t", "3", "-A", "2", "-S", "+1.5"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-i", "15 minute,1 minute"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-i", ". minute", "-i", "1 minute"}, []string{"kernel.all.load"}},
		{pmcd, []string{"-t", "2", "-i", `"5 minute"`, "-j"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-J", "2"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-J", "-1"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-8", "100"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-8", "-100"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-8", "5", "-9", "-1"}, pmcdNames},
		{pmcd, []string{"-t", "1.5", "-R"}, pmcdNames},
		{pmcd, []string{"-t", "2", "-e", "my.x = kernel.all.load * 2;my.y=kernel.all.nprocs+1", "-e", "kernel.all.nprocs=3"}, []string{"my", "kernel.all.nprocs"}},
		{sample, []string{"-t", "1", "-J", "2"}, sampleNames},
		{sample, []string{"-t", "1", "-8", "3", "-J", "-2"}, sampleNames},
		{pidstat, []string{"-t", "2", "-i", "1", "-i", "init,kworker/0:0H,sshd"}, procs},
		{pidstat, []string{"-t", "2", "-i", ".*kworker.*", "-i", "bash"}, procs},
		{pidstat, []string{"-t", "2", "-i", ".*kworker.*", "-j", "-J", "3"}, procs},
		{pidstat, []string{"-t", "2", "-i", ".*kworker.*", "-j", "-n", "-J", "3"}, procs},
		{pidstat, []string{"-t", "2", "-J", "4", "-8", "1"}, procs},
		{pidstat, []string{"-t", "2", "-9", "-1000"}, procs},
	} {
		if !wideAsPmrep(t, hostPmrep(pmrep), duck, c.archive, "UTC", c.opts, c.names) {
			t.Errorf("%s %s: not compared", filepath.Base(c.archive), strings.Join(c.opts, " "))
			continue
		}
		n++
	}
	t.Logf("%d files compared with pmrep, every cell", n)
}

// TestInteropOptionErrors: where pmrep refuses these options' arguments,
// pcp2arrow fails (exit status 1) with the real pmrep's message (its
// name for pmrep's).
func TestInteropOptionErrors(t *testing.T) {
	pmrep, _ := interop(t)
	pmcd := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	for _, opts := range [][]string{
		{"-i", "nomatch", "kernel.all.load"},
		{"-i", "nomatch", "-i", "1 minute", "kernel.all.load", "kernel.all.nprocs"},
		{"-e", "my.x", "my.x"},
		{"-e", "my.x = 3 *", "my.x"},
		{"-e", "./nonexistent", "kernel.all.load"},
		{"-A", "0", "kernel.all.load"},
	} {
		exitsAsPmrep(t, pmrep, append([]string{"-a", pmcd}, opts...))
	}
}

// exitsAsPmrep checks that pcp2arrow with args exits as the real pmrep -o
// csv does: the same exit status and standard error (its name for
// pmrep's).
func exitsAsPmrep(t *testing.T, pmrep string, args []string) {
	t.Helper()
	_, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), "/usr/bin/python3", append([]string{pmrep, "-o", "csv"}, args...)...)
	testenv.Setenv(t)
	var out, errb strings.Builder
	rc := Main(append([]string{"-o", filepath.Join(t.TempDir(), "x.parquet")}, args...), &out, &errb)
	if want := strings.ReplaceAll(string(werr), "pmrep: ", "pcp2arrow: "); rc != wrc || errb.String() != want {
		t.Errorf("%q: exit %d, stderr %q; pmrep: exit %d, stderr %q", args, rc, errb.String(), wrc, werr)
	}
}

// TestInteropConfig is the proof of -c: with the same configuration
// (testdata/pmrep.conf, and the directory testdata/config.d, whose files
// merge their [options] and whose last metricset of a name wins),
// DuckDB's reading of pcp2arrow's wide file equals the real pmrep's CSV
// cell by cell: [options] and a metricset's option keys (the command
// line's options over them), [global] metrics, metricsets of compact and
// verbose metricspecs (labels, instances, type raw, formulas, a non-leaf
// name), compact metricspecs on the command line, and pmrep's messages
// for a metricset not found and a file not there.
func TestInteropConfig(t *testing.T) {
	pmrep, duck := interop(t)
	root := testenv.RepoRoot(t)
	pmcd := filepath.Join(root, "testdata", "archives", "pmcd-v3")
	conf, err := filepath.Abs(filepath.Join("testdata", "pmrep.conf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(conf), "config.d")
	for _, args := range [][]string{
		{"-c", conf, ":load"},
		{"-c", conf, ":cpu"},
		{"-c", conf, ":counters"},
		{"-c", conf, ":load", ":cpu", "kernel.all.nprocs"},
		{"-c", conf, "-t", "1", "-s", "6", ":load", "kernel.all.load,,'5 minute'"},
		{"-c", conf, "-r", ":counters", "kernel.all.load,,\"'1 minute','5 minute'\""},
		{"-c", dir, ":set"},
		{"-c", dir, "-i", "5 minute", ":set"},
		{"-c", conf, "kernel.all.load,,1 minute|5 minute", "kernel.all.cpu,,,,raw"},
	} {
		if !wideAsPmrep(t, hostPmrep(pmrep), duck, pmcd, "UTC", args[:0], args) {
			t.Errorf("%q: not compared", args)
		}
	}
	for _, args := range [][]string{
		{"-c", conf, ":nosuchset"},
		{"-c", dir, ":load"},
		{"-c", filepath.Join(dir, "nonexistent.conf"), "kernel.all.load"},
		{"-c", conf, "kernel.all.cpu,,,raw"},
	} {
		exitsAsPmrep(t, pmrep, append([]string{"-a", pmcd}, args...))
	}
}

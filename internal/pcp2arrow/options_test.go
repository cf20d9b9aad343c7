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
		if !wideAsPmrep(t, pmrep, duck, c.archive, "UTC", c.opts, c.names) {
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
		args := append([]string{"-a", pmcd}, opts...)
		_, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), "/usr/bin/python3", append([]string{pmrep, "-o", "csv"}, args...)...)
		testenv.Setenv(t)
		var out, errb strings.Builder
		rc := Main(append([]string{"-o", filepath.Join(t.TempDir(), "x.parquet")}, args...), &out, &errb)
		if want := strings.ReplaceAll(string(werr), "pmrep: ", "pcp2arrow: "); rc != wrc || errb.String() != want {
			t.Errorf("%q: exit %d, stderr %q; pmrep: exit %d, stderr %q", opts, rc, errb.String(), wrc, werr)
		}
	}
}

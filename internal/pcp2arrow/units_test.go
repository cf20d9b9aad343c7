package pcp2arrow

import (
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInteropUnitsDuckDB is the proof of unit/scale conversion in the
// Parquet file: for metricspecs' units and the scale options (-q/-Q,
// -b/-B, -y/-Y) and keys (testdata/units.conf), DuckDB's reading of
// pcp2arrow's wide file equals the real `pmrep -o csv -P 9` cell by
// cell, integers where pmrep prints integers (the metric's own units),
// doubles where it converts; and where pmrep refuses a scale, pcp2arrow
// exits as it does, with its message.
func TestInteropUnitsDuckDB(t *testing.T) {
	pmrep, duck := interop(t)
	root := testenv.RepoRoot(t)
	pmcd := filepath.Join(root, "testdata", "archives", "pmcd-v3")
	sample := filepath.Join(root, "testdata", "archives", "sample-v3")
	conf, err := filepath.Abs(filepath.Join("testdata", "units.conf"))
	if err != nil {
		t.Fatal(err)
	}
	pmcdSome := []string{"mem.util.used", "hinv.physmem", "kernel.all.cpu.user", "kernel.percpu.cpu.user", "kernel.all.pswitch",
		"kernel.all.nprocs", "network.interface.in.bytes", "kernel.all.load", "pmcd.pdu_in.total", "kernel.uname.release"}
	for _, c := range []struct {
		archive string
		args    []string
	}{
		{pmcd, []string{"-t", "2", "mem.util.used,,,MB", "mem.util.free,,,2 GB", "hinv.physmem,,,KB", "kernel.all.cpu.user,,,sec",
			"kernel.percpu.cpu.user,,,min/hour", "kernel.all.pswitch,,,count x 10^3/s", "network.interface.in.bytes,,,KB,raw",
			"kernel.all.load,,,100", "kernel.all.nprocs,,,/min"}},
		{pmcd, append([]string{"-t", "3", "-b", "MB", "-y", "sec", "-q", "count x 10^3"}, pmcdSome...)},
		{pmcd, append([]string{"-t", "3", "-B", "GB", "-Y", "min", "-Q", "count x 10^-1", "-r"}, pmcdSome...)},
		{pmcd, append([]string{"-t", "3", "-b", "KB", "-R", "kernel.all.cpu.user,,,ms,rate"}, pmcdSome...)},
		{sample, []string{"-t", "1", "-y", "ms", "sample.seconds", "sample.milliseconds,,,s/min", "sample.step,,,count x 10^1",
			"sample.ulong.count.kilo,,,count / Kbyte", "sample.wrap.ulonglong,,,/min"}},
		{pmcd, []string{"-t", "2", "-c", conf, ":mem"}},
		{pmcd, []string{"-t", "2", "-c", conf, ":scaled", "kernel.all.cpu.user"}},
		{pmcd, []string{"-t", "2", "-c", conf, "-B", "byte", ":mem", ":scaled"}},
	} {
		if !wideAsPmrep(t, hostPmrep(pmrep), duck, c.archive, "UTC", c.args[:0], c.args) {
			t.Errorf("%s %q: not compared", filepath.Base(c.archive), c.args)
		}
	}
	for _, args := range [][]string{
		{"mem.util.used,,,count"},
		{"kernel.all.pswitch,,,Kcount"},
		{"kernel.all.cpu.user,,,second / second"},
		{"-b", "count", "mem.util.used"},
		{"-c", conf, "-q", "Kcount", ":mem"},
	} {
		exitsAsPmrep(t, pmrep, append([]string{"-a", pmcd}, args...))
	}
}

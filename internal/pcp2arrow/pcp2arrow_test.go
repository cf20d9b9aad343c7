package pcp2arrow

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestUsageErrors checks the command lines pcp2arrow refuses, each with
// its message and the usage, exit status 1.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"kernel.all.load"}, "an archive (-a) is required"},
		{[]string{"-a", "x", "-a", "y"}, "-a given more than once"},
		{[]string{"--each", "-a", "x"}, "--each requires -o DIR"},
		{[]string{"--shard", "0/2", "-a", "x"}, "--shard requires --each"},
		{[]string{"--each", "--shard", "2/2", "-a", "x", "-o", "d"}, "--shard requires K/N"},
		{[]string{"-a", "x", "--layout=tall"}, "--layout is wide or long"},
		{[]string{"-a", "x", "--labels"}, "--labels requires --layout=long"},
		{[]string{"-a", "x", "-h", "localhost"}, "only one host or archive allowed"},
		{[]string{"-h", "localhost"}, "live sources (-h, -L) are not supported"},
		{[]string{"-L"}, "live sources (-h, -L) are not supported"},
		{[]string{"-a", "x", "-J", "two"}, "Error while reading option rank: Integer expected."},
		{[]string{"-a", "x", "-z", "-Z", "UTC"}, "at most one of -Z and -z"},
	} {
		var out, errb bytes.Buffer
		rc := Main(c.args, &out, &errb)
		if rc != 1 || !strings.Contains(errb.String(), "pcp2arrow: "+c.msg) || !strings.Contains(errb.String(), "Usage: pcp2arrow") || out.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q", c.args, rc, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if rc := Main([]string{"-a", "/nonexistent/x", "kernel"}, &out, &errb); rc != 1 || !strings.HasPrefix(errb.String(), "Cannot open archive /nonexistent/x: ") {
		t.Errorf("a missing archive: exit %d, stderr %q", rc, errb.String())
	}
}

// TestEveryMetric: with no metricspec, the columns are those of every
// metric pmrep can report (and libpcp's event.flags and event.missed,
// as pmrep has them), in traversal order, as if they were named.
func TestEveryMetric(t *testing.T) {
	a := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "sample-v3")
	names, _ := reportable(t, a)
	all, _ := readParquet(t, runExport(t, "-a", a, "-t", "2"))
	named, _ := readParquet(t, runExport(t, append([]string{"-a", a, "-t", "2"}, append(names, "event.flags", "event.missed")...)...))
	if d := cmp.Diff(named.Columns, all.Columns); d != "" {
		t.Errorf("columns without metricspec (-named +all):\n%s", d)
	}
	if d := cmp.Diff(named.Rows, all.Rows); d != "" || len(all.Rows) < 5 {
		t.Errorf("%d rows; without metricspec (-named +all):\n%s", len(all.Rows), d)
	}
}

// TestEach: --each exports each archive of a directory into the dataset
// (host=H/date=D/part-ID.parquet, one part an archive), leaves out the
// metrics an archive lacks (an archive with none is skipped, with a
// note), and goes on after an archive it cannot open, exit status 1.
func TestEach(t *testing.T) {
	testenv.Setenv(t)
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "archives")
	out := t.TempDir()
	var o, e bytes.Buffer
	rc := Main([]string{"--each", "--layout=long", "-t", "1", "-o", out, "-a", "/nonexistent/x", "-a", dir, "kernel.all.nprocs", "no.such.metric"}, &o, &e)
	wantErr := "Cannot open archive /nonexistent/x: No such file or directory\n" +
		"pcp2arrow: " + filepath.Join(dir, "sample-v3") + ": none of the metrics, skipped\n"
	if rc != 1 || e.String() != wantErr {
		t.Errorf("exit %d, stderr %q, want %q", rc, e.String(), wantErr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "*", "*"))
	var got []string
	for _, f := range files {
		got = append(got, strings.TrimPrefix(f, out+"/"))
	}
	want := []string{
		"host=vm/date=2026-11-21/part-" + partID(filepath.Join(dir, "pmcd-v2")) + ".parquet",
		"host=vm/date=2026-11-21/part-" + partID(filepath.Join(dir, "pmcd-v3")) + ".parquet",
	}
	if d := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("dataset files (-want +got):\n%s", d)
	}
	for _, f := range files {
		tb, _ := readParquet(t, f)
		if d := cmp.Diff([]string{"timestamp", "metric", "instance", "value"}, tb.Columns); d != "" || len(tb.Rows) < 5 {
			t.Errorf("%s: %d rows, columns (-want +got):\n%s", f, len(tb.Rows), d)
		}
	}
}

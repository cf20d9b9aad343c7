package logsummary

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInterop638Shared is TestInteropShared (and TestGoldens' archives)
// against the real pmlogsummary of PCP 6.3.8, in its chroot, with
// pcpkit's behaving as 6.3.8 (PCPKIT_PCP_VERSION): every shared archive
// and every archive of testdata/archives in every interop mode.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives", testenv.TestdataSet}, func(t *testing.T, dir, a, m string) {
		p.Compare(t, dir, append(strings.Fields(m), a), nil)
	})
}

// TestInterop638Metrics is TestInteropMetrics against the real
// pmlogsummary of PCP 6.3.8.
func TestInterop638Metrics(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	forMetricCases(t, func(t *testing.T, dir, a string, args []string) {
		p.Compare(t, dir, args, nil)
	})
}

// TestGoldens638 compares pcpkit's pmlogsummary, behaving as PCP 6.3.8, with
// the committed output of the real pmlogsummary of PCP 6.3.8
// (testdata/golden638/pmlogsummary, made by PCP638=1 scripts/make-goldens.sh
// pmlogsummary) for every case of TestGoldens, comma-separated lists of
// archives included (6.3.8 summarises the metrics of every archive of the
// list, in the order of the whole namespace: archive.OpenSet). It needs no
// PCP installation.
func TestGoldens638(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmlogsummary") {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden638(t, "pmlogsummary", c)
			out, errs, rc := run(t, dir, c.Args(), "PCPKIT_PCP_VERSION=6.3.8")
			testenv.CompareRun(t, "pmlogsummary 6.3.8", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

// TestInterop638Lists: comma-separated lists of archives, whose metrics
// 6.3.8 summarises all (the namespace of every archive of the list),
// against the real pmlogsummary of PCP 6.3.8.
func TestInterop638Lists(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	for _, c := range []struct{ set, list string }{
		{testenv.TestdataSet, "pmcd-v3,sample-v3"}, {testenv.TestdataSet, "sample-v3,pmcd-v2"},
		{"pcp-qa-archives", "arch_a,arch_b"}, {"pcp-qa-archives", "arch_b,arch_a"},
		{"pcp-qa-archives", "ok-mv-foo,ok-foo"}, {"pcp-made-archives", "synth3,sample3"},
		{"pcp-made-archives", "sample3,synth3,derived3"},
	} {
		dir := testenv.SetDir(t, c.set)
		for _, m := range []string{"", "-l -y -i -I", "-a -S +2"} {
			args := append(strings.Fields(m), c.list)
			t.Run(c.set+"/"+strings.Join(args, " "), func(t *testing.T) { p.Compare(t, dir, args, nil) })
		}
	}
}

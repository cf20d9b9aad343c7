package pmprobe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run runs pmprobe in-process in dir ("" for the test's own), in the
// environment the real tool runs in with env's changes (testenv.Setenv),
// and returns stdout, stderr and the exit status.
func run(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	testenv.Setenv(t, env...)
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// compareReal runs the real pmprobe and pcpkit's with args in dir and
// reports any difference.
func compareReal(t *testing.T, dir string, args []string, env ...string) {
	t.Helper()
	wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(env...), testenv.RealTool(t, "pmprobe"), args...)
	out, errs, rc := run(t, dir, args, env...)
	testenv.CompareRun(t, "pmprobe", "pmprobe "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
}

// TestGoldens compares pcpkit's pmprobe with the committed output of the
// real pmprobe (scripts/make-goldens.sh pmprobe) for every archive in
// testdata/archives and every mode in testdata/pmprobe.modes. It needs no
// PCP installation.
func TestGoldens(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	cases := testenv.GoldenCases(t, "pmprobe")
	if len(cases) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden(t, "pmprobe", c)
			out, errs, rc := run(t, dir, c.Args())
			testenv.CompareRun(t, "pmprobe", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

// TestGoldensMatchRealTool re-runs the real pmprobe for every golden
// case: the committed goldens must be what PCP 6.0.3 prints today.
func TestGoldensMatchRealTool(t *testing.T) {
	testenv.RealTool(t, "pmprobe")
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmprobe") {
		g := testenv.ReadGolden(t, "pmprobe", c)
		out, errs, rc := testenv.RunRealIn(t, dir, "pmprobe", c.Args()...)
		testenv.CompareRun(t, "pmprobe", "golden "+c.Name(), string(g.Stdout), string(g.Stderr), g.ExitCode, string(out), string(errs), rc)
	}
}

package pminfo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run runs pminfo in-process in dir, in the environment the real tool
// runs in for the goldens, and returns stdout, stderr and the exit status.
func run(t *testing.T, dir string, args []string) (string, string, int) {
	t.Helper()
	return runEnv(t, dir, args)
}

// runEnv is run with more environment variables (testenv.Setenv).
func runEnv(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	testenv.Setenv(t, env...)
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// TestGoldens compares pcpkit's pminfo with the committed output of the
// real pminfo (scripts/make-goldens.sh pminfo) for every archive in
// testdata/archives and every mode in testdata/pminfo.modes. It needs no
// PCP installation.
func TestGoldens(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	cases := testenv.GoldenCases(t, "pminfo")
	if len(cases) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden(t, "pminfo", c)
			out, errs, rc := run(t, dir, c.Args())
			testenv.CompareRun(t, "pminfo", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

// TestGoldensMatchRealTool re-runs the real pminfo for every golden case:
// the committed goldens must be what PCP 6.0.3 prints today.
func TestGoldensMatchRealTool(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pminfo") {
		g := testenv.ReadGolden(t, "pminfo", c)
		out, errs, rc := testenv.RunRealIn(t, dir, "pminfo", c.Args()...)
		testenv.CompareRun(t, "pminfo", "golden "+c.Name(), string(g.Stdout), string(g.Stderr), g.ExitCode, string(out), string(errs), rc)
	}
}

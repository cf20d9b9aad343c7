package pminfo

import (
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run runs pminfo in-process in dir ("" for the test's own), in the
// environment the real tool runs in with env's changes (testenv.Setenv),
// and returns stdout, stderr and the exit status.
func run(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	return testenv.RunMain(t, Main, dir, args, env...)
}

// compareReal runs the real pminfo and pcpkit's with args in dir and
// reports any difference.
func compareReal(t *testing.T, dir string, args []string, env ...string) {
	t.Helper()
	testenv.CompareMain(t, "pminfo", Main, dir, args, env...)
}

// TestGoldens compares pcpkit's pminfo with the committed output of the
// real pminfo (scripts/make-goldens.sh pminfo) for every archive in
// testdata/archives and every mode in testdata/pminfo.modes. It needs no
// PCP installation.
func TestGoldens(t *testing.T) { testenv.CheckGoldens(t, "pminfo", Main) }

// TestGoldensMatchRealTool re-runs the real pminfo for every golden case.
func TestGoldensMatchRealTool(t *testing.T) { testenv.CheckGoldensMatchRealTool(t, "pminfo") }

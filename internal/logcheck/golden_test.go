package logcheck

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestGoldens compares pcpkit's pmlogcheck with the committed output of
// the real pmlogcheck (scripts/make-goldens.sh pmlogcheck) for every
// archive in testdata/archives and every mode in testdata/pmlogcheck.modes.
// It needs no PCP installation.
//
// pmlogcheck checks an archive's files in the order of their directory
// (scandir(3) without sorting), which depends on the file system: the -v
// lines of pass 0 are compared as a set, everything else line for line.
// The interop tests compare the order too, against the real tool on the
// same directory.
func TestGoldens(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	cases := testenv.GoldenCases(t, "pmlogcheck")
	if len(cases) == 0 {
		t.Fatal("no golden cases of pmlogcheck")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden(t, "pmlogcheck", c)
			out, errs, rc := testenv.RunMain(t, Main, dir, c.Args())
			if diff := cmp.Diff(string(g.Stdout), out); diff != "" {
				t.Errorf("pmlogcheck %s: stdout differs (-real +pcpkit):\n%s", strings.Join(c.Args(), " "), diff)
			}
			if diff := cmp.Diff(pass0AsSet(string(g.Stderr)), pass0AsSet(errs)); diff != "" {
				t.Errorf("pmlogcheck %s: stderr differs (-real +pcpkit):\n%s", strings.Join(c.Args(), " "), diff)
			}
			if rc != g.ExitCode {
				t.Errorf("pmlogcheck %s: exit status %d, want %d", strings.Join(c.Args(), " "), rc, g.ExitCode)
			}
		})
	}
}

// pass0AsSet sorts each run of consecutive "start pass0" lines.
func pass0AsSet(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.Contains(lines[j], ": start pass0 ... ") {
			j++
		}
		if j > i {
			sort.Strings(lines[i:j])
			i = j
		} else {
			i++
		}
	}
	return strings.Join(lines, "")
}

// TestGoldensMatchRealTool re-runs the real pmlogcheck for every golden
// case (with the pass 0 lines as a set, as TestGoldens compares them).
func TestGoldensMatchRealTool(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmlogcheck") {
		g := testenv.ReadGolden(t, "pmlogcheck", c)
		out, errs, rc := testenv.RunRealIn(t, dir, "pmlogcheck", c.Args()...)
		testenv.CompareRun(t, "pmlogcheck", "golden "+c.Name(), string(g.Stdout), pass0AsSet(string(g.Stderr)), g.ExitCode, string(out), pass0AsSet(string(errs)), rc)
	}
}

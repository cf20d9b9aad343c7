package logcheck

import (
	"sort"
	"strings"
	"testing"

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
	testenv.CheckGoldensNormalized(t, "pmlogcheck", Main, pass0AsSet)
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
	testenv.CheckGoldensMatchRealToolNormalized(t, "pmlogcheck", pass0AsSet)
}

package logcheck

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// recordLine matches the lines of pmdumplog's data records: a record's
// time and count, a <mark>, a metric and its value or values.
var recordLine = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d+ +\d+ metrics?|\d\d:.*<mark>|    \d+\.\d+\.\d+ \(.*|        inst .*)$`)

// dumpedRecords runs the real pmdumplog -a on archive (in dir) and returns
// the lines of its data records; standard error (where it reports the
// damage it stops at) is left out.
func dumpedRecords(t *testing.T, dir, archive string) []string {
	t.Helper()
	out, _, _ := testenv.RunCommandOrSignal(t, dir, testenv.RealEnv(), testenv.RealTool(t, "pmdumplog"), "-a", archive)
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if recordLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// missingFrom returns how many lines of want are not found, in order, in
// got (0 when want is a subsequence of got).
func missingFrom(want, got []string) int {
	i := 0
	for k, l := range want {
		for i < len(got) && got[i] != l {
			i++
		}
		if i == len(got) {
			return len(want) - k
		}
		i++
	}
	return 0
}

// structural are the reports of the real pmlogcheck on damage to an
// archive's structure (passes 0 and 1, and opening it); the others
// (descriptors, counter wraps, timestamps, values) are about the data the
// repair copies as it finds it.
var structural = regexp.MustCompile(`\[record \d+\]|\.index\[entry \d+\]: (offset|illegal|volume)|contains no PCP data|missing|cannot open|bad label|cannot load label|last valid record`)

// checkRepair repairs archive (in dir) into a temporary directory and
// checks the copy with the real tools: pmlogcheck exits 0 and reports no
// structural damage, and every data record line the real pmdumplog -a
// prints from the original is printed, in order, from the copy, but for
// the values of metrics without descriptors, which --repair leaves out
// and names, and the records it refuses (it says which). It returns false
// when --repair wrote nothing (it must then say so and exit 1).
func checkRepair(t *testing.T, dir, archive string) bool {
	t.Helper()
	out := filepath.Join(t.TempDir(), "repaired")
	_, errs, rc := testenv.RunMain(t, Main, dir, []string{"--repair", out, archive})
	if strings.Contains(errs, "nothing written") {
		if rc != 1 {
			t.Errorf("--repair wrote nothing, exit status %d, want 1", rc)
		}
		return false
	}
	if !strings.Contains(errs, "pmlogcheck: --repair: wrote "+out) {
		t.Fatalf("--repair said neither what it wrote nor that it wrote nothing:\n%s", errs)
	}
	_, cerr, crc := testenv.RunCommandOrSignal(t, "", testenv.RealEnv(), testenv.RealTool(t, "pmlogcheck"), out)
	if crc != 0 {
		// The one known case: a value whose encoding its descriptor
		// contradicts (QA logsummary-bug), copied as it is.
		if !strings.Contains(string(cerr), "pmExtractValue failed") {
			t.Errorf("the real pmlogcheck on the copy: exit status %d:\n%s", crc, cerr)
		}
	}
	for _, l := range strings.Split(string(cerr), "\n") {
		if structural.MatchString(l) {
			t.Errorf("the real pmlogcheck reports damage in the copy: %s", l)
		}
	}
	want := dumpedRecords(t, dir, archive)
	got := dumpedRecords(t, "", out)
	// Lines may be lost only with what --repair names: the values of a
	// metric without a descriptor, a record it refused (one with an
	// impossible time, say).
	excused := strings.Contains(errs, "has no descriptor") || strings.Contains(errs, " left out: ")
	if n := missingFrom(want, got); n > 0 && !excused {
		t.Errorf("%d of the %d record lines pmdumplog prints from the original are not in the copy, from %q on; --repair said:\n%s", n, len(want), want[len(want)-n], errs)
	}
	return true
}

// TestRepairShared runs --repair on every damaged archive of ../shared.
func TestRepairShared(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	testenv.RealTool(t, "pmdumplog")
	written, nothing := 0, 0
	for _, sub := range []string{"pcp-qa-badarchives", "pcp-made-archives/bad"} {
		dir := testenv.SharedDir(t, sub)
		for _, name := range sharedArchives(t, dir) {
			t.Run(sub+"/"+name, func(t *testing.T) {
				if checkRepair(t, dir, name) {
					written++
				} else {
					nothing++
				}
			})
		}
	}
	t.Logf("--repair wrote %d archives; %d had nothing readable", written, nothing)
	if written == 0 {
		t.Error("--repair wrote no archive")
	}
}

// TestRepairDamaged runs --repair on damaged copies (as TestInteropDamaged
// makes them) of a few archives.
func TestRepairDamaged(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	testenv.RealTool(t, "pmdumplog")
	dir, names := testenv.DamagedCopies(t, []string{"testdata/archives/pmcd-v2", "testdata/archives/sample-v3", "shared:wrap", "shared:dyninsts", "shared:changeinst"})
	for _, name := range names {
		t.Run(name, func(t *testing.T) { checkRepair(t, dir, name) })
	}
}

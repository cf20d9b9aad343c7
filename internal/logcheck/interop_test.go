package logcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// sharedArchives lists the archives of a directory of ../shared by the
// names pmlogcheck is given (relative to the directory): every base name
// with a .meta or a .0, compressed or not.
func sharedArchives(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range ents {
		n := e.Name()
		for _, suf := range []string{".meta", ".0"} {
			for _, z := range []string{"", ".xz", ".gz", ".bz2"} {
				if b, ok := strings.CutSuffix(n, suf+z); ok && !seen[b] {
					seen[b] = true
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// interopModes are the option sets every shared archive is checked with.
var interopModes = [][]string{
	nil,
	{"-v"},
	{"-l", "-v"},
	{"-m", "-v"},
	{"-w"},
	{"-z", "-l"},
	{"-Z", "EST5EDT", "-l", "-v"},
	{"-T", "+3", "-v"},
	{"-n", "PMNS", "-v"}, // PMNS: testdata/pminfo.pmns
}

// TestInteropShared runs the real pmlogcheck and pcpkit's, side by side,
// on every archive of ../shared (the PCP QA archives, good and damaged,
// and pcpkit's damaged ones) with each of interopModes, and compares
// their output and exit status byte for byte.
func TestInteropShared(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	for _, sub := range []string{"pcp-qa-archives", "pcp-qa-badarchives", "pcp-made-archives/bad"} {
		dir := testenv.SharedDir(t, sub)
		names := sharedArchives(t, dir)
		if len(names) == 0 {
			t.Fatalf("%s: no archives", dir)
		}
		for _, name := range names {
			for _, mode := range interopModes {
				args := append(append([]string{}, mode...), name)
				for i, a := range args {
					if a == "PMNS" {
						args[i] = filepath.Join(testenv.RepoRoot(t), "testdata", "pminfo.pmns")
					}
				}
				t.Run(sub+"/"+name+"/"+strings.Join(mode, "_"), func(t *testing.T) {
					testenv.CompareMain(t, "pmlogcheck", Main, dir, args)
				})
			}
		}
	}
}

// TestInteropWindow compares -S (where pass 3 starts reading) on every
// shared archive, damaged indexes included (pmlogcheck sets those aside).
func TestInteropWindow(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	for _, sub := range []string{"pcp-qa-archives", "pcp-qa-badarchives"} {
		dir := testenv.SharedDir(t, sub)
		for _, name := range sharedArchives(t, dir) {
			for _, start := range []string{"+1", "+2"} {
				args := []string{"-v", "-S", start, "-T", "-1", name}
				t.Run(sub+"/"+name+"/S"+start, func(t *testing.T) {
					testenv.CompareMain(t, "pmlogcheck", Main, dir, args)
				})
			}
		}
	}
}

// TestInteropDamaged makes damaged copies (damage) and compares the real
// pmlogcheck and pcpkit's on each, with no options, with -v and with
// -S +1 (where the index is damaged, pass 3 reads without it). On a few
// the real pmlogcheck 6.0.3 dies of a signal (a damaged descriptor or
// value it trusts): there is no output to match there, and pcpkit's must
// only end normally.
func TestInteropDamaged(t *testing.T) {
	testenv.RealTool(t, "pmlogcheck")
	dir, names := testenv.DamagedCopies(t, testenv.DamageSources)
	crashes := 0
	for _, name := range names {
		for _, mode := range [][]string{nil, {"-v"}, {"-S", "+1"}} {
			args := append(append([]string{}, mode...), name)
			t.Run(name+"/"+strings.Join(mode, "_"), func(t *testing.T) {
				wout, werr, wrc := testenv.RunCommandOrSignal(t, dir, testenv.RealEnv(), testenv.RealTool(t, "pmlogcheck"), args...)
				out, errs, rc := testenv.RunMain(t, Main, dir, args)
				if wrc != 0 && wrc != 1 {
					crashes++
					t.Logf("the real pmlogcheck ended with status %d; pcpkit's with %d", wrc, rc)
					if rc != 0 && rc != 1 {
						t.Errorf("exit status %d", rc)
					}
					return
				}
				testenv.CompareRun(t, "pmlogcheck", "pmlogcheck "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
			})
		}
	}
	t.Logf("%d damaged copies, %d runs where the real tool crashed", len(names), crashes)
}

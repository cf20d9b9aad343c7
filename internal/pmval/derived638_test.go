package pmval

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestUsageVersion: the usage message and -V are the real pmval's of the
// PCP version pcpkit behaves as: 6.3.8's calls an archive "a PCP
// archive".
func TestUsageVersion(t *testing.T) {
	t.Setenv("PCPKIT_PCP_VERSION", "6.0.3")
	if got := usageText(); got != usage {
		t.Errorf("6.0.3: the usage message is not the real pmval's:\n%s", got)
	}
	t.Setenv("PCPKIT_PCP_VERSION", "6.3.8")
	got := usageText()
	if !strings.Contains(got, "  -a FILE, --archive=FILE\n                        metrics source is a PCP archive\n") {
		t.Errorf("6.3.8: the -a line is not 6.3.8's:\n%s", got)
	}
	if strings.Replace(got, "PCP archive\n", "PCP log archive\n", 1) != usage {
		t.Errorf("6.3.8: more than the -a line changed:\n%s", got)
	}
	for v, want := range map[string]string{"6.0.3": "pmval version 6.0.3\n", "6.3.8": "pmval version 6.3.8\n"} {
		// the real tool's line, then pcpkit's version (version.Line)
		if _, errs, rc := run(t, t.TempDir(), []string{"-V"}, "PCPKIT_PCP_VERSION="+v); testenv.AsReal(errs) != want || errs == want || rc != 0 {
			t.Errorf("pmval -V as %s: %q, exit %d; want %q", v, errs, rc, want)
		}
	}
}

// The goldens of testdata/golden/derive638/: what the real pmval of PCP
// 6.3.8 prints for the derived metrics of testdata/derive638/*.conf over
// archives (scripts/make-derive638-goldens.sh, which documents the
// format), and pcpkit's pmval with PCPKIT_PCP_VERSION=6.3.8.

// derive638Case is one line of testdata/derive638/cases.
type derive638Case struct {
	archive string     // as written: testdata/NAME, derive/NAME, qa/NAME, made/NAME
	config  string     // the configuration file's name
	modes   [][]string // each: "-U" or "-a", then options
}

func readDerive638Cases(t *testing.T) []derive638Case {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "derive638", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []derive638Case
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			t.Fatalf("cases: bad line %q", l)
		}
		c := derive638Case{archive: f[0], config: f[1]}
		for _, m := range strings.Split(strings.Join(f[2:], " "), "|") {
			c.modes = append(c.modes, strings.Fields(m))
		}
		cases = append(cases, c)
	}
	return cases
}

// path is where the case's archive is (skipping when ../shared is
// missing).
func (c derive638Case) path(t *testing.T) string {
	t.Helper()
	kind, name, _ := strings.Cut(c.archive, "/")
	switch kind {
	case "testdata":
		return filepath.Join(testenv.RepoRoot(t), "testdata", "archives", name)
	case "derive":
		return filepath.Join(testenv.RepoRoot(t), "derive", "testdata", name)
	case "qa":
		return filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), name)
	case "made":
		return filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), name)
	}
	t.Fatalf("cases: unknown archive %s", c.archive)
	return ""
}

// golden is the case's golden file.
func (c derive638Case) golden(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "derive638",
		strings.TrimSuffix(c.config, ".conf")+"."+filepath.Base(c.archive)+".txt")
}

// setup copies the archive and the configuration into dir.
func (c derive638Case) setup(t *testing.T, dir string) {
	t.Helper()
	src := c.path(t)
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		sub := filepath.Join(dir, filepath.Base(src))
		os.MkdirAll(sub, 0o755)
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			copyFile(t, filepath.Join(src, e.Name()), filepath.Join(sub, e.Name()))
		}
	} else {
		testenv.CopyArchive(t, src, dir)
	}
	copyFile(t, filepath.Join(testenv.RepoRoot(t), "testdata", "derive638", c.config), filepath.Join(dir, c.config))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runs are the pmval command lines of the case, in the golden's order.
func (c derive638Case) runs(t *testing.T) [][]string {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "derive638", c.config))
	if err != nil {
		t.Fatal(err)
	}
	var runs [][]string
	for _, l := range strings.Split(string(cfg), "\n") {
		name, _, ok := strings.Cut(l, "=")
		if !ok || l == "" || !cIsAlpha(l[0]) {
			continue
		}
		name = strings.Join(strings.Fields(name), "")
		for _, m := range c.modes {
			args := []string{"--derived=" + c.config, m[0], filepath.Base(c.archive)}
			args = append(append(args, m[1:]...), name)
			runs = append(runs, args)
		}
	}
	return runs
}

func cIsAlpha(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// load copies the case's files into dir and returns its golden records
// and the runs that made them.
func (c derive638Case) load(t *testing.T, dir string) (want []string, runs [][]string) {
	t.Helper()
	c.setup(t, dir)
	b, err := os.ReadFile(c.golden(t))
	if err != nil {
		t.Fatal(err)
	}
	want = splitRecords(string(b))
	runs = c.runs(t)
	if len(want) != len(runs) {
		t.Fatalf("%s has %d runs, the case %d: make-derive638-goldens.sh again", c.golden(t), len(want), len(runs))
	}
	return want, runs
}

// record is one run as the goldens hold it.
func record(args []string, stdout, stderr string, rc int) string {
	return "=== pmval " + strings.Join(args, " ") + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr + fmt.Sprintf("--- rc %d\n", rc)
}

// splitRecords splits a golden file into its runs.
func splitRecords(s string) []string {
	var recs []string
	for s != "" {
		i := strings.Index(s[1:], "\n=== pmval ")
		if i < 0 {
			recs = append(recs, s)
			break
		}
		recs = append(recs, s[:i+2])
		s = s[i+2:]
	}
	return recs
}

// TestDerived638Goldens runs pcpkit's pmval, behaving as PCP 6.3.8, for
// every run of the goldens and compares.
func TestDerived638Goldens(t *testing.T) {
	n, same, crashed := 0, 0, 0
	for _, c := range readDerive638Cases(t) {
		t.Run(strings.TrimSuffix(filepath.Base(c.golden(t)), ".txt"), func(t *testing.T) {
			dir := t.TempDir()
			want, runs := c.load(t, dir)
			for i, args := range runs {
				if crashedRun(want[i]) {
					crashed++
					continue
				}
				out, errs, rc := run(t, dir, args, "PCPKIT_PCP_VERSION=6.3.8", "PCP_DERIVED_CONFIG=", "LC_ALL=C")
				n++
				if got, w := record(args, out, errs, rc), want[i]; got != w {
					t.Errorf("pmval %s: differs from the real pmval 6.3.8 (-6.3.8 +pcpkit):\n%s", strings.Join(args, " "), cmp.Diff(w, got))
					continue
				}
				same++
			}
		})
	}
	t.Logf("pmval with PCP 6.3.8's derived metrics: %d runs compared with the real pmval 6.3.8's goldens, %d identical (%d crashed the real pmval)", n, same, crashed)
}

// crashedRun reports whether a golden record is of a run the real pmval
// did not survive (an exit code above 128).
func crashedRun(rec string) bool {
	i := strings.LastIndex(rec, "--- rc ")
	rc, err := strconv.Atoi(strings.TrimSpace(rec[i+len("--- rc "):]))
	return err == nil && rc > 128
}

// TestDerived638Interop runs the real pmval of PCP 6.3.8 (the chroot) for
// every run of the goldens: it must still print them (else
// scripts/make-derive638-goldens.sh must be run again).
func TestDerived638Interop(t *testing.T) {
	c638 := testenv.Real638(t)
	n := 0
	for _, c := range readDerive638Cases(t) {
		t.Run(strings.TrimSuffix(filepath.Base(c.golden(t)), ".txt"), func(t *testing.T) {
			host, inside := c638.TempDir(t)
			want, runs := c.load(t, host)
			for i, args := range runs {
				out, errs, rc := c638.Run(t, inside, nil, "pmval", args...)
				if rc < 0 {
					rc = 128 // a crash (the goldens have 128+signal)
				}
				n++
				got := record(args, string(out), string(errs), rc)
				if crashedRun(want[i]) && rc >= 128 {
					continue
				}
				if got != want[i] {
					t.Errorf("the real pmval 6.3.8 no longer prints the golden (-golden +6.3.8): run scripts/make-derive638-goldens.sh\n%s", cmp.Diff(want[i], got))
				}
			}
		})
	}
	t.Logf("%d runs of the real pmval 6.3.8", n)
}

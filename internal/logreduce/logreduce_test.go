package logreduce

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/dumplog"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the real pmlogreduce and pmdumplog")

func testArchive(t testing.TB, name string) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "archives", name)
}

// cliCases are command lines (the output archive is appended as "out"
// where out is set) whose messages and exit status must be the real
// tool's; "%x" names a repository archive.
var cliCases = []struct {
	name string
	args []string
	out  bool // append the output archive
}{
	{"noargs", nil, false},
	{"one", []string{"%sample-v3"}, false},
	{"s-bad", []string{"-s", "x", "%sample-v3"}, true},
	{"s-neg", []string{"-s", "-1", "%sample-v3"}, true},
	{"s-trailing", []string{"-s", "3x", "%sample-v3"}, true},
	{"v-bad", []string{"-v", "x", "%sample-v3"}, true},
	{"t-bad", []string{"-t", "foo", "%sample-v3"}, true},
	{"t-neg", []string{"-t", "-1", "%sample-v3"}, true},
	{"S-bad", []string{"-S", "foo", "%sample-v3"}, true},
	{"T-bad", []string{"-T", "@junk", "%sample-v3"}, true},
	{"A-bad", []string{"-A", "foo", "%sample-v3"}, true},
	{"zZ", []string{"-z", "-Z", "UTC", "%sample-v3"}, true},
	{"Zz", []string{"-Z", "UTC", "-z", "%sample-v3"}, true},
	{"D-bad", []string{"-D", "foo", "%sample-v3"}, true},
	{"x", []string{"-x", "%sample-v3"}, true},
	{"missing-arg", []string{"%sample-v3", "-t"}, false},
	{"long-missing-arg", []string{"%sample-v3", "--interval"}, false},
	{"help", []string{"-?"}, false},
	{"nonexistent", []string{"/nonexistent/archive"}, true},
	{"no-output-dir", []string{"%sample-v3", "/nonexistent/dir/out"}, false},
	{"Z-note", []string{"-Z", "EST5", "-t", "3", "%sample-v3"}, true},
	{"z-note", []string{"--hostzone", "-t", "3", "%sample-v3"}, true},
	{"s-empty", []string{"-s", "", "%sample-v3"}, true},
	{"s-zero", []string{"-s", "0", "%sample-v3"}, true},
	{"window-empty", []string{"-S", "+100", "%pmcd-v2"}, true},
	{"extra-operand", []string{"-t", "2", "%pmcd-v3", "ignored"}, true},
	{"longs", []string{"--interval=2", "--start=+1", "--finish=-1", "--samples=3", "--align=1", "%pmcd-v3"}, true},
	{"volumes", []string{"-t", "1", "-v", "2", "-s", "7", "%sample-v3"}, true},
}

func cliArgs(t *testing.T, args []string, out string) []string {
	var a []string
	for _, x := range args {
		if n, ok := strings.CutPrefix(x, "%"); ok {
			x = testArchive(t, n)
		}
		a = append(a, x)
	}
	if out != "" {
		a = append(a, out)
	}
	return a
}

// TestCLIGoldens: each command line gives the real tool's messages, exit
// status and (through pcpkit's pmdumplog -a, byte-identical to the real
// one) archive; testdata/cli/NAME.golden holds what the real tools gave
// (TestCLILive checks them against the real tool; -update rewrites them).
func TestCLIGoldens(t *testing.T) {
	testenv.Setenv(t)
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := ""
			if c.out {
				out = filepath.Join(dir, "out")
			}
			args := cliArgs(t, c.args, out)
			var so, se bytes.Buffer
			rc := Main(args, &so, &se)
			got := transcript(t, dir, so.String(), se.String(), rc, pcpkitDump)
			golden := filepath.Join("testdata", "cli", c.name+".golden")
			if *update {
				rdir := t.TempDir()
				rargs := cliArgs(t, c.args, map[bool]string{true: filepath.Join(rdir, "out")}[c.out])
				ro, re, rrc, _ := testenv.RunRealSignaled(t, rdir, "pmlogreduce", rargs...)
				want := transcript(t, rdir, string(ro), string(re), rrc, realDump)
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update and PCP_INTEROP=1 to make it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("-golden +pcpkit:\n%s", d)
			}
		})
	}
}

// TestCLILive: the goldens are what the real tools say now.
func TestCLILive(t *testing.T) {
	testenv.RealTool(t, "pmlogreduce")
	testenv.RealTool(t, "pmdumplog")
	for _, c := range cliCases {
		t.Run(c.name, func(t *testing.T) {
			rdir := t.TempDir()
			rargs := cliArgs(t, c.args, map[bool]string{true: filepath.Join(rdir, "out")}[c.out])
			ro, re, rrc, _ := testenv.RunRealSignaled(t, rdir, "pmlogreduce", rargs...)
			got := transcript(t, rdir, string(ro), string(re), rrc, realDump)
			want, err := os.ReadFile(filepath.Join("testdata", "cli", c.name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("-golden +real:\n%s", d)
			}
		})
	}
}

// transcript is what a run shows: its exit status, standard output and
// error (the run's directory and repository paths made neutral), and the
// pmdumplog -a of the archive it wrote (without the pid line).
func transcript(t *testing.T, dir, stdout, stderr string, rc int, dump func(*testing.T, string) string) string {
	norm := func(s string) string {
		s = strings.ReplaceAll(s, dir, "DIR")
		return strings.ReplaceAll(s, testenv.RepoRoot(t), "REPO")
	}
	var b strings.Builder
	b.WriteString("exit " + string(rune('0'+rc)) + "\n--- stdout\n" + norm(stdout) + "--- stderr\n" + norm(stderr))
	files := testenv.FileNames(dir)
	b.WriteString("--- files " + strings.Join(files, " ") + "\n")
	if len(files) > 0 {
		b.WriteString("--- pmdumplog -a\n")
		for _, l := range strings.SplitAfter(dump(t, dir), "\n") {
			if !strings.HasPrefix(l, "PID for pmlogger: ") {
				b.WriteString(norm(l))
			}
		}
	}
	return b.String()
}

func pcpkitDump(t *testing.T, dir string) string {
	t.Helper()
	var so, se bytes.Buffer
	dumplog.Main([]string{"-a", filepath.Join(dir, "out")}, &so, &se)
	return so.String() + strings.ReplaceAll(se.String(), filepath.Join(dir, "out"), "out")
}

func realDump(t *testing.T, dir string) string {
	t.Helper()
	so, se, _, _ := testenv.RunRealSignaled(t, dir, "pmdumplog", "-a", "out")
	return string(so) + strings.ReplaceAll(string(se), filepath.Join(dir, "out"), "out")
}

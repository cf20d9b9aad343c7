package loggerconf

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// notifyRE matches the "[ctime] pmlogger(PID) " prefix of pmlogger's
// notices; the interop test replaces it with testNotify on both sides.
var notifyRE = regexp.MustCompile(`(?m)^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d\] pmlogger\(\d+\) `)

const testNotify = "[DATE] pmlogger(PID) "

// realCheck runs the real `pmlogger -C -c name -l LOG` in dir and returns
// what it wrote after its "preprocessor cmd:" line (to stderr and to
// the log file, which -C leaves alone) and its exit status.
func realCheck(t *testing.T, pmlogger, dir, name string) (string, int) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "check.log")
	_, stderr, rc := testenv.RunCommand(t, dir, testenv.RealEnv(), pmlogger, "-C", "-c", name, "-l", log)
	text := string(stderr)
	if b, err := os.ReadFile(log); err == nil {
		text += string(b)
	}
	if i := strings.Index(text, "preprocessor cmd: "); i >= 0 {
		if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
			text = text[i+j+1:]
		}
	}
	return notifyRE.ReplaceAllString(text, testNotify), rc
}

// configFiles lists testdata/configs/*.conf.
func configFiles(t *testing.T) (string, []string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "configs"))
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	sort.Strings(names)
	return dir, names
}

// TestCheckInterop runs the real pmlogger -C on every configuration in
// testdata/configs and compares its exit status and diagnostics, byte
// for byte, with Check's against the same live name space.
func TestCheckInterop(t *testing.T) {
	if !testenv.Interop() {
		t.Skip("interop test: set PCP_INTEROP=1 (needs the real pmlogger and a running pmcd)")
	}
	pmlogger := testenv.RealTool(t, "pmlogger")
	ns := realNS(t)
	dir, names := configFiles(t)
	if len(names) < 60 {
		t.Fatalf("only %d configurations in %s", len(names), dir)
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(name, ".conf"), func(t *testing.T) {
			want, wantRC := realCheck(t, pmlogger, dir, name)
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			var rc int
			inDir(t, dir, func() {
				rc, _, _, err = Check(&got, src, name, ns, CheckOptions{NotifyPrefix: testNotify})
			})
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got.String() != want || rc != wantRC {
				t.Errorf("%s:\n--- pcpkit (exit %d)\n%s--- real pmlogger (exit %d)\n%s", name, rc, got.String(), wantRC, want)
			}
		})
	}
}

// TestCheckInteropRandom compares Check with the real pmlogger -C on
// random configurations built from the language's tokens (good and bad
// ones), so that line numbers, error positions and warning order are
// exercised beyond the hand-written set. PCP_INTEROP_SEED picks the
// seed; PCP_INTEROP_N the number of cases (default 150).
func TestCheckInteropRandom(t *testing.T) {
	if !testenv.Interop() {
		t.Skip("interop test: set PCP_INTEROP=1 (needs the real pmlogger and a running pmcd)")
	}
	pmlogger := testenv.RealTool(t, "pmlogger")
	ns := realNS(t)
	seed, n := int64(1), 150
	if s := os.Getenv("PCP_INTEROP_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	if s := os.Getenv("PCP_INTEROP_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewSource(seed))
	stmt := []string{"log", "mandatory", "advisory", "on", "off", "maybe", "every", "once", "default",
		"1", "0", "2", "100", "msec", "sec", "secs", "min", "hour", "milliseconds", "1.5", "-1", "99999999999"}
	metric := []string{"hinv.ncpu", "kernel.all.load", "kernel.all.cpu", "disk.dev.read", "no.such", "mem.physmem",
		"kernel.all.load [1]", "kernel.all.load [\"5 minute\", 15]", "kernel.all.load [ 99 \"nope\" ]",
		"disk.dev.read [vda]", "hinv.ncpu [1]", "kernel", "on", "a-b", "\"str\"", "42", "x."}
	punct := []string{"{", "}", ",", "[", "]", "\n", "\n", "\n", " ", "# comment\n", "@", ";", ":", "\t", "\r\n"}
	access := []string{"[access]", "allow", "disallow", "*", "localhost", "10.*", "127.0.0.1", "local:*",
		"unix:/x", ":", "all", "except", "enquire", "advisory", "mandatory", ";", ",", "\n"}
	dir := t.TempDir()
	pick := func(s []string) string { return s[rng.Intn(len(s))] }
	for k := 0; k < n; k++ {
		var b strings.Builder
		for st := rng.Intn(4); st >= 0; st-- {
			// mostly well-formed statements with random damage
			b.WriteString(pick([]string{"log mandatory on ", "log advisory on ", "on ", "log mandatory off ", "log mandatory maybe ", "log ", "mandatory on every "}))
			b.WriteString(pick(stmt) + " ")
			if rng.Intn(3) > 0 {
				b.WriteString(pick([]string{"sec ", "msec ", "min ", "hour ", "once ", ""}))
			}
			if rng.Intn(2) == 0 {
				b.WriteString("{")
				for m := rng.Intn(4); m >= 0; m-- {
					b.WriteString(" " + pick(metric))
					if rng.Intn(4) == 0 {
						b.WriteString(pick(punct))
					}
				}
				if rng.Intn(8) > 0 {
					b.WriteString(" }")
				}
			} else {
				b.WriteString(pick(metric))
			}
			if rng.Intn(6) == 0 {
				b.WriteString(" " + pick(stmt))
			}
			b.WriteString(pick(punct[5:8]))
		}
		if rng.Intn(4) == 0 {
			b.WriteString("[access]\n")
			for r := rng.Intn(3); r >= 0; r-- {
				b.WriteString(pick([]string{"allow ", "disallow "}))
				for h := rng.Intn(2); h >= 0; h-- {
					b.WriteString(pick(access[3:9]))
					if h > 0 {
						b.WriteString(", ")
					}
				}
				b.WriteString(" : ")
				b.WriteString(pick([]string{"all", "all except enquire", "enquire", "advisory, mandatory", "mandatory"}))
				if rng.Intn(10) > 0 {
					b.WriteString(";")
				}
				b.WriteString("\n")
			}
		}
		src := b.String()
		name := fmt.Sprintf("r%03d.conf", k)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantRC := realCheck(t, pmlogger, dir, name)
		var got bytes.Buffer
		var rc int
		var err error
		inDir(t, dir, func() {
			rc, _, _, err = Check(&got, []byte(src), name, ns, CheckOptions{NotifyPrefix: testNotify})
		})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		if got.String() != want || rc != wantRC {
			t.Errorf("case %d %q:\n--- pcpkit (exit %d)\n%s--- real pmlogger (exit %d)\n%s", k, src, rc, got.String(), wantRC, want)
		}
	}
}

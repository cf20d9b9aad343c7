package pmlogger

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// runMain runs Main in dir with the fake source.
func runMain(t *testing.T, dir string, args ...string) (stdout, stderr string, rc int) {
	t.Helper()
	t.Setenv("TZ", "UTC")
	// The pmlc control files (map file, socket) go to the test's
	// directory, not the system's.
	t.Setenv("PCP_TMP_DIR", dir)
	t.Setenv("PCP_RUN_DIR", dir)
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb strings.Builder
	rc = Main(args, &out, &errb, fakeSources(10*time.Millisecond, false))
	return out.String(), errb.String(), rc
}

// TestMainUsageErrors compares the command line errors with the real
// pmlogger's (they happen before any connection).
func TestMainUsageErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c"), []byte("log mandatory on 1 sec fake.counter\n"), 0o644)
	cases := [][]string{
		{"-V", "4", "-c", "c", "x"},
		{"-t", "1x", "-c", "c", "x"},
		{"-s", "1.5K", "-c", "c", "x"},
		{"-s", "10bogus", "-c", "c", "x"},
		{"-v", "0", "-c", "c", "x"},
		{"-x", "abc", "-c", "c", "x"},
		{"--bogus", "-c", "c", "x"},
		{"--l", "x"},
		{"--n", "x"},
		{"-c", "c", "x", "y"},
		{"-c", "c"},
		{"-?"},
		{"-Z"},
	}
	real := testenv.FindRealTool("pmlogger")
	for _, args := range cases {
		_, errb, rc := runMain(t, dir, args...)
		if rc != 1 || !strings.Contains(errb, "Usage: pmlogger [options] archive") {
			t.Errorf("%q: rc %d\n%s", args, rc, errb)
		}
		if real == "" {
			continue
		}
		_, rerr, rrc := testenv.RunCommand(t, dir, loggerEnv(), real, args...)
		if string(rerr) != errb || rrc != rc {
			t.Errorf("%q:\npcpkit rc %d:\n%s\nreal rc %d:\n%s", args, rc, errb, rrc, rerr)
		}
	}
}

var (
	ctimeRe = regexp.MustCompile(`[A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9]\d \d\d:\d\d:\d\d( \d{4})?`)
	pidRe   = regexp.MustCompile(`pmlogger\(\d+\)`)
)

func normalizeLog(s string) string {
	s = ctimeRe.ReplaceAllString(s, "DATE")
	return pidRe.ReplaceAllString(s, "pmlogger(PID)")
}

func TestMainLogFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c"), []byte("log mandatory on 10 msec { fake.counter fake.seq }\nlog mandatory on once fake.string\n"), 0o644)
	_, errb, rc := runMain(t, dir, "-c", "c", "-s", "4", "-r", "a1")
	if rc != 0 || errb != "" {
		t.Fatalf("rc %d: %s", rc, errb)
	}
	log, err := os.ReadFile(filepath.Join(dir, "pmlogger.log"))
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	want := `Log for pmlogger on ` + host + ` started DATE

[DATE] pmlogger(PID) Info: Start
preprocessor cmd: /usr/lib/pcp/bin/pmcpp -rs -I /var/lib/pcp/config/pmlogger c
Config parsed
Starting logger for host "fakehost" via "fake:"
Archive basename: a1

Metric fake.string logged once: 52 bytes

Group [2 metrics] {
	fake.seq
	fake.counter
} logged every 0.010 sec: 72 bytes or 593.26 Mbytes/day
[DATE] pmlogger(PID) Info: pmlogger: Sample limit reached, exiting

Log finished DATE
`
	if got := normalizeLog(string(log)); got != want {
		t.Errorf("log\n got %q\nwant %q", got, want)
	}
	checkReal(t, filepath.Join(dir, "a1"))

	// Again: the archive exists.
	_, _, rc = runMain(t, dir, "-c", "c", "-s", "4", "-l", "again.log", "a1")
	log, _ = os.ReadFile(filepath.Join(dir, "again.log"))
	if rc != 1 || !strings.Contains(string(log), "Starting logger for host \"fakehost\" via \"fake:\"\n__pmLogNewFile: \"a1.index\" already exists, not over-written\n__pmLogCreate(fakehost, a1, ...): File exists\n\nLog finished ") {
		t.Errorf("rc %d\n%s", rc, log)
	}

	// A missing configuration file.
	_, errb, rc = runMain(t, dir, "-c", "nonexist", "-l", "-", "a2")
	if rc != 1 || !strings.Contains(errb, "pmlogger: Cannot open config file \"nonexist\": No such file or directory\n\nLog finished ") {
		t.Errorf("rc %d\n%s", rc, errb)
	}
	if _, err := os.Stat(filepath.Join(dir, "a2.meta")); err == nil {
		t.Errorf("an archive was made")
	}

	// -C checks and exits: no header, no archive.
	_, errb, rc = runMain(t, dir, "-C", "-c", "c")
	if rc != 0 || normalizeLog(errb) != "[DATE] pmlogger(PID) Info: Start\npreprocessor cmd: /usr/lib/pcp/bin/pmcpp -rs -I /var/lib/pcp/config/pmlogger c\nConfig parsed\n" {
		t.Errorf("-C: rc %d\n%q", rc, errb)
	}

	// A log file that cannot be created: the log goes to stderr.
	_, errb, rc = runMain(t, dir, "-c", "c", "-s", "1", "-l", "/nonexist/dir/log", "a3")
	if rc != 0 || !strings.HasPrefix(normalizeLog(errb), "pmlogger: cannot open log \"/nonexist/dir/log\" for writing : No such file or directory\nLog for pmlogger on "+host+" started DATE\n\npmlogger: Warning: log file (/nonexist/dir/log) creation failed\n") {
		t.Errorf("rc %d\n%s", rc, errb)
	}

	// An archive in a directory that does not exist.
	_, errb, rc = runMain(t, dir, "-c", "c", "-s", "1", "-l", "-", "/nonexist/dir/a4")
	if rc != 1 || !strings.Contains(errb, "__pmLogNewFile: failed to create \"/nonexist/dir/a4.index\": No such file or directory\n__pmLogCreate(fakehost, /nonexist/dir/a4, ...): No such file or directory\n") {
		t.Errorf("rc %d\n%s", rc, errb)
	}
}

// TestMainBadConfig: a configuration error is the parser's "[line N]"
// message, exit 1 and no archive.
func TestMainBadConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad"), []byte("# comment\nlog mandatory on 1.5 sec fake.counter\n"), 0o644)
	_, errb, rc := runMain(t, dir, "-c", "bad", "-l", "-", "a")
	want := "Specification error in configuration file (bad)\n[line 2] Unexpected character '.'\n\nLog finished "
	if rc != 1 || !strings.Contains(errb, want) {
		t.Errorf("rc %d\n%s", rc, errb)
	}
	// The same as the real pmlogger -C (when it can reach a pmcd).
	if real := testenv.FindRealTool("pmlogger"); real != "" {
		_, rerr, rrc := testenv.RunCommand(t, dir, loggerEnv(), real, "-C", "-c", "bad")
		_, perr, prc := runMain(t, dir, "-C", "-c", "bad")
		if !strings.Contains(string(rerr), "Cannot connect") && (normalizeLog(string(rerr)) != normalizeLog(perr) || rrc != prc) {
			t.Errorf("-C of a bad configuration:\nreal rc %d\n%s\npcpkit rc %d\n%s", rrc, rerr, prc, perr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.meta")); err == nil {
		t.Errorf("an archive was made")
	}
}

// TestMainBuiltinFallback: with no -h and no PCP installed, the command
// says so on stderr and records from the built-in collector; -h @ and
// --builtin choose it directly. (With PCP installed and no pmcd: see
// TestInteropNoPMCD.)
func TestMainBuiltinFallback(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c"), []byte("log mandatory on 10 msec { kernel.all.load hinv.ncpu kernel.all.cpu.user }\n"), 0o644)
	srcs := Sources{
		DialPMCD: func(spec string) (source.Source, error) { return pmcd.Dial(spec) },
		Builtin:  func() (source.Source, error) { return collector.New() },
	}
	t.Setenv("PMCD_PORT", "1")
	t.Setenv("PMCD_SOCKET", filepath.Join(dir, "no-such-socket"))
	run := func(args ...string) (string, string, int) {
		t.Helper()
		t.Setenv("TZ", "UTC")
		// no PCP installed while it runs (the real tools that check
		// the archive need theirs)
		t.Setenv("PCP_CONF", filepath.Join(dir, "no-pcp.conf"))
		defer os.Unsetenv("PCP_CONF")
		wd, _ := os.Getwd()
		os.Chdir(dir)
		defer os.Chdir(wd)
		var out, errb strings.Builder
		rc := Main(args, &out, &errb, srcs)
		return out.String(), errb.String(), rc
	}
	_, errb, rc := run("-c", "c", "-s", "3", "-l", "f.log", "f")
	log, _ := os.ReadFile(filepath.Join(dir, "f.log"))
	if rc != 0 || errb != "pmlogger: PCP is not installed (no "+filepath.Join(dir, "no-pcp.conf")+"): recording from the built-in collector\n" {
		t.Errorf("rc %d, stderr %q", rc, errb)
	}
	if !strings.Contains(string(log), "Starting logger for host \"") || !strings.Contains(string(log), "\" via \"@\"\n") {
		t.Errorf("log:\n%s", log)
	}
	checkReal(t, filepath.Join(dir, "f"))
	for i, args := range [][]string{{"-h", "@"}, {"--builtin"}} {
		base := fmt.Sprintf("b%d", i)
		_, errb, rc := run(append(args, "-c", "c", "-s", "2", "-l", "-", base)...)
		if rc != 0 || strings.Contains(errb, "not installed") || !strings.Contains(errb, "via \"@\"") {
			t.Errorf("%q: rc %d\n%s", args, rc, errb)
		}
		checkReal(t, filepath.Join(dir, base))
	}
}

// TestMainPrimary: -P makes the primary links and says "primary" in the
// log; a second primary while one lives stops with the real tool's
// error after creating its archive (the real pmlogger's log, seen with
// two real -P loggers in one PCP_TMP_DIR: "Starting primary logger
// ...", "Archive basename: pp2", "pmlogger: ERROR: there is already a
// primary pmlogger running, pid N linkfile=DIR/pmlogger/primary", exit
// 1, pp2.0, pp2.index and pp2.meta left).
func TestMainPrimary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c"), []byte("log mandatory on 10 msec { fake.counter }\n"), 0o644)
	_, errb, rc := runMain(t, dir, "-P", "-c", "c", "-s", "2", "-l", "p1.log", "p1")
	log, _ := os.ReadFile(filepath.Join(dir, "p1.log"))
	if rc != 0 || !strings.Contains(string(log), "Starting primary logger for host \"fakehost\" via \"fake:\"\n") {
		t.Fatalf("rc %d: %s\n%s", rc, errb, log)
	}
	if _, err := os.Lstat(filepath.Join(dir, "pmlogger", "primary")); err == nil {
		t.Errorf("primary link left after exit")
	}
	// A live primary: this test's own process.
	os.MkdirAll(filepath.Join(dir, "pmlogger"), 0o755)
	self := strconv.Itoa(os.Getpid())
	link := filepath.Join(dir, "pmlogger", "primary")
	if err := os.Symlink(filepath.Join(dir, "pmlogger", self), link); err != nil {
		t.Fatal(err)
	}
	_, _, rc = runMain(t, dir, "-P", "-c", "c", "-s", "2", "-l", "p2.log", "p2")
	log, _ = os.ReadFile(filepath.Join(dir, "p2.log"))
	want := "Starting primary logger for host \"fakehost\" via \"fake:\"\nArchive basename: p2\npmlogger: ERROR: there is already a primary pmlogger running, pid " + self + " linkfile=" + link + "\n\nLog finished "
	if rc != 1 || !strings.Contains(string(log), want) {
		t.Errorf("second primary: rc %d, log\n%s\nwant it to contain\n%s", rc, log, want)
	}
	for _, ext := range []string{".0", ".index", ".meta"} {
		if _, err := os.Stat(filepath.Join(dir, "p2"+ext)); err != nil {
			t.Errorf("p2%s: %v", ext, err)
		}
	}
}

// TestMainWriteLag: --write-lag takes a PCP interval (a bad one is the
// -t error, named for the option, and the usage), and 0 is allowed.
func TestMainWriteLag(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c"), []byte("log mandatory on 1 sec fake.counter\n"), 0o644)
	_, errb, rc := runMain(t, dir, "--write-lag=1x", "-c", "c", "x")
	if rc != 1 || !strings.HasPrefix(errb, "pmlogger: illegal --write-lag argument\n") || !strings.Contains(errb, "Usage: pmlogger [options] archive") {
		t.Errorf("--write-lag=1x: rc %d\n%s", rc, errb)
	}
	o := &cliOptions{writeLag: DefaultWriteLag}
	var e, p strings.Builder
	o.parse([]string{"--write-lag", "250 msec", "x"}, &e, &p)
	if o.errors != 0 || o.writeLag != 250*time.Millisecond {
		t.Errorf("--write-lag 250 msec: %v, %d errors: %s%s", o.writeLag, o.errors, e.String(), p.String())
	}
	o = &cliOptions{writeLag: DefaultWriteLag}
	o.parse([]string{"--write-lag=0", "x"}, &e, &p)
	if o.errors != 0 || o.writeLag != 0 {
		t.Errorf("--write-lag=0: %v, %d errors", o.writeLag, o.errors)
	}
}

package pmlogger

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// sideBySide runs the real pmlogger and pcpkit's with the same arguments
// (base, the archive, last: "BASE" in args is replaced with each tool's)
// in env, and returns their log files, stderr and exit codes by tool
// ("real", "pcpkit").
type sideRun struct {
	base   string // the archive's base name
	log    string // the log file, normalised
	stderr string
	rc     int
}

// interopSetup skips a slow test in -short mode and without a local
// pmcd (fails with PCP_INTEROP=1), and writes the configuration text as
// name in a new directory.
func interopSetup(t *testing.T, name, text string) (dir, cfg string) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow")
	}
	needPMCD(t)
	dir = t.TempDir()
	cfg = filepath.Join(dir, name)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// sideRuns are the runs of sideBySide, by tool.
type sideRuns map[string]sideRun

// compare reports a difference of exit status, log file or stderr
// between the two tools' runs.
func (runs sideRuns) compare(t *testing.T, what string) {
	t.Helper()
	r, p := runs["real"], runs["pcpkit"]
	if p.rc != r.rc || p.log != r.log || p.stderr != r.stderr {
		t.Errorf("%s:\nreal rc %d:\n%s%s\npcpkit rc %d:\n%s%s", what, r.rc, r.stderr, r.log, p.rc, p.stderr, p.log)
	}
}

func sideBySide(t *testing.T, dir string, env []string, args ...string) sideRuns {
	t.Helper()
	real := testenv.RealTool(t, "pmlogger")
	exe := filepath.Join(dir, "pmlogger")
	if _, err := os.Stat(exe); err != nil {
		exe = testenv.BuildCommand(t, "pmlogger", dir)
	}
	out := sideRuns{}
	for _, tool := range []struct{ name, prog string }{{"real", real}, {"pcpkit", exe}} {
		base := filepath.Join(dir, tool.name)
		var a []string
		for _, s := range args {
			a = append(a, strings.ReplaceAll(s, "BASE", base))
		}
		_, errb, rc := testenv.RunCommand(t, dir, env, tool.prog, a...)
		log, _ := os.ReadFile(base + ".log")
		s := normalizeLog(string(log))
		s = strings.ReplaceAll(s, base, "BASE")
		out[tool.name] = sideRun{base: base, log: s, stderr: normalizeLog(string(errb)), rc: rc}
	}
	return out
}

// TestInteropSystemDerived: with PCP_DERIVED_CONFIG unset both pmloggers
// load the system's derived metrics ($PCP_VAR_DIR/config/derived), and a
// non-leaf name of the configuration expands into them: the same metrics
// in the archive (names, PMIDs, order) and the same help text, the
// derived metrics' own included.
func TestInteropSystemDerived(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	testenv.RealTool(t, "pminfo")
	needPMCD(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sys.config")
	os.WriteFile(cfg, []byte("log mandatory on once { kernel.cpu.util disk.dev kernel.all.load }\n"), 0o644)
	runs := sideBySide(t, dir, loggerEnv("PCP_DERIVED_CONFIG"), "-c", cfg, "-s", "1", "-l", "BASE.log", "BASE")
	for name, r := range runs {
		if r.rc != 0 {
			t.Fatalf("%s: rc %d\n%s%s", name, r.rc, r.stderr, r.log)
		}
	}
	if runs["real"].log != runs["pcpkit"].log {
		t.Errorf("log files differ\nreal:\n%s\npcpkit:\n%s", runs["real"].log, runs["pcpkit"].log)
	}
	// The archives read without derived metrics of the reader's own.
	rm, _, _ := testenv.RunReal(t, "pminfo", "-m", "-a", runs["real"].base)
	pm, _, _ := testenv.RunReal(t, "pminfo", "-m", "-a", runs["pcpkit"].base)
	if !bytes.Contains(rm, []byte("kernel.cpu.util.user PMID: 511.2048.")) {
		t.Fatalf("the real pmlogger did not log the system's kernel.cpu.util (is $PCP_VAR_DIR/config/derived there?):\n%s", rm)
	}
	if !bytes.Equal(rm, pm) {
		t.Errorf("pminfo -m differs\nreal:\n%s\npcpkit:\n%s", rm, pm)
	}
	rh, _, _ := testenv.RunReal(t, "pmdumplog", "-h", runs["real"].base)
	ph, _, _ := testenv.RunReal(t, "pmdumplog", "-h", runs["pcpkit"].base)
	if !bytes.Equal(rh, ph) {
		t.Errorf("pmdumplog -h differs\nreal:\n%s\npcpkit:\n%s", rh, ph)
	}
}

// TestInteropPmvalSystemDerived: pmval, with PCP_DERIVED_CONFIG unset,
// replays the system's derived metrics from an archive of their operands
// as the real one does.
func TestInteropPmvalSystemDerived(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	realVal := testenv.RealTool(t, "pmval")
	needPMCD(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ops.config")
	os.WriteFile(cfg, []byte("log mandatory on 100msec { kernel.all.cpu hinv.ncpu disk.dev }\n"), 0o644)
	real := testenv.RealTool(t, "pmlogger")
	base := filepath.Join(dir, "ops")
	if _, errb, rc := testenv.RunCommand(t, dir, loggerEnv(), real, "-c", cfg, "-s", "5", "-l", base+".log", base); rc != 0 {
		t.Fatalf("real pmlogger: rc %d: %s", rc, errb)
	}
	exe := testenv.BuildCommand(t, "pmval", dir)
	env := loggerEnv("PCP_DERIVED_CONFIG")
	for _, metric := range []string{"kernel.cpu.util.user", "disk.dev.await"} {
		ro, re, rrc := testenv.RunCommand(t, dir, env, realVal, "-a", base, "-t", "0.1", metric)
		po, pe, prc := testenv.RunCommand(t, dir, env, exe, "-a", base, "-t", "0.1", metric)
		if rrc != 0 {
			t.Fatalf("real pmval %s: rc %d: %s", metric, rrc, re)
		}
		if string(ro) != string(po) || string(re) != string(pe) || rrc != prc {
			t.Errorf("pmval %s differs\nreal (rc %d):\n%s%s\npcpkit (rc %d):\n%s%s", metric, rrc, ro, re, prc, po, pe)
		}
	}
}

// archiveSizes lists the sizes of an archive's three files ("-" for one
// that is not there).
func archiveSizes(base string) string {
	var out []string
	for _, suffix := range []string{".0", ".meta", ".index"} {
		fi, err := os.Stat(base + suffix)
		if err != nil {
			out = append(out, "-")
			continue
		}
		out = append(out, strconv.FormatInt(fi.Size(), 10))
	}
	return strings.Join(out, " ")
}

// TestInteropFinishArgument: a -T that does not parse stops the real
// pmlogger, after it created the archive's files (left empty), with the
// parser's message and exit status 1; a "-" interval ends the run at
// once.
func TestInteropFinishArgument(t *testing.T) {
	dir, cfg := interopSetup(t, "k.config", "log mandatory on 1sec { kernel.all.load }\n")
	for _, tc := range []struct {
		arg string
		rc  int
	}{{"xyz", 1}, {"-5", 1}, {"-5s", 1}, {"@garbage", 1}, {"-5sec", 0}, {"-10min", 0}} {
		sub := filepath.Join(dir, tc.arg)
		os.Mkdir(sub, 0o755)
		runs := sideBySide(t, sub, loggerEnv(), "-c", cfg, "-T", tc.arg, "-l", "BASE.log", "BASE")
		r, p := runs["real"], runs["pcpkit"]
		if r.rc != tc.rc {
			t.Fatalf("-T %q: the real pmlogger's rc is %d, not %d:\n%s", tc.arg, r.rc, tc.rc, r.log)
		}
		runs.compare(t, fmt.Sprintf("-T %q", tc.arg))
		if tc.rc != 0 {
			if rs, ps := archiveSizes(r.base), archiveSizes(p.base); rs != ps {
				t.Errorf("-T %q: archive file sizes: real %s, pcpkit %s", tc.arg, rs, ps)
			}
		}
	}
}

// TestInteropNothingToLog: a configuration without a logging statement
// stops pmlogger (not primary, no -L) before it creates the archive; with
// -L it runs.
func TestInteropNothingToLog(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needPMCD(t)
	dir := t.TempDir()
	for i, text := range []string{"", "# only a comment\n\n"} {
		cfg := filepath.Join(dir, fmt.Sprintf("empty%d.config", i))
		os.WriteFile(cfg, []byte(text), 0o644)
		sub := filepath.Join(dir, fmt.Sprint(i))
		os.Mkdir(sub, 0o755)
		runs := sideBySide(t, sub, loggerEnv(), "-c", cfg, "-l", "BASE.log", "BASE")
		r, p := runs["real"], runs["pcpkit"]
		if r.rc != 1 || !strings.Contains(r.log, "Nothing to log, and not the primary logger instance ... good-bye\n") {
			t.Fatalf("config %q: the real pmlogger: rc %d:\n%s", text, r.rc, r.log)
		}
		runs.compare(t, fmt.Sprintf("config %q", text))
		if rs, ps := archiveSizes(r.base), archiveSizes(p.base); rs != "- - -" || ps != rs {
			t.Errorf("config %q: archive file sizes: real %s, pcpkit %s", text, rs, ps)
		}
		// -L: it lingers (until -T ends it).
		runs = sideBySide(t, sub, loggerEnv(), "-L", "-T", "1sec", "-c", cfg, "-l", "BASE-L.log", "BASE-L")
		if runs["pcpkit"].rc != 0 || runs["pcpkit"].log != runs["real"].log {
			t.Errorf("config %q, -L:\nreal rc %d:\n%s\npcpkit rc %d:\n%s", text, runs["real"].rc, runs["real"].log, runs["pcpkit"].rc, runs["pcpkit"].log)
		}
	}
}

// TestInteropIntervalEnv: $PMLOGGER_INTERVAL (whole seconds) is the
// default interval; -t overrides it.
func TestInteropIntervalEnv(t *testing.T) {
	dir, cfg := interopSetup(t, "default.config", "log mandatory on default { kernel.all.load }\n")
	for _, tc := range []struct {
		env  string
		args []string
		want time.Duration
	}{{"1", nil, time.Second}, {"1xyz", []string{"-t", "300msec"}, 300 * time.Millisecond}} {
		sub := filepath.Join(dir, tc.env)
		os.Mkdir(sub, 0o755)
		args := append(append([]string{}, tc.args...), "-c", cfg, "-s", "3", "-l", "BASE.log", "BASE")
		runs := sideBySide(t, sub, loggerEnv("PMLOGGER_INTERVAL="+tc.env), args...)
		for _, name := range []string{"real", "pcpkit"} {
			r := runs[name]
			if r.rc != 0 {
				t.Fatalf("%s: rc %d\n%s", name, r.rc, r.log)
			}
			_, recs := readRecords(t, r.base)
			var stamps []pmapi.Timestamp
			for _, rec := range recs {
				if len(rec.VSets) == 1 && rec.VSets[0].PMID == pmapi.NewPMID(60, 2, 0) {
					stamps = append(stamps, rec.Timestamp)
				}
			}
			if len(stamps) != 3 {
				t.Fatalf("%s: %d records of kernel.all.load, want 3", name, len(stamps))
			}
			// (a wide margin: a loaded machine delays samples, and the
			// point is which interval applies, 1 s, 300 msec or the
			// 60 s default)
			gap := time.Duration((stamps[2].Sec-stamps[1].Sec)*1e9 + int64(stamps[2].Nsec-stamps[1].Nsec))
			if gap < tc.want*6/10 || gap > tc.want*16/10 {
				t.Errorf("PMLOGGER_INTERVAL=%s %q: %s logs every %v, want %v", tc.env, tc.args, name, gap, tc.want)
			}
		}
	}
}

// TestInteropPidOption: -p PID stops the recording when the process has
// gone ("process from -p has vanished"); a PID that is not a number or
// not a process is an option error.
func TestInteropPidOption(t *testing.T) {
	dir, cfg := interopSetup(t, "k.config", "log mandatory on 300msec { kernel.all.load }\n")
	real := testenv.RealTool(t, "pmlogger")
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	logs := map[string]string{}
	for name, prog := range map[string]string{"real": real, "pcpkit": exe} {
		sleeper := exec.Command("sleep", "1")
		if err := sleeper.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { sleeper.Wait(); close(done) }()
		base := filepath.Join(dir, name)
		_, errb, rc := testenv.RunCommand(t, dir, loggerEnv(), prog, "-p", strconv.Itoa(sleeper.Process.Pid), "-c", cfg, "-l", base+".log", base)
		<-done
		log, _ := os.ReadFile(base + ".log")
		logs[name] = strings.ReplaceAll(normalizeLog(string(log)), base, "BASE")
		if rc != 0 || !strings.Contains(logs[name], "Info: pmlogger: process from -p has vanished, exiting") {
			t.Errorf("%s did not stop for -p: rc %d\n%s%s", name, rc, errb, logs[name])
		}
	}
	if logs["real"] != logs["pcpkit"] {
		t.Errorf("-p:\nreal:\n%s\npcpkit:\n%s", logs["real"], logs["pcpkit"])
	}
	for _, arg := range []string{"12x", "2147483600"} {
		runs := sideBySide(t, dir, loggerEnv(), "-p", arg, "-c", cfg, "-l", "BASE.log", "BASE")
		r, p := runs["real"], runs["pcpkit"]
		if r.rc != 1 || p.rc != 1 || p.stderr != r.stderr {
			t.Errorf("-p %s:\nreal rc %d:\n%s\npcpkit rc %d:\n%s", arg, r.rc, r.stderr, p.rc, p.stderr)
		}
	}
}

// TestInteropNotify: -N sends systemd's notices to $NOTIFY_SOCKET, a unix
// datagram socket: READY=1 with MAINPID once recording, STOPPING=1 at the
// end; nothing without -N.
func TestInteropNotify(t *testing.T) {
	dir, cfg := interopSetup(t, "k.config", "log mandatory on 200msec { kernel.all.load }\n")
	sock := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	received := func() []string {
		var msgs []string
		buf := make([]byte, 4096)
		for {
			conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, err := conn.Read(buf)
			if err != nil {
				return msgs
			}
			msgs = append(msgs, regexp.MustCompile(`MAINPID=\d+`).ReplaceAllString(string(buf[:n]), "MAINPID=PID"))
		}
	}
	env := loggerEnv("NOTIFY_SOCKET=" + sock)
	for _, notify := range []bool{true, false} {
		args := []string{"-c", cfg, "-s", "2", "-l", "BASE.log", "BASE"}
		if notify {
			args = append([]string{"-N"}, args...)
		}
		sub := filepath.Join(dir, fmt.Sprint(notify))
		os.Mkdir(sub, 0o755)
		// sideBySide runs the real tool, then pcpkit's: their notices
		// arrive in that order.
		runs := sideBySide(t, sub, env, args...)
		for name, r := range runs {
			if r.rc != 0 {
				t.Fatalf("%s: rc %d\n%s", name, r.rc, r.log)
			}
		}
		got := strings.Join(received(), "|")
		want := ""
		if notify {
			want = "READY=1\nMAINPID=PID|STOPPING=1|READY=1\nMAINPID=PID|STOPPING=1"
		}
		if got != want {
			t.Errorf("-N %v: notices %q, want %q (the real pmlogger's, then pcpkit's)", notify, got, want)
		}
	}
}

// TestInteropNoPMCD: where PCP is installed but no pmcd answers, both
// pmloggers say so in the log and exit 1 (pcpkit's built-in collector is
// not taken); without a PCP installation pcpkit's records from the
// built-in collector and says so on stderr.
func TestInteropNoPMCD(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "k.config")
	os.WriteFile(cfg, []byte("log mandatory on 100msec { kernel.all.load }\n"), 0o644)
	noPMCD := []string{"PMCD_SOCKET=" + filepath.Join(dir, "no.socket"), "PMCD_PORT=1"}
	for _, host := range [][]string{nil, {"-h", "localhost"}} {
		args := append(append([]string{}, host...), "-c", cfg, "-s", "2", "-l", "BASE.log", "BASE")
		runs := sideBySide(t, dir, loggerEnv(noPMCD...), args...)
		r := runs["real"]
		if r.rc != 1 || !strings.Contains(r.log, "Cannot connect to PMCD on host") {
			t.Fatalf("%q: the real pmlogger: rc %d\n%s", host, r.rc, r.log)
		}
		runs.compare(t, fmt.Sprintf("%q", host))
	}
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc: no built-in collector")
	}
	exe := filepath.Join(dir, "pmlogger")
	base := filepath.Join(dir, "builtin")
	env := loggerEnv(append(noPMCD, "PCP_CONF="+filepath.Join(dir, "no-pcp.conf"))...)
	_, errb, rc := testenv.RunCommand(t, dir, env, exe, "-c", cfg, "-s", "2", "-l", base+".log", base)
	log, _ := os.ReadFile(base + ".log")
	want := "pmlogger: PCP is not installed (no " + filepath.Join(dir, "no-pcp.conf") + "): recording from the built-in collector\n"
	if rc != 0 || string(errb) != want || !strings.Contains(string(log), "via \"@\"") {
		t.Errorf("without PCP: rc %d\nstderr:\n%s\nlog:\n%s", rc, errb, log)
	}
}

// TestInteropStartupCPU: pmlogger's start-up (connecting, resolving a
// configuration of about 1,100 metrics, writing their metadata and one
// record) takes no more CPU time (user + system) than the real one's,
// with PCP_DERIVED_CONFIG unset (the system's derived metrics loaded) and
// empty. The two run in turns, 5 times each; the least CPU time of each
// is compared (a busy machine only adds to a run's time, so the least
// is the one least disturbed; docs/benchmarks.md has the paired runs).
func TestInteropStartupCPU(t *testing.T) {
	dir, cfg := interopSetup(t, "big.config", "log mandatory on 10 sec { kernel mem disk network }\n")
	real := testenv.RealTool(t, "pmlogger")
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	for _, env := range []string{"PCP_DERIVED_CONFIG", "PCP_DERIVED_CONFIG="} {
		cpu := map[string][]time.Duration{}
		for i := 0; i < 5; i++ {
			for _, tool := range []struct{ name, prog string }{{"real", real}, {"pcpkit", exe}} {
				base := filepath.Join(dir, fmt.Sprintf("%s-%d", tool.name, i))
				cmd := exec.Command(tool.prog, "-c", cfg, "-s", "1", "-l", base+".log", base)
				cmd.Env = loggerEnv(env)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tool.name, err, out)
				}
				st := cmd.ProcessState
				cpu[tool.name] = append(cpu[tool.name], st.UserTime()+st.SystemTime())
				os.Remove(base + ".0")
				os.Remove(base + ".meta")
				os.Remove(base + ".index")
			}
		}
		r, p := slices.Min(cpu["real"]), slices.Min(cpu["pcpkit"])
		t.Logf("%s: start-up CPU (least of 5): real %v, pcpkit %v", env, r, p)
		if p > r {
			t.Errorf("%s: pcpkit's start-up takes %v of CPU, the real pmlogger's %v (all runs: real %v, pcpkit %v)", env, p, r, cpu["real"], cpu["pcpkit"])
		}
	}
}

// derivedUnsetEnv set to 1 runs this package's interop tests with
// PCP_DERIVED_CONFIG unset for both pmloggers (the system's derived
// metrics loaded), where a test does not set it itself; see
// TestInteropDerivedUnset.
const derivedUnsetEnv = "PCPKIT_TEST_DERIVED_UNSET"

// loggerEnv is testenv.RealEnv(extra...), without PCP_DERIVED_CONFIG
// when derivedUnsetEnv is 1 and extra does not set it.
func loggerEnv(extra ...string) []string {
	if os.Getenv(derivedUnsetEnv) == "1" {
		set := false
		for _, kv := range extra {
			if k, _, _ := strings.Cut(kv, "="); k == "PCP_DERIVED_CONFIG" {
				set = true
			}
		}
		if !set {
			extra = append([]string{"PCP_DERIVED_CONFIG"}, extra...)
		}
	}
	return testenv.RealEnv(extra...)
}

// TestInteropDerivedUnset runs the interop tests of the package once
// more, in a test binary of its own, with PCP_DERIVED_CONFIG unset
// (derivedUnsetEnv): the default environment of a PCP host, where both
// pmloggers load the system's derived metrics.
func TestInteropDerivedUnset(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	if os.Getenv(derivedUnsetEnv) == "1" {
		t.Skip("this is the run with PCP_DERIVED_CONFIG unset")
	}
	testenv.RealTool(t, "pmlogger")
	needPMCD(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestInterop", "-test.skip", "^TestInteropStartupCPU$|^TestInterop638", "-test.count=1")
	cmd.Env = append(os.Environ(), derivedUnsetEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("the interop tests with PCP_DERIVED_CONFIG unset: %v\n%s", err, out)
	}
}

// TestInteropNamespaceNoPMDA: with -n, names come from the PMNS file;
// metrics of a domain pmcd has no PMDA for get a warning each and the
// others are logged; a file that cannot be loaded stops pmlogger.
func TestInteropNamespaceNoPMDA(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needPMCD(t)
	dir := t.TempDir()
	pmnsFile := filepath.Join(dir, "local.pmns")
	os.WriteFile(pmnsFile, []byte("root {\n    hinv\n    foo\n}\nhinv {\n    ncpu\t60:0:32\n}\nfoo {\n    bar\t200:0:0\n    baz\t200:0:1\n}\n"), 0o644)
	cfg := filepath.Join(dir, "ns.config")
	os.WriteFile(cfg, []byte("log mandatory on 200 msec { hinv.ncpu foo kernel.all.load }\n"), 0o644)
	for i, file := range []string{pmnsFile, filepath.Join(dir, "nosuch.pmns")} {
		sub := filepath.Join(dir, fmt.Sprint(i))
		os.Mkdir(sub, 0o755)
		runs := sideBySide(t, sub, loggerEnv(), "-n", file, "-c", cfg, "-s", "2", "-l", "BASE.log", "BASE")
		r, p := runs["real"], runs["pcpkit"]
		if i == 0 && (r.rc != 0 || !strings.Contains(r.log, `Description unavailable for metric "foo.bar" ... not logged`)) {
			t.Fatalf("the real pmlogger: rc %d\n%s", r.rc, r.log)
		}
		runs.compare(t, "-n "+file)
		if r.rc != 0 {
			continue
		}
		_, rrecs := readRecords(t, r.base)
		_, precs := readRecords(t, p.base)
		if len(rrecs) != len(precs) {
			t.Errorf("%d records real, %d pcpkit", len(rrecs), len(precs))
		}
		for k := 0; k < len(rrecs) && k < len(precs); k++ {
			if rs, ps := shape(rrecs[k]), shape(precs[k]); rs != ps {
				t.Errorf("record %d:\nreal   %s\npcpkit %s", k, rs, ps)
			}
		}
	}
}

// TestInteropInstanceProfile: each fetch goes with its instance profile,
// so a metric whose PMDA returns values only for instances asked for
// explicitly (the sample PMDA's sample.needprofile, "Explicit instance
// identifier(s) required" without one) is logged as by the real
// pmlogger. Skipped where the sample PMDA is not installed.
func TestInteropInstanceProfile(t *testing.T) {
	dir, cfg := interopSetup(t, "profile.config",
		"log mandatory on 200 msec { sample.needprofile [ \"colleen\" \"emma\" ] kernel.all.load [ \"5 minute\" ] hinv.ncpu }\n")
	c, err := pmcd.Dial("local:")
	if err != nil {
		t.Fatal(err)
	}
	pmids, err := c.LookupNames([]string{"sample.needprofile"})
	c.Close()
	if err != nil || pmids[0] == pmapi.PMIDNull {
		t.Skip("no sample PMDA (sample.needprofile) in the local pmcd")
	}
	runs := sideBySide(t, dir, loggerEnv(), "-c", cfg, "-s", "3", "-l", "BASE.log", "BASE")
	runs.compare(t, "instance profile")
	r, p := runs["real"], runs["pcpkit"]
	_, rrecs := readRecords(t, r.base)
	_, precs := readRecords(t, p.base)
	if len(rrecs) != len(precs) {
		t.Errorf("%d records real, %d pcpkit", len(rrecs), len(precs))
	}
	values := false
	for k := 0; k < len(rrecs) && k < len(precs); k++ {
		rs, ps := shape(rrecs[k]), shape(precs[k])
		if rs != ps {
			t.Errorf("record %d:\nreal   %s\npcpkit %s", k, rs, ps)
		}
		values = values || strings.Contains(rs, pmids[0].String()+":[0][2]")
	}
	if !values {
		t.Errorf("the real pmlogger logged no values of sample.needprofile")
	}
}

package pmval

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmcd"
)

// needPMCD skips the test (fails it with PCP_INTEROP=1) when there is no
// pmcd on the local host.
func needPMCD(t *testing.T) {
	t.Helper()
	c, err := pmcd.Dial("local:")
	if err == nil {
		c.Close()
		return
	}
	if testenv.Interop() {
		t.Fatalf("PCP_INTEROP=1 but no local pmcd answers: %v", err)
	}
	t.Skipf("no local pmcd answers (%v; set PCP_INTEROP=1 to make this a failure): skipping", err)
}

// liveNumber is a numeric field of a live report (a value, a rate, or a
// timestamp's part), with "?" and "!" for the columns without a value,
// and the spaces around it (pmval pads a rate on the right by the
// number of its digits after the point).
var liveNumber = regexp.MustCompile(` *([-+]?[0-9]+(\.[0-9]*)?(E[-+][0-9]+)?|[?!]) *`)

// maskLive masks the numeric fields of the value lines (those with no
// lower-case letter: not the header, nor the instance names) of a report
// whose values change between runs; the lengths of the lines are kept so
// that the column layout is still compared.
func maskLive(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.IndexFunc(l, unicode.IsLower) >= 0 {
			continue
		}
		lines[i] = liveNumber.ReplaceAllString(l, "N") + " |" + strings.Repeat("-", len(l))
	}
	return strings.Join(lines, "\n")
}

// TestInteropLive runs the real pmval and pcpkit's live against the local
// pmcd: output byte for byte for metrics whose values cannot change,
// output with the numbers masked (same lines, same lengths) for those
// that can, and stderr and exit status for both and for the errors.
func TestInteropLive(t *testing.T) {
	real := testenv.RealTool(t, "pmval")
	needPMCD(t)
	dir := t.TempDir()
	type tc struct {
		args     []string
		changing bool // values may differ between the two runs
	}
	short := []string{"-s", "3", "-t", "0.2"}
	cases := []tc{
		// constant values: byte for byte
		{args: append(short, "hinv.ncpu")},
		{args: append(short, "kernel.uname.release")},
		{args: append(short, "pmcd.version")},
		{args: append(short, "hinv.physmem")},
		{args: append(short, "pmcd.numagents")},
		{args: append(short, "-h", "localhost", "hinv.ncpu")},
		{args: append(short, "-h", "local:", "hinv.ncpu")},
		{args: append(short, "-h", "127.0.0.1", "hinv.pagesize")},
		{args: append(short, "localhost:hinv.ncpu")},
		{args: append(short, "-Z", "UTC", "hinv.ncpu")},
		{args: append(short, "-z", "hinv.ncpu")},
		{args: append(short, "-X", "-w", "8", "hinv.ncpu")},
		{args: append(short, "-r", "hinv.ncpu")},
		{args: []string{"-s", "2", "-t", "0", "hinv.ncpu"}},
		{args: []string{"-s", "1", "hinv.ncpu"}},
		{args: []string{"-s", "0", "hinv.ncpu"}},
		{args: []string{"-s", "1", "-i", "a", "hinv.ncpu"}},
		{args: append(short, "disk.dm.read")}, // no instances: "No values available"
		{args: append(short, "-r", "disk.dm.read")},
		// changing values: masked
		{args: append(short, "kernel.all.load"), changing: true},
		{args: append(short, "-f", "2", "-w", "15", "kernel.all.load"), changing: true},
		{args: append(short, "-i", `"1 minute","15 minute"`, "kernel.all.load"), changing: true},
		{args: append(short, "kernel.all.load[5 minute]"), changing: true},
		{args: append(short, "localhost:kernel.all.load[1 minute,15 minute]"), changing: true},
		{args: append(short, "kernel.all.cpu.user"), changing: true},
		{args: append(short, "-r", "kernel.all.cpu.user"), changing: true},
		{args: append(short, "-f", "3", "kernel.all.cpu.idle"), changing: true},
		{args: append(short, "kernel.percpu.cpu.idle"), changing: true},
		{args: append(short, "-r", "kernel.percpu.cpu.idle"), changing: true},
		{args: append(short, "kernel.all.pswitch"), changing: true},
		{args: append(short, "mem.util.free"), changing: true},
		{args: append(short, "-X", "kernel.all.load"), changing: true},
		// errors
		{args: []string{"-h", "nosuchhost.invalid", "kernel.all.load"}},
		{args: []string{"-h", "localhost:1", "kernel.all.load"}},
		{args: []string{"localhost:1:kernel.all.load"}},
		{args: []string{"no.such.metric"}},
		{args: []string{"-h", "localhost", "no.such.metric"}},
		{args: []string{"kernel.all"}},
		{args: []string{"-i", "nosuch", "kernel.all.load"}},
		{args: []string{"kernel.all.load[nosuch]"}},
		{args: []string{"hinv.ncpu[a]"}},
		{args: []string{"-s", "1", "-x", "3", "hinv.ncpu"}},
		{args: []string{"-f", "12", "hinv.ncpu"}},
		{args: []string{"-S", "@10:00", "hinv.ncpu"}},
		{args: []string{"-d", "-s", "1", "hinv.ncpu"}},
		{args: []string{"-U", "foo", "-h", "localhost", "hinv.ncpu"}},
		{args: []string{"-h", "localhost", "-a", "foo", "hinv.ncpu"}},
		{args: []string{"-h", "localhost?compress", "hinv.ncpu"}},
		// -T: the number of samples from the window, and the fetch
		// stamped past its end stops the report
		{args: []string{"-t", "0.2", "-T", "1.1sec", "hinv.ncpu"}}, // not a whole number of intervals: the real pmval computes the count from two times as doubles
		{args: []string{"-t", "0.2", "-T", "0.5", "kernel.all.cpu.user"}, changing: true},
		// a local context: the PMDAs run by the tool itself
		{args: append(short, "-L", "hinv.ncpu")},
		{args: append(short, "-L", "kernel.all.cpu.user"), changing: true},
		{args: append(short, "-L", "-i", "cpu0", "kernel.percpu.cpu.idle"), changing: true},
		{args: append(short, "-L", "-K", "clear", "-K", "add,30,"+filepath.Join(pcpconf.Get("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas"), "sample", "pmda_sample.so")+",sample_init", "sampledso.bin")},
		{args: []string{"-L", "-K", "clear", "-s", "1", "hinv.ncpu"}},
		{args: []string{"-s", "1", "@:hinv.ncpu"}}, // pmParseMetricSpec's local context
		{args: append(short, "@:kernel.all.load[1 minute]"), changing: true},
		{args: []string{"-L", "-K", "nonsense", "-s", "1", "hinv.ncpu"}},
		{args: []string{"-L", "-t", "0.2", "-T", "0.7", "hinv.ncpu"}},
		// options pcpkit has no means for fail as the real ones do
		{args: []string{"--container=nosuch", "-s", "1", "kernel.all.load"}},
		{args: []string{"--container=nosuch", "-s", "1", "hinv.ncpu"}},
		{args: []string{"-g", "-s", "1", "hinv.ncpu"}},
		{args: []string{"-p", "4444", "-s", "1", "hinv.ncpu"}},
	}
	for _, c := range cases {
		compareLive(t, dir, real, "pmval "+strings.Join(c.args, " "), c.args, "PCP_DERIVED_CONFIG=", c.changing)
	}
}

// compareLive runs the real pmval and pcpkit's with args and the
// environment setting env, and reports any difference of stdout (with
// the numbers masked when changing), stderr or exit status.
func compareLive(t *testing.T, dir, real, what string, args []string, env string, changing bool) {
	t.Helper()
	wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(env), real, args...)
	out, errs, rc := run(t, dir, args, env)
	want, got := string(wout), out
	if changing {
		want, got = maskLive(want), maskLive(got)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: stdout differs from the real pmval (-real +pcpkit):\n%s", what, d)
	}
	if d := cmp.Diff(string(werr), errs); d != "" {
		t.Errorf("%s: stderr differs from the real pmval (-real +pcpkit):\n%s", what, d)
	}
	if wrc != rc {
		t.Errorf("%s: exit status %d, real pmval %d", what, rc, wrc)
	}
}

// TestLiveCounterFetches checks live mode's timing: a counter needs one
// fetch more than the lines it prints, the first at once and each later
// one an interval after the last.
func TestLiveCounterFetches(t *testing.T) {
	needPMCD(t)
	start := time.Now()
	out, errs, rc := run(t, t.TempDir(), []string{"-s", "2", "-t", "0.1", "kernel.all.cpu.user"})
	elapsed := time.Since(start)
	if rc != 0 || errs != "" {
		t.Fatalf("exit status %d, stderr %q", rc, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// the blank line, 6 header lines, 2 rates
	if len(lines) != 9 || lines[1] != "metric:    kernel.all.cpu.user" {
		t.Fatalf("unexpected report:\n%s", out)
	}
	if elapsed < 200*time.Millisecond {
		t.Errorf("3 fetches 0.1 s apart took %v", elapsed)
	}
}

// TestLiveNoPMCD checks the message for a pmcd that is not there.
func TestLiveNoPMCD(t *testing.T) {
	var out, errb strings.Builder
	rc := Main([]string{"-h", "localhost:1", "hinv.ncpu"}, &out, &errb)
	if rc != 1 || out.String() != "" || errb.String() != "pmval: Cannot connect to PMCD on host \"localhost:1\": Connection refused\n" {
		t.Errorf("status %d, stdout %q, stderr %q", rc, out.String(), errb.String())
	}
}

// liveDerivedConfig is the derived metric configuration of
// TestInteropLiveDerived: metrics whose values cannot change, metrics
// whose values can (rates of counters, delta(), rate()), and metrics
// whose definitions fail when bound against pmcd's metrics.
const liveDerivedConfig = `# constant values
my.ncpu2 = hinv.ncpu * 2
my.nagents = pmcd.numagents + 1
my.const = 3 * 4 + 2
my.tern = hinv.ncpu > 1 ? hinv.ncpu : 0
my.mb = mem.physmem / 1024
my.cnt = count(kernel.percpu.cpu.user)
my.strd = kernel.uname.release
# changing values
my.load10 = kernel.all.load * 10
my.dcpu = delta(kernel.all.cpu.user)
my.rcpu = rate(kernel.all.cpu.user)
my.pcpu = kernel.percpu.cpu.user + kernel.percpu.cpu.sys
my.ctr = kernel.all.cpu.user + kernel.all.cpu.sys
my.rload = rate(kernel.all.load)
my.dmem = delta(mem.util.free)
my.sel = kernel.percpu.cpu.user[cpu1]
my.m = matchinst(/cpu1/, kernel.percpu.cpu.idle)
my.sum = sum(kernel.percpu.cpu.user)
my.util = 100 * rate(kernel.all.cpu.idle) / hinv.ncpu
my.pick = kernel.all.load[1 minute]
# failing definitions
my.bad = no.such.metric + 1
my.str = hinv.ncpu + kernel.uname.release
my.mix = kernel.all.cpu.user + hinv.ncpu
my.div = kernel.all.cpu.user / kernel.all.cpu.sys
my.fwd = my.later * 2
my.later = hinv.ncpu + 1
`

// liveDerivedSyntax is a configuration with a syntax error (reported
// when the context is created) and a good definition after it.
const liveDerivedSyntax = `my.syn = hinv.ncpu * * 2
my.ok = hinv.ncpu + 1
`

// TestInteropLiveDerived runs the real pmval and pcpkit's live against
// the local pmcd with derived metrics, from $PCP_DERIVED_CONFIG and from
// --derived: output byte for byte for metrics whose values cannot
// change, with the numbers masked for those that can, and stderr and
// exit status for all, errors included.
func TestInteropLiveDerived(t *testing.T) {
	real := testenv.RealTool(t, "pmval")
	needPMCD(t)
	dir := t.TempDir()
	for name, text := range map[string]string{"good.conf": liveDerivedConfig, "bad.conf": liveDerivedSyntax} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type tc struct {
		env      string // $PCP_DERIVED_CONFIG
		args     []string
		changing bool
	}
	short := []string{"-s", "3", "-t", "0.2"}
	with := func(args ...string) []string { return append(append([]string{}, short...), args...) }
	cases := []tc{
		// constant values: byte for byte
		{env: "good.conf", args: with("my.ncpu2")},
		{env: "good.conf", args: with("my.nagents")},
		{env: "good.conf", args: with("my.const")},
		{env: "good.conf", args: with("my.tern")},
		{env: "good.conf", args: with("my.mb")},
		{env: "good.conf", args: with("my.cnt")},
		{env: "good.conf", args: with("my.strd")},
		{env: "good.conf", args: with("-f", "2", "-w", "10", "my.ncpu2")},
		{env: "good.conf", args: with("-Z", "UTC", "my.ncpu2")},
		{env: "good.conf", args: with("-h", "localhost", "my.ncpu2")},
		{env: "good.conf", args: with("localhost:my.nagents")},
		{env: "good.conf", args: with("-n", "/var/lib/pcp/pmns/root", "my.ncpu2")},
		{env: "good.conf", args: with("hinv.ncpu")}, // a base metric, with derived ones defined
		{args: with("--derived=good.conf", "my.ncpu2")},
		{args: with("--derived", "good.conf", "my.const")},
		{env: "bad.conf", args: with("--derived=good.conf", "my.nagents")},
		{env: "good.conf:bad.conf", args: with("my.ok")},
		// changing values: masked
		{env: "good.conf", args: with("my.load10"), changing: true},
		{env: "good.conf", args: with("-i", `"1 minute","15 minute"`, "my.load10"), changing: true},
		{env: "good.conf", args: with("my.load10[5 minute]"), changing: true},
		{env: "good.conf", args: with("my.dcpu"), changing: true},
		{env: "good.conf", args: with("my.rcpu"), changing: true},
		{env: "good.conf", args: with("-f", "3", "my.rcpu"), changing: true},
		{env: "good.conf", args: with("my.pcpu"), changing: true},
		{env: "good.conf", args: with("-r", "my.pcpu"), changing: true},
		{env: "good.conf", args: with("-i", "cpu1", "my.pcpu"), changing: true},
		{env: "good.conf", args: with("my.ctr"), changing: true},
		{env: "good.conf", args: with("my.rload"), changing: true},
		{env: "good.conf", args: with("my.dmem"), changing: true},
		{env: "good.conf", args: with("my.sel"), changing: true},
		{env: "good.conf", args: with("my.m"), changing: true},
		{env: "good.conf", args: with("my.sum"), changing: true},
		{env: "good.conf", args: with("my.util"), changing: true},
		{env: "good.conf", args: with("my.pick"), changing: true},
		{args: with("--derived=good.conf", "my.rcpu"), changing: true},
		{args: with("--derived=good.conf", "my.pcpu"), changing: true},
		// errors
		{env: "good.conf", args: []string{"my.bad"}},
		{env: "good.conf", args: []string{"my.str"}},
		{env: "good.conf", args: []string{"my.mix"}},
		{env: "good.conf", args: []string{"my.div"}},
		{env: "good.conf", args: with("my.fwd")}, // pmcd: no agent for the operand's domain
		{env: "good.conf", args: []string{"my.nosuch"}},
		{env: "good.conf", args: []string{"my"}},
		{env: "good.conf", args: []string{"-i", "nosuch", "my.load10"}},
		{env: "good.conf", args: []string{"-s", "1", "-x", "3", "my.ncpu2"}},
		{env: "bad.conf", args: with("my.ok")},
		{env: "bad.conf", args: []string{"my.syn"}},
		{env: "nosuch.conf", args: with("hinv.ncpu")},
		{env: "bad.conf", args: []string{"-h", "localhost:1", "my.ok"}},
		{args: []string{"--derived=bad.conf", "-s", "1", "my.ok"}},
		{args: []string{"--derived=bad.conf", "my.syn"}},
		{args: []string{"--derived=nosuch.conf", "my.ok"}},
		{args: []string{"my.ncpu2"}}, // no configuration
	}
	for _, c := range cases {
		env := "PCP_DERIVED_CONFIG=" + c.env
		compareLive(t, dir, real, env+" pmval "+strings.Join(c.args, " "), c.args, env, c.changing)
	}
}

// TestInteropEnvOptions checks the PCP_* variables that stand for
// options (libpcp's __pmStartOptions, getopt.FromEnv), alone and with
// the command line's, against the real pmval.
func TestInteropEnvOptions(t *testing.T) {
	real := testenv.RealTool(t, "pmval")
	needPMCD(t)
	dir := t.TempDir()
	arch := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "sample-v3")
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{"PCP_ARCHIVE=" + arch}, []string{"-t", "1", "sample.colour"}},
		{[]string{"PCP_ARCHIVE_LIST=" + arch + "," + arch}, []string{"-t", "1", "sample.colour"}},
		{[]string{"PCP_ARCHIVE=" + arch, "PCP_TIMEZONE=EST5EDT", "PCP_START_TIME=+2"}, []string{"-t", "1", "sample.colour"}},
		{[]string{"PCP_ARCHIVE=" + arch, "PCP_SAMPLES=3", "PCP_INTERVAL=2"}, []string{"sample.colour"}},
		{[]string{"PCP_ARCHIVE=" + arch, "PCP_SAMPLES=x"}, []string{"sample.colour"}},
		{[]string{"PCP_ARCHIVE=" + arch, "PCP_HOST=localhost"}, []string{"-s", "1", "sample.colour"}},
		{[]string{"PCP_SAMPLES=2", "PCP_INTERVAL=0.1"}, []string{"hinv.ncpu"}},
		{[]string{"PCP_SAMPLES=2"}, []string{"-s", "1", "hinv.ncpu"}},
		{[]string{"PCP_HOST=localhost"}, []string{"-s", "1", "hinv.ncpu"}},
		{[]string{"PCP_LOCALMODE=1"}, []string{"-s", "1", "hinv.ncpu"}},
		{[]string{"PCP_LOCALMODE=1", "PCP_SPECLOCAL=clear"}, []string{"-s", "1", "hinv.ncpu"}},
		{[]string{"PCP_INTERVAL=junk"}, []string{"-s", "1", "hinv.ncpu"}},
	} {
		env := append([]string{"PCP_DERIVED_CONFIG="}, c.env...)
		what := strings.Join(env, " ") + " pmval " + strings.Join(c.args, " ")
		// a subtest each: run's settings of the environment end with it
		t.Run(what, func(t *testing.T) {
			wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(env...), real, c.args...)
			out, errs, rc := run(t, dir, c.args, env...)
			testenv.CompareRun(t, "pmval", what, string(wout), string(werr), wrc, out, errs, rc)
		})
	}
}

package pminfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// livePMCD skips the test (fails it with PCP_INTEROP=1) unless the real
// pminfo can reach the local pmcd.
func livePMCD(t *testing.T) {
	t.Helper()
	out, errs, rc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), "-f", "pmcd.version")
	if rc == 0 {
		return
	}
	if testenv.Interop() {
		t.Fatalf("PCP_INTEROP=1 but the local pmcd does not answer: %s%s", out, errs)
	}
	t.Skipf("the local pmcd does not answer (%s): skipping", strings.TrimSpace(string(errs)))
}

// liveValue is what changes between two fetches: the number (or
// string) after "value ", and the instances of pmcd's own clients and of
// processes, which the two tools' runs are.
var liveValue = regexp.MustCompile(`value .*`)

// maskValues masks the values of a report of changing metrics.
func maskValues(s string) string { return liveValue.ReplaceAllString(s, "value V") }

// TestInteropLive runs the real pminfo and pcpkit's against the local
// pmcd: byte for byte where nothing can change between the two runs
// (names, descriptors, help text, labels, series, constant values,
// errors), the values masked where they can.
func TestInteropLive(t *testing.T) {
	livePMCD(t)
	// the subtrees whose instances stay put (not pmcd.client and
	// pmcd.pmlogger, whose instances are the tools' connections, nor
	// proc, whose instances are processes, nor mem.zoneinfo, whose instance
	// domain the linux PMDA sometimes gives without a zone)
	stable := []string{"kernel", "hinv", "mem.util", "mem.numa", "mem.vmstat", "disk", "network.interface", "filesys", "swap", "pmcd.version", "pmcd.numagents"}
	constant := []string{"hinv.ncpu", "hinv.physmem", "hinv.pagesize", "hinv.machine", "kernel.uname", "pmcd.version", "pmcd.numagents", "mem.physmem", "pmcd.hostname"}
	for _, args := range [][]string{
		{}, {"-m"}, {"-M"}, {"-d"}, {"-I"}, {"-t"}, {"-T"}, {"-dmMtTI"},
		append([]string{"-l"}, stable...), append([]string{"-s"}, stable...), append([]string{"-dlsI"}, stable...),
		append([]string{"-f"}, constant...), append([]string{"-x"}, constant...), append([]string{"-F"}, constant...),
		append([]string{"-v"}, constant...), append([]string{"-dfmtTl"}, constant...),
		{"-m", "60.2.0", "60.0.20", "2.0.24", "1.2.3", "2", "60.2x"}, {"-tTlI", "60.2", "60.0", "2.1", "1.1"},
		{"nosuch", "kernel.all.load", "nosuch.either"}, {"-b", "3", "-m", "kernel.all"}, {"-b", "1", "-d", "hinv"},
		{"-h", "localhost", "-m", "kernel.all"}, {"-h", "local:", "-d", "hinv"}, {"-h", "unix:", "-t", "mem.util"},
		{"-h", "127.0.0.1", "-f", "hinv.ncpu"}, {"-h", "nosuch.invalid"}, {"-h", "localhost:1"},
		{"-h", "localhost", "-z", "-f", "hinv.ncpu"}, {"-Z", "EST5EDT", "-f", "hinv.ncpu"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compareReal(t, "", args) })
	}
	// changing values, masked
	for _, args := range [][]string{
		{"-f", "kernel.all.load", "kernel.all.cpu", "mem.util.free", "kernel.percpu.cpu.idle", "disk.dev.read"},
		{"-x", "kernel.all"}, {"-dfmtTl", "kernel.all.load", "network.interface.in.bytes"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			wout, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), args...)
			out, errs, rc := run(t, "", args)
			testenv.CompareRun(t, "pminfo", "pminfo "+strings.Join(args, " ")+" (values masked)",
				maskValues(string(wout)), string(werr), wrc, maskValues(out), errs, rc)
		})
	}
}

// liveDerived are derived metrics over the local pmcd's metrics: good
// ones, with help text, semantic errors, missing operands, a name pmcd
// has, new subtrees and names below pmcd's leaves.
const liveDerived = `my.ncpu2 = hinv.ncpu * 2
my.ncpu2(oneline) = twice the CPUs
my.ncpu2(helptext) = 'twice
the number of CPUs'
my.load = max(kernel.all.load)
my.bad = hinv.ncpu + kernel.all.cpu.user
my.missing = no.such.metric
hinv.ncpu = hinv.ndisk
a.x.p = hinv.ncpu
a.y.q = hinv.physmem
a.x.r = hinv.pagesize
hinv.new.a = hinv.ncpu
hinv.ncpu.sub = hinv.ncpu
`

// TestInteropLiveDerived runs both tools live with derived metrics.
func TestInteropLiveDerived(t *testing.T) {
	livePMCD(t)
	conf := filepath.Join(t.TempDir(), "live.conf")
	if err := os.WriteFile(conf, []byte(liveDerived), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{}, {"-dmtT"}, {"-f", "my", "a", "hinv"}, {"-l", "my", "a"}, {"-s", "my.ncpu2"}, {"-m", "a", "my", "hinv", "nosuch"},
		{"-f", "my.bad"}, {"-f", "my.missing"}, {"-m", "511.0.3", "511.0.1"},
	} {
		t.Run("env "+strings.Join(args, " "), func(t *testing.T) { compareReal(t, "", args, "PCP_DERIVED_CONFIG="+conf) })
		cargs := append([]string{"-c", conf}, args...)
		t.Run(strings.Join(cargs, " "), func(t *testing.T) { compareReal(t, "", cargs) })
	}
	// the system's derived metrics ($PCP_DERIVED_CONFIG unset)
	for _, args := range [][]string{{}, {"-dmtT"}, {"-d", "kernel.cpu", "disk.dev.await"}} {
		t.Run("system "+strings.Join(args, " "), func(t *testing.T) { compareReal(t, "", args, "PCP_DERIVED_CONFIG") })
	}
}

// TestBuiltinCollector checks -h @ against the local pmcd: the names the
// collector exports, where pmcd has them, have pmcd's descriptors and
// PMIDs, and constant values read the same.
func TestBuiltinCollector(t *testing.T) {
	livePMCD(t)
	c, err := collector.New()
	if err != nil {
		t.Skipf("no built-in collector here: %v", err)
	}
	names := c.Names()
	c.Close()
	out, _, rc := run(t, "", []string{"-h", "@"})
	// the collector's names, then libpcp's anonymous derived metrics
	wantNames := append(append([]string(nil), names...), "event.flags", "event.missed")
	if d := cmp.Diff(wantNames, strings.Fields(out)); rc != 0 || d != "" {
		t.Fatalf("pminfo -h @: rc %d, names differ from the collector's (-want +got):\n%s", rc, d)
	}
	// names pmcd has too
	wout, _, _ := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), "-m")
	have := map[string]bool{}
	for _, l := range strings.Split(string(wout), "\n") {
		have[strings.Fields(l + " x")[0]] = true
	}
	var common []string
	for _, n := range names {
		if have[n] {
			common = append(common, n)
		}
	}
	if len(common) < 100 {
		t.Fatalf("only %d of the collector's %d names are pmcd's", len(common), len(names))
	}
	args := append([]string{"-dm"}, common...)
	want, _, _ := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), args...)
	got, errs, rc := run(t, "", append([]string{"-h", "@"}, args...))
	if rc != 0 || errs != "" {
		t.Errorf("pminfo -h @ -dm: rc %d, stderr %q", rc, errs)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("pminfo -h @ -dm differs from the real pminfo -dm on pmcd (-pmcd +collector):\n%s", d)
	}
	constant := []string{"hinv.ncpu", "hinv.physmem", "hinv.pagesize", "kernel.uname.release", "kernel.uname.sysname"}
	want, _, _ = testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), append([]string{"-f"}, constant...)...)
	got, _, _ = run(t, "", append([]string{"-h", "@", "-f"}, constant...))
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("pminfo -h @ -f differs from the real pminfo -f on pmcd (-pmcd +collector):\n%s", d)
	}
}

// TestJSONLive checks that --json works live: one object per metric, in
// the order of the names, with values.
func TestJSONLive(t *testing.T) {
	livePMCD(t)
	names, _, _ := run(t, "", []string{"hinv", "kernel.all.load"})
	out, errs, rc := run(t, "", []string{"--json", "hinv", "kernel.all.load"})
	if rc != 0 || errs != "" {
		t.Fatalf("--json: rc %d, stderr %q", rc, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := strings.Fields(names)
	if len(lines) != len(want) {
		t.Fatalf("%d lines for %d metrics", len(lines), len(want))
	}
	for i, l := range lines {
		var j jsonLine
		if err := json.Unmarshal([]byte(l), &j); err != nil || j.Name != want[i] || j.PMID == "" || j.Timestamp == "" {
			t.Errorf("line %d: %v: %s (want %s)", i+1, err, l, want[i])
		}
	}
}

// TestInteropLocal runs the real pminfo and pcpkit's in a local context
// (-L): the real one loads the PMDAs' DSOs, pcpkit's runs their daemons
// (package local). The sample PMDA serves domain 30 (sampledso) as the
// DSO named by -K; the linux PMDA is in every local context's table.
func TestInteropLocal(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	sample := filepath.Join(pcpconf.Get("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas"), "sample", "pmda_sample.so")
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("no sample PMDA: %v", err)
	}
	add := "add,30," + sample + ",sample_init"
	withSample := []string{"-L", "-K", "clear", "-K", add}
	for _, args := range [][]string{
		append(withSample, "-f", "sampledso.long", "sampledso.bin", "sampledso.string.hullo", "sampledso.double"),
		append(withSample, "-d", "sampledso.long.one", "sampledso.bin", "sampledso.colour"),
		append(withSample, "-m", "sampledso.long"),
		// not -T: the sample PMDA's daemon has the help text of domain
		// 29 (sample), its DSO that of 30 (dsohelp)
		append(withSample, "-dfm", "sampledso.ulonglong.million"),
		append(withSample, "-f", "sampledso.long.one", "hinv.ncpu", "no.such.metric"),
		append(withSample, "-x", "sampledso.string"),
		{"-L", "-K", "clear", "-f", "sampledso.long.one"},
		{"-L", "-f", "hinv.ncpu", "hinv.pagesize", "kernel.uname.sysname"},
		{"-L", "-dtT", "kernel.all.load", "hinv.ncpu"},
		// labels: pmcd's context labels for a local client, the PMDA's
		// with the "agent" label of its DSO's name; series from them
		{"-L", "-l", "hinv.ncpu", "kernel.all.load", "kernel.percpu.cpu.user"},
		{"-L", "-s", "-I", "hinv.ncpu", "kernel.all.load"},
		append(withSample, "-dl", "sampledso.bin", "sampledso.long.one"),
		{"-L", "-K", "clear", "-K", "add,3,/nonexistent/pmda_x.so,x_init", "-f", "proc.nprocs"},
		{"-L", "-K", "clear", "-K", "add,30,/nonexistent/pmda_sample,sample_init", "-d", "sampledso.long.one"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compareReal(t, "", args) })
	}
}

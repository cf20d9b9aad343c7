package pmprobe

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInteropLive runs the real pmprobe and pcpkit's against the local
// pmcd: byte for byte where the two runs cannot differ, the counts and
// values masked where they can (every metric, changing ones).
func TestInteropLive(t *testing.T) {
	if _, errs, rc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pmprobe"), "pmcd.version"); rc != 0 || len(errs) > 0 {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but the local pmcd does not answer: %s", errs)
		}
		t.Skip("the local pmcd does not answer: skipping")
	}
	stable := []string{"kernel.all.load", "kernel.percpu.cpu.user", "hinv", "disk.dev.read", "network.interface.in.bytes", "filesys.capacity"}
	constant := []string{"hinv.ncpu", "hinv.physmem", "hinv.pagesize", "kernel.uname", "pmcd.version", "pmcd.numagents"}
	for _, args := range [][]string{
		append([]string{"-i"}, stable...), append([]string{"-I"}, stable...), append([]string{"-i", "-I"}, stable...),
		append([]string{"-f", "-i", "-I"}, stable...), append([]string{"-v"}, constant...),
		append([]string{"-b", "2", "-v"}, constant...), append([]string{"-b", "1", "-i"}, stable...),
		{"-F", "hinv.ncpu", "nosuch", "hinv"}, {"nosuch", "hinv.ncpu", "nosuch.too"}, {"-h", "localhost", "-v", "hinv.ncpu"},
		{"-h", "local:", "-I", "kernel.all.load"}, {"-h", "unix:", "hinv"}, {"-h", "nosuch.invalid"}, {"-h", "localhost:1"},
		// a local context: the PMDAs run by the tool (no PDUs for -V)
		{"-L", "-v", "hinv.ncpu", "hinv.pagesize"}, {"-L", "-i", "-I", "kernel.all.load"}, {"-L", "-V", "hinv.ncpu"},
		{"-L", "-K", "clear", "hinv.ncpu"}, {"-L", "-f", "-v", "kernel.uname", "nosuch"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { testenv.CompareMain(t, "pmprobe", Main, "", args) })
	}
	// -V: the PDUs exchanged with pmcd, by type (pmprobe batches its
	// lookups and fetches: libpcp's first lookup takes one name more)
	for _, args := range [][]string{
		{"-V", "hinv.ncpu"}, {"-V", "-b", "1", "hinv", "pmcd.buf"}, {"-V", "-b", "2", "-F", "hinv.ncpu", "hinv.ndisk", "hinv.pagesize"},
		{"-V", "-b", "3", "-v", "hinv", "hinv", "pmcd.buf"}, {"-V", "-i", "-I", "kernel.all.load", "hinv.ncpu"},
		{"-V", "-f", "-i", "kernel.all.load", "kernel.all.load", "hinv.ncpu"}, {"-V", "-F", "nosuch", "hinv.ncpu"},
		{"-V", "-b", "2", "-F", "nosuch", "hinv.ncpu", "nosuch.too", "hinv.ndisk"}, {"-V", "nosuch", "hinv.ncpu"},
		// not -b 1 with a name that fails: the real pmprobe then prints
		// a line without a name and leaves out a later name, which is
		// not matched (see the package doc)
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { testenv.CompareMain(t, "pmprobe", Main, "", args) })
	}
	// every metric, and changing values: the numbers after the names
	// masked (a metric's count of values may change: processes)
	masked := regexp.MustCompile(`(?m)^(\S+) .*$`)
	for _, args := range [][]string{{}, {"-v", "kernel.all", "mem.util"}} {
		t.Run(strings.Join(args, " ")+" (masked)", func(t *testing.T) {
			wout, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pmprobe"), args...)
			out, errs, rc := testenv.RunMain(t, Main, "", args)
			testenv.CompareRun(t, "pmprobe", "pmprobe "+strings.Join(args, " ")+" (masked)",
				masked.ReplaceAllString(string(wout), "$1 N"), string(werr), wrc, masked.ReplaceAllString(out, "$1 N"), errs, rc)
		})
	}
	// derived metrics
	conf := filepath.Join(t.TempDir(), "live.conf")
	if err := os.WriteFile(conf, []byte("my.ncpu2 = hinv.ncpu * 2\nmy.bad = hinv.ncpu + kernel.all.cpu.user\nmy.missing = no.such\nhinv.ncpu = hinv.ndisk\na.b = hinv.pagesize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-v", "my", "a", "hinv.ncpu"}, {"-i", "-I", "my", "a"}, {"-f", "-I", "my"}} {
		t.Run("--derived "+strings.Join(args, " "), func(t *testing.T) {
			testenv.CompareMain(t, "pmprobe", Main, "", append([]string{"--derived=" + conf}, args...))
		})
		t.Run("env "+strings.Join(args, " "), func(t *testing.T) { testenv.CompareMain(t, "pmprobe", Main, "", args, "PCP_DERIVED_CONFIG="+conf) })
	}
	// [name] is pmcd's pmLookupInDom (the proc PMDA finds "1" as
	// "000001 ..."), and a definition that does not bind is found by
	// pmLookupName but not by a traversal: with -n its descriptor fails
	inst := filepath.Join(t.TempDir(), "inst.conf")
	if err := os.WriteFile(inst, []byte("in.one = kernel.all.load[1]\nin.pid = proc.psinfo.pid[1]\nin.zero = proc.psinfo.pid[000001]\n"+
		"in.match = matchinst(/^000001/, proc.psinfo.pid)\nno.sem = kernel.all.load + disk.dev.read\nno.bad = no.such + 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(pcpconf.VarDir(), "pmns", "root")
	for _, args := range [][]string{{"in", "no"}, {"-v", "in.pid", "in.zero", "in.match"}, {"-n", root, "-v", "no", "in.pid"}, {"-n", root, "-i", "no.sem", "in"}} {
		t.Run("instances "+strings.Join(args, " "), func(t *testing.T) {
			testenv.CompareMain(t, "pmprobe", Main, "", args, "PCP_DERIVED_CONFIG="+inst)
		})
	}
	t.Run("system derived", func(t *testing.T) {
		testenv.CompareMain(t, "pmprobe", Main, "", []string{"-i", "kernel.cpu.util", "disk.dev.await"}, "PCP_DERIVED_CONFIG")
	})
}

package pmstore

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run runs pcpkit's pmstore in-process.
func run(t *testing.T, args []string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// compare runs the real pmstore and pcpkit's with args and reports any
// difference of output or exit status.
func compare(t *testing.T, args []string) {
	t.Helper()
	wout, werr, wrc := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="), testenv.RealTool(t, "pmstore"), args...)
	t.Setenv("PCP_DERIVED_CONFIG", "")
	out, errs, rc := run(t, args)
	testenv.CompareRun(t, "pmstore", "pmstore "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
}

// TestInteropLocal stores into the sample PMDA in a local context: each
// run has its own PMDA (the real pmstore loads its DSO, pcpkit's runs its
// daemon), so every run starts from the PMDA's initial values and the
// two tools can be compared run by run.
func TestInteropLocal(t *testing.T) {
	testenv.RealTool(t, "pmstore")
	dso := filepath.Join(pcpconf.Get("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas"), "sample", "pmda_sample.so")
	local := []string{"-L", "-K", "clear", "-K", "add,30," + dso + ",sample_init"}
	for _, args := range [][]string{
		{"sampledso.write_me", "5"},
		{"sampledso.write_me", "-5"}, // the metric ends the options
		{"sampledso.write_me", "abc"},
		{"sampledso.write_me", "99999999999"},
		{"sampledso.long.write_me", "13"},
		{"sampledso.ulonglong.write_me", "99999999999"},
		{"sampledso.longlong.write_me", "-7"},
		{"sampledso.float.write_me", "1.5"},
		{"sampledso.double.write_me", "2.25e10"},
		{"sampledso.string.write_me", "hello world"},
		{"-F", "sampledso.write_me", "9"},
		{"-i", "bin-100,bin-300", "sampledso.bin", "3"},
		{"-i", "bin-100 nosuch", "sampledso.bin", "3"},
		{"sampledso.colour", "7"},
		{"sampledso.long.one", "3"},
		{"sampledso.aggregate.write_me", "3"},
		{"sampledso.event.records", "3"},
		{"no.such.metric", "3"},
		{"sampledso.write_me"},
		{"-f", "sampledso.write_me", "1"},
		{"-x", "sampledso.write_me", "1"},
	} {
		args := append(append([]string(nil), local...), args...)
		t.Run(strings.Join(args[5:], " "), func(t *testing.T) { compare(t, args) })
	}
}

// TestInteropPMCD checks what can be compared against the local pmcd
// without changing it: refusals and errors.
func TestInteropPMCD(t *testing.T) {
	testenv.RealTool(t, "pmstore")
	if _, _, rc := testenv.RunCommand(t, "", testenv.RealEnv(), testenv.RealTool(t, "pminfo"), "pmcd.version"); rc != 0 {
		if testenv.Interop() {
			t.Fatal("PCP_INTEROP=1 but the local pmcd does not answer")
		}
		t.Skip("the local pmcd does not answer: skipping")
	}
	for _, args := range [][]string{
		{"hinv.ncpu", "3"}, {"kernel.all.load", "1"}, {"-i", "1 minute", "kernel.all.load", "1"},
		{"no.such", "1"}, {"hinv", "1"}, {"-h", "localhost", "hinv.ncpu", "x"}, {"-h", "nosuch.invalid", "hinv.ncpu", "1"},
		{"-?"}, {"--help"}, {"-Q", "hinv.ncpu", "1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compare(t, args) })
	}
}

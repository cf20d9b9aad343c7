package pmlogger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
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

func sideBySide(t *testing.T, dir string, env []string, args ...string) map[string]sideRun {
	t.Helper()
	real := testenv.RealTool(t, "pmlogger")
	exe := filepath.Join(dir, "pmlogger")
	if _, err := os.Stat(exe); err != nil {
		exe = testenv.BuildCommand(t, "pmlogger", dir)
	}
	out := map[string]sideRun{}
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
	runs := sideBySide(t, dir, testenv.RealEnv("PCP_DERIVED_CONFIG"), "-c", cfg, "-s", "1", "-l", "BASE.log", "BASE")
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
	if _, errb, rc := testenv.RunCommand(t, dir, testenv.RealEnv(), real, "-c", cfg, "-s", "5", "-l", base+".log", base); rc != 0 {
		t.Fatalf("real pmlogger: rc %d: %s", rc, errb)
	}
	exe := testenv.BuildCommand(t, "pmval", dir)
	env := testenv.RealEnv("PCP_DERIVED_CONFIG")
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

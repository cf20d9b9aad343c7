package pmlogger

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

const pmlcConfig = `log mandatory on every 200 msec { kernel.all.load hinv.ncpu }
log advisory on every 1 sec { kernel.all.nprocs kernel.all.load["5 minute"] }
log mandatory off { kernel.all.pswitch }
log mandatory maybe { kernel.all.intr }
`

// The requests both pmloggers answer alike (pmlc reads them from its
// standard input; each "connect" names the logger's pid).
const pmlcScript = `status
query { kernel.all.load hinv.ncpu kernel.all.nprocs kernel.all.pswitch kernel.all.intr kernel.all.cpu.user }
query kernel.all.load["15 minute"]
new volume
flush
status
`

var (
	pmlcCtime = regexp.MustCompile(`[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(\.\d+)? \d{4}`)
	pmlcSize  = regexp.MustCompile(`(?m)^(log size\s+)\d+$`)
	pmlcPid   = regexp.MustCompile(`pmlogger \[\d+\]`)
)

// normPmlc masks what differs between two loggers' runs: times, the
// pid, the volume's size.
func normPmlc(s string) string {
	s = pmlcCtime.ReplaceAllString(s, "TIME")
	s = pmlcSize.ReplaceAllString(s, "${1}SIZE")
	return pmlcPid.ReplaceAllString(s, "pmlogger [PID]")
}

// runPmlc runs the real pmlc connected to the logger pid with script on
// its standard input.
func runPmlc(t *testing.T, pmlc string, env []string, pid int, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pmlc)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(fmt.Sprintf("connect %d\n%squit\n", pid, script))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Logf("pmlc: %v", err)
	}
	return out.String()
}

// startRecording starts prog recording cfg into dir/base with its
// control files under ctl, and waits for its map file.
func startRecording(t *testing.T, prog, dir, base, cfg string, env []string, ctl string, extra ...string) *exec.Cmd {
	t.Helper()
	args := append(append([]string{}, extra...), "-c", cfg, "-m", "the note", "-l", filepath.Join(dir, base+".log"), filepath.Join(dir, base))
	cmd := exec.Command(prog, args...)
	cmd.Env = env
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	mapFile := filepath.Join(ctl, "pmlogger", strconv.Itoa(cmd.Process.Pid))
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := os.Stat(mapFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, base+".log"))
			t.Fatalf("%s: no map file %s after 20 s; log:\n%s", prog, mapFile, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd
}

// TestInteropPmlc: the real pmlc talks to pcpkit's pmlogger as to the
// real one. Both record the same configuration from the local pmcd,
// each with its control files in a directory of its own
// (PCP_TMP_DIR, PCP_RUN_DIR); pmlc's status, query, new volume and
// flush output is the same for both once times, pids and sizes are
// masked; the map files are the same but for the port and the archive;
// pcpkit refuses a change of logging and goes on answering; both logs
// record the volume switch; and pcpkit removes its control files when
// it stops.
func TestInteropPmlc(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	real := testenv.RealTool(t, "pmlogger")
	pmlc := testenv.RealTool(t, "pmlc")
	needPMCD(t)
	dir := t.TempDir()
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	cfg := filepath.Join(dir, "pmlc.config")
	os.WriteFile(cfg, []byte(pmlcConfig), 0o644)

	outputs := map[string]string{}
	maps := map[string]string{}
	for _, tool := range []struct{ name, prog string }{{"real", real}, {"pcpkit", exe}} {
		ctl := filepath.Join(dir, "ctl-"+tool.name)
		os.MkdirAll(ctl, 0o755)
		env := loggerEnv("PCP_TMP_DIR="+ctl, "PCP_RUN_DIR="+ctl)
		cmd := startRecording(t, tool.prog, dir, tool.name, cfg, env, ctl)
		pid := cmd.Process.Pid
		time.Sleep(700 * time.Millisecond) // a few samples
		outputs[tool.name] = runPmlc(t, pmlc, env, pid, pmlcScript)
		m, _ := os.ReadFile(filepath.Join(ctl, "pmlogger", strconv.Itoa(pid)))
		maps[tool.name] = string(m)
		if tool.name == "pcpkit" {
			// A change of logging is refused; the logger goes on.
			out := runPmlc(t, pmlc, env, pid, "log mandatory on 1 sec kernel.all.cpu.sys\nstatus\n")
			if !strings.Contains(out, "log volume       1") {
				t.Errorf("pcpkit after a refused change of logging: no status:\n%s", out)
			}
			t.Logf("pmlc log request to pcpkit:\n%s", out)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if _, err := os.Stat(filepath.Join(ctl, "pmlogger", strconv.Itoa(pid))); err == nil {
			t.Errorf("%s: map file left after exit", tool.name)
		}
		if _, err := os.Stat(filepath.Join(ctl, fmt.Sprintf("pmlogger.%d.socket", pid))); err == nil {
			t.Errorf("%s: socket left after exit", tool.name)
		}
		log, _ := os.ReadFile(filepath.Join(dir, tool.name+".log"))
		if !strings.Contains(string(log), "New log volume 1, via pmlc request at ") {
			t.Errorf("%s: no volume switch in the log:\n%s", tool.name, log)
		}
		if _, err := os.Stat(filepath.Join(dir, tool.name+".1")); err != nil {
			t.Errorf("%s: no volume 1: %v", tool.name, err)
		}
	}
	t.Logf("pmlc and the real pmlogger:\n%s", outputs["real"])
	if d := cmp.Diff(normPmlc(outputs["real"]), normPmlc(outputs["pcpkit"])); d != "" {
		t.Errorf("pmlc output differs (-real +pcpkit):\n%s", d)
	}
	mask := func(s string) string {
		lines := strings.Split(s, "\n")
		if len(lines) >= 3 {
			lines[0], lines[2] = "PORT", filepath.Base(lines[2])
		}
		return strings.Join(lines, "\n")
	}
	if d := cmp.Diff(strings.ReplaceAll(mask(maps["real"]), "real", "X"), strings.ReplaceAll(mask(maps["pcpkit"]), "pcpkit", "X")); d != "" {
		t.Errorf("map files differ (-real +pcpkit):\n%s", d)
	}
}

// TestInteropPmlcHost: pmlc's status names the hosts as each pmlogger
// tells them: the pmcd connected to (-h) and the label's host (-H); and
// "new volume" right after a switch (an empty volume) starts the next
// one.
func TestInteropPmlcHost(t *testing.T) {
	dir, cfg := interopSetup(t, "pmlc.config", "log mandatory on 10 sec { kernel.all.load }\n")
	real := testenv.RealTool(t, "pmlogger")
	pmlc := testenv.RealTool(t, "pmlc")
	exe := testenv.BuildCommand(t, "pmlogger", dir)
	for i, extra := range [][]string{nil, {"-h", "localhost"}, {"-h", "local:", "-H", "labelhost"}} {
		outputs := map[string]string{}
		for _, tool := range []struct{ name, prog string }{{"real", real}, {"pcpkit", exe}} {
			ctl := filepath.Join(dir, fmt.Sprintf("ctl-%s-%d", tool.name, i))
			os.MkdirAll(ctl, 0o755)
			env := loggerEnv("PCP_TMP_DIR="+ctl, "PCP_RUN_DIR="+ctl)
			cmd := startRecording(t, tool.prog, dir, fmt.Sprintf("%s%d", tool.name, i), cfg, env, ctl, extra...)
			time.Sleep(300 * time.Millisecond)
			outputs[tool.name] = runPmlc(t, pmlc, env, cmd.Process.Pid, "status\nnew volume\nnew volume\nstatus\n")
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		if d := cmp.Diff(normPmlc(outputs["real"]), normPmlc(outputs["pcpkit"])); d != "" {
			t.Errorf("%q: pmlc output differs (-real +pcpkit):\n%s\nreal:\n%s", extra, d, outputs["real"])
		}
	}
}

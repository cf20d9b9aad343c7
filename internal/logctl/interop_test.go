package logctl

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// runPMLC runs the real pmlc with script on standard input, with
// PCP_TMP_DIR and PCP_RUN_DIR pointing at the server's directories.
func runPMLC(t *testing.T, tmpDir, runDir, script string, args ...string) (stdout, stderr string) {
	t.Helper()
	pmlc := testenv.RealTool(t, "pmlc")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pmlc, args...)
	cmd.Env = testenv.RealEnv("PCP_TMP_DIR="+tmpDir, "PCP_RUN_DIR="+runDir, "PMLOGGER_REQUEST_TIMEOUT=20")
	cmd.Stdin = strings.NewReader(script)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("pmlc: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// realStatus is what the real pmlc printed for the real pmlogger's status
// in capStatus (same capture as pdu_test.go), the pid aside.
const realStatus = `pmlogger [PID] on host local: is logging metrics from host vm
PMCD host        vm
log started      Sat Nov 21 14:47:27.163783000 2026 (times in local time)
last log entry   Sat Nov 21 14:47:32.183776692 2026
current time     Sat Nov 21 14:47:32.219498679 2026
log volume       0
log size         900
Goodbye
`

// realQuery is what the real pmlc printed for "query kernel.all.load" and
// "query hinv.ncpu" against that pmlogger.
const realQuery = `kernel.all.load
    mand on           1 sec  [1 or "1 minute"]
    mand on           1 sec  [5 or "5 minute"]
    mand on           1 sec  [15 or "15 minute"]

hinv.ncpu
    mand on           1 sec 

Goodbye
`

func pidText(s string) string { return strings.ReplaceAll(s, "PID", strconv.Itoa(os.Getpid())) }

func TestInteropStatus(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	_, tmpDir, runDir := startServer(t, newFake(), nil)
	pid := strconv.Itoa(os.Getpid())
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+pid+"\nstatus\nquit\n")
	if d := cmp.Diff(pidText(realStatus), out); d != "" {
		t.Errorf("pmlc status (-real pmlogger +logctl):\n%s\nstderr:\n%s", d, errs)
	}
	if errs != "" {
		t.Errorf("stderr %q", errs)
	}
	// Same over TCP (connect PID@localhost reads the port from the map
	// file).
	out, errs = runPMLC(t, tmpDir, runDir, "connect "+pid+"@localhost\nstatus\nquit\n")
	want := strings.Replace(pidText(realStatus), "on host local:", "on host localhost", 1)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("pmlc status over TCP (-want +got):\n%s\nstderr:\n%s", d, errs)
	}
}

func TestInteropStatusNotStarted(t *testing.T) {
	f := newFake()
	f.status = Status{Now: time.Now(), PMCDHost: "vm", FQDN: "local:", TZ: "UTC"}
	_, tmpDir, runDir := startServer(t, f, nil)
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+strconv.Itoa(os.Getpid())+"\nstatus\nquit\n")
	want := pidText("pmlogger [PID] on host local: is logging metrics from host vm\nPMCD host        vm\nlogging hasn't started yet\nGoodbye\n")
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("(-want +got):\n%s\nstderr:\n%s", d, errs)
	}
}

func TestInteropQuery(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	f := newFake()
	f.states[pmapi.NewPMID(60, 0, 20)] = []InstState{{Inst: -1, Mandatory: false, On: true, Available: true, InLog: true, Interval: 90 * time.Second}} // hinv.ndisk? any PMID
	f.status.FQDN = "local:"
	_, tmpDir, runDir := startServer(t, f, nil)
	pid := strconv.Itoa(os.Getpid())
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+pid+"\nquery kernel.all.load\nquery hinv.ncpu\nquit\n")
	if d := cmp.Diff(realQuery, out); d != "" {
		t.Errorf("pmlc query (-real pmlogger +logctl):\n%s\nstderr:\n%s", d, errs)
	}

	// Other states, and an instance list.
	f.states[loadPMID] = []InstState{
		{Inst: 1, Mandatory: true, On: false, InLog: true, Available: true},             // mand off
		{Inst: 5, Maybe: true, InLog: false},                                            // maybe
		{Inst: 15, On: true, InLog: true, Available: false, Interval: 90 * time.Second}, // adv on, n/a
	}
	f.states[ncpuPMID] = nil
	out, errs = runPMLC(t, tmpDir, runDir, "connect "+pid+"\nquery kernel.all.load\nquery kernel.all.load[1,15]\nquery hinv.ncpu\nquit\n")
	want := `kernel.all.load
    mand off                 [1 or "1 minute"]
    adv  off nl              [5 or "5 minute"]
    adv  on  na    1.5 min  [15 or "15 minute"]

kernel.all.load
    mand off                 [1 or "1 minute"]
    adv  on  na    1.5 min  [15 or "15 minute"]

hinv.ncpu
    adv  off nl             

Goodbye
`
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("pmlc query (-want +got):\n%s\nstderr:\n%s", d, errs)
	}

	// A per-metric error.
	f.errs[loadPMID] = pmapi.ErrPMID
	out, _ = runPMLC(t, tmpDir, runDir, "connect "+pid+"\nquery kernel.all.load\nquit\n")
	if want := "kernel.all.load\n    Unknown or illegal metric identifier\n\nGoodbye\n"; out != want {
		t.Errorf("query with error: %q, want %q", out, want)
	}
}

func TestInteropNewVolumeFlushAndRefusal(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	f := newFake()
	_, tmpDir, runDir := startServer(t, f, nil)
	pid := strconv.Itoa(os.Getpid())
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+pid+"\nnew volume\nflush\nlog mandatory on 1 sec hinv.ncpu\nlog advisory off kernel.all.load\nnew volume\nstatus\nquit\n")
	wantErr := "New log volume 1\n" +
		"Error receiving response from pmlogger: No permission to perform requested operation\n" +
		"Error receiving response from pmlogger: No permission to perform requested operation\n" +
		"New log volume 2\n"
	if d := cmp.Diff(wantErr, errs); d != "" {
		t.Errorf("stderr (-want +got):\n%s", d)
	}
	want := strings.Replace(pidText(realStatus), "log volume       0", "log volume       2", 1)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("stdout (-want +got):\n%s", d)
	}
	if f.syncs != 1 || f.vol != 2 {
		t.Errorf("handler saw %d syncs, volume %d", f.syncs, f.vol)
	}
}

func TestInteropSecondPMLCRefused(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	s, tmpDir, runDir := startServer(t, newFake(), nil)
	cl := dial(t, s)
	cl.handshake()
	pid := strconv.Itoa(os.Getpid())
	_, errs := runPMLC(t, tmpDir, runDir, "connect "+pid+"\nquit\n")
	if !strings.Contains(errs, "Connection refused") {
		t.Errorf("second pmlc: stderr %q, want Connection refused", errs)
	}
	cl.c.Close()
	time.Sleep(100 * time.Millisecond)
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+pid+"\nstatus\nquit\n")
	if d := cmp.Diff(pidText(realStatus), out); d != "" {
		t.Errorf("after the first client left (-want +got):\n%s\nstderr:\n%s", d, errs)
	}
}

func TestInteropPrimaryAndShowLoggers(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	_, tmpDir, runDir := startServer(t, newFake(), func(c *Config) { c.Primary = true })
	pid := strconv.Itoa(os.Getpid())
	out, errs := runPMLC(t, tmpDir, runDir, "show loggers\nconnect primary\nstatus\nquit\n")
	want := "The following pmloggers are running on local::\n    primary (" + pid + ")\n" +
		strings.Replace(pidText(realStatus), "pmlogger ["+pid+"]", "pmlogger [primary]", 1)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("(-want +got):\n%s\nstderr:\n%s", d, errs)
	}
	out, errs = runPMLC(t, tmpDir, runDir, "status\n", "-P")
	want = "Connected to primary pmlogger at local:\n" +
		strings.Replace(strings.TrimSuffix(pidText(realStatus), "Goodbye\n"), "pmlogger ["+pid+"]", "pmlogger [primary]", 1)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("pmlc -P (-want +got):\n%s\nstderr:\n%s", d, errs)
	}
}

// TestInteropNotLogged: for a metric it does not log, the real pmlogger
// reports pmcd's current instances as advisory off, not in the log
// ("query kernel.percpu.cpu.user" printed "adv  off nl [0 or "cpu0"]"
// and so on, "query hinv.ndisk" "adv  off nl"); a Handler that does the
// same gets the same output.
func TestInteropNotLogged(t *testing.T) {
	testenv.RealTool(t, "pmlc")
	f := newFake()
	f.states[loadPMID] = []InstState{{Inst: 1}, {Inst: 5}, {Inst: 15}}
	f.states[ncpuPMID] = []InstState{{Inst: -1}}
	_, tmpDir, runDir := startServer(t, f, nil)
	out, errs := runPMLC(t, tmpDir, runDir, "connect "+strconv.Itoa(os.Getpid())+"\nquery kernel.all.load\nquery hinv.ncpu\nquit\n")
	want := `kernel.all.load
    adv  off nl              [1 or "1 minute"]
    adv  off nl              [5 or "5 minute"]
    adv  off nl              [15 or "15 minute"]

hinv.ncpu
    adv  off nl             

Goodbye
`
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("(-want +got):\n%s\nstderr:\n%s", d, errs)
	}
}

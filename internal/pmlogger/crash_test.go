package pmlogger

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/crashcheck"
	"github.com/pcpkit/pcpkit/internal/pmlogger/fakesource"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// The kill test: pcpkit's pmlogger (the test binary run as pmlogger:
// TestMain, fakeMainEnv) records from the fake source every millisecond
// and is killed with SIGKILL at crashKills random moments. It prints the
// number of data records written after each one. Whatever it leaves behind must be an
// archive that
//
//   - pcpkit reads to its end, or to a partial last record of its last
//     data volume (nothing else may be damaged);
//   - holds every record the logger reported written before the kill,
//     with no gap (fake.seq counts the fetches, one by one);
//   - the real pmdumplog reads up to the same last complete record,
//     failing only on that partial record, with a readable index;
//   - the real pmlogcheck finds nothing wrong with but a truncated tail.
//
// Or no archive at all: a kill before the prologue leaves at most the
// metadata file, which no tool takes for an archive.

const crashKills = 100

// running is a pmlogger process and the last record count it reported.
type running struct {
	cmd      *exec.Cmd
	done     chan struct{}
	err      error
	reported atomic.Int64
}

func startLogger(t *testing.T, exe, dir string, args []string, env ...string) *running {
	t.Helper()
	r := &running{done: make(chan struct{})}
	r.cmd = exec.Command(exe, args...)
	r.cmd.Dir = dir
	// (A killed logger leaves its pmlc control files: in dir.)
	r.cmd.Env = append(os.Environ(), fakeMainEnv+"=real", "TZ=UTC", "PCP_TMP_DIR="+dir, "PCP_RUN_DIR="+dir)
	r.cmd.Env = append(r.cmd.Env, env...)
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, err := strconv.ParseInt(sc.Text(), 10, 64); err == nil {
				r.reported.Store(n)
			}
		}
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	return r
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	testenv.RealTool(t, "pmdumplog")
	testenv.RealTool(t, "pmlogcheck")
	dir := t.TempDir()
	if k := os.Getenv("PCPKIT_KEEP"); k != "" {
		dir = k
	}
	// The test binary itself is the logger (TestMain, fakeMainEnv): the
	// fake source is test code, not in cmd/pmlogger.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "crash.config")
	if err := os.WriteFile(cfg, []byte("log mandatory on 1 msec { fake.seq fake.counter fake.disk.read fake.string }\nlog mandatory on once { fake.instant }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The PDU modes serve the fetches as a pmcd does: the fast path
	// writes the records, and each sample's reply is read at the next
	// sample (pipeline.go), so kills also come with a fetch in flight.
	type mode struct {
		args []string
		env  []string
	}
	pdu := []string{fakePDUEnv + "=1"}
	modes := []mode{
		{args: []string{"-V", "2"}},
		{args: []string{"-V", "3", "-v", "150"}},
		{args: []string{"-V", "3", "--sync", "-v", "20K"}},
		{args: []string{"-V", "3"}, env: pdu},
		{args: []string{"-V", "2", "-v", "150"}, env: pdu},
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	var none, partial, partialIndex, records int
	for i := 0; i < crashKills; i++ {
		m := modes[i%len(modes)]
		base := filepath.Join(dir, fmt.Sprintf("k%d", i))
		args := append(append([]string{"-c", cfg, "-l", base + ".log"}, m.args...), base)
		r := startLogger(t, exe, dir, args, m.env...)
		delay := time.Duration(rng.Int63n(int64(400 * time.Millisecond)))
		time.Sleep(delay)
		r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.done
		what := fmt.Sprintf("kill %d (%q %q, %v after the start)", i, m.args, m.env, delay)
		if r.err == nil {
			t.Fatalf("%s: the logger ended by itself", what)
		}
		reported := int(r.reported.Load())
		if vols, _ := filepath.Glob(base + ".[0-9]*"); len(vols) == 0 {
			if reported > 0 {
				t.Errorf("%s: %d records reported written but no data volume", what, reported)
			}
			none++
			continue
		}
		n, bad := crashReadPcpkit(t, what, base, reported)
		records += n
		if bad {
			partial++
		}
		if crashcheck.ReadReal(t, what, base, n, bad) {
			partialIndex++
		}
	}
	t.Logf("%d kills: %d left no archive, %d a partial last record, %d a partial last index entry; %d records read in all",
		crashKills, none, partial, partialIndex, records)
	if none > crashKills/4 {
		t.Errorf("%d of %d kills left no archive: the kills came too early", none, crashKills)
	}
}

// crashReadPcpkit reads an archive to its end and returns the number of
// records read (prologue and once record included) and whether a
// partial record followed them. It checks that fake.seq goes up one
// fetch at a time (no record lost in between) and that the archive
// holds every data record the logger reported.
func crashReadPcpkit(t *testing.T, what, base string, reported int) (int, bool) {
	t.Helper()
	data := 0
	prevSeq := int64(-1)
	n, bad := crashcheck.ReadPcpkitFunc(t, what, base, func(rec *archive.Record) {
		if !rec.IsMark() {
			data++
		}
		if seq, ok := intValue(t, rec.Result(), fakesource.PMIDSeq); ok {
			if prevSeq >= 0 && seq != prevSeq+1 {
				t.Errorf("%s: %s: fake.seq %d follows %d: a record is missing", what, base, seq, prevSeq)
			}
			prevSeq = seq
		}
	})
	if data-1 < reported { // the prologue is not reported
		t.Errorf("%s: %s: %d data records, but the logger had reported %d written", what, base, data-1, reported)
	}
	return n, bad
}

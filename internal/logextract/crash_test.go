package logextract

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/crashcheck"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// The kill test: pcpkit's pmlogextract (the command, built from
// cmd/pmlogextract) copies a 5 MB archive and is killed with SIGKILL at
// random moments. Whatever it leaves behind must be an archive that
//
//   - pcpkit reads to its end, or to a partial last record of its last
//     data volume (nothing else may be damaged);
//   - the real pmdumplog reads up to the same last complete record (the
//     same number of records), failing only on that partial record;
//   - the real pmlogcheck finds nothing wrong with but a truncated tail
//     (a partial last data record, or a partial last index entry);
//   - has a temporal index the real pmdumplog -t reads.
//
// Or nothing: the output's files appear whole (a data volume appears
// with its label and first record), so a kill before the first record
// leaves at most the metadata file, which no tool takes for an archive.

// crashKills is the number of kills.
const crashKills = 100

// benchGen is the archive generator of the benchmarks (python3-pcp).
func benchGen(t *testing.T) string {
	t.Helper()
	root := testenv.RepoRoot(t)
	gen := filepath.Join(root, "..", "shared", "tools", "pcp-bench-gen.py")
	skip := func(why string) {
		if testenv.Interop() {
			t.Fatalf("PCP_INTEROP=1 but %s", why)
		}
		t.Skipf("%s (set PCP_INTEROP=1 to make this a failure): skipping", why)
	}
	if _, err := os.Stat(gen); err != nil {
		skip("the archive generator " + gen + " is missing")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pcp.pmi").Run(); err != nil {
		skip("/usr/bin/python3 with the pcp module (python3-pcp) is not installed")
	}
	return gen
}

// makeBenchArchive makes an archive of samples records of 100 metrics
// (about 5.4 KB each) with the benchmark generator.
func makeBenchArchive(t *testing.T, base string, samples int) {
	t.Helper()
	gen := benchGen(t)
	out, err := exec.Command("/usr/bin/python3", gen, "-o", base, "--samples", strconv.Itoa(samples), "--metrics", "100", "--version", "3").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", gen, err, out)
	}
}

// crashMode is one set of arguments the kill test runs pmlogextract
// with, and how long its runs take.
type crashMode struct {
	args  []string
	first time.Duration // until the first data volume appears
	total time.Duration // the whole run
}

// waitFor polls for path until it exists or done is closed; it reports
// whether it appeared.
func waitFor(path string, done <-chan struct{}) bool {
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-done:
			_, err := os.Stat(path)
			return err == nil
		case <-time.After(100 * time.Microsecond):
		}
	}
}

// startExtract starts pmlogextract; done is closed when it has ended.
func startExtract(t *testing.T, exe string, args []string) (*exec.Cmd, <-chan struct{}, *error) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var werr error
	go func() {
		werr = cmd.Wait()
		close(done)
	}()
	return cmd, done, &werr
}

// TestExtractCrashSafety kills pmlogextract at crashKills random moments.
func TestExtractCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	testenv.RealTool(t, "pmdumplog")
	testenv.RealTool(t, "pmlogcheck")
	dir := t.TempDir()
	if k := os.Getenv("PCPKIT_KEEP"); k != "" {
		dir = k
	}
	in := filepath.Join(dir, "in")
	makeBenchArchive(t, in, 1000)
	exe := testenv.BuildCommand(t, "pmlogextract", dir)

	// A plain copy; volumes switched every 300 records (a kill can come
	// at a volume switch); and each finished volume compressed (-X).
	modes := []*crashMode{{args: nil}, {args: []string{"-v", "300"}}, {args: []string{"-v", "300", "-X", "xz"}}}
	for i, m := range modes {
		// How long a run takes, to spread the kills over it.
		var firsts, totals []time.Duration
		for k := 0; k < 3; k++ {
			out := filepath.Join(dir, fmt.Sprintf("full%d.%d", i, k))
			start := time.Now()
			_, done, werr := startExtract(t, exe, append(append([]string(nil), m.args...), in, out))
			waitFor(out+".0", done)
			firsts = append(firsts, time.Since(start))
			<-done
			totals = append(totals, time.Since(start))
			if *werr != nil {
				t.Fatalf("pmlogextract %q: %v", m.args, *werr)
			}
		}
		sort.Slice(firsts, func(i, j int) bool { return firsts[i] < firsts[j] })
		sort.Slice(totals, func(i, j int) bool { return totals[i] < totals[j] })
		m.first, m.total = firsts[1], totals[1]
		t.Logf("pmlogextract %q: the first volume appears after %v, the run takes %v", m.args, m.first, m.total)
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))

	var left, partial, partialIndex, whole, none int
	for i := 0; i < crashKills; i++ {
		m := modes[i%len(modes)]
		base := filepath.Join(dir, fmt.Sprintf("k%d", i))
		cmd, done, werr := startExtract(t, exe, append(append([]string(nil), m.args...), in, base))
		// One kill in six at any moment of the run; the others while
		// the archive is being written.
		var delay time.Duration
		if r.Intn(6) == 0 {
			delay = time.Duration(r.Int63n(int64(m.total + m.total/10)))
			time.Sleep(delay)
		} else {
			waitFor(base+".0", done)
			span := m.total - m.first
			delay = time.Duration(r.Int63n(int64(span + span/10 + 1)))
			time.Sleep(delay)
			delay = -delay // (after the first volume appeared)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		killed := *werr != nil
		what := fmt.Sprintf("kill %d (args %q, %v after the start (negative: after the first volume appeared))", i, m.args, delay)
		if vols, _ := filepath.Glob(base + ".[0-9]*"); len(vols) == 0 {
			if !killed {
				t.Errorf("%s: a whole run left no data volume", what)
			}
			none++
			continue // killed before the first record was written
		}
		left++
		if !killed {
			whole++
		}
		n, bad := crashcheck.ReadPcpkit(t, what, base)
		if bad {
			partial++
		}
		if !killed && bad {
			t.Errorf("%s: a run that was not killed left a partial record", what)
		}
		if crashcheck.ReadReal(t, what, base, n, bad) {
			partialIndex++
		}
	}
	t.Logf("%d kills: %d left no archive, %d left one (%d with a partial last record, %d with a partial last index entry, %d runs ended before the kill)",
		crashKills, none, left, partial, partialIndex, whole)
	if left < crashKills/2 {
		t.Errorf("only %d of %d kills left an archive: the kills came too early", left, crashKills)
	}
}

package logextract

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
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

// buildCommand builds cmd/pmlogextract into dir.
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	exe := filepath.Join(dir, "pmlogextract")
	cmd := exec.Command(goTool, "build", "-o", exe, "./cmd/pmlogextract")
	cmd.Dir = testenv.RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/pmlogextract: %v\n%s", err, out)
	}
	return exe
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
	exe := buildCommand(t, dir)

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
		n, bad := crashReadPcpkit(t, what, base)
		if bad {
			partial++
		}
		if !killed && bad {
			t.Errorf("%s: a run that was not killed left a partial record", what)
		}
		if crashReadReal(t, what, base, n, bad) {
			partialIndex++
		}
	}
	t.Logf("%d kills: %d left no archive, %d left one (%d with a partial last record, %d with a partial last index entry, %d runs ended before the kill)",
		crashKills, none, left, partial, partialIndex, whole)
	if left < crashKills/2 {
		t.Errorf("only %d of %d kills left an archive: the kills came too early", left, crashKills)
	}
}

// crashReadPcpkit reads an archive to its end and returns the number of
// records read and whether a partial record followed them (only the
// last volume's last record may be partial).
func crashReadPcpkit(t *testing.T, what, base string) (int, bool) {
	t.Helper()
	a, err := archive.Open(base)
	if err != nil {
		t.Fatalf("%s: pcpkit cannot open %s: %v", what, base, err)
	}
	defer a.Close()
	c := a.NewCursor()
	n := 0
	for {
		_, err := c.Next()
		if errors.Is(err, io.EOF) {
			return n, false
		}
		if err != nil {
			var fe *archive.FormatError
			vols := a.Volumes()
			last := vols[len(vols)-1]
			if !errors.As(err, &fe) || fe.File != a.VolumePath(last) {
				t.Fatalf("%s: %s: damage before the last volume after %d records: %v", what, base, n, err)
			}
			if p := a.VolumePath(last); p != base+"."+strconv.Itoa(last) {
				t.Fatalf("%s: %s: damage in a compressed volume (%s) after %d records: %v", what, base, p, n, err)
			}
			sz, _ := a.VolumeSize(last)
			f, ferr := os.Open(a.VolumePath(last))
			if ferr != nil {
				t.Fatal(ferr)
			}
			var hdr [4]byte
			_, rerr := f.ReadAt(hdr[:], fe.Offset)
			f.Close()
			rest := sz - fe.Offset
			if rest <= 0 || (rerr == nil && int64(binary.BigEndian.Uint32(hdr[:])) <= rest) {
				t.Fatalf("%s: %s: damaged record at %d is not a partial last record: %v", what, base, fe.Offset, err)
			}
			return n, true
		}
		n++
	}
}

var (
	// What pmlogcheck says of a truncated tail.
	checkTruncData  = regexp.MustCompile(`^(.*)\.(\d+)\[record \d+\]: unexpected EOF in record (header|body)(, wanted \d+, got \d+ bytes)?$`)
	checkLastValid  = regexp.MustCompile(`^(.*)\.(\d+): last valid record ends at offset \d+$`)
	checkTruncIndex = regexp.MustCompile(`^.*\.index\[record \d+\]: unexpected EOF in index entry, wanted \d+, got \d+ bytes$`)
)

// crashReadReal has the real tools read the archive: pmdumplog must
// print the same n records and fail only after them when the last one
// is partial; pmlogcheck must report nothing but a truncated tail. It
// reports whether the index ends in a partial entry.
func crashReadReal(t *testing.T, what, base string, n int, bad bool) (partialIndex bool) {
	t.Helper()
	out, errb, rc := testenv.RunReal(t, "pmdumplog", "-m", base)
	got := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, " metrics") || strings.HasSuffix(line, " metric") || strings.HasSuffix(line, "<mark>") {
			got++
		}
	}
	if got != n {
		t.Errorf("%s: the real pmdumplog read %d records, pcpkit %d\n%s", what, got, n, errb)
	}
	switch {
	case bad && (rc != 1 || !strings.Contains(string(errb), "Corrupted record")):
		t.Errorf("%s: partial last record: real pmdumplog rc %d: %s", what, rc, errb)
	case !bad && (rc != 0 || len(errb) != 0):
		t.Errorf("%s: real pmdumplog rc %d: %s", what, rc, errb)
	}
	if out, errb, rc := testenv.RunReal(t, "pmdumplog", "-t", base); rc != 0 || strings.Contains(string(out), "Error") {
		t.Errorf("%s: temporal index: rc %d\n%s%s", what, rc, out, errb)
	}
	out, errb, rc = testenv.RunReal(t, "pmlogcheck", base)
	lastVol := -1
	if m, _ := filepath.Glob(base + ".[0-9]*"); len(m) > 0 {
		for _, f := range m {
			if v, err := strconv.Atoi(strings.TrimPrefix(f, base+".")); err == nil && v > lastVol {
				lastVol = v
			}
		}
	}
	var unexpected []string
	truncData := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)+string(errb)), "\n") {
		switch {
		case line == "":
		case checkTruncIndex.MatchString(line):
			partialIndex = true
		case checkTruncData.MatchString(line):
			m := checkTruncData.FindStringSubmatch(line)
			if v, _ := strconv.Atoi(m[2]); v != lastVol {
				unexpected = append(unexpected, line)
			}
			truncData = true
		case checkLastValid.MatchString(line):
			m := checkLastValid.FindStringSubmatch(line)
			if v, _ := strconv.Atoi(m[2]); v != lastVol {
				unexpected = append(unexpected, line)
			}
		default:
			unexpected = append(unexpected, line)
		}
	}
	if len(unexpected) > 0 || truncData != bad || (rc != 0) != (bad || partialIndex) {
		t.Errorf("%s: pmlogcheck rc %d, partial record %v:\n%s%s", what, rc, bad, out, errb)
	}
	return partialIndex
}

package replay_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// The replay oracle again, with libpcp 6.3.8: testdata/oracle/replay.py
// runs with the python3-pcp of the PCP 6.3.8 chroot (testenv.Real638)
// over copies of the archives inside it, and is compared with replay
// contexts behaving as 6.3.8 (replay.Options.Version).

// chroot638 is libpcp 6.3.8 in its chroot.
var chroot638 = &libpcp{version: replay.Version638, tally: &oracleTally{}, run: runOracle638}

var (
	placed638Mu sync.Mutex
	placed638   = map[string]string{} // a host directory -> its copy, inside the chroot
	placed638T  string                // the chroot's directory of the copies, on the host
)

// need638 skips the test (fails it under PCP_INTEROP=1) when the chroot
// is missing.
func need638(t testing.TB) { testenv.Real638(t) }

// place638 copies the directory dir (a set of archives: the test
// archives are small) into the chroot, once per test binary, with the
// oracle script and the no-op free, and returns the copy's path inside
// the chroot. The copies go when the test binary ends (TestMain's
// cleanup638).
func place638(t testing.TB, dir string) string {
	t.Helper()
	c := testenv.Real638(t)
	placed638Mu.Lock()
	defer placed638Mu.Unlock()
	if in, ok := placed638[dir]; ok {
		return in
	}
	if placed638T == "" {
		host, err := os.MkdirTemp(filepath.Join(c.Root, "tmp"), "pcpkit-oracle-")
		if err != nil {
			t.Fatal(err)
		}
		placed638T = host
		copyTo(t, filepath.Join(testenv.RepoRoot(t), "testdata", "oracle", "replay.py"), filepath.Join(host, "replay.py"))
		if so := noFree638(t); so != "" {
			copyTo(t, so, filepath.Join(host, "nofree.so"))
		}
	}
	name := "d" + string(rune('a'+len(placed638)))
	if out, err := exec.Command("cp", "-a", dir, filepath.Join(placed638T, name)).CombinedOutput(); err != nil {
		t.Fatalf("copying %s into the chroot: %v: %s", dir, err, out)
	}
	in := "/tmp/" + filepath.Base(placed638T) + "/" + name
	placed638[dir] = in
	return in
}

// cleanup638 removes the copies place638 made.
func cleanup638() {
	if placed638T != "" {
		os.RemoveAll(placed638T)
	}
}

// runOracle638 is runOracleFree with libpcp 6.3.8.
func runOracle638(t testing.TB, nofree bool, dir, archive, metrics, ops string, env ...string) (out string, crashed bool) {
	t.Helper()
	c := testenv.Real638(t)
	in := place638(t, dir)
	root := "/tmp/" + filepath.Base(placed638T)
	if _, err := os.Stat(filepath.Join(placed638T, "nofree.so")); nofree && err == nil {
		env = append(env, "LD_PRELOAD="+root+"/nofree.so")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := c.CommandContext(ctx, in, env, "python3", root+"/replay.py", archive, metrics)
	cmd.Stdin = strings.NewReader(ops)
	var outb, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &outb, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		// a signal kills python inside sh: the shell's exit code
		// tells of it (128 + the signal)
		if errors.As(err, &ee) && (ee.ExitCode() < 0 || ee.ExitCode() > 128) && ctx.Err() == nil {
			return outb.String(), true
		}
		t.Fatalf("oracle 6.3.8 %s %s: %v\n%s", archive, metrics, err, errb.String())
	}
	if strings.Contains(errb.String(), "execvp(bzip2, ...) failed") {
		t.Skip("the chroot has no bzip2 for the archive's .bz2 files")
	}
	return outb.String(), false
}

// testdataArchives are the committed archives, in testdata/archives.
var testdataArchives = []string{"pmcd-v2", "pmcd-v3", "sample-v3"}

// TestOracle638 is TestOracle with libpcp 6.3.8, over the same shared
// archives and the committed ones.
func TestOracle638(t *testing.T) {
	need638(t)
	type arch struct{ dir, name string }
	var all []arch
	for _, a := range oracleArchives {
		all = append(all, arch{testenv.SharedDir(t, a.set), a.name})
	}
	for _, a := range testdataArchives {
		all = append(all, arch{filepath.Join(testenv.RepoRoot(t), "testdata", "archives"), a})
	}
	for _, a := range all {
		t.Run(filepath.Base(a.dir)+"/"+a.name, func(t *testing.T) {
			start, end, nrec, pmids := archiveFacts(t, filepath.Join(a.dir, a.name))
			rs, is := recordScript(start, end, nrec), interpScript(start, end)
			chroot638.compare(t, a.dir, a.name, pmidList(pmids, 60), rs)
			chroot638.compare(t, a.dir, a.name, pmidList(pmids, 60), is)
			chroot638.compare(t, a.dir, a.name, pmidList(pmids, 60), reverseScript(start, end))
			for i, p := range pmids {
				if i == 4 {
					break
				}
				chroot638.compare(t, a.dir, a.name, "pmid:"+p.String(), is)
			}
		})
	}
}

// TestOracle638All is TestOracleAll with libpcp 6.3.8, interpolation
// only (where the versions differ; TestOracle638 compares the other
// modes): every shared archive, damaged ones included, all metrics at
// once.
//
// It takes a minute or more, and runs with PCPKIT_SLOW638=1 only, to keep
// the package within go test's default time limit.
func TestOracle638All(t *testing.T) {
	if os.Getenv("PCPKIT_SLOW638") != "1" {
		t.Skip("set PCPKIT_SLOW638=1 to run it")
	}
	need638(t)
	forOracleArchives(t, func(t *testing.T, dir, a string, start, end pmapi.Timestamp, _ int, pmids []pmapi.PMID) {
		chroot638.compare(t, dir, a, pmidList(pmids, 60), interpScript(start, end))
	})
}

// TestOracle638Rules compares ruleArchive (TestInterpRules) with libpcp
// 6.3.8 and 6.0.3, at times around each midpoint, forwards and
// backwards.
func TestOracle638Rules(t *testing.T) {
	need638(t)
	dir := t.TempDir()
	ruleArchive(t, dir)
	var ops strings.Builder
	for _, d := range []string{"1 0", "0 500000000", "0 250000000", "-1 0", "0 -300000000", "3 300000000"} {
		for _, from := range []string{"1699999999 900000000", "1700000000 0", "1700000004 999999999", "1700000041 0", "1700000020 0"} {
			ops.WriteString("mode interp " + from + " " + d + "\nfetch 50\n")
		}
	}
	chroot638.compare(t, dir, "rules", "x.i,x.d", ops.String())
	needOracle(t)
	host603.compare(t, dir, "rules", "x.i,x.d", ops.String())
}

package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The second oracle: PCP 6.3.8 (Debian 13's), installed in a chroot beside
// the host's 6.0.3 (.ci/run sets it up: debootstrap --variant=minbase
// trixie, then pcp and python3-pcp inside). Tests that compare with it get
// it from Real638; like the host's real tools, they skip when it is
// missing, and fail instead under PCP_INTEROP=1.

// Root638Env names the environment variable that overrides the root of
// the PCP 6.3.8 chroot (Root638Default).
const Root638Env = "PCPKIT_PCP638_ROOT"

// Root638Default is where .ci/run installs PCP 6.3.8.
const Root638Default = "/opt/pcp-6.3.8"

// Chroot is a root file system with a PCP installed, whose tools run
// under chroot(8) (so the tests must run as root).
type Chroot struct {
	// Root is the chroot's root directory on the host.
	Root string
}

var (
	real638Once sync.Once
	real638     *Chroot
	real638Why  string
)

// Root638 returns the root the PCP 6.3.8 chroot is looked for at:
// $PCPKIT_PCP638_ROOT, else Root638Default.
func Root638() string {
	if r := os.Getenv(Root638Env); r != "" {
		return r
	}
	return Root638Default
}

// FindReal638 is Real638 without a testing.TB: the chroot, or nil and why
// it cannot be used.
func FindReal638() (*Chroot, string) {
	real638Once.Do(func() {
		c := &Chroot{Root: Root638()}
		if _, err := os.Stat(filepath.Join(c.Root, "usr", "bin", "pmval")); err != nil {
			real638Why = "no PCP in " + c.Root + " (" + Root638Env + ")"
			return
		}
		out, err := c.Command("/", nil, "pmval", "--version").CombinedOutput()
		if err != nil {
			real638Why = "cannot run pmval in " + c.Root + ": " + strings.TrimSpace(string(out)) + " (" + err.Error() + ")"
			return
		}
		if !bytes.Contains(out, []byte("version 6.3.8")) {
			real638Why = c.Root + " has " + strings.TrimSpace(string(out)) + ", not 6.3.8"
			return
		}
		real638 = c
	})
	return real638, real638Why
}

// Absent638Env names the environment variable that .ci/run sets to
// "absent" where it could not set the chroot up (no debootstrap): the tests
// that need it then skip, even under PCP_INTEROP=1.
const Absent638Env = "PCPKIT_PCP638"

// Real638 returns the PCP 6.3.8 chroot. When it is missing (or cannot be
// entered: chroot needs root) the test is skipped, or fails under
// PCP_INTEROP=1 (unless $PCPKIT_PCP638 is "absent").
func Real638(t testing.TB) *Chroot {
	t.Helper()
	c, why := FindReal638()
	if c != nil {
		return c
	}
	if Interop() && os.Getenv(Absent638Env) != "absent" {
		t.Fatalf("PCP_INTEROP=1 but the real PCP 6.3.8 is not usable: %s", why)
	}
	t.Skipf("the real PCP 6.3.8 is not usable (set PCP_INTEROP=1 to make this a failure): %s", why)
	return nil
}

// Env638 is the environment the chroot's tools run in: a clean one (none
// of the host's), with TZ=UTC, PCP_DERIVED_CONFIG= (empty) and LC_ALL=C
// as for the host's real tools, followed by extra ("KEY=value", which
// override).
func Env638(extra ...string) []string {
	env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "TZ=UTC", "PCP_DERIVED_CONFIG=", "LC_ALL=C"}
	for _, kv := range extra {
		k, _, _ := strings.Cut(kv, "=")
		for i, e := range env {
			if strings.HasPrefix(e, k+"=") {
				env = append(env[:i], env[i+1:]...)
				break
			}
		}
		env = append(env, kv)
	}
	return env
}

// Command is the command that runs name with args inside the chroot, in
// the chroot's directory dir (a path inside it), with the environment
// Env638(env...).
func (c *Chroot) Command(dir string, env []string, name string, args ...string) *exec.Cmd {
	return c.CommandContext(context.Background(), dir, env, name, args...)
}

// CommandContext is Command with a context.
func (c *Chroot) CommandContext(ctx context.Context, dir string, env []string, name string, args ...string) *exec.Cmd {
	argv := append([]string{c.Root, "/usr/bin/env", "-i"}, Env638(env...)...)
	argv = append(argv, "/bin/sh", "-c", `cd "$1" && shift && exec "$@"`, "sh", dir, name)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, "chroot", argv...)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	return cmd
}

// TempDir makes a fresh directory inside the chroot (under its /tmp),
// removed when the test ends, and returns its path on the host and inside
// the chroot.
func (c *Chroot) TempDir(t testing.TB) (host, inside string) {
	t.Helper()
	base := filepath.Join(c.Root, "tmp")
	host, err := os.MkdirTemp(base, "pcpkit-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(host) })
	return host, "/tmp/" + filepath.Base(host)
}

// Run runs name with args in the chroot's directory dir, with no standard
// input and a timeout of RealTimeout, and returns its standard output,
// standard error and exit code (negative when a signal killed it: a
// crash of the real tool is reported, not a test failure).
func (c *Chroot) Run(t testing.TB, dir string, env []string, name string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RealTimeout)
	defer cancel()
	return runCmd(t, ctx, c.CommandContext(ctx, dir, env, name, args...), "6.3.8 "+name+" "+strings.Join(args, " "))
}

// CopyArchive copies the files of the archive whose base name is base
// (base.meta, base.0, base.index, compressed or not) into dir.
func CopyArchive(t testing.TB, base, dir string) {
	t.Helper()
	files, err := filepath.Glob(base + ".*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no archive files for %s", base)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// PlaceDir copies the directory dir (a set of archives, say) into a fresh
// directory of the chroot, removed when the test ends, and returns the
// copy's path inside the chroot.
func (c *Chroot) PlaceDir(t testing.TB, dir string) string {
	t.Helper()
	host, inside := c.TempDir(t)
	copyDir(t, dir, host)
	return inside
}

// Tool638 compares one of pcpkit's tools, behaving as PCP 6.3.8, with the
// real tool of PCP 6.3.8 run in the chroot over copies of the archive
// directories (made once per Tool638, for the length of the test that
// made it), and counts the runs.
type Tool638 struct {
	Name string // the tool's name, in the chroot's PATH
	// Run runs pcpkit's tool in-process in dir (the host's directory)
	// with args and the extra environment env, which holds
	// PCPKIT_PCP_VERSION=6.3.8.
	Run func(t *testing.T, dir string, args []string, env ...string) (stdout, stderr string, exitCode int)

	top    testing.TB
	c      *Chroot
	placed map[string]string
	N      int // runs compared
	Same   int // of those, identical
}

// Need gets the chroot for the test t (skipping it, or failing it under
// PCP_INTEROP=1, without one); the archive copies last as long as t.
func (p *Tool638) Need(t *testing.T) {
	t.Helper()
	p.top, p.c = t, Real638(t)
	if p.placed == nil {
		p.placed = map[string]string{}
	}
}

// Compare runs both tools with args in dir (the real one in its copy),
// with the extra environment env, reports the differences and whether
// there were none. A run the chroot cannot make (no bzip2 or zstd to read
// the archive's .bz2 or .zst files) is skipped. fix, if not nil, may
// adjust the real tool's output before the comparison (a known crash).
func (p *Tool638) Compare(t *testing.T, dir string, args []string, fix func(stdout, stderr []byte, rc int) ([]byte, []byte, int), env ...string) bool {
	t.Helper()
	in, ok := p.placed[dir]
	if !ok {
		in = p.c.PlaceDir(p.top, dir)
		p.placed[dir] = in
	}
	wout, werr, wrc := p.c.Run(t, in, env, p.Name, args...)
	if m := missingDecompressor.Find(werr); m != nil {
		t.Skipf("the chroot cannot decompress the archive: %s", m)
	}
	if fix != nil {
		wout, werr, wrc = fix(wout, werr, wrc)
	}
	out, errs, rc := p.Run(t, dir, args, append([]string{"PCPKIT_PCP_VERSION=6.3.8", "PCP_DERIVED_CONFIG=", "LC_ALL=C"}, env...)...)
	p.N++
	ok = string(wout) == AsReal(out) && string(werr) == AsReal(errs) && wrc == rc // as CompareRun compares
	CompareRun(t, p.Name+" 6.3.8", p.Name+" "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
	if ok {
		p.Same++
	}
	return ok
}

// MissingDecompressor reports whether stderr, the real 6.3.8 tool's, says
// that the chroot lacks the program that decompresses an archive's files
// (the run is then not a comparison).
func MissingDecompressor(stderr []byte) bool { return missingDecompressor.Match(stderr) }

// missingDecompressor is what libpcp prints when the program that
// decompresses an archive's files (bzip2, zstd) is missing: the minimal
// chroot has xz only.
var missingDecompressor = regexp.MustCompile(`execvp\((bzip2|zstd), \.\.\.\) failed`)

// Report logs the counts.
func (p *Tool638) Report(t testing.TB) {
	t.Helper()
	if p.N > 0 {
		t.Logf("%s 6.3.8: %d runs, %d identical", p.Name, p.N, p.Same)
	}
}

// CopyDir copies the directory dir into a fresh directory of the host,
// removed when the test ends, and returns the copy's path: a place for
// the files a command line names by relative paths beside the archives,
// which Tool638.Compare then places in the chroot.
func CopyDir(t testing.TB, dir string) string {
	t.Helper()
	host := t.TempDir()
	copyDir(t, dir, host)
	return host
}

// copyDir copies what the directory dir holds into the directory to.
func copyDir(t testing.TB, dir, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", dir+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("copying %s to %s: %v: %s", dir, to, err, out)
	}
}

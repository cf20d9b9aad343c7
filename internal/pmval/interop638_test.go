package pmval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// pmvalOracle is a real pmval that pcpkit's is compared with: the host's
// (PCP 6.0.3), or PCP 6.3.8's in its chroot, with pcpkit's pmval behaving
// as the same version.
type pmvalOracle interface {
	// need skips the test (fails it under PCP_INTEROP=1) when the real
	// pmval is missing.
	need(t *testing.T)
	// compare runs both pmvals with args in dir (with env) and reports
	// any difference.
	compare(t *testing.T, dir string, args []string, env ...string) bool
}

// interopWith runs an interop test with the real pmval p: a new one for
// each test (the 6.3.8 one copies the archives into its chroot for the
// test's length).
func interopWith(t *testing.T, p pmvalOracle, f func(*testing.T, pmvalOracle)) {
	t.Helper()
	f(t, p)
	if c, ok := p.(*chroot638Pmval); ok && c.n > 0 {
		t.Logf("pmval 6.3.8: %d runs, %d identical", c.n, c.same)
	}
}

// host603Pmval is the host's real pmval.
type host603Pmval struct{}

var real603 pmvalOracle = host603Pmval{}

func (host603Pmval) need(t *testing.T) { testenv.RealTool(t, "pmval") }

func (host603Pmval) compare(t *testing.T, dir string, args []string, env ...string) bool {
	t.Helper()
	return compareReal(t, dir, args, env...)
}

// chroot638Pmval is the real pmval of PCP 6.3.8, in its chroot, run over
// copies of the archives; pcpkit's runs with PCPKIT_PCP_VERSION=6.3.8.
type chroot638Pmval struct {
	top    *testing.T // the test that owns the copies
	c      *testenv.Chroot
	placed map[string]string // host directory -> its copy in the chroot
	n      int               // runs compared
	same   int               // of those, identical
}

func newPmval638() *chroot638Pmval { return &chroot638Pmval{placed: map[string]string{}} }

func (p *chroot638Pmval) need(t *testing.T) {
	p.top, p.c = t, testenv.Real638(t)
}

func (p *chroot638Pmval) compare(t *testing.T, dir string, args []string, env ...string) bool {
	t.Helper()
	in, ok := p.placed[dir]
	if !ok {
		in = p.c.PlaceDir(p.top, dir)
		p.placed[dir] = in
	}
	wout, werr, wrc := p.c.Run(t, in, env, "pmval", args...)
	if bytes.Contains(werr, []byte("execvp(bzip2, ...) failed")) {
		t.Skip("the chroot has no bzip2 for the archive's .bz2 files")
	}
	out, errs, rc := run(t, dir, args, append([]string{"PCPKIT_PCP_VERSION=6.3.8", "PCP_DERIVED_CONFIG=", "LC_ALL=C"}, env...)...)
	p.n++
	ok = true
	what := "pmval " + strings.Join(args, " ")
	if msg, known := knownRealCrashes[strings.Join(args, " ")]; known && wrc < 0 && string(werr) == msg+"\n" {
		// as 6.0.3's (knownRealCrashes), the real pmval dies after
		// printing every value: its stdout is compared
		werr, wrc = nil, 0
	}
	if d := cmp.Diff(string(wout), out); d != "" {
		t.Errorf("%s: stdout differs from the real pmval 6.3.8 (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	if d := cmp.Diff(string(werr), errs); d != "" {
		t.Errorf("%s: stderr differs from the real pmval 6.3.8 (-real +pcpkit):\n%s", what, d)
		ok = false
	}
	if wrc != rc {
		t.Errorf("%s: exit status %d, real pmval 6.3.8 %d", what, rc, wrc)
		ok = false
	}
	if ok {
		p.same++
	}
	return ok
}

// The interop tests again, against the real pmval of PCP 6.3.8.

func TestInterop638Errors(t *testing.T) { interopWith(t, newPmval638(), interopErrors) }
func TestInterop638Shared(t *testing.T) { interopWith(t, newPmval638(), interopShared) }
func TestInterop638AllMetrics(t *testing.T) {
	interopWith(t, newPmval638(), interopAllMetrics)
}
func TestInterop638Events(t *testing.T)  { interopWith(t, newPmval638(), interopEvents) }
func TestInterop638Options(t *testing.T) { interopWith(t, newPmval638(), interopOptions) }
func TestInterop638InstanceNames(t *testing.T) {
	interopWith(t, newPmval638(), interopInstanceNames)
}

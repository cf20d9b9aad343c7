package pmval

import (
	"os"
	"strings"
	"testing"

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

// interopWith runs an interop test with the real pmval p.
func interopWith(t *testing.T, p pmvalOracle, f func(*testing.T, pmvalOracle)) {
	t.Helper()
	f(t, p)
	if c, ok := p.(*chroot638Pmval); ok {
		c.Report(t)
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

// chroot638Pmval is the real pmval of PCP 6.3.8, in its chroot (a new one
// for each test: it copies the archives into the chroot for the test's
// length); pcpkit's runs with PCPKIT_PCP_VERSION=6.3.8.
type chroot638Pmval struct{ testenv.Tool638 }

func newPmval638() *chroot638Pmval {
	return &chroot638Pmval{testenv.Tool638{Name: "pmval", Run: run}}
}

func (p *chroot638Pmval) need(t *testing.T) { p.Need(t) }

func (p *chroot638Pmval) compare(t *testing.T, dir string, args []string, env ...string) bool {
	t.Helper()
	return p.Compare(t, dir, args, func(wout, werr []byte, wrc int) ([]byte, []byte, int) {
		if msg, known := knownRealCrashes[strings.Join(args, " ")]; known && wrc < 0 && string(werr) == msg+"\n" {
			// as 6.0.3's (knownRealCrashes), the real pmval dies
			// after printing every value: its stdout is compared
			return wout, nil, 0
		}
		return wout, werr, wrc
	}, env...)
}

// The interop tests again, against the real pmval of PCP 6.3.8.

func TestInterop638Errors(t *testing.T) { interopWith(t, newPmval638(), interopErrors) }
func TestInterop638Shared(t *testing.T) { interopWith(t, newPmval638(), interopShared) }

// TestInterop638AllMetrics is the longest (4815 runs, a minute or more):
// it runs with PCPKIT_SLOW638=1 only, to keep the package within go
// test's default time limit.
func TestInterop638AllMetrics(t *testing.T) {
	if os.Getenv("PCPKIT_SLOW638") != "1" {
		t.Skip("set PCPKIT_SLOW638=1 to run it")
	}
	interopWith(t, newPmval638(), interopAllMetrics)
}
func TestInterop638Events(t *testing.T)  { interopWith(t, newPmval638(), interopEvents) }
func TestInterop638Options(t *testing.T) { interopWith(t, newPmval638(), interopOptions) }
func TestInterop638InstanceNames(t *testing.T) {
	interopWith(t, newPmval638(), interopInstanceNames)
}

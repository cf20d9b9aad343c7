package dumplog

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run638 is run with an environment, for testenv.Tool638.
func run638(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return run(t, dir, args)
}

// TestInterop638Shared is TestInteropShared (and TestGoldens' archives)
// against the real pmdumplog of PCP 6.3.8, in its chroot, with pcpkit's
// behaving as 6.3.8 (PCPKIT_PCP_VERSION): every shared archive and every
// archive of testdata/archives in every interop mode.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pmdumplog", Run: run638}
	p.Need(t)
	defer p.Report(t)
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives", testenv.TestdataSet}, func(t *testing.T, dir, a, m string) {
		p.Compare(t, dir, append(strings.Fields(m), a), nil)
	})
}

package logsummary

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInterop638Shared is TestInteropShared (and TestGoldens' archives)
// against the real pmlogsummary of PCP 6.3.8, in its chroot, with
// pcpkit's behaving as 6.3.8 (PCPKIT_PCP_VERSION): every shared archive
// and every archive of testdata/archives in every interop mode.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives", testenv.TestdataSet}, func(t *testing.T, dir, a, m string) {
		p.Compare(t, dir, append(strings.Fields(m), a), nil)
	})
}

// TestInterop638Metrics is TestInteropMetrics against the real
// pmlogsummary of PCP 6.3.8.
func TestInterop638Metrics(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	forMetricCases(t, func(t *testing.T, dir, a string, args []string) {
		p.Compare(t, dir, args, nil)
	})
}

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

// known638ArchiveLists is what pcpkit's pmlogsummary does not do as PCP
// 6.3.8's yet: given a comma-separated list of archives, 6.3.8 summarises
// the metrics of every archive, in an order not yet worked out (6.0.3,
// and pcpkit, those of the first archive in its namespace's order). The
// directories of archives of the shared sets (QA multi, multi_v3) come
// out the same.
const known638ArchiveLists = "known divergence: a list of archives (6.3.8 summarises the metrics of every archive, in an order pcpkit does not reproduce yet)"

// known638Lists are the golden cases known638ArchiveLists are about.
var known638Lists = map[string]bool{
	"-a pmcd-v3,pmcd-v2,sample-v3":                   true,
	"-a sample-v3,pmcd-v2,pmcd-v3":                   true,
	"-l -y -i -I -S +10 pmcd-v3,pmcd-v2,sample-v3":   true,
	"-l -y -S -3 pmcd-v3,pmcd-v2,sample-v3":          true,
	"-y -B 3 -S +5 -T +15 pmcd-v3,pmcd-v2,sample-v3": true,
}

// TestGoldens638 compares pcpkit's pmlogsummary, behaving as PCP 6.3.8, with
// the committed output of the real pmlogsummary of PCP 6.3.8
// (testdata/golden638/pmlogsummary, made by PCP638=1 scripts/make-goldens.sh
// pmlogsummary) for every case of TestGoldens. It needs no PCP installation.
func TestGoldens638(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmlogsummary") {
		t.Run(c.Name(), func(t *testing.T) {
			if known638Lists[strings.Join(c.Args(), " ")] {
				t.Skip(known638ArchiveLists)
			}
			g := testenv.ReadGolden638(t, "pmlogsummary", c)
			out, errs, rc := run(t, dir, c.Args(), "PCPKIT_PCP_VERSION=6.3.8")
			testenv.CompareRun(t, "pmlogsummary 6.3.8", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

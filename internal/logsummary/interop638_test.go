package logsummary

import (
	"path/filepath"
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
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives", "testdata"} {
		var dir string
		var names []string
		if set == "testdata" {
			dir = filepath.Join(testenv.RepoRoot(t), "testdata", "archives")
			names = testenv.Archives(t, dir)
		} else {
			dir = testenv.SharedDir(t, set)
			names = sharedArchives(t, dir)
		}
		for _, a := range names {
			for _, m := range interopModes {
				args := append(strings.Fields(m), a)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) {
					p.Compare(t, dir, args, nil)
				})
			}
		}
	}
}

// TestInterop638Metrics is TestInteropMetrics against the real
// pmlogsummary of PCP 6.3.8.
func TestInterop638Metrics(t *testing.T) {
	p := &testenv.Tool638{Name: "pmlogsummary", Run: run}
	p.Need(t)
	defer p.Report(t)
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, a := range sharedArchives(t, dir) {
			names := metricArgs(t, dir, a)
			if names == nil {
				continue
			}
			for _, m := range []string{"-a", "-x -y -I"} {
				args := append(append(strings.Fields(m), a), names...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) {
					p.Compare(t, dir, args, nil)
				})
			}
		}
	}
}

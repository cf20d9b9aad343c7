package dumplog

import (
	"os"
	"path/filepath"
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
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives", "testdata"} {
		var dir string
		if set == "testdata" {
			dir = filepath.Join(testenv.RepoRoot(t), "testdata", "archives")
		} else {
			dir = testenv.SharedDir(t, set)
		}
		archives := testenv.Archives(t, dir)
		if _, err := os.Stat(filepath.Join(dir, "bad", "nometa3.0")); err == nil {
			archives = append(archives, "bad/nometa3")
		}
		for _, a := range archives {
			if strings.HasPrefix(a, "multi") {
				continue // directories of archives: see TestMultiArchiveRefused
			}
			for _, m := range interopModes {
				args := append(strings.Fields(m), a)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) {
					p.Compare(t, dir, args, nil)
				})
			}
		}
	}
}

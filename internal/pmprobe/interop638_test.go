package pmprobe

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// run638 runs pcpkit's pmprobe in-process, for testenv.Tool638.
func run638(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	return testenv.RunMain(t, Main, dir, args, env...)
}

// divergent638 are the divergent archives that remain against PCP 6.3.8,
// whose libpcp reads the others as pcpkit does (see internal/pminfo's
// sharedDivergences638).
var divergent638 = map[string]bool{"badti-2": true}

// TestInterop638Shared is TestInteropShared against the real pmprobe of
// PCP 6.3.8, in its chroot, with pcpkit's behaving as 6.3.8
// (PCPKIT_PCP_VERSION), over testdata/archives too.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pmprobe", Run: run638}
	p.Need(t)
	defer p.Report(t)
	for _, set := range []string{testenv.TestdataSet, "pcp-qa-archives", "pcp-made-archives", "pcp-qa-badarchives"} {
		dir := testenv.SetDir(t, set)
		archives := testenv.Archives(t, dir)
		if set == "pcp-qa-archives" {
			archives = append(archives, "multi", "multi_v3", "multi-xz", "arch_a,arch_b")
		}
		for _, a := range archives {
			if divergent638[a] {
				continue
			}
			for _, m := range probeModes {
				args := append([]string{"-a", a}, strings.Fields(m)...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { p.Compare(t, dir, args, nil) })
			}
		}
	}
}

// TestInterop638CommandLine is TestInteropCommandLine against the real
// pmprobe of PCP 6.3.8, in a copy of ../shared/pcp-made-archives that
// holds the derived metric configuration too.
func TestInterop638CommandLine(t *testing.T) {
	p := &testenv.Tool638{Name: "pmprobe", Run: run638}
	p.Need(t)
	defer p.Report(t)
	dir := testenv.CopyDir(t, testenv.SharedDir(t, "pcp-made-archives"))
	writeDerived(t, filepath.Join(dir, "d.conf"))
	for _, args := range commandLines("d.conf") {
		t.Run(strings.Join(args, " "), func(t *testing.T) { p.Compare(t, dir, args, nil) })
	}
	t.Run("PCP_DERIVED_CONFIG", func(t *testing.T) {
		p.Compare(t, dir, []string{"-a", "synth3", "-v"}, nil, "PCP_DERIVED_CONFIG=d.conf")
	})
}

package pminfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// sharedDivergences638 are the archives on which pcpkit's pminfo differs
// from PCP 6.3.8's, with the reason (libpcp 6.3.8 reads the archives
// sharedDivergences leaves out for 6.0.3 as pcpkit does).
var sharedDivergences638 = map[string]struct {
	modes []string
	why   string
}{
	"nvidiagpu-0": {[]string{"-l", "-dfmtTlsx"}, "instance label sets of two records of one time: libpcp 6.3.8 merges them, in an order not understood yet (6.0.3 keeps the first, archive.Meta.Labels)"},
	"badti-2":     sharedDivergences["badti-2"],
}

// TestInterop638Shared is TestInteropShared against the real pminfo of
// PCP 6.3.8, in its chroot, with pcpkit's behaving as 6.3.8
// (PCPKIT_PCP_VERSION): every archive of testdata/archives and of the
// shared sets in every interop mode.
func TestInterop638Shared(t *testing.T) {
	p := &testenv.Tool638{Name: "pminfo", Run: run}
	p.Need(t)
	defer p.Report(t)
	logged := map[string]bool{}
	for _, set := range []string{testenv.TestdataSet, "pcp-qa-archives", "pcp-made-archives", "pcp-qa-badarchives"} {
		dir := testenv.SetDir(t, set)
		archives := testenv.Archives(t, dir)
		if set != testenv.TestdataSet {
			archives = sharedArchives(t, set)
		}
		for _, a := range archives {
			for _, m := range interopModes {
				if skippedIn(t, sharedDivergences638, logged, a, m) {
					continue
				}
				args := append([]string{"-a", a}, strings.Fields(m)...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { p.Compare(t, dir, args, nil) })
			}
		}
	}
}

// TestInterop638CommandLine is TestInteropCommandLine against the real
// pminfo of PCP 6.3.8, in a copy of ../shared/pcp-made-archives that
// holds the namespace files too.
func TestInterop638CommandLine(t *testing.T) {
	p := &testenv.Tool638{Name: "pminfo", Run: run}
	p.Need(t)
	defer p.Report(t)
	dir := testenv.CopyDir(t, testenv.SharedDir(t, "pcp-made-archives"))
	writeNamespaces(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "g.conf"), []byte("a.c = 1\nsynth.zz = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range commandLines("dup.pmns", "dyn.pmns") {
		t.Run(strings.Join(args, " "), func(t *testing.T) { p.Compare(t, dir, args, nil) })
	}
	for _, tc := range envCommandLines {
		t.Run(tc.env+" "+strings.Join(tc.args, " "), func(t *testing.T) { p.Compare(t, dir, tc.args, nil, tc.env) })
	}
	for _, args := range registerLines {
		t.Run(strings.Join(args, " "), func(t *testing.T) { p.Compare(t, dir, args, nil) })
	}
}

// registerLines are command lines with pminfo 6.3.8's -r name=expr (its
// per-context derived metrics), run in a copy of
// ../shared/pcp-made-archives with g.conf, a global derived metric
// configuration.
var registerLines = [][]string{
	{"-a", "synth3", "-r", "a.b=1", "-r", "zz.q=2", "-r", "synth.new=3", "-r", "synth.ctr32=4", "-c", "g.conf"},
	{"-a", "synth3", "-r", "a.b=1", "-r", "zz.q=2", "-c", "g.conf", "-m", "a", "zz"},
	{"-a", "synth3", "-r", "a.c=5", "-c", "g.conf", "-dfm", "a"},
	{"-a", "synth3", "-r", "a.b=synth.ctr32", "-r", "synth.zz=3", "-c", "g.conf", "-dfm", "synth"},
	{"-r", "a.b=1", "-h", "localhost", "-m", "a"},
	{"-h", "localhost", "-r", "a.b=kernel.all.load*2", "-r", "a.c=nosuch.x", "-dfm", "a"},
	{"-n", "g.conf", "-r", "a.b=1", "-m", "a"},
	{"-a", "synth3", "-r", "a.b=synth.multi", "-f", "-d", "a"},
	{"-a", "synth3", "-r", "my.x=synth.ctr32*", "-f", "my"},
	{"-a", "synth3", "-r", "myx"},
	{"-a", "synth3", "-r", "my.y=synth.nosuch", "-d", "my"},
	{"-a", "synth3", "-r", "a.b = 3", "-r", "a.c 7", "-r", "a.d=", "-r", "a.e  = ", "-dfmtT", "a"},
	{"-a", "synth3", "-r", "a.b=rate(synth.ctr32)", "-r", "a.c=a.b*2", "-r", "a.b=1", "-dfmtTl", "a"},
	{"-a", "synth3", "-r", "a.b=synth.ctr32", "-x", "-F", "-s", "-I", "a"},
	{"-a", "synth3", "-r", "a.b=1", "-r", "a.c=2", "-dfmtT"},
	{"-a", "synth3", "-r", "a=1", "-m", "a"},
	{"-a", "synth3", "-r", "a.b=1", "-v"},
	{"-a", "synth3", "--reg=a.b=1", "-m", "a"},
	{"-a", "synth3", "-r"},
}

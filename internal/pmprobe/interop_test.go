package pmprobe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// probeModes are the option sets run against every shared archive.
var probeModes = []string{"", "-v", "-i -I", "-f -i -I", "-I"}

// divergent are the shared archives whose reading by package archive or
// replay differs from PCP 6.0.3's (see internal/pminfo's
// sharedDivergences for each reason): pmprobe is not compared on them.
var divergent = map[string]bool{"badti-2": true}

// TestInteropShared runs the real pmprobe and pcpkit's on every archive
// in ../shared (with the multi-archive directories and lists).
func TestInteropShared(t *testing.T) {
	testenv.RealTool(t, "pmprobe")
	n := 0
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives", "pcp-qa-badarchives"} {
		dir := testenv.SharedDir(t, set)
		archives := testenv.Archives(t, dir)
		if set == "pcp-qa-archives" {
			archives = append(archives, "multi", "multi_v3", "multi-xz", "arch_a,arch_b")
		}
		for _, a := range archives {
			if divergent[a] || a == "synth/ok-foo-zst" {
				continue
			}
			for _, m := range probeModes {
				args := append([]string{"-a", a}, strings.Fields(m)...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { testenv.CompareMain(t, "pmprobe", Main, dir, args) })
				n++
			}
		}
	}
	t.Logf("%d command lines compared; not compared (see internal/pminfo): %d archives", n, len(divergent))
}

// TestInteropCommandLine covers option handling and operands.
func TestInteropCommandLine(t *testing.T) {
	testenv.RealTool(t, "pmprobe")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	conf := filepath.Join(t.TempDir(), "d.conf")
	writeDerived(t, conf)
	for _, args := range commandLines(conf) {
		t.Run(strings.Join(args, " "), func(t *testing.T) { testenv.CompareMain(t, "pmprobe", Main, dir, args) })
	}
	t.Run("PCP_DERIVED_CONFIG", func(t *testing.T) {
		testenv.CompareMain(t, "pmprobe", Main, dir, []string{"-a", "synth3", "-v"}, "PCP_DERIVED_CONFIG="+conf)
	})
	t.Run("system derived", func(t *testing.T) {
		testenv.CompareMain(t, "pmprobe", Main, dir, []string{"-a", "synth3", "-v"}, "PCP_DERIVED_CONFIG")
	})
}

// derivedConf is the derived metric configuration of commandLines.
const derivedConf = "synth.sum = synth.ctr32 + synth.disc\nmy.rate = rate(synth.ctr32)\nmy.bad = synth.nosuch\nsynth.ctr32 = synth.disc\na.b = synth.multi\n"

// writeDerived writes derivedConf to path.
func writeDerived(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(derivedConf), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandLines are TestInteropCommandLine's command lines, run in
// ../shared/pcp-made-archives; conf names a derived metric configuration
// (derivedConf).
func commandLines(conf string) [][]string {
	return [][]string{
		{"-d"}, {"-e"}, {"--version"}, {"-?"}, {"--bogus"}, {"--ver"}, {"-a", "synth3", "-V"},
		{"-a", "synth3", "-v", "-i"}, {"-a", "synth3", "-i", "-v"}, {"-a", "synth3", "-I", "-v"},
		{"-a", "synth3", "-F", "synth.ctr32", "synth", "nosuch"}, {"-a", "synth3", "synth", "nosuch", "synth.multi"},
		{"-a", "synth3", "-O", "+3", "-v"}, {"-a", "synth3", "-O", "@bogus"}, {"-a", "synth3", "-z", "-v"},
		{"-a", "synth3", "-Z", "EST5EDT", "-v"}, {"-a", "synth3", "-b", "x"}, {"-a", "synth3", "-b", "1", "-v"},
		{"-a", "synth3", "-b", "2", "-v"}, {"-a", "synth3", "--derived=/nonexistent"},
		{"-a", "synth3", "--derived=" + conf, "-v"}, {"-a", "synth3", "--derived=" + conf, "-f", "-I", "-i"},
		{"-a", "synth3", "-K", "foo"}, {"-a", "synth3", "-v", "synth.multi", "-f"}, {"-a", "nosuch"},
		{"-a", "synth3", "-h", "localhost"}, {"-z"}, {"-a", "bad/trunc3", "-v"},
		// an empty archive or host name (PCP QA test 552)
		{"-a", ""}, {"-h", ""}, {"-a", "", "-v", "synth.ctr32"},
	}
}

// TestInteropStdoutBuffering is pminfo's test of the same name for
// pmprobe: stdout and stderr on one stream.
func TestInteropStdoutBuffering(t *testing.T) {
	made := testenv.SharedDir(t, "pcp-made-archives")
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{made, []string{"-a", "synth3", "-v", "synth.multi", "nosuch", "synth"}},
		{qa, []string{"-a", "20180127.08.40", "-v", "-i", "-I", "kernel", "disk", "mem", "nosuch"}},
		{qa, []string{"-a", "20180127.08.40", "-v", "-O", "@99:00", "kernel"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) { testenv.CompareCombined(t, "pmprobe", Main, c.dir, c.args) })
	}
}

package pminfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestInteropAdhoc compares the command line in $PMINFO_ARGS (run in
// $PMINFO_DIR), for investigating.
func TestInteropAdhoc(t *testing.T) {
	args := os.Getenv("PMINFO_ARGS")
	if args == "" {
		t.Skip("set PMINFO_ARGS")
	}
	compareReal(t, os.Getenv("PMINFO_DIR"), strings.Fields(args))
}

// interopModes are the option sets run against every shared archive.
var interopModes = []string{
	"", "-f", "-dmM", "-tT", "-l", "-s", "-x", "-v", "-F", "-I", "-dfmtTlsx",
}

// sharedDivergences are the shared archives on which pcpkit's reading of
// the archive itself (package archive or replay, not pminfo) differs from
// PCP 6.0.3's, with the reason; pmdumplog differs on them too. The modes
// listed are skipped (all of them when none is listed).
var sharedDivergences = map[string]struct {
	modes []string
	why   string
}{
	"badti-2": {[]string{"-f", "-x", "-v", "-F", "-l", "-dfmtTlsx"}, "a damaged temporal index: libpcp positions a fetch from time 0 through it (replay)"},
}

// sharedArchives lists the archives of the shared sets, with the
// multi-archive directories and two comma lists.
func sharedArchives(t *testing.T, set string) []string {
	dir := testenv.SharedDir(t, set)
	archives := testenv.Archives(t, dir)
	if set == "pcp-qa-archives" {
		archives = append(archives, "multi", "multi_v3", "multi-xz", "arch_a,arch_b", "ok-mv-foo,ok-foo")
	}
	return archives
}

// skipped reports whether a (archive, mode) pair is a known divergence
// (logged once per archive in logged).
func skipped(t *testing.T, logged map[string]bool, archive, mode string) bool {
	return skippedIn(t, sharedDivergences, logged, archive, mode)
}

// skippedIn is skipped with the divergences divs.
func skippedIn(t *testing.T, divs map[string]struct {
	modes []string
	why   string
}, logged map[string]bool, archive, mode string) bool {
	d, ok := divs[archive]
	if !ok {
		return false
	}
	if d.modes != nil {
		found := false
		for _, m := range d.modes {
			found = found || m == mode
		}
		if !found {
			return false
		}
	}
	if !logged[archive] {
		logged[archive] = true
		t.Logf("skipping %s %v: %s", archive, d.modes, d.why)
	}
	return true
}

// TestInteropShared runs the real pminfo and pcpkit's side by side on
// every archive in ../shared (damaged ones included, multi-archive
// directories and lists too) in every interop mode.
func TestInteropShared(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	n := 0
	logged := map[string]bool{}
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives", "pcp-qa-badarchives"} {
		dir := testenv.SharedDir(t, set)
		for _, a := range sharedArchives(t, set) {
			ref := a
			if a == "synth/ok-foo-zst" {
				// PCP 6.0.3 cannot read zstd (pcpkit can): the same
				// data gzipped is the reference
				ref = "synth/ok-foo-gz"
			}
			for _, m := range interopModes {
				if skipped(t, logged, a, m) {
					continue
				}
				args := append([]string{"-a", a}, strings.Fields(m)...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) {
					refArgs := append([]string{"-a", ref}, strings.Fields(m)...)
					wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(), testenv.RealTool(t, "pminfo"), refArgs...)
					wout = []byte(strings.ReplaceAll(string(wout), ref, a))
					werr = []byte(strings.ReplaceAll(string(werr), ref, a))
					out, errs, rc := run(t, dir, args)
					testenv.CompareRun(t, "pminfo", "pminfo "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
				})
				n++
			}
		}
	}
	t.Logf("%d command lines compared", n)
}

// TestInteropCommandLine covers option handling, operands and failures
// against the real pminfo.
func TestInteropCommandLine(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	tmp := t.TempDir()
	writeNamespaces(t, tmp)
	for _, args := range commandLines(filepath.Join(tmp, "dup.pmns"), filepath.Join(tmp, "dyn.pmns")) {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compareReal(t, dir, args) })
	}
	// the PCP_* variables that stand for options
	for _, tc := range envCommandLines {
		t.Run(tc.env+" "+strings.Join(tc.args, " "), func(t *testing.T) { compareReal(t, dir, tc.args, tc.env) })
	}
}

// writeNamespaces writes the namespace files of commandLines into dir:
// dup.pmns, where two names share a PMID, and dyn.pmns, with dynamic
// subtree roots as PCP QA test 207 has them (pminfo -m prints their PMIDs
// as "d.*.*").
func writeNamespaces(t *testing.T, dir string) {
	t.Helper()
	for name, text := range map[string]string{
		"dup.pmns": "root {\n foo\n other 245:0:2\n}\nfoo {\n bar 245:0:1\n baz 245:0:1\n}\n",
		"dyn.pmns": "root {\n dynamic\n}\ndynamic {\n first 0:*:*\n last 510:*:*\n mid 40:*:*\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// commandLines are TestInteropCommandLine's command lines, run in
// ../shared/pcp-made-archives; dup and dyn name namespace files (see
// there).
func commandLines(dup, dyn string) [][]string {
	return [][]string{
		{"-V"}, {"--version"}, {"-?"}, {"--bogus"}, {"-y"}, {"-b"}, {"--d"}, {"--ver"}, {"--he"},
		{"-a", "synth3", "-b", "x"}, {"-a", "synth3", "-b", "0", "-f"}, {"-a", "synth3", "-b", "3x"},
		{"-a", "synth3", "-V", "-b", "x"}, {"-a", "synth3", "-h", "localhost"}, {"-h", "localhost", "-a", "synth3"},
		{"-a", "synth3", "-a", "synth3"}, {"-a", "synth3,synth3", "-m"}, {"-a", "nosuch"}, {"-a", "bad/trunc3", "-f"},
		{"-a", "synth3", "-z", "-Z", "UTC"}, {"-a", "synth3", "-Z", "UTC", "-z"}, {"-z"}, {"-O", "+1", "-h", "localhost"},
		{"-a", "synth3", "-O", "@bogus"}, {"-a", "synth3", "-O", "+3", "-f"}, {"-a", "synth3", "-O", "-2", "-x"},
		{"-a", "synth3", "-K", "foo"}, {"-a", "synth3", "-K", "clear", "-K", "del,60"}, {"-a", "synth3", "-K", "del,60"},
		{"-a", "synth3", "-K", "del,2"}, {"-a", "synth3", "-K", "add,60"}, {"-a", "synth3", "-K", "add,60,/x"},
		{"-a", "synth3", "-K", "add,60,/x,init"}, {"-a", "synth3", "-K", "del,,"}, {"-a", "synth3", "-K", "clear,x"},
		{"-a", "synth3", "-K", "add,999,/x,y"}, {"-a", "synth3", "-K", "del"},
		{"-a", "synth3", "-D", "pdu,fetch"}, {"-a", "synth3", "-D", "nonsense"}, {"-a", "synth3", "--container=x", "-f"},
		{"-a", "synth3", "-n", "/nonexistent"}, {"-a", "synth3", "-N", dup}, {"-a", "synth3", "-n", dup, "-m"},
		{"-n", dup, "-m"}, {"-n", dup}, {"-n", dup, "-M", "foo"}, {"-n", dyn, "-m"}, {"-n", dyn, "-mM"},
		{"-a", "synth3", "-c", "/nonexistent", "-m"}, {"-a", "synth3", "-C"}, {"-a", "synth3", ""},
		{"-a", "synth3", "synth", "nosuch", "245.0.1", "245.1", "1.2.3", "2", "245.0", "245.0.1.9", "245x"},
		{"-a", "synth3", "-tTlI", "245.1", "60.1", "0.0", "4294967295.1"},
		{"-a", "synth3", "-m", " 245.0.1", "245.-0.1", "+245.0.1"},
		{"-a", "synth3", "-s", "synth.multi"}, {"-a", "synth3", "-F", "synth.multi"}, {"-a", "synth3", "-x", "synth"},
		{"-a", "synth3", "-v", "-dfmtTl"}, {"-a", "synth3", "--", "-f"},
		// an empty archive or host name (PCP QA test 552)
		{"-a", ""}, {"-h", ""}, {"-a", "", "-f", "synth.ctr32"},
	}
}

// envCommandLines are the PCP_* variables that stand for options, each
// with a command line, run in ../shared/pcp-made-archives.
var envCommandLines = []struct {
	env  string
	args []string
}{
	{"PCP_ARCHIVE=synth3", []string{"-f", "synth.ctr32"}},
	{"PCP_ARCHIVE=synth3", []string{"-a", "synth2", "-m"}},
	{"PCP_HOSTZONE=1", []string{"-a", "synth3", "-m"}},
	{"PCP_TIMEZONE=EST5EDT", []string{"-a", "synth3", "-m"}},
	{"PCP_ORIGIN=+3", []string{"-a", "synth3", "-f", "synth.ctr32"}},
	{"PCP_NAMESPACE=/nonexistent", []string{"-a", "synth3"}},
	{"PCP_HOST=localhost", []string{"-a", "synth3"}},
}

// derivedConfigs are derived metric configurations for the archives of
// ../shared/pcp-made-archives and pcp-qa-archives: good ones, semantic
// and syntax errors, names the archive has, names below a namespace node
// and new subtrees, help text.
var derivedConfigs = map[string]string{
	"synth.conf": `synth.sum = synth.ctr32 + synth.disc
my.bad = synth.nosuch * 2
my.rate = rate(synth.ctr32)
my.rate(oneline) = the rate of synth.ctr32
my.half = synth.inst / 2
my.half(helptext) = 'half of synth.inst'
synth.ctr32 = synth.disc
a.x.p = synth.disc
a.y.q = synth.multi * 2
a.x.r = count(synth.multi)
synth.new.a = synth.disc
synth.zz = synth.disc
b = synth.str
syntax.error = 3 *
`,
	"sample.conf": `sample.twice = 2 * sample.colour
sample.colour.total = sum(sample.colour)
sample.err = sample.colour + sample.seconds
my.seconds = rate(sample.seconds)
my.seconds(oneline) = seconds per second
`,
}

// TestInteropDerived runs both tools with derived metrics: from -c FILE,
// from $PCP_DERIVED_CONFIG, and with $PCP_DERIVED_CONFIG unset (the
// system's, $PCP_VAR_DIR/config/derived).
func TestInteropDerived(t *testing.T) {
	testenv.RealTool(t, "pminfo")
	tmp := t.TempDir()
	for name, text := range derivedConfigs {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	made := testenv.SharedDir(t, "pcp-made-archives")
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	archives := []string{
		filepath.Join(made, "synth3"), filepath.Join(made, "synth2"), filepath.Join(made, "derived3"),
		filepath.Join(made, "sample3"), filepath.Join(qa, "sample_expr"), filepath.Join(qa, "derive"),
		filepath.Join(qa, "log-derived"), filepath.Join(qa, "ok-foo"), filepath.Join(qa, "multi"),
	}
	configs := []string{filepath.Join(tmp, "synth.conf"), filepath.Join(tmp, "sample.conf"), filepath.Join(made, "derived.conf")}
	for _, a := range archives {
		for _, mode := range []string{"", "-dmtT", "-f", "-lsv", "-x"} {
			for _, cf := range configs {
				args := append([]string{"-a", a}, strings.Fields(mode)...)
				t.Run(filepath.Base(a)+"/"+mode+"/env "+filepath.Base(cf), func(t *testing.T) {
					compareReal(t, "", args, "PCP_DERIVED_CONFIG="+cf)
				})
				cargs := append([]string{"-c", cf}, args...)
				t.Run(filepath.Base(a)+"/"+mode+"/-c "+filepath.Base(cf), func(t *testing.T) {
					compareReal(t, "", cargs)
				})
			}
			t.Run(filepath.Base(a)+"/"+mode+"/system", func(t *testing.T) {
				compareReal(t, "", modeArgs(a, mode), "PCP_DERIVED_CONFIG")
			})
		}
		t.Run(filepath.Base(a)+"/names", func(t *testing.T) {
			compareReal(t, "", []string{"-c", configs[0], "-a", a, "-m", "a", "synth", "b", "my", "event", "syntax", "sample"})
		})
	}
}

// modeArgs is "-a archive" and the mode's options.
func modeArgs(archive, mode string) []string {
	return append([]string{"-a", archive}, strings.Fields(mode)...)
}

// TestInteropStdoutBuffering runs both pminfos with stdout and stderr on
// one stream (2>&1, as PCP's QA scripts run them): the real one's stdout
// is C stdio's, written in 4 KiB blocks and at exit, so its error lines
// come before what it printed earlier and may cut a line of values (QA
// 790: "Error: ... Unknown metric name" before the values).
func TestInteropStdoutBuffering(t *testing.T) {
	made := testenv.SharedDir(t, "pcp-made-archives")
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{made, []string{"-a", "synth3", "-f", "synth.multi", "nosuch", "synth.ctr32", "nosuch.either"}},
		{made, []string{"-a", "synth3", "-d", "nosuch", "synth"}},
		{qa, []string{"-a", "20180127.08.40", "-f", "kernel", "nosuch", "disk", "nosuch2", "mem"}}, // over 4 KiB before each error
		{qa, []string{"-a", "20180127.08.40", "-x", "-f", "-O", "@99:00", "kernel"}},               // a bad -O
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) { testenv.CompareCombined(t, "pminfo", Main, c.dir, c.args) })
	}
}

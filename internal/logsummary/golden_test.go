package logsummary

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// run runs pmlogsummary in-process in dir, as the real tool was run for
// the goldens, and returns stdout, stderr and the exit status. env holds
// extra "KEY=value" settings.
func run(t *testing.T, dir string, args []string, env ...string) (string, string, int) {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("TZ", "UTC")
	os.Unsetenv("PCP_COUNTER_WRAP")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// TestGoldens compares pcpkit's pmlogsummary with the committed output of
// the real one (made by scripts/make-goldens.sh pmlogsummary) for every
// archive in testdata/archives and every mode in
// testdata/pmlogsummary.modes. It needs no PCP installation.
func TestGoldens(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	cases := testenv.GoldenCases(t, "pmlogsummary")
	if len(cases) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := testenv.ReadGolden(t, "pmlogsummary", c)
			out, errs, rc := run(t, dir, c.Args())
			testenv.CompareRun(t, "pmlogsummary", strings.Join(c.Args(), " "), string(g.Stdout), string(g.Stderr), g.ExitCode, out, errs, rc)
		})
	}
}

// TestGoldensComplete checks that every case has its three golden files
// and that no golden file is left over from a case that is gone.
func TestGoldensComplete(t *testing.T) {
	want := map[string]bool{}
	for _, c := range testenv.GoldenCases(t, "pmlogsummary") {
		testenv.ReadGolden(t, "pmlogsummary", c)
		stem := testenv.GoldenPath(t, "pmlogsummary", c)
		for _, ext := range []string{".out", ".err", ".rc"} {
			want[stem+ext] = true
		}
	}
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "pmlogsummary")
	var extra []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !want[p] && filepath.Base(p) != "README.md" {
			extra = append(extra, p)
		}
		return nil
	})
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("golden files without a case (run scripts/make-goldens.sh pmlogsummary): %q", extra)
	}
}

// TestScriptCasesAgree checks that make-goldens.sh --list pmlogsummary and
// GoldenCases agree on the archives, modes and slugs.
func TestScriptCasesAgree(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	sh := filepath.Join(testenv.RepoRoot(t), "scripts", "make-goldens.sh")
	out, err := exec.Command("bash", sh, "--list", "pmlogsummary").Output()
	if err != nil {
		t.Fatalf("make-goldens.sh --list pmlogsummary: %v", err)
	}
	var want []string
	for _, c := range testenv.GoldenCases(t, "pmlogsummary") {
		want = append(want, c.Archive+"\t"+c.Slug()+"\t"+strings.Join(c.Mode.Args, " "))
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("make-goldens.sh --list:\n%s\nGoldenCases:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestGoldensMatchRealTool re-runs the real pmlogsummary for every case:
// the goldens must be what it prints now.
func TestGoldensMatchRealTool(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	dir := testenv.ArchivesDir(t)
	for _, c := range testenv.GoldenCases(t, "pmlogsummary") {
		g := testenv.ReadGolden(t, "pmlogsummary", c)
		stdout, stderr, rc := testenv.RunRealIn(t, dir, "pmlogsummary", c.Args()...)
		if !bytes.Equal(stdout, g.Stdout) || !bytes.Equal(stderr, g.Stderr) || rc != g.ExitCode {
			t.Errorf("%s: the real pmlogsummary %s now differs from its golden: run scripts/make-goldens.sh pmlogsummary",
				c.Name(), strings.Join(c.Args(), " "))
		}
	}
}

// interopModes are the option sets run against every shared archive.
var interopModes = []string{
	"", "-a", "-b", "-x", "-s", "-y", "-m", "-M", "-i", "-I", "-l", "-H", "-N",
	"-bmMiIy", "-F -H", "-f -p 6", "-B 4", "-a -B 3", "-x -y -B 2", "-s -B 2 -p 1",
	"-v -a", "-z -l -i", "-Z EST5EDT -a -i -I", "-p 0 -a", "-p -1 -y",
	"-S +2 -T +5 -a", "-T -3 -y -i", "-S -10 -l -I", "-S +0.5 -T +1.5 -bmMy",
	"-H -F -a -i -I -B 2", "-a -s -y", "-s -a", "-x -b", "-b -x",
}

// knownDivergences maps an archive to the archive whose real output pcpkit
// must match instead, with the reason.
var knownDivergences = map[string]struct{ instead, why string }{
	// PCP 6.0.3 cannot read zstd-compressed files (added in PCP 6.3.2):
	// it reports "Missing PCP archive log file". pcpkit reads them, so
	// its output must equal the real tool's on the same data gzipped.
	"synth/ok-foo-zst": {"synth/ok-foo-gz", ".zst support is a pcpkit extra"},
}

// knownModeDivergences are single (archive, mode) pairs where pcpkit
// differs from the real tool on purpose, with the reason.
var knownModeDivergences = map[string]string{}

// knownOptionDivergences are command lines where pcpkit's pmlogsummary
// does not do what the real one does, with the reason. TestKnownDivergences
// runs each to check that pcpkit fails cleanly.
var knownOptionDivergences = map[string]string{
	// -D is accepted with the real tool's flag names, but pcpkit prints
	// no debug output (appl0..appl2 trace pmlogsummary's arithmetic,
	// the others libpcp's internals).
	"-D appl0 synth3": "debug output (-D) is not implemented",
}

// TestKnownDivergences checks that the known divergences fail cleanly.
func TestKnownDivergences(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-made-archives")
	for cmdline, why := range knownOptionDivergences {
		args := strings.Fields(cmdline)
		out, errs, rc := run(t, dir, args)
		t.Logf("pmlogsummary %s (known divergence: %s): exit %d\n%s%s", cmdline, why, rc, out, errs)
	}
}

// TestInteropNamespace runs both tools with -n on every PMNS file in
// pmns/testdata (good and broken ones) against synth3 and sample3.
func TestInteropNamespace(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "pmns", "testdata", "*", "*.pmns"))
	if len(files) == 0 {
		t.Fatal("no PMNS files in pmns/testdata")
	}
	for _, f := range files {
		for _, args := range [][]string{{"-n", f, "synth3"}, {"-n", f, "-a", "sample3"}} {
			t.Run(filepath.Base(f)+"/"+args[len(args)-1], func(t *testing.T) {
				wout, werr, wrc := testenv.RunRealIn(t, dir, "pmlogsummary", args...)
				out, errs, rc := run(t, dir, args)
				if string(wout) != out || string(werr) != errs || wrc != rc {
					t.Errorf("pmlogsummary %s differs:\nreal (%d):\n%s%s\npcpkit (%d):\n%s%s", strings.Join(args, " "), wrc, wout, werr, rc, out, errs)
				}
			})
		}
	}
}

// sharedArchives lists the archives of a shared set, the multi-archive
// directories as such, and the damaged ones.
func sharedArchives(t *testing.T, dir string) []string {
	var out []string
	dirs := map[string]bool{}
	for _, a := range testenv.Archives(t, dir) {
		if d, _, ok := strings.Cut(a, "/"); ok && strings.HasPrefix(d, "multi") {
			if !dirs[d] {
				dirs[d] = true
				out = append(out, d)
			}
			continue
		}
		out = append(out, a)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad", "nometa3.0")); err == nil {
		out = append(out, "bad/nometa3")
	}
	return out
}

// TestInteropShared runs the real pmlogsummary and pcpkit's side by side
// on every archive in ../shared/pcp-qa-archives and
// ../shared/pcp-made-archives (damaged ones and the multi-archive
// directories included) in every interop mode, and diffs the two.
func TestInteropShared(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	forInteropCases(t, []string{"pcp-qa-archives", "pcp-made-archives"}, func(t *testing.T, dir, a, m string) {
		if why, ok := knownModeDivergences[a+" "+m]; ok {
			t.Skipf("known divergence: %s", why)
		}
		ref := a
		if k, ok := knownDivergences[a]; ok {
			ref = k.instead
		}
		interop(t, dir, ref, a, append(strings.Fields(m), ref), append(strings.Fields(m), a))
	})
}

// forInteropCases runs f, in a subtest, for every archive of the sets
// (testenv.SetDir; as sharedArchives lists them) in every interop mode.
func forInteropCases(t *testing.T, sets []string, f func(t *testing.T, dir, a, m string)) {
	for _, set := range sets {
		dir := testenv.SetDir(t, set)
		for _, a := range sharedArchives(t, dir) {
			for _, m := range interopModes {
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { f(t, dir, a, m) })
			}
		}
	}
}

func interop(t *testing.T, dir, ref, a string, refArgs, args []string, env ...string) {
	t.Helper()
	wout, werr, wrc := testenv.RunCommand(t, dir, testenv.RealEnv(env...), testenv.RealTool(t, "pmlogsummary"), refArgs...)
	if ref != a {
		wout = bytes.ReplaceAll(wout, []byte(ref), []byte(a))
		werr = bytes.ReplaceAll(werr, []byte(ref), []byte(a))
	}
	out, errs, rc := run(t, dir, args, env...)
	testenv.CompareRun(t, "pmlogsummary", "pmlogsummary "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
}

// metricArgs picks metric arguments for an archive: its first top-level
// namespace node, a leaf, a metric with instances restricted to two of
// them (one quoted), a name that is not there, and the first leaf again.
func metricArgs(t *testing.T, dir, a string) []string {
	s, err := archive.OpenSet(filepath.Join(dir, a))
	if err != nil {
		return nil
	}
	defer s.Close()
	m := s.Meta()
	all := m.Traverse("")
	if len(all) == 0 {
		return nil
	}
	top, _, _ := strings.Cut(all[0], ".")
	args := []string{top, all[len(all)-1], "no.such.metric"}
	for _, n := range all {
		p, _ := m.Lookup(n)
		d, ok := m.Desc(p)
		if !ok || d.InDom == pmapi.InDomNull {
			continue
		}
		h := m.InDomHistory(d.InDom)
		if len(h) == 0 || len(h[len(h)-1].Names) < 2 {
			continue
		}
		names := h[len(h)-1].Names
		args = append(args, n+`[`+names[0]+`,"`+names[len(names)-1]+`"]`)
		break
	}
	return append(args, all[0])
}

// TestInteropMetrics runs both tools with metric name arguments on every
// shared archive.
func TestInteropMetrics(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	forMetricCases(t, func(t *testing.T, dir, a string, args []string) {
		if k, ok := knownDivergences[a]; ok {
			t.Skipf("known divergence: %s", k.why)
		}
		interop(t, dir, a, a, args, args)
	})
}

// forMetricCases runs f, in a subtest, for every shared archive with the
// arguments of metricArgs, in two modes.
func forMetricCases(t *testing.T, f func(t *testing.T, dir, a string, args []string)) {
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, a := range sharedArchives(t, dir) {
			names := metricArgs(t, dir, a)
			if names == nil {
				continue
			}
			for _, m := range []string{"-a", "-x -y -I"} {
				args := append(append(strings.Fields(m), a), names...)
				t.Run(set+"/"+a+"/"+m, func(t *testing.T) { f(t, dir, a, args) })
			}
		}
	}
}

// TestInteropCounterWrap runs the counter archives with PCP_COUNTER_WRAP
// set.
func TestInteropCounterWrap(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	for _, c := range []struct{ set, a string }{
		{"pcp-qa-archives", "wrap"}, {"pcp-qa-archives", "buggy_archive"}, {"pcp-qa-archives", "ok-foo"},
		{"pcp-made-archives", "synth3"}, {"pcp-made-archives", "synth2"}, {"pcp-made-archives", "sample3"},
		{"pcp-qa-archives", "count-mark"}, {"pcp-qa-archives", "multi"},
	} {
		dir := testenv.SharedDir(t, c.set)
		for _, m := range []string{"-a", "-a -B 3 -i -I"} {
			args := append(strings.Fields(m), c.a)
			t.Run(c.a+"/"+m, func(t *testing.T) {
				interop(t, dir, c.a, c.a, args, args, "PCP_COUNTER_WRAP=1")
			})
		}
	}
}

// multiSets are multi-archive lists of shared archives from one host,
// overlapping ones included.
var multiSets = []struct{ set, list string }{
	{"pcp-made-archives", "basic3,derived3"}, {"pcp-made-archives", "derived3,basic3"},
	{"pcp-made-archives", "sighup3,vol3"}, {"pcp-made-archives", "killed3,sighup3"},
	{"pcp-made-archives", "basic2,basic3,derived3"}, {"pcp-made-archives", "derived3,merged3,basic3"},
	{"pcp-made-archives", "sample3,sample2,vol3"}, {"pcp-made-archives", "derived2,sighup3,vol3"},
	{"pcp-qa-archives", "ok-foo,ok-mv-foo"}, {"pcp-qa-archives", "ok-mv-foo,changeinst,19970807.09.54"},
	{"pcp-qa-archives", "ok-foo,mirage"}, {"pcp-qa-archives", "arch_a,arch_b,ok-bigbin"},
	{"pcp-qa-archives", "gap,gap2,ok-interp"}, {"pcp-qa-archives", "ok-interp,ok-mv-interp,ok-noti-interp"},
	{"pcp-qa-archives", "log-derived,instant-1,sample_expr"}, {"pcp-qa-archives", "omnibus_v2,sample-proc_v3"},
	{"pcp-qa-archives", "multi/20150508.11.57,multi_v3/20150508.11.44,multi-xz/20150508.11.50"},
}

// multiModes exercise positioning in a set: windows that start in a later
// archive, with and without -l (which moves libpcp's reader).
var multiModes = []string{
	"-a", "-l -y -S +1 -i", "-l -y -S +2.5 -I", "-l -a -S +4", "-l -y -S -3", "-y -S -3",
	"-l -y -S -1 -i -I", "-y -B 2 -S +2 -T +8", "-l -x -B 3 -S +3", "-z -l -y -S +0.02",
}

// TestInteropMultiArchive diffs both tools on multi-archive lists.
func TestInteropMultiArchive(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	for _, ms := range multiSets {
		dir := testenv.SharedDir(t, ms.set)
		for _, m := range multiModes {
			args := append(strings.Fields(m), ms.list)
			t.Run(ms.list+"/"+m, func(t *testing.T) {
				interop(t, dir, "", "", args, args)
			})
		}
	}
}

// TestInteropErrors covers command lines, multi-archive lists and metric
// specifications against the real tool.
func TestInteropErrors(t *testing.T) {
	testenv.RealTool(t, "pmlogsummary")
	dir := testenv.SharedDir(t, "pcp-made-archives")
	qa := "../pcp-qa-archives/"
	for _, args := range [][]string{
		{}, {"--version"}, {"-V"}, {"-V", "-Q"}, {"-Q", "-V"}, {"-B", "x", "-V"}, {"--bogus"}, {"--bogus=3", "synth3"},
		{"-Q", "synth3"}, {"-S"}, {"-?"}, {"-?", "synth3"}, {"-h", "x", "synth3"}, {"-a"},
		{"--precision", "synth3"}, {"--precision=5", "synth3", "synth.once"}, {"--precision=", "synth3"},
		{"-B", "x", "-p", "y", "-Q", "synth3"}, {"-B", "-1", "synth3"}, {"-B", "0", "synth3"}, {"-B", "", "synth3"},
		{"-B", " 3", "synth3"}, {"-B", "3x", "synth3"}, {"-p", "", "synth3"}, {"-p", "+2", "synth3"}, {"-p", "99", "-a", "synth3"},
		{"-z", "-Z", "UTC", "synth3"}, {"-Z", "UTC", "-z", "synth3"}, {"-Z", "A", "-Z", "B", "-l", "synth3"},
		{"-n", "/nonexistent", "synth3"}, {"-n", "/nonexistent", "-Q", "synth3"}, {"-Q", "-n", "/nonexistent", "synth3"},
		{"-D", "foo", "synth3"}, {"-D", "appl9,tls", "synth3", "synth.once"},
		{"--m", "synth3"}, {"--mi", "synth3"}, {"--ma", "synth3"}, {"--h", "synth3"}, {"--he", "synth3"}, {"--v", "synth3"},
		{"--s", "synth3"}, {"--sam", "synth3"}, {"--samples=1", "synth3"}, {"--al=3", "synth3"}, {"--m=4", "synth3"},
		{"synth3", "--sta"}, {"--bins", "synth3"}, {"--bin=2", "synth3", "synth.once"}, {"--=x", "synth3"},
		{"--", "-a", "synth3"}, {"-a", "-", "synth3"}, {"-r", "synth3"}, {"-W", "foo", "synth3"},
		{"-S", "@bogus", "synth3"}, {"-T", "-3", "synth3"}, {"-S", "+1000", "-l", "synth3"}, {"-T", "@21:00", "-l", "synth3"},
		{"-S", "@22:13:25", "-T", "@22:13:40", "-a", "synth3"}, {"-S", "+10", "-T", "+1", "-a", "synth3"},
		{"nosuch"}, {"synth3", "nosuch"}, {"synth3", "synth.no"}, {"synth3", "synth"}, {"synth3", "synth."},
		{"synth3", "synth.multi[beta]"}, {"synth3", `synth.multi["alpha","beta"]`}, {"synth3", "synth.once[x]"},
		{"synth3", "synth.multi[x"}, {"synth3", "a,b"}, {"synth3", ""}, {"synth3", "foo/synth.once"},
		{"synth3", "h:synth.once"}, {"synth3", ":synth.once"}, {"synth3", "/synth.once"}, {"synth3", "synth.once synth.once"},
		{"synth3", "synth.once", "synth.once"}, {"synth3", "synth.multi[ alpha , \"beta\" ]"}, {"synth3", `synth.multi["beta`},
		{"synth3", "synth.multi[]"}, {"synth3", "synth.multi] x"}, {"synth3", "synth.multi[beta] x"}, {"synth3", `synth\.multi`},
		{"-v", "sample3"}, {"-v", "sample2"}, {"-v", "-B", "2", "sample3"}, {"-a", "synth3,synth3"}, {"-a", "synth3,bad/noindex3"},
		{"-a", "synth3,synth2"}, {"-a", "synth3,basic3"}, {"-a", "killed3,merged3"}, {"-a", "basic3,killed3"},
		{"-a", "synth3,"}, {"-a", ",synth3"}, {"-a", "synth3,nosuch"}, {"-a", "bad"}, {"-a", "."},
		{"-a", qa + "multi,synth3"}, {"-a", qa + "multi," + qa + "multi_v3"}, {"-a", qa + "multi," + qa + "multi"},
		{"-a", qa + "multi/20150508.11.57," + qa + "multi/20150508.11.44"}, {"-a", qa + "arch_a," + qa + "arch_b"},
		{"-a", qa + "multi/20150508.11.46," + qa + "multi-xz/20150508.11.50"},
		{"-a", "-S", "@15:46:30", qa + "multi"}, {"-a", "-S", "@15:46:04.6380", qa + "multi"},
		{"-a", "-S", "@15:46:04.6386", qa + "multi"}, {"-a", "-T", "@15:46:04.638", qa + "multi"},
		{"-a", "-T", "@15:46:04.6385", qa + "multi"}, {"-a", "-S", "@15:50:00", "-T", "@15:58:00", qa + "multi"},
		{"-l", "synth3.0"}, {"-l", "synth3.meta"}, {"-l", "./synth3"}, {"-l", "bad/nometa3.0"},
		{"-I", "-i", "day3"}, {"-I", "-i", "-F", "day3"}, {"-a", "-S", "+86000", "day3"}, {"-a", "-T", "+86401", "-i", "day3"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			interop(t, dir, "", "", args, args)
		})
	}
}

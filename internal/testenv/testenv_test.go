package testenv

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fakeTB records Skipf/Fatalf instead of ending the test, so that the
// helpers' skip and failure paths can be tested.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

type stopped struct{}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, args...)
	panic(stopped{})
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
	panic(stopped{})
}

// run calls fn with a fakeTB and returns it once fn returns or "stops".
func run(t *testing.T, fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopped); !ok {
					panic(r)
				}
			}
		}()
		fn(f)
	}()
	return f
}

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot = %s, which has no go.mod: %v", root, err)
	}
	wd, _ := os.Getwd()
	if rel, err := filepath.Rel(root, wd); err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("RepoRoot = %s is not an ancestor of %s", root, wd)
	}
	if filepath.Base(wd) != "testenv" || filepath.Join(root, "internal", "testenv") != wd {
		t.Fatalf("RepoRoot = %s, want the parent of internal/testenv (wd %s)", root, wd)
	}
	if _, err := findRepoRoot(t.TempDir()); err == nil {
		t.Errorf("findRepoRoot(temp dir) found a go.mod")
	}
}

func TestSharedDir(t *testing.T) {
	f := run(t, func(tb testing.TB) { SharedDir(tb, "no-such-subdirectory-of-shared") })
	if !f.skipped || !strings.Contains(f.msg, "shared archives not found at ") ||
		!strings.Contains(f.msg, filepath.Join("shared", "no-such-subdirectory-of-shared")) {
		t.Errorf("SharedDir of a missing dir: skipped=%v failed=%v msg=%q", f.skipped, f.failed, f.msg)
	}
	want := filepath.Join(filepath.Dir(RepoRoot(t)), "shared", "pcp-made-archives")
	if got := SharedDir(t, "pcp-made-archives"); got != want {
		t.Errorf("SharedDir = %s, want %s", got, want)
	}
}

func TestRealToolMissing(t *testing.T) {
	const name = "pcpkit-no-such-pcp-tool"
	t.Setenv("PCP_INTEROP", "")
	f := run(t, func(tb testing.TB) { RealTool(tb, name) })
	if !f.skipped || f.failed {
		t.Errorf("without PCP_INTEROP: skipped=%v failed=%v msg=%q", f.skipped, f.failed, f.msg)
	}
	t.Setenv("PCP_INTEROP", "1")
	f = run(t, func(tb testing.TB) { RealTool(tb, name) })
	if want := "PCP_INTEROP=1 but the real " + name + " is not installed"; !f.failed || f.msg != want {
		t.Errorf("with PCP_INTEROP=1: skipped=%v failed=%v msg=%q, want failure %q", f.skipped, f.failed, f.msg, want)
	}
}

// TestNoRealTools checks that $PCPKIT_NO_REAL_TOOLS=1 hides an installed
// tool (sh stands for one).
func TestNoRealTools(t *testing.T) {
	if FindRealTool("sh") == "" {
		t.Skip("no sh to hide")
	}
	t.Setenv(NoRealToolsEnv, "1")
	if p := FindRealTool("sh"); p != "" {
		t.Errorf("with %s=1: FindRealTool(sh) = %q", NoRealToolsEnv, p)
	}
}

func TestRealEnv(t *testing.T) {
	t.Setenv("TZ", "Australia/Melbourne")
	t.Setenv("PCP_DERIVED_CONFIG", "/some/file")
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	env := RealEnv("FOO=bar", "TZ=EST5EDT")
	count := map[string]int{}
	val := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		count[k]++
		val[k] = v
	}
	for k, want := range map[string]string{"TZ": "EST5EDT", "PCP_DERIVED_CONFIG": "", "LC_ALL": "C", "FOO": "bar"} {
		if count[k] != 1 || val[k] != want {
			t.Errorf("%s: %d entries, value %q; want 1, %q", k, count[k], val[k], want)
		}
	}
	if !strings.HasPrefix(val["PATH"], "/usr/bin:/bin:") {
		t.Errorf("PATH = %q", val["PATH"])
	}
	if got := RealEnv(); !contains(got, "TZ=UTC") {
		t.Errorf("RealEnv() lacks TZ=UTC")
	}
	for _, kv := range RealEnv("PCP_DERIVED_CONFIG", "FOO") {
		if k, _, _ := strings.Cut(kv, "="); k == "PCP_DERIVED_CONFIG" || k == "FOO" {
			t.Errorf("RealEnv(\"PCP_DERIVED_CONFIG\", \"FOO\") has %q", kv)
		}
	}
}

func TestSetenv(t *testing.T) {
	t.Setenv("PCP_DERIVED_CONFIG", "/some/file")
	t.Setenv("BAR", "x")
	t.Run("inner", func(t *testing.T) {
		Setenv(t, "FOO=bar", "BAR")
		for k, want := range map[string]string{"TZ": "UTC", "PCP_DERIVED_CONFIG": "", "FOO": "bar"} {
			if v, ok := os.LookupEnv(k); !ok || v != want {
				t.Errorf("%s = %q (set %v), want %q", k, v, ok, want)
			}
		}
		if v, ok := os.LookupEnv("BAR"); ok {
			t.Errorf("BAR = %q, want it unset", v)
		}
	})
	if v := os.Getenv("BAR"); v != "x" {
		t.Errorf("BAR = %q after the test, want it restored", v)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestRunReal(t *testing.T) {
	RealTool(t, "pmdumplog")
	stdout, stderr, rc := RunReal(t, "pmdumplog", "--version")
	if rc != 0 || !strings.Contains(string(stdout)+string(stderr), "pmdumplog version 6.0.3") {
		t.Errorf("pmdumplog --version: rc %d, stdout %q, stderr %q; want version 6.0.3", rc, stdout, stderr)
	}
	stdout, stderr, rc = RunReal(t, "pmdumplog", "-l", "/nonexistent/archive")
	if rc != 1 || len(stdout) != 0 || !bytes.Contains(stderr, []byte(`Cannot open archive "/nonexistent/archive"`)) {
		t.Errorf("pmdumplog of a missing archive: rc %d, stdout %q, stderr %q", rc, stdout, stderr)
	}
	// TZ=UTC: the label of a local archive is printed in UTC.
	stdout, _, rc = RunRealIn(t, ArchivesDir(t), "pmdumplog", "-l", "pmcd-v3")
	if rc != 0 || !bytes.Contains(stdout, []byte("commencing Sat Nov 21 06:15:54.877004711 2026")) {
		t.Errorf("pmdumplog -l pmcd-v3: rc %d, stdout %q", rc, stdout)
	}
}

func TestRunCommandExitCode(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out, errb, rc := RunCommand(t, t.TempDir(), RealEnv(), sh, "-c", `printf "$TZ/$LC_ALL"; pwd >&2; read x; exit 7`)
	if rc != 7 || string(out) != "UTC/C" || !strings.HasPrefix(string(errb), "/") {
		t.Errorf("rc %d, stdout %q, stderr %q", rc, out, errb)
	}
}

func TestArchiveBase(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		ok         bool
	}{
		{"a.meta", "a", true},
		{"a.meta.xz", "a", true},
		{"a.meta.gz", "a", true},
		{"a.meta.bz2", "a", true},
		{"a.meta.zst", "a", true},
		{"a.b.meta.lzma", "a.b", true},
		{"a.meta.bak", "", false},
		{"a.0", "", false},
		{"a.index", "", false},
		{".meta", "", false},
		{"meta", "", false},
		{"a.meta.xz.gz", "", false},
	} {
		base, ok := ArchiveBase(tc.name)
		if base != tc.base || ok != tc.ok {
			t.Errorf("ArchiveBase(%q) = %q, %v; want %q, %v", tc.name, base, ok, tc.base, tc.ok)
		}
	}
}

func TestArchives(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"a.meta", "a.0", "a.index",
		"b.meta.xz", "b.0.xz",
		"sub/c.meta.gz", "sub/c.meta", "sub/c.0",
		"sub/deeper/d.meta.zst",
		"e.0", "f.meta.bak", "README.md", "sub/.meta",
	} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "g.meta"), 0o755); err != nil { // a directory: ignored
		t.Fatal(err)
	}
	want := []string{"a", "b", "sub/c", "sub/deeper/d"}
	if got := Archives(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("Archives = %q, want %q", got, want)
	}
	f := run(t, func(tb testing.TB) { Archives(tb, filepath.Join(dir, "missing")) })
	if !f.failed {
		t.Errorf("Archives of a missing dir did not fail")
	}

	got := Archives(t, ArchivesDir(t))
	for _, a := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		if !contains(got, a) {
			t.Errorf("testdata/archives: %q lacks %s", got, a)
		}
	}
}

var slugTests = []struct{ opts, slug string }{
	{"-a", "a"},
	{"  -a  ", "a"},
	{"-xxx -t", "xxx_t"},
	{"-xxx\t-t", "xxx_t"},
	{"-I", "^I"},
	{"-i", "i"},
	{"-I -i -e -h", "^I_i_e_h"},
	{"-Z EST5EDT -a", "^Z_=EST5EDT_a"},
	{"-S +2 -T +5", "^S_=+2_^T_=+5"},
	{"-T -3 -r", "^T_3_r"},
	{"-S @bogus", "^S_=%40bogus"},
	{"-n /nonexistent", "n_=%2Fnonexistent"},
	{"-m {} kernel.all.load", "m_=@_=kernel.all.load"},
	{"-m sample.event.highres_records", "m_=sample.event.highres%5Frecords"},
	{"-v {}.meta", "v_=@.meta"},
	{"-v x{}{}y", "v_=x@@y"},
	{"-v {", "v_=%7B"},
	{"--foo", "%2Dfoo"},
	{"--Foo=bar", "%2D^Foo%3Dbar"},
	{"-.x", "%2Ex"},
	{".x", "=.x"},
	{"-", "=-"},
	{"--", "%2D"},
	{"a_b=c%", "=a%5Fb%3Dc%25"},
	{"-S 2026-11-21 x:y", "^S_=2026-11-21_=x%3Ay"},
	{"=x ^y", "=%3Dx_=%5Ey"},
	{"\xff", "=%FF"},
	{"", "_none_"},
	{"   ", "_none_"},
}

func TestModeSlug(t *testing.T) {
	for _, tc := range slugTests {
		if got := ModeSlug(tc.opts); got != tc.slug {
			t.Errorf("ModeSlug(%q) = %q, want %q", tc.opts, got, tc.slug)
		}
		if dec, ok := decodeSlug(tc.slug); !ok || !reflect.DeepEqual(dec, strings.Fields(tc.opts)) {
			t.Errorf("decodeSlug(%q) = %q, %v; want %q", tc.slug, dec, ok, strings.Fields(tc.opts))
		}
	}
}

// decodeSlug inverts ModeSlug, showing that the encoding is injective.
func decodeSlug(slug string) ([]string, bool) {
	if slug == "_none_" {
		return []string{}, true
	}
	var toks []string
	for _, enc := range strings.Split(slug, "_") {
		if enc == "" {
			return nil, false
		}
		var b strings.Builder
		option := enc[0] != '='
		if option {
			b.WriteByte('-')
		} else {
			enc = enc[1:]
		}
		for i := 0; i < len(enc); i++ {
			switch c := enc[i]; c {
			case '@':
				b.WriteString("{}")
			case '^':
				if !option || i+1 >= len(enc) || enc[i+1] < 'A' || enc[i+1] > 'Z' {
					return nil, false
				}
				b.WriteByte(enc[i+1])
				i++
			case '%':
				if i+3 > len(enc) {
					return nil, false
				}
				n, err := strconv.ParseUint(enc[i+1:i+3], 16, 8)
				if err != nil {
					return nil, false
				}
				b.WriteByte(byte(n))
				i += 2
			default:
				b.WriteByte(c)
			}
		}
		toks = append(toks, b.String())
	}
	return toks, true
}

func checkSlug(t *testing.T, toks []string) {
	t.Helper()
	opts := strings.Join(toks, " ")
	s := ModeSlug(opts)
	if s == "" || s[0] == '-' || s[0] == '.' || strings.ContainsAny(s, "/\\:*?\"<>| \t\n\x00") {
		t.Fatalf("ModeSlug(%q) = %q: not a safe file name", opts, s)
	}
	dec, ok := decodeSlug(s)
	if !ok || !reflect.DeepEqual(dec, strings.Fields(opts)) {
		t.Fatalf("ModeSlug(%q) = %q decodes to %q, %v", opts, s, dec, ok)
	}
	if strings.ToLower(s) != s && len(toks) > 0 {
		// Case-insensitive file systems: options differing only in case
		// must still differ once folded.
		for _, tok := range toks {
			if len(tok) > 1 && tok[0] == '-' {
				folded := strings.ToLower(tok)
				if folded != tok && strings.EqualFold(ModeSlug(folded), ModeSlug(tok)) {
					t.Fatalf("ModeSlug(%q) and ModeSlug(%q) fold to the same name", folded, tok)
				}
			}
		}
	}
}

func TestModeSlugRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const alphabet = "-{}aZz09._+,=@^%/:x-{"
	for range 5000 {
		toks := make([]string, r.Intn(4))
		for i := range toks {
			b := make([]byte, 1+r.Intn(6))
			for j := range b {
				b[j] = alphabet[r.Intn(len(alphabet))]
			}
			toks[i] = string(b)
		}
		checkSlug(t, toks)
	}
}

func FuzzModeSlug(f *testing.F) {
	for _, tc := range slugTests {
		f.Add(tc.opts)
	}
	f.Fuzz(func(t *testing.T, opts string) {
		checkSlug(t, strings.Fields(opts))
	})
}

func TestParseModes(t *testing.T) {
	const text = `# comment
  # indented comment

-a
-Z EST5EDT   -a
pmcd-*: -m {} kernel.all.load
pmcd-*,sample-*: -x
*:
-v {}.meta
`
	modes, err := ParseModes(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mode{
		{"", []string{"-a"}},
		{"", []string{"-Z", "EST5EDT", "-a"}},
		{"pmcd-*", []string{"-m", "{}", "kernel.all.load"}},
		{"pmcd-*,sample-*", []string{"-x"}},
		{"*", []string{}},
		{"", []string{"-v", "{}.meta"}},
	}
	if len(modes) != len(want) {
		t.Fatalf("got %d modes %q, want %d", len(modes), modes, len(want))
	}
	for i := range want {
		if modes[i].Glob != want[i].Glob || strings.Join(modes[i].Args, "|") != strings.Join(want[i].Args, "|") {
			t.Errorf("mode %d = %#v, want %#v", i, modes[i], want[i])
		}
	}
	if s := modes[2].String(); s != "pmcd-*: -m {} kernel.all.load" {
		t.Errorf("String = %q", s)
	}
	if s := modes[4].Slug(); s != "_none_" {
		t.Errorf("Slug of no options = %q", s)
	}

	for _, bad := range []string{
		"-m 'kernel.all.load'",
		`-m "x"`,
		`-m a\ b`,
		"-m `x`",
		"-a # trailing comment",
		":\t-a",
		"pmcd-*,: -a",
		"-a\n-a",
		"-i\n-I\n-i",
		"x: -a\nx: -a",
	} {
		if m, err := ParseModes(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseModes(%q) = %q, want an error", bad, m)
		}
	}
	// The same options for different archives are fine.
	if _, err := ParseModes(strings.NewReader("a*: -a\nb*: -a\n-I\n-i")); err != nil {
		t.Errorf("ParseModes: %v", err)
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		glob, archive string
		want          bool
	}{
		{"", "anything/at/all", true},
		{"*", "bad/trunc3", true},
		{"pmcd-*", "pmcd-v3", true},
		{"pmcd-*", "sample-v3", false},
		{"pmcd-*", "x/pmcd-v3", false},
		{"*/pmcd-*", "x/pmcd-v3", true},
		{"pmcd-v?", "pmcd-v2", true},
		{"pmcd-v?", "pmcd-v22", false},
		{"pmcd-v[23]", "pmcd-v3", true},
		{"pmcd-v[!3]", "pmcd-v3", false},
		{"pmcd-v[^3]", "pmcd-v2", true},
		{"pmcd-v2,sample-v3", "sample-v3", true},
		{"pmcd-v2,sample-v3", "pmcd-v3", false},
		{"a.b", "axb", false},
		{"a[", "a[", true},
		{"a(b)+", "a(b)+", true},
	} {
		if got := (Mode{Glob: tc.glob}).Matches(tc.archive); got != tc.want {
			t.Errorf("Mode{Glob: %q}.Matches(%q) = %v, want %v", tc.glob, tc.archive, got, tc.want)
		}
	}
}

func TestArgsFor(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-a"}, "-a|sub/x"},
		{[]string{}, "sub/x"},
		{[]string{"-m", "{}", "kernel.all.load"}, "-m|sub/x|kernel.all.load"},
		{[]string{"-v", "{}.meta"}, "-v|sub/x.meta"},
	} {
		if got := strings.Join((Mode{Args: tc.args}).ArgsFor("sub/x"), "|"); got != tc.want {
			t.Errorf("ArgsFor(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestCases(t *testing.T) {
	modes, err := ParseModes(strings.NewReader("-a\np*: -l\nq*: -l\nq*: -L\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Cases([]string{"p1", "q1", "r1"}, modes)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.Name()+" "+strings.Join(c.Args(), " "))
	}
	want := []string{"p1/a -a p1", "p1/l -l p1", "q1/a -a q1", "q1/l -l q1", "q1/^L -L q1", "r1/a -a r1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cases = %q, want %q", got, want)
	}
	modes, _ = ParseModes(strings.NewReader("-l\np*: -l\n"))
	if _, err := Cases([]string{"p1"}, modes); err == nil {
		t.Errorf("Cases: two modes giving p1/l: no error")
	}
}

func script(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	return filepath.Join(RepoRoot(t), "scripts", "make-goldens.sh")
}

// TestScriptSlugAgrees checks that make-goldens.sh names goldens as ModeSlug.
func TestScriptSlugAgrees(t *testing.T) {
	sh := script(t)
	for _, tc := range slugTests {
		out, err := exec.Command("bash", sh, "--slug", tc.opts).CombinedOutput()
		if err != nil {
			t.Fatalf("make-goldens.sh --slug %q: %v\n%s", tc.opts, err, out)
		}
		if got := strings.TrimSuffix(string(out), "\n"); got != tc.slug {
			t.Errorf("make-goldens.sh --slug %q = %q, want %q", tc.opts, got, tc.slug)
		}
	}
}

// goldenTools are the tools with goldens: one testdata/TOOL.modes each.
func goldenTools(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(RepoRoot(t), "testdata", "*.modes"))
	var tools []string
	for _, f := range files {
		tools = append(tools, strings.TrimSuffix(filepath.Base(f), ".modes"))
	}
	if len(tools) == 0 {
		t.Fatal("no testdata/*.modes")
	}
	return tools
}

// TestScriptCasesAgree checks that make-goldens.sh --list and GoldenCases
// agree on the archives, modes and slugs, for every tool with goldens.
func TestScriptCasesAgree(t *testing.T) {
	sh := script(t)
	for _, tool := range goldenTools(t) {
		out, err := exec.Command("bash", sh, "--list", tool).Output()
		if err != nil {
			t.Fatalf("make-goldens.sh --list %s: %v", tool, err)
		}
		var want []string
		for _, c := range GoldenCases(t, tool) {
			want = append(want, c.Archive+"\t"+c.Slug()+"\t"+strings.Join(c.Mode.Args, " "))
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("make-goldens.sh --list %s:\n%s\nGoldenCases:\n%s", tool, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestGoldensComplete checks that every case of every tool has its three
// golden files and that no golden file is left over from a case that is
// gone.
func TestGoldensComplete(t *testing.T) {
	for _, tool := range goldenTools(t) {
		cases := GoldenCases(t, tool)
		if len(cases) == 0 {
			t.Fatalf("no golden cases of %s", tool)
		}
		want := map[string]bool{}
		for _, c := range cases {
			g := ReadGolden(t, tool, c)
			if g.ExitCode < 0 || g.ExitCode > 255 {
				t.Errorf("%s %s: exit code %d", tool, c.Name(), g.ExitCode)
			}
			stem := GoldenPath(t, tool, c)
			for _, ext := range []string{".out", ".err", ".rc"} {
				want[stem+ext] = true
			}
		}
		dir := filepath.Join(RepoRoot(t), "testdata", "golden", tool)
		var extra []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !want[p] && p != filepath.Join(dir, "README.md") {
				extra = append(extra, p)
			}
			return nil
		})
		sort.Strings(extra)
		if len(extra) > 0 {
			t.Errorf("%s golden files without a case (run make goldens): %q", tool, extra)
		}
	}
}

// TestGoldensMatchRealTool re-runs the real pmdumplog for every case: the
// goldens must be what it prints now (they are reproducible and current).
func TestGoldensMatchRealTool(t *testing.T) {
	RealTool(t, "pmdumplog")
	dir := ArchivesDir(t)
	for _, c := range GoldenCases(t, "pmdumplog") {
		g := ReadGolden(t, "pmdumplog", c)
		stdout, stderr, rc := RunRealIn(t, dir, "pmdumplog", c.Args()...)
		if !bytes.Equal(stdout, g.Stdout) || !bytes.Equal(stderr, g.Stderr) || rc != g.ExitCode {
			t.Errorf("%s: the real pmdumplog %s now differs from its golden (rc %d vs %d; stdout %d vs %d bytes; stderr %q vs %q): run make goldens",
				c.Name(), strings.Join(c.Args(), " "), rc, g.ExitCode, len(stdout), len(g.Stdout), stderr, g.Stderr)
		}
	}
}

func TestEnv638(t *testing.T) {
	got := Env638("TZ=EST", "X=1")
	want := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "PCP_DERIVED_CONFIG=", "LC_ALL=C", "TZ=EST", "X=1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Env638 = %q, want %q", got, want)
	}
}

// TestReal638: the chroot, where there is one, runs PCP 6.3.8's tools in
// its own directory with the clean environment.
func TestReal638(t *testing.T) {
	c := Real638(t)
	host, inside := c.TempDir(t)
	if err := os.WriteFile(filepath.Join(host, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, rc := c.Run(t, inside, []string{"Y=2"}, "sh", "-c", `ls; echo "$TZ $Y $PCP_DERIVED_CONFIG."; pmval --version 2>&1`)
	if rc != 0 || string(out) != "f\nUTC 2 .\npmval version 6.3.8\n" {
		t.Errorf("rc %d, output %q", rc, out)
	}
	if _, _, rc := c.Run(t, inside, nil, "sh", "-c", "kill -SEGV $$"); rc != -1 {
		t.Errorf("a crash: rc %d, want -1", rc)
	}
}

package loggerconf

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// ppCase is a preprocessor input with what the real pmcpp -rs printed.
type ppCase struct {
	name, in  string
	out, errs string
}

// ppCases were checked against /usr/lib/pcp/bin/pmcpp -rs -I
// /var/lib/pcp/config/pmlogger p.conf (PCP 6.0.3); TestPreprocessInterop
// checks them again when the real tool is there.
var ppCases = []ppCase{
	{"plain", "log on once foo\n", "# 1 \"p.conf\"\nlog on once foo\n", ""},
	{"comment passes", "# c\nx\n", "# 1 \"p.conf\"\n# c\nx\n", ""},
	{"last line without newline is lost", "a\nb", "# 1 \"p.conf\"\na\n", ""},
	{"define and expand", "%define X hinv.ncpu\nlog on once %X\nlog on once %{X}\n",
		"# 1 \"p.conf\"\n\nlog on once hinv.ncpu\nlog on once hinv.ncpu\n", ""},
	{"bare name not expanded", "%define X y\nX %X\n", "# 1 \"p.conf\"\n\nX y\n", ""},
	{"tokens", "%defineFOO bar\n%FOO %{FOO} %%FOO %{FOO %{ FOO} %_x %FOOx\n",
		"# 1 \"p.conf\"\n\nbar bar %bar %{FOO %{ FOO} %_x %FOOx\n", ""},
	{"quoted value", "%define\tX\t\"a b\"\t\n%X\n", "# 1 \"p.conf\"\n\na b\n", ""},
	{"ifdef else", "%ifdef X\na\n%else\nb\n%endif\n", "# 1 \"p.conf\"\n\n\n\nb\n\n", ""},
	{"second else taken is a redefinition", "%ifdef X\na\n%else\nb\n%endif\n%ifdef Y\nc\n%else\nd\n%endif\n",
		"# 1 \"p.conf\"\n\n\n\nb\n\n\n\n", "pmcpp: p.conf[8]: %else\npmcpp: Error: Macro redefinition\n"},
	{"else after undef", "%define X 1\n%undef X\n%ifdef Y\nc\n%else\nd\n%endif\n",
		"# 1 \"p.conf\"\n\n\n\n\n", "pmcpp: p.conf[5]: %else\npmcpp: Error: Macro redefinition\n"},
	{"unknown directive ends the false block", "%ifdef NO\n%foo\nbar\n%endif\n", "# 1 \"p.conf\"\n\n%foo\nbar\n\n", ""},
	{"missing endif, stale line", "%define X 1\n%ifdef X\n", "# 1 \"p.conf\"\n\n\n",
		"pmcpp: p.conf:\npmcpp: Error: End of input and no matching %endif for %ifdef or %ifndef at line 0\n"},
	{"missing endif", "%ifdef X\n", "# 1 \"p.conf\"\n\n",
		"pmcpp: p.conf:\npmcpp: Error: End of input and no matching %endif for %ifdef or %ifndef at line 1\n"},
	{"crlf", "%define X y\r\nfoo %X\r\n", "# 1 \"p.conf\"\n\nfoo y\r\n", ""},
	{"redefinition", "%define X 1\n%define X 2\n", "# 1 \"p.conf\"\n\n", "pmcpp: p.conf[2]: %define X 2\npmcpp: Error: Macro redefinition\n"},
	{"extra text", "%define X y z\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %define X y z\npmcpp: Error: Unexpected extra text in a control line\n"},
	{"ifdef extra", "%ifdef X junk\n%endif\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %ifdef X junk\npmcpp: Error: Unexpected extra text in a control line\n"},
	{"unterminated value", "%define X \"a b\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %define X \"a b\npmcpp: Error: Unterminated value string in %define\n"},
	{"illegal name", "%define 1X\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %define 1X\npmcpp: Error: Illegal character in macro name\n"},
	{"illegal name 2", "%define X- 1\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %define X- 1\npmcpp: Error: Illegal character in macro name\n"},
	{"missing name", "%define\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %define\npmcpp: Error: Missing macro name\n"},
	{"endif alone", "%endif\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %endif\npmcpp: Error: No matching %ifdef or %ifndef for %endif\n"},
	{"else alone", "%else\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %else\npmcpp: Error: No matching %ifdef or %ifndef for %else\n"},
	{"nested", "%ifdef A\n%ifdef B\n", "# 1 \"p.conf\"\n\n", "pmcpp: p.conf[2]: %ifdef B\npmcpp: Error: Nested %ifdef or %ifndef\n"},
	{"include extra", "%include \"a\" b\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %include \"a\" b\npmcpp: Error: Unexpected extra text in %include line\n"},
	{"include bare", "%include a\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %include a\npmcpp: Error: Expected \" or < after %include\n"},
	{"include quote", "%include \"a\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %include \"a\npmcpp: Error: Expected \" after file name\n"},
	{"include angle", "%include <a\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %include <a\npmcpp: Error: Expected > after file name\n"},
	{"include missing", "%include \"nofile\"\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %include \"nofile\"\npmcpp: Error: Cannot open file for %include\n"},
	{"include", "x\n%include \"inc/sub\"\ny\n", "# 1 \"p.conf\"\nx\n# 1 \"inc/sub\"\nsub1\n%S\n# 3 \"p.conf\"\ny\n", ""},
	{"include angle ok", "%include <inc/sub>\n", "# 1 \"p.conf\"\n# 1 \"inc/sub\"\nsub1\n%S\n# 2 \"p.conf\"\n", ""},
	{"include in false block", "%ifdef X\n%include \"nofile\"\n%endif\n", "# 1 \"p.conf\"\n\n\n\n", ""},
	{"include too deep", "%include \"inc/loop\"\n", "# 1 \"p.conf\"\n# 1 \"inc/loop\"\n# 1 \"inc/loop\"\n# 1 \"inc/loop\"\n# 1 \"inc/loop\"\n",
		"pmcpp: inc/loop[1]: %include \"inc/loop\"\npmcpp: Error: %include and/or %shell nesting too deep\n"},
	{"shell", "%shell \"echo hi; exit 3\"\nx\n", "# 1 \"p.conf\"\n# 1 \"<shell>\"\nhi\n# 2 \"p.conf\"\nx\n", "Warning: %shell cmd returns 3 exit status\n"},
	{"shell quote", "%shell 'echo a'\n", "# 1 \"p.conf\"\n# 1 \"<shell>\"\na\n# 2 \"p.conf\"\n", ""},
	{"shell bare", "%shell echo\n", "# 1 \"p.conf\"\n", "pmcpp: p.conf[1]: %shell echo\npmcpp: Error: Expected \" or ' after %shell\n"},
}

// ppSetup makes the include files the cases use, in dir.
func ppSetup(t testing.TB, dir string) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "inc"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "inc", "sub"), []byte("sub1\n%S\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "inc", "loop"), []byte("%include \"inc/loop\"\n"), 0o644))
}

// inDir runs f with the working directory set to dir (pmcpp opens
// include files relative to it).
func inDir(t testing.TB, dir string, f func()) {
	t.Helper()
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	f()
}

func TestPreprocess(t *testing.T) {
	dir := t.TempDir()
	ppSetup(t, dir)
	inDir(t, dir, func() {
		for _, c := range ppCases {
			out, errs := Preprocess([]byte(c.in), "p.conf", []string{DefaultIncludeDir})
			if string(out) != c.out || errs != c.errs {
				t.Errorf("%s: Preprocess(%q)\n got out %q errs %q\nwant out %q errs %q", c.name, c.in, out, errs, c.out, c.errs)
			}
		}
	})
}

// runRealPmcpp runs the real pmcpp -rs -I DefaultIncludeDir p.conf in dir.
func runRealPmcpp(t *testing.T, path, dir, in string) (string, string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "p.conf"), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errb, _ := testenv.RunCommand(t, dir, testenv.RealEnv(), path, "-rs", "-I", DefaultIncludeDir, "p.conf")
	return string(out), string(errb)
}

func realPmcpp(t *testing.T) string {
	t.Helper()
	p := "/usr/lib/pcp/bin/pmcpp"
	if _, err := os.Stat(p); err != nil {
		p = testenv.FindRealTool("pmcpp")
	}
	if p == "" {
		if testenv.Interop() {
			t.Fatal("PCP_INTEROP=1 but the real pmcpp is not installed")
		}
		t.Skip("the real pmcpp is not installed (set PCP_INTEROP=1 to make this a failure): skipping")
	}
	return p
}

// TestPreprocessInterop compares Preprocess with the real pmcpp on the
// table and on random inputs built from directive fragments.
func TestPreprocessInterop(t *testing.T) {
	if !testenv.Interop() {
		t.Skip("interop test: set PCP_INTEROP=1 to compare with the real pmcpp")
	}
	path := realPmcpp(t)
	dir := t.TempDir()
	ppSetup(t, dir)
	check := func(name, in string) {
		wantOut, wantErr := runRealPmcpp(t, path, dir, in)
		var out []byte
		var errs string
		inDir(t, dir, func() { out, errs = Preprocess([]byte(in), "p.conf", []string{DefaultIncludeDir}) })
		if string(out) != wantOut || errs != wantErr {
			t.Errorf("%s: input %q\n got out %q errs %q\nreal out %q errs %q", name, in, out, errs, wantOut, wantErr)
		}
	}
	for _, c := range ppCases {
		check(c.name, c.in)
	}
	frags := []string{"%define ", "%undef ", "%ifdef ", "%ifndef ", "%else", "%endif", "%include \"inc/sub\"",
		"%include <inc/sub>", "%include \"nofile\"", "%", "%%", "%{", "}", "X", "Y", "_z", "1", "a.b", " ", "\t", "\r",
		"\"", "'", "v al", "#", "%X", "%{X}", "%{Y}", "%Y", "%{ X}", "log on 1 sec", "{", "\x00", "\v", "-", "%define X 1",
		"%define Y \"q q\"", "%undef X", "%ifdef X", "%ifndef Y", "%defineX", "%elsex", "%endif x", "%includ"}
	seed := int64(6)
	if s := os.Getenv("PP_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	n := 300
	if testing.Short() {
		n = 50
	}
	for k := 0; k < n; k++ {
		var b strings.Builder
		lines := 1 + rng.Intn(8)
		for l := 0; l < lines; l++ {
			for m := rng.Intn(4); m >= 0; m-- {
				b.WriteString(frags[rng.Intn(len(frags))])
				if rng.Intn(3) == 0 {
					b.WriteByte(' ')
				}
			}
			if rng.Intn(20) != 0 {
				b.WriteByte('\n')
			}
		}
		check("random", b.String())
	}
}

func TestCDirname(t *testing.T) {
	for in, want := range map[string]string{"": ".", "a": ".", "/": "/", "/x.conf": "/", "a/b.conf": "a",
		"a//b/../c.conf": "a//b/..", "a/b/": "a", "//x": "/", "./t.conf": "."} {
		if got := cDirname(in); got != want {
			t.Errorf("cDirname(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPreprocessIncludeDirs: an include is looked for as named, then
// beside the configuration, then in the -I directories, then in PMNSDir;
// the line marker names the path that was opened.
func TestPreprocessIncludeDirs(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"conf", "extra"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "conf", "beside"), []byte("b\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "extra", "inI"), []byte("i\n"), 0o644)
	cfg := filepath.Join(dir, "conf", "main.conf")
	out, errs := Preprocess([]byte("%include \"beside\"\n%include <inI>\n"), cfg, []string{filepath.Join(dir, "extra")})
	want := "# 1 \"" + cfg + "\"\n# 1 \"" + dir + "/conf/beside\"\nb\n# 2 \"" + cfg + "\"\n# 1 \"" + dir + "/extra/inI\"\ni\n# 3 \"" + cfg + "\"\n"
	if string(out) != want || errs != "" {
		t.Errorf("got %q %q\nwant %q", out, errs, want)
	}
}

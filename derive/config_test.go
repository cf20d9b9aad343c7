package derive

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// configCase is a set of configuration files, the PCP_DERIVED_CONFIG path
// list naming them ("@" stands for the directory they are written in),
// and what libpcp 6.0.3 does with them: the messages it prints (with "@"
// for the directory) and the PMIDs of the metrics it registers (after
// event.flags and event.missed, 511.0.1 and 511.0.2).
type configCase struct {
	name  string
	files map[string]string
	path  string
	msgs  string
	pmids map[string]string
}

// configCases: msgs and pmids are what
//
//	PCP_DERIVED_CONFIG=PATH pminfo -m -a synth3
//
// prints on stderr and (for the derived metrics) on stdout;
// TestConfigReal runs it again. All the expressions are valid over synth3,
// so that pminfo lists every metric registered.
var configCases = []configCase{
	{
		name: "errors",
		files: map[string]string{"d.conf": "c.a = synth.disc + \\\n  1\n" +
			"c.b = synth.disc\n" +
			"# comment\n" +
			" #not comment = x\n" +
			"\n" +
			"   \n" +
			"c.c(oneline) = \"hello\\\nworld\"\n" +
			"c.c(helptext) = some text\n" +
			"c.d ( foo ) = \"x\" extra\n" +
			"c.e = synth.disc # trailing\n" +
			"c.f() = \"x\"\n" +
			"c.g(x = 1\n" +
			"c.h)x = 1\n" +
			" = synth.disc\n" +
			"1bad = synth.disc\n" +
			"c.i =   \n" +
			"noequals\n" +
			"c.j = synth.disc == 1\n" +
			"c.k == 1\n" +
			"c.l =\tsynth.disc\t+\t$\n" +
			"c.m = synth.disc + 1"}, // no final newline: ignored
		path: "@/d.conf",
		msgs: `[@/d.conf:1] Error: pmRegisterDerived(c.a, ...) syntax error
 synth.disc + \
              ^
Illegal character
[@/d.conf:2] Error: pmLoadDerivedConfig: missing ` + "``='' after derived metric name" + `
  1
[@/d.conf:5] Error: pmLoadDerivedConfig: illegal derived metric name (#not comment)
[@/d.conf:7] Error: pmLoadDerivedConfig: missing ` + "``='' after derived metric name" + `
   
[@/d.conf:8] Error: pmLoadDerivedConfig: cannot set attribute, derived metric (c.c) not defined
c.c(oneline) = "hello\
[@/d.conf:9] Error: pmLoadDerivedConfig: cannot set attribute, derived metric (c.c) not defined
c.c(helptext) = some text
[@/d.conf:10] Warning: pmLoadDerivedConfig: extra text (extra) after attribute value will be ignored
[@/d.conf:10] Error: pmLoadDerivedConfig: cannot set attribute, derived metric (c.d) not defined
c.d ( foo ) = "x" extra
[@/d.conf:11] Error: pmRegisterDerived(c.e, ...) syntax error
 synth.disc # trailing
            ^         
Illegal character
[@/d.conf:12] Error: pmLoadDerivedConfig: attribute name missing
c.f() = "x"
[@/d.conf:13] Error: pmLoadDerivedConfig: missing ')' after attribute
c.g(x = 1
[@/d.conf:14] Error: pmLoadDerivedConfig: illegal derived metric name (c.h)x)
[@/d.conf:15] Error: pmLoadDerivedConfig: derived metric name missing
 = synth.disc
[@/d.conf:16] Error: pmLoadDerivedConfig: illegal derived metric name (1bad)
[@/d.conf:17] Error: pmLoadDerivedConfig: expression missing
c.i =   
[@/d.conf:18] Error: pmLoadDerivedConfig: missing ` + "``='' after derived metric name" + `
noequals
[@/d.conf:20] Error: pmRegisterDerived(c.k, ...) syntax error
= 1
^  
[@/d.conf:21] Error: pmRegisterDerived(c.l, ...) syntax error
	synth.disc	+	$
	          	 	^
Illegal character
`,
		pmids: map[string]string{"c.b": "511.0.3", "c.j": "511.0.4"},
	},
	{
		name: "attributes",
		files: map[string]string{"a.conf": "a.x = synth.disc\n" +
			"a.x(oneline) = \"one line\"\n" +
			"a.x(oneline) = 'again'\n" +
			"a.x ( helptext ) = \"first\\\n  second \\\"quoted\\\" \\\\ end\"\n" +
			"a.x(colour) = red\n" +
			"a.y = synth.ctr32\n" +
			"a.y(helptext) = \"spans\n" +
			"two lines\"  trailing\n" +
			"a.y(oneline) = \"ok\"\n" +
			"a.z = synth.inst\n" +
			"a.z(oneline) = \"never ends\n" +
			"more\n"},
		path: "@/a.conf",
		msgs: `[@/a.conf:3] Error: pmLoadDerivedConfig: duplicate value for attribute (oneline) of metric (a.x)
a.x(oneline) = 'again'
[@/a.conf:5] Error: pmLoadDerivedConfig: attribute (colour) is unknown for metric (a.x)
a.x(colour) = red
[@/a.conf:7] Warning: pmLoadDerivedConfig: extra text (trailing) after attribute value will be ignored
[@/a.conf:11] Error: pmLoadDerivedConfig: missing termination (") for value
`,
		pmids: map[string]string{"a.x": "511.0.3", "a.y": "511.0.4", "a.z": "511.0.5"},
	},
	{
		name: "carets",
		files: map[string]string{"c.conf": "e.a = synth.disc\n" +
			"e.a =   synth.inst\n" +
			"e.b =\t\tmatchinst(/x/ synth.multi)\n" +
			"e.c = synth.disc/2\n" +
			"e.d = matchinst(/one/, synth.multi) + synth.disc/2\n" +
			"e.e = synth.disc/2\n" +
			"e.f =     rate(synth.ctr32 + 1)\n" +
			"e.g = 4294967296 + synth.disc\n" +
			"e.h = synth.disc + \xff junk\n"},
		path: "@/c.conf",
		msgs: `[@/c.conf:2] Error: pmRegisterDerived(e.a, ...) syntax error
   synth.inst
   ^         
Duplicate global derived metric name
[@/c.conf:3] Error: pmRegisterDerived(e.b, ...) syntax error
		matchinst(/x/ synth.multi)
		              ^           
, <expr>) expected to follow matchinst(<filter>
[@/c.conf:4] Error: pmRegisterDerived(e.c, ...) syntax error
 synth.disc/2
           ^ 
unterminated pattern
[@/c.conf:7] Error: pmRegisterDerived(e.f, ...) syntax error
     rate(synth.ctr32 + 1)
                      ^   
Metric name expected to follow rate(
[@/c.conf:8] Error: pmRegisterDerived(e.g, ...) syntax error
 4294967296 + synth.disc
 ^                      
Constant value too large
[@/c.conf:9] Error: pmRegisterDerived(e.h, ...) syntax error
 synth.disc + ` + "\xff" + ` junk
              ^     
Arithmetic expression expected to follow PLUS
`,
		pmids: map[string]string{"e.a": "511.0.3", "e.d": "511.0.4", "e.e": "511.0.5"},
	},
	{
		name: "pathlist",
		files: map[string]string{
			"one.conf":             "p.one = synth.disc + 1\n",
			"two.conf":             "p.two = synth.disc + 2\np.one = synth.disc\n",
			"dir/sub/three.conf":   "p.three = synth.disc + 3\n",
			"dir/sub/deeper/x.txt": "p.four = synth.disc + 4\n",
		},
		// an unreadable component is skipped at start-up
		path: "@/two.conf:@/missing:@/dir:@/one.conf:",
		// (a directory's files are read whatever their names)
		msgs: `[@/one.conf:1] Error: pmRegisterDerived(p.one, ...) syntax error
 synth.disc + 1
 ^             
Duplicate global derived metric name
`,
		pmids: map[string]string{"p.two": "511.0.3", "p.one": "511.0.4", "p.three": "511.0.5", "p.four": "511.0.6"},
	},
}

func writeConfigFiles(t *testing.T, c configCase) string {
	dir := t.TempDir()
	for name, content := range c.files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestConfig(t *testing.T) {
	for _, c := range configCases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeConfigFiles(t, c)
			reg := NewRegistry(Dialect603)
			reg.RegisterEventMetrics()
			var msgs bytes.Buffer
			reg.LoadEnvConfig(strings.ReplaceAll(c.path, "@", dir), &msgs)
			if got := strings.ReplaceAll(msgs.String(), dir, "@"); got != c.msgs {
				t.Errorf("messages:\n%s\nwant:\n%s", got, c.msgs)
			}
			got := map[string]string{}
			for _, m := range reg.Metrics() {
				if !m.Anon {
					got[m.Name] = m.PMID.String()
				}
			}
			if !equalMaps(got, c.pmids) {
				t.Errorf("metrics %v, want %v", got, c.pmids)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestConfigAttributes(t *testing.T) {
	c := configCases[1]
	dir := writeConfigFiles(t, c)
	reg := NewRegistry(Dialect603)
	reg.LoadConfig(filepath.Join(dir, "a.conf"), &bytes.Buffer{})
	x, _ := reg.Lookup("a.x")
	y, _ := reg.Lookup("a.y")
	if x.Oneline != "one line" || x.Helptext != "first  second \"quoted\" \\ end" {
		t.Errorf("a.x: %q %q", x.Oneline, x.Helptext)
	}
	if y.Helptext != "spans\ntwo lines" || y.Oneline != "ok" {
		t.Errorf("a.y: %q %q", y.Helptext, y.Oneline)
	}
}

// TestConfigReal loads the same files with the real pminfo.
func TestConfigReal(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	archive := archivePath(t, "synth3")
	reDerived := regexp.MustCompile(`^(\S+) PMID: (511\.\d+\.\d+)$`)
	for _, c := range configCases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeConfigFiles(t, c)
			env := testenv.RealEnv("PCP_DERIVED_CONFIG=" + strings.ReplaceAll(c.path, "@", dir))
			out, stderr, rc := testenv.RunCommand(t, "", env, pminfo, "-m", "-a", archive)
			if rc != 0 {
				t.Fatalf("pminfo: rc %d", rc)
			}
			if got := strings.ReplaceAll(string(stderr), dir, "@"); got != c.msgs {
				t.Errorf("pminfo stderr:\n%s\nthe table:\n%s", got, c.msgs)
			}
			got := map[string]string{}
			for _, line := range strings.Split(string(out), "\n") {
				if m := reDerived.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "event.") {
					got[m[1]] = m[2]
				}
			}
			if !equalMaps(got, c.pmids) {
				t.Errorf("pminfo lists %v, the table %v", got, c.pmids)
			}
		})
	}
}

// pmLoadDerivedConfig (unlike the start-up load) stops at the first
// component it cannot read, returning -errno, and otherwise returns the
// number of metrics registered.
func TestLoadConfigResult(t *testing.T) {
	c := configCases[3]
	dir := writeConfigFiles(t, c)
	paths := []string{
		filepath.Join(dir, "two.conf"),
		filepath.Join(dir, "dir"),
		filepath.Join(dir, "missing"),
		filepath.Join(dir, "one.conf") + ":" + filepath.Join(dir, "missing") + ":" + filepath.Join(dir, "two.conf"),
		filepath.Join(dir, "one.conf") + "::",
	}
	want := []int{2, 2, -2, -2, -2}
	for i, p := range paths {
		reg := NewRegistry(Dialect603)
		n, err := reg.LoadConfig(p, &bytes.Buffer{})
		got := n
		if err != nil {
			got = int(err.(pmapi.Error))
		}
		if got != want[i] {
			t.Errorf("LoadConfig(%s) = %d, want %d", strings.ReplaceAll(p, dir, "@"), got, want[i])
		}
	}
}

// TestLoadConfigResultReal asks pmLoadDerivedConfig itself.
func TestLoadConfigResultReal(t *testing.T) {
	c := configCases[3]
	dir := writeConfigFiles(t, c)
	paths := []string{
		filepath.Join(dir, "two.conf"),
		filepath.Join(dir, "dir"),
		filepath.Join(dir, "missing"),
		filepath.Join(dir, "one.conf") + ":" + filepath.Join(dir, "missing") + ":" + filepath.Join(dir, "two.conf"),
		filepath.Join(dir, "one.conf") + "::",
	}
	var reqs []oracleReq
	for _, p := range paths {
		reqs = append(reqs, oracleReq{Op: "load", Expr: p})
	}
	// one process: the registrations accumulate, as in ours below
	resps := runOracle(t, reqs)
	reg := NewRegistry(Dialect603)
	for i, p := range paths {
		n, err := reg.LoadConfig(p, &bytes.Buffer{})
		if err != nil {
			n = int(err.(pmapi.Error))
		}
		if n != resps[i].Pos {
			t.Errorf("pmLoadDerivedConfig(%s) = %d, ours %d", strings.ReplaceAll(p, dir, "@"), resps[i].Pos, n)
		}
	}
}

// A directory's entries are loaded in the order the directory lists them
// (readdir), like libpcp: compare with pminfo on a directory of several
// files.
func TestConfigDirectoryOrderReal(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	files := map[string]string{}
	for _, n := range []string{"b", "a", "d", "c", "zz", "e1", "m"} {
		files[n+".conf"] = "dir." + n + " = synth.disc\n"
	}
	dir := writeConfigFiles(t, configCase{files: files})
	out, _, _ := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="+dir), pminfo, "-m", "-a", archivePath(t, "synth3"), "dir")
	reg := NewRegistry(Dialect603)
	reg.RegisterEventMetrics()
	reg.LoadEnvConfig(dir, &bytes.Buffer{})
	var want, got []string
	want = append(want, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	for _, m := range reg.Metrics() {
		if !m.Anon {
			got = append(got, m.Name+" PMID: "+m.PMID.String())
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ours:\n%s\npminfo:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var cfgPieces = []string{
	"r.a", "r.b", "r.c", " r.d ", "r.a", "1x", "r..e", "r.f_1", "", " ", "\t", "=", " = ", "==", "(", ")",
	"(oneline)", "(helptext)", "( helptext )", "(colour)", "()", "\"", "'", "\\", "\"text\"", "'text'",
	"\"multi\nline\"", "\"never closed", "synth.disc + 1", "synth.disc +", "synth.disc $", "rate(synth.ctr32)",
	"matchinst(/x/ synth.multi)", "synth.disc/2", "# comment", "#", "extra", "\"esc\\\"aped\" tail",
}

// TestDifferentialConfigReal loads random configuration files with pminfo
// and with LoadEnvConfig: the same messages and the same metrics (every
// well-formed definition here is valid over synth3, so pminfo lists them).
func TestDifferentialConfigReal(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	archive := archivePath(t, "synth3")
	reDerived := regexp.MustCompile(`^(\S+) PMID: (511\.\d+\.\d+)$`)
	r := rand.New(rand.NewSource(7))
	n := 60
	if testing.Short() {
		n = 10
	}
	for k := 0; k < n; k++ {
		var b strings.Builder
		for lines := 1 + r.Intn(15); lines > 0; lines-- {
			switch r.Intn(4) {
			case 0:
				fmt.Fprintf(&b, "r.m%d = synth.disc + %d", r.Intn(6), r.Intn(9))
			default:
				for p := r.Intn(5); p >= 0; p-- {
					b.WriteString(cfgPieces[r.Intn(len(cfgPieces))])
				}
			}
			if r.Intn(20) > 0 || lines > 1 {
				b.WriteByte('\n')
			}
		}
		c := configCase{files: map[string]string{"r.conf": b.String()}}
		dir := writeConfigFiles(t, c)
		path := filepath.Join(dir, "r.conf")
		out, stderr, rc := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="+path), pminfo, "-m", "-a", archive)
		if rc != 0 {
			t.Fatalf("pminfo: rc %d", rc)
		}
		want := map[string]string{}
		for _, line := range strings.Split(string(out), "\n") {
			if m := reDerived.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "event.") {
				want[m[1]] = m[2]
			}
		}
		reg := NewRegistry(Dialect603)
		reg.RegisterEventMetrics()
		var msgs bytes.Buffer
		reg.LoadEnvConfig(path, &msgs)
		got := map[string]string{}
		for _, m := range reg.Metrics() {
			if !m.Anon {
				got[m.Name] = m.PMID.String()
			}
		}
		if msgs.String() != string(stderr) || !equalMaps(got, want) {
			t.Errorf("config %q:\nours %v\n%s\npminfo %v\n%s", b.String(), got, msgs.String(), want, stderr)
		}
	}
}

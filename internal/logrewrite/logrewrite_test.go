package logrewrite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

func TestMain(m *testing.M) {
	// The real tools run with these; pcpkit in-process gets the same.
	os.Setenv("TZ", "UTC")
	os.Setenv("PCP_DERIVED_CONFIG", "")
	os.Setenv("LC_ALL", "C")
	os.Exit(m.Run())
}

// runMain runs pcpkit's pmlogrewrite in-process.
func runMain(args ...string) (stdout, stderr string, rc int) {
	var out, errb bytes.Buffer
	rc = Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

func testArchive(t testing.TB, name string) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "archives", name)
}

// TestBadConfigGoldens: each configuration in testdata/bad gives the
// real tool's message and exit status (testdata/bad/NAME.golden, made by
// the real pmlogrewrite on testdata/archives/pmcd-v3; TestBadConfigLive
// checks them against it), and writes no archive.
func TestBadConfigGoldens(t *testing.T) {
	checkBadConfigs(t, func(conf, in, out string) (string, int) {
		_, stderr, rc := runMain("-c", conf, in, out)
		if rc != 0 {
			if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
				t.Errorf("files left after an error: %v", ents)
			}
		}
		return stderr, rc
	})
}

// checkBadConfigs runs each configuration of testdata/bad on pmcd-v3
// with run, and compares the exit status and standard error with its
// golden.
func checkBadConfigs(t *testing.T, run func(conf, in, out string) (stderr string, rc int)) {
	confs, _ := filepath.Glob("testdata/bad/*.conf")
	if len(confs) < 40 {
		t.Fatalf("only %d bad configurations", len(confs))
	}
	in := testArchive(t, "pmcd-v3")
	for _, c := range confs {
		t.Run(filepath.Base(c), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(c, ".conf") + ".golden")
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			stderr, rc := run(c, in, filepath.Join(dir, "out"))
			if diff := cmp.Diff(string(want), goldenText(rc, stderr, dir)); diff != "" {
				t.Errorf("-golden +got:\n%s", diff)
			}
		})
	}
}

// goldenText is how a bad configuration's result is kept: the exit
// status, then standard error with the output path as OUT.
func goldenText(rc int, stderr, dir string) string {
	return "exit " + itoa(rc) + "\n" + strings.ReplaceAll(stderr, filepath.Join(dir, "out"), "OUT")
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// TestLexer: tokens as the real scanner gives them, start states
// included.
func TestLexer(t *testing.T) {
	tests := []struct {
		src  string
		want []tokKind
	}{
		{"metric kernel.all.load { type -> U64 }", []tokKind{tMetric, tGName, tLBrace, tType, tAssign, tTypeName, tRBrace}},
		// "type" outside a metric rule is a name; "metrics" is a name
		{"metrics type", []tokKind{tGName, tGName}},
		{"indom 60.* { indom -> 61.* }", []tokKind{tIndom, tIndomStar, tLBrace, tIndom, tAssign, tIndomStar, tRBrace}},
		{"metric 60.1.* { pmid -> 61.*.* }", []tokKind{tMetric, tPMIDStar, tLBrace, tPMID, tAssign, tPMIDStar, tRBrace}},
		{"metric 1.2.3 { units -> 1,-1,0,KBYTE,SEC,0 rescale }", []tokKind{tMetric, tPMIDInt, tLBrace, tUnits, tAssign, tNumber, tComma, tMinus, tNumber, tComma, tNumber, tComma, tSpaceName, tComma, tTimeName, tComma, tCountName, tRescale, tRBrace}},
		{"global { hostname -> 10.1.2.3 time -> -1:30 }", []tokKind{tGlobal, tLBrace, tHostname, tAssign, tHName, tTime, tAssign, tMinus, tNumber, tColon, tNumber, tRBrace}},
		{"# comment\nindom 1.2 { iname \"a b\" -> DELETE }", []tokKind{tIndom, tFloat, tLBrace, tIname, tString, tAssign, tDelete, tRBrace}},
		{"metric a { sem -> counter }", []tokKind{tMetric, tGName, tLBrace, tSem, tAssign, tSemName, tRBrace}},
		{"@", []tokKind{tBad}},
		// text rules: their own keywords, "*", and "{" keeps the state
		{"text metric 60.*.* oneline help * { text -> \"a\\\"b\" metric -> 61.*.* }", []tokKind{tText, tMetric, tPMIDStar, tOneline, tHelp, tTextStar, tLBrace, tText, tAssign, tTextString, tMetric, tAssign, tPMIDStar, tRBrace}},
		{"text indom 1.2 all { delete }", []tokKind{tText, tIndom, tFloat, tAll, tLBrace, tDelete, tRBrace}},
		// "help" is a name outside a text rule; "" is a JSON string
		{"help \"\"", []tokKind{tGName, tJSONString}},
		// a backslashed quote need not end a string
		{"indom 1.2 { iname \"a\\\" -> \"b\" }", []tokKind{tIndom, tFloat, tLBrace, tIname, tTextString, tGName, tBad}},
	}
	for _, tc := range tests {
		lx := newLexer(tc.src)
		var got []tokKind
		for {
			tok := lx.next()
			if tok.kind == tEOF {
				break
			}
			got = append(got, tok.kind)
			if tok.kind == tBad {
				break
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: -want +got:\n%s", tc.src, diff)
		}
	}
}

// TestTextString: in a text rule a string runs to the last quote that
// backslashed quotes before it let it reach, and a backslashed quote
// stands for a quote (nothing else is an escape).
func TestTextString(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"a\"b"`, `a"b`},
		{`"a\"b\" }`, `a"b\`},
		{`"a\\"b"`, `a\"b`},
		{`"x\n\t"`, `x\n\t`},
		{"\"two\nlines\"", "two\nlines"},
	}
	for _, tc := range tests {
		lx := newLexer(tc.src)
		lx.state = sText
		if tok := lx.next(); tok.kind != tString && tok.kind != tTextString || tok.text != tc.want {
			t.Errorf("%s: %v %q, want a string %q", tc.src, tok.kind, tok.text, tc.want)
		}
	}
}

// TestConvert: pmExtractValue's conversions, with its errors.
func TestConvert(t *testing.T) {
	tests := []struct {
		a        atom
		from, to pmapi.Type
		want     atom
		err      error
	}{
		{atom{f: 0.92}, pmapi.TypeFloat, pmapi.Type32, atom{u: 0}, nil},
		{atom{f: -2.7}, pmapi.TypeDouble, pmapi.Type64, atom{u: uint64(^uint64(1))}, nil},
		{atom{f: -1}, pmapi.TypeDouble, pmapi.TypeU64, atom{}, pmapi.ErrSign},
		{atom{f: 5e9}, pmapi.TypeDouble, pmapi.Type32, atom{}, pmapi.ErrTrunc},
		{atom{u: 1 << 40}, pmapi.TypeU64, pmapi.TypeU32, atom{}, pmapi.ErrTrunc},
		{atom{u: uint64(0xffffffffffffffff)}, pmapi.Type64, pmapi.TypeU32, atom{}, pmapi.ErrSign},
		{atom{u: uint64(0xffffffffffffffff)}, pmapi.Type32, pmapi.Type64, atom{u: uint64(0xffffffffffffffff)}, nil},
		{atom{u: 1 << 63}, pmapi.TypeU64, pmapi.Type64, atom{}, pmapi.ErrTrunc},
		{atom{u: 3}, pmapi.TypeU32, pmapi.TypeDouble, atom{f: 3}, nil},
	}
	for _, tc := range tests {
		got, err := convert(tc.a, tc.from, tc.to)
		if !errors.Is(err, tc.err) || err == nil && got != tc.want {
			t.Errorf("convert(%v, %s, %s) = %v, %v; want %v, %v", tc.a, tc.from, tc.to, got, err, tc.want, tc.err)
		}
	}
}

// TestIdentityCopy: with no rules, the copy is the input, byte for byte
// (the real tool's too, on archives pcpkit wrote).
func TestIdentityCopy(t *testing.T) {
	for _, name := range []string{"pmcd-v3", "pmcd-v2", "sample-v3"} {
		in := testArchive(t, name)
		out := filepath.Join(t.TempDir(), "out")
		if _, stderr, rc := runMain(in, out); rc != 0 {
			t.Fatalf("%s: exit %d: %s", name, rc, stderr)
		}
		for _, suf := range []string{".0", ".meta"} {
			a, _ := os.ReadFile(in + suf)
			b, _ := os.ReadFile(out + suf)
			if !bytes.Equal(a, b) {
				t.Errorf("%s%s differs from the input", name, suf)
			}
		}
	}
}

// TestRewriteMetric reads back what a few rules do, with pcpkit's own
// reader (the interop tests compare with the real tool).
func TestRewriteMetric(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "c.conf")
	os.WriteFile(conf, []byte(`metric kernel.all.load { pmid -> 60.2.50 name -> load.avg type -> DOUBLE }
indom 60.2 { inst 15 -> DELETE inst 5 -> 300 }
metric hinv.ncpu { delete }
global { hostname -> rewritten }
`), 0o644)
	out := filepath.Join(dir, "out")
	if _, stderr, rc := runMain("-c", conf, testArchive(t, "pmcd-v3"), out); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	a, err := archive.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if h := a.Label().Hostname; h != "rewritten" {
		t.Errorf("hostname %q", h)
	}
	m := a.Meta()
	pmid, ok := m.Lookup("load.avg")
	if !ok || pmid != pmapi.PMID(60<<22|2<<10|50) {
		t.Fatalf("load.avg: %v %v", pmid, ok)
	}
	if d, _ := m.Desc(pmid); d.Type != pmapi.TypeDouble {
		t.Errorf("type %s", d.Type)
	}
	if _, ok := m.Lookup("hinv.ncpu"); ok {
		t.Errorf("hinv.ncpu not deleted")
	}
	cur := a.NewCursor()
	seen := 0
	for {
		r, err := cur.Next()
		if err != nil {
			break
		}
		if err := r.Index(); err != nil {
			t.Fatal(err)
		}
		for i := range r.NumPMID() {
			if r.PMID(i) != pmid {
				continue
			}
			seen++
			vs := r.ValueSet(i)
			var insts []int32
			for _, v := range vs.Values {
				insts = append(insts, v.Inst)
				if v.BlockType != pmapi.TypeDouble || len(v.Block) != 8 {
					t.Errorf("value not a double: %+v", v)
				}
			}
			if diff := cmp.Diff([]int32{1, 300}, insts); diff != "" {
				t.Errorf("instances -want +got:\n%s", diff)
			}
		}
	}
	if seen == 0 {
		t.Errorf("no values of load.avg")
	}
}

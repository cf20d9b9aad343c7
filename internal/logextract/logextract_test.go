package logextract

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

func TestParseConfig(t *testing.T) {
	specs, err := parseConfig(strings.NewReader("# comment\nkernel.all.load [ \"1 minute\", 15 ]\nsample.bin ['bin-100' 300] network\n\nhinv.ncpu, disk.dev [ dks0d1 ]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []cfgSpec{
		{name: "kernel.all.load", line: 2, insts: []cfgInst{{name: "1 minute"}, {num: 15, isNum: true, name: "15"}}},
		{name: "sample.bin", line: 3, insts: []cfgInst{{name: "bin-100"}, {num: 300, isNum: true, name: "300"}}},
		{name: "network", line: 5},
		{name: "hinv.ncpu", line: 5},
		{name: "disk.dev", line: 5, insts: []cfgInst{{name: "dks0d1"}}},
	}
	if d := cmp.Diff(want, specs, cmp.AllowUnexported(cfgSpec{}, cfgInst{})); d != "" {
		t.Errorf("specs (-want +got):\n%s", d)
	}
	// On an error, the specifications the real parser has reduced (and
	// looked up) before it come back too.
	for _, c := range []struct {
		in    string
		specs []string
		err   string
	}{
		{"kernel.all.load [\n", nil, "[line 2] syntax error"},
		{"[ 1 ]\n", nil, "[line 1] syntax error"},
		{"a [ 'x\n", nil, "[line 1] Unexpected character '''"},
		{"a ] b\n", []string{"a"}, "[line 1] syntax error"},
		{"a\nb @\n", []string{"a"}, "[line 2] Unexpected character '@'"},
		{"a [ 1 ] @\n", []string{"a"}, "[line 1] Unexpected character '@'"},
		{"a, [\n", []string{"a"}, "[line 1] syntax error"},
		{"a [ 1 , ]\n", nil, "[line 1] syntax error"},
		{"a,,b\n", []string{"a"}, "[line 1] syntax error"},
		{"a [ bin-100 ]\n", nil, "[line 1] Unexpected character '-'"},
		{"_a\n", nil, "[line 1] Unexpected character '_'"},
		{"a [ \"\" ]\n", nil, "[line 1] Unexpected character '\"'"},
	} {
		specs, err := parseConfig(strings.NewReader(c.in))
		var got []string
		for _, s := range specs {
			got = append(got, s.name)
		}
		var se *cfgSyntaxError
		if !errors.As(err, &se) || se.Error() != c.err || !cmp.Equal(got, c.specs) {
			t.Errorf("%q: specs %q, err %v; want %q, %s", c.in, got, err, c.specs, c.err)
		}
	}
	// A number is what atol gives, kept as an int.
	if specs, _ := parseConfig(strings.NewReader("a [ 99999999999 ]")); len(specs) != 1 || specs[0].insts[0] != (cfgInst{num: 1215752191, isNum: true, name: "1215752191"}) {
		t.Errorf("a large instance number: %+v", specs)
	}
}

func TestClosestBefore(t *testing.T) {
	var recs []*indomRec
	for _, s := range []int64{10, 20, 30, 40, 50} {
		recs = append(recs, &indomRec{stamp: pmapi.Timestamp{Sec: s}})
	}
	for _, c := range []struct {
		t    int64
		want int64 // 0: none
	}{{5, 0}, {10, 10}, {15, 10}, {20, 20}, {29, 20}, {45, 40}, {50, 50}, {99, 50}} {
		got := closestBefore(recs, pmapi.Timestamp{Sec: c.t})
		var g int64
		if got != nil {
			g = got.stamp.Sec
		}
		if g != c.want {
			t.Errorf("at %d: %d, want %d", c.t, g, c.want)
		}
	}
}

// TestSearchmlist: searchRecord keeps instances in the list's order, and the real tool's
// decision for value sets after one left empty.
func TestSearchmlist(t *testing.T) {
	a, b, c := pmapi.NewPMID(1, 0, 1), pmapi.NewPMID(1, 0, 2), pmapi.NewPMID(1, 0, 3)
	x := &extractor{sel: &selection{ml: []mlEntry{
		{pmid: a, numinst: 2, insts: []int32{3, 1}},
		{pmid: b, numinst: 1, insts: []int32{-1}},
		{pmid: c, numinst: 1, insts: []int32{-1}},
	}}}
	val := func(p pmapi.PMID, insts ...int32) pmapi.ValueSet {
		v := pmapi.ValueSet{PMID: p, NumVal: int32(len(insts))}
		for _, i := range insts {
			v.Values = append(v.Values, pmapi.Value{Inst: i, Insitu: i})
		}
		return v
	}
	record := func(res *pmapi.Result) *archive.Record {
		raw, err := archive.AppendResultRecord(nil, 3, res)
		if err != nil {
			t.Fatal(err)
		}
		r, err := archive.DecodeRecord(raw, 3)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var out selected
	res := &pmapi.Result{VSets: []pmapi.ValueSet{val(a, 1, 2, 3), val(pmapi.NewPMID(9, 0, 9), 1), val(b, 0), val(c, 0)}}
	if !x.searchRecord(&out, record(res)) {
		t.Fatalf("the record was dropped")
	}
	want := &pmapi.Result{VSets: []pmapi.ValueSet{val(a, 3, 1), val(b), val(c, 0)}}
	if d := cmp.Diff(want, &out.res, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if x.searchRecord(&out, record(&pmapi.Result{VSets: []pmapi.ValueSet{val(pmapi.NewPMID(9, 0, 9), 1)}})) {
		t.Errorf("a record without selected metrics was kept")
	}
	if x.searchRecord(&out, record(&pmapi.Result{})) {
		t.Errorf("a <mark> was kept")
	}
}

// readAll returns the results of every record of an archive.
func readAll(t *testing.T, path string) []*pmapi.Result {
	t.Helper()
	a, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c := a.NewCursor()
	var out []*pmapi.Result
	for {
		r, err := c.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return out // a damaged tail ends the input
		}
		out = append(out, r.Result())
	}
}

// TestCopyShared copies every shared archive that opens (and converts
// it to Version 3) and reads the copy back: the same records, across
// volumes, with a valid temporal index. It needs no PCP installation.
func TestCopyShared(t *testing.T) {
	for _, sub := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, sub)
		for _, rel := range testenv.Archives(t, dir) {
			in := filepath.Join(dir, filepath.FromSlash(rel))
			if a, err := archive.Open(in); err != nil {
				continue
			} else {
				a.Close()
			}
			for _, v3 := range []bool{false, true} {
				name := rel
				args := []string{in}
				if v3 {
					name, args = rel+" -V 3", []string{"-V", "3", in}
				}
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out")
					var stdout, stderr bytes.Buffer
					if rc := Main(append(args, out), &stdout, &stderr); rc != 0 {
						if strings.Contains(stderr.String(), "empty") {
							return
						}
						t.Fatalf("rc %d: %s", rc, stderr.Bytes())
					}
					want, got := readAll(t, in), readAll(t, out)
					if !sameResults(want, got) {
						t.Errorf("records (-input +copy):\n%s", cmp.Diff(want, got, cmpopts.EquateEmpty()))
					}
					a, err := archive.Open(out)
					if err != nil {
						t.Fatal(err)
					}
					defer a.Close()
					if v3 && a.Version() != 3 {
						t.Errorf("version %d", a.Version())
					}
					if len(a.Index()) == 0 {
						t.Errorf("no temporal index")
					}
				})
			}
		}
	}
}

// sameResults compares results quickly (cmp is slow on big blocks).
func sameResults(a, b []*pmapi.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// TestRefusesToOverwrite: an existing output is never touched.
func TestRefusesToOverwrite(t *testing.T) {
	in := filepath.Join(testenv.SharedDir(t, "pcp-made-archives"), "synth3")
	for _, existing := range []string{".0", ".meta", ".index", ".1", ".meta.xz"} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		if err := os.WriteFile(out+existing, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if rc := Main([]string{in, out}, &stdout, &stderr); rc != 1 {
			t.Errorf("%s exists: rc %d", existing, rc)
		}
		if b, _ := os.ReadFile(out + existing); string(b) != "precious" {
			t.Errorf("%s was overwritten", existing)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s exists: %d files left", existing, len(ents))
		}
	}
}

// BenchmarkCopy copies the largest shared archive: as it is (records
// copied as bytes) and converted to Version 3 (records re-encoded).
func BenchmarkCopy(b *testing.B) {
	dir := testenv.SharedDir(b, "pcp-qa-archives")
	var in string
	var size int64
	for _, rel := range testenv.Archives(b, dir) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		var n int64
		m, _ := filepath.Glob(p + ".*")
		for _, f := range m {
			if st, err := os.Stat(f); err == nil {
				n += st.Size()
			}
		}
		if n > size && !strings.Contains(rel, "/") {
			in, size = p, n
		}
	}
	b.Logf("input %s (%d bytes)", filepath.Base(in), size)
	for _, mode := range [][]string{{}, {"-V", "3"}} {
		name := "raw"
		if len(mode) > 0 {
			name = "reencode"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			b.SetBytes(size)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				out := filepath.Join(dir, "out"+strings.Repeat("x", i%2)+string(rune('a'+i%26))+itoa(i))
				var stdout, stderr bytes.Buffer
				if rc := Main(append(append([]string(nil), mode...), in, out), &stdout, &stderr); rc != 0 {
					b.Fatalf("rc %d: %s", rc, stderr.Bytes())
				}
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

package logextract

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// decompress returns the contents of a .xz or .zst file.
func decompress(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader
	switch {
	case strings.HasSuffix(path, ".xz"):
		r, err = xz.NewReader(f)
	case strings.HasSuffix(path, ".zst"):
		var d *zstd.Decoder
		d, err = zstd.NewReader(f)
		if d != nil {
			defer d.Close()
		}
		r = d
	default:
		r = f
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// filesOf lists the files of archive base (suffixes after the base),
// hidden temporary files included.
func filesOf(t *testing.T, base string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(base))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(base)
	var out []string
	for _, e := range ents {
		if rest, ok := strings.CutPrefix(e.Name(), name+"."); ok {
			out = append(out, "."+rest)
		} else if strings.HasPrefix(e.Name(), "."+name+".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestCompressOutput: -X xz, -X zstd and --compress give the files of
// the plain output compressed, byte for byte (the writer's pid is the
// same in-process), the index plain; pcpkit reads them back as the
// plain output, and the real pmdumplog and pmlogcheck read the xz one
// as the plain one.
func TestCompressOutput(t *testing.T) {
	m := testenv.SharedDir(t, "pcp-made-archives")
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"basic3", []string{filepath.Join(m, "basic3")}},
		{"vols", []string{"-v", "5", filepath.Join(m, "basic3"), filepath.Join(m, "sample3")}},
		{"v2", []string{"-v", "7", filepath.Join(m, "basic2")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plain := filepath.Join(dir, c.name+"-plain")
			var stderr bytes.Buffer
			if rc := Main(append(append([]string(nil), c.args...), plain), io.Discard, &stderr); rc != 0 {
				t.Fatalf("plain: rc %d: %s", rc, stderr.Bytes())
			}
			pfiles := filesOf(t, plain)
			for _, z := range []struct {
				opts []string
				suf  string
			}{{[]string{"-X", "xz"}, ".xz"}, {[]string{"-X", "zstd"}, ".zst"}, {[]string{"--compress"}, ".xz"}, {[]string{"--compress=zstd"}, ".zst"}} {
				out := filepath.Join(dir, c.name+"-"+strings.Join(z.opts, ""))
				stderr.Reset()
				var zerr bytes.Buffer
				args := append(append(append([]string(nil), z.opts...), c.args...), out)
				if rc := Main(args, io.Discard, &zerr); rc != 0 {
					t.Fatalf("%v: rc %d: %s", z.opts, rc, zerr.Bytes())
				}
				var want []string
				for _, f := range pfiles {
					if f != ".index" {
						f += z.suf
					}
					want = append(want, f)
				}
				got := filesOf(t, out)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%v: files (-want +got):\n%s", z.opts, d)
				}
				for k, f := range pfiles {
					if !bytes.Equal(decompress(t, plain+f), decompress(t, out+got[k])) {
						t.Errorf("%v: %s is not %s compressed", z.opts, out+got[k], plain+f)
					}
				}
				compareRead(t, plain, out)
				if z.suf == ".xz" && testenv.FindRealTool("pmdumplog") != "" {
					po, pe, prc := testenv.RunReal(t, "pmdumplog", "-a", plain)
					zo, ze, zrc := testenv.RunReal(t, "pmdumplog", "-a", out)
					if zrc != prc || strings.ReplaceAll(string(zo), out, plain) != string(po) || string(ze) != string(pe) {
						t.Errorf("%v: the real pmdumplog -a differs from the plain output's (rc %d/%d):\n%s", z.opts, prc, zrc, testenv.LineDiff(string(po), strings.ReplaceAll(string(zo), out, plain)))
					}
					po, pe, prc = testenv.RunReal(t, "pmlogcheck", plain)
					co, ce, crc := testenv.RunReal(t, "pmlogcheck", out)
					// (its messages name the volumes: x.0 and x.0.xz)
					norm := func(b []byte, base string) string {
						return strings.ReplaceAll(strings.ReplaceAll(string(b), z.suf+":", ":"), base, "OUT")
					}
					if crc != 0 || crc != prc || norm(co, out)+norm(ce, out) != norm(po, plain)+norm(pe, plain) {
						t.Errorf("%v: the real pmlogcheck: rc %d\n%s%s", z.opts, crc, co, ce)
					}
				}
			}
		})
	}
}

// compareRead reads two archives with pcpkit and compares their
// records, metadata records and index entries.
func compareRead(t *testing.T, a, b string) {
	t.Helper()
	read := func(base string) (recs, meta []string, index []archive.IndexEntry) {
		ar, err := archive.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		defer ar.Close()
		c := ar.NewCursor()
		for {
			r, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", base, err)
			}
			recs = append(recs, string(r.Raw()))
		}
		mrs, err := ar.MetaRecords()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mrs {
			meta = append(meta, string(m.Raw))
		}
		return recs, meta, ar.Index()
	}
	ar, am, ai := read(a)
	br, bm, bi := read(b)
	if len(ar) == 0 || !cmp.Equal(ar, br) {
		t.Errorf("%s: %d records, %s: %d, or they differ", a, len(ar), b, len(br))
	}
	if !cmp.Equal(am, bm) {
		t.Errorf("%s and %s: metadata differ", a, b)
	}
	if d := cmp.Diff(ai, bi); d != "" {
		t.Errorf("%s and %s: index differs:\n%s", a, b, d)
	}
}

// TestCompressArgs: --compress alone means xz; pcpkit's long options
// are matched in full only and an option's argument is never taken for
// one; a bad -X value is a usage error.
func TestCompressArgs(t *testing.T) {
	X := func(arg string) getopt.Opt { return getopt.Opt{Short: 'X', Name: "compress", Arg: arg} }
	sync := getopt.Opt{Short: optSync, Name: "sync"}
	for _, c := range []struct {
		in, rest []string
		extras   []getopt.Opt
	}{
		{[]string{"--compress", "a", "b"}, []string{"a", "b"}, []getopt.Opt{X("xz")}},
		{[]string{"a", "--compress=zstd", "b", "--sync"}, []string{"a", "b"}, []getopt.Opt{X("zstd"), sync}},
		{[]string{"-c", "--compress", "a", "b"}, []string{"-c", "--compress", "a", "b"}, nil},
		{[]string{"-mc", "--compress", "--compress", "a", "b"}, []string{"-mc", "--compress", "a", "b"}, []getopt.Opt{X("xz")}},
		{[]string{"--config", "--compress", "a"}, []string{"--config", "--compress", "a"}, nil},
		{[]string{"--conf", "--sync", "a"}, []string{"--conf", "--sync", "a"}, nil},
		{[]string{"-cfile", "--compress", "a"}, []string{"-cfile", "a"}, []getopt.Opt{X("xz")}},
		{[]string{"--", "--compress"}, []string{"--", "--compress"}, nil},
		{[]string{"--comp", "--syn", "a"}, []string{"--comp", "--syn", "a"}, nil},
	} {
		rest, extras := splitExtras(c.in)
		if !cmp.Equal(rest, c.rest) || !cmp.Equal(extras, c.extras) {
			t.Errorf("splitExtras(%q) = %q, %v; want %q, %v", c.in, rest, extras, c.rest, c.extras)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-X", "gzip", "in"}, "pmlogextract: -X value must be xz or zstd\nUsage:"},
		{[]string{"--compress=lz4", "in"}, "pmlogextract: --compress value must be xz or zstd\nUsage:"},
		// the real tool's abbreviations are untouched by the extras
		{[]string{"--c", "/nonexist", "in"}, "pmlogextract: /nonexist - invalid file\nUsage:"},
		{[]string{"--comp", "in"}, "pmlogextract: unrecognized option '--comp'"},
		{[]string{"--syn", "in"}, "pmlogextract: unrecognized option '--syn'"},
	} {
		var stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "o")
		if rc := Main(append(c.args, out), io.Discard, &stderr); rc != 1 || !strings.HasPrefix(stderr.String(), c.want) {
			t.Errorf("%q: rc %d\n%s", c.args, rc, stderr.Bytes())
		}
	}
}

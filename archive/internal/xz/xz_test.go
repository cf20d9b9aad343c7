package xz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// needXZ returns the path of the real xz command, or skips the test.
func needXZ(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("xz command not on PATH: cannot make test files")
	}
	return p
}

// xzCompress compresses data with the real xz and the given options.
func xzCompress(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(needXZ(t), append([]string{"-c", "-T1"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("xz %v: %v: %s", args, err, errb.Bytes())
	}
	return out.Bytes()
}

// xzDecompress decompresses with the real xz.
func xzDecompress(t testing.TB, comp []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(needXZ(t), append([]string{"-dc"}, args...)...)
	cmd.Stdin = bytes.NewReader(comp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("xz -dc: %v: %s", err, errb.Bytes())
	}
	return out.Bytes()
}

// testInputs are the uncompressed inputs of the round trips.
func testInputs(t testing.TB) map[string][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 200<<10)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var rep []byte
	for len(rep) < 300<<10 {
		rep = append(rep, "pcp archive record "...)
		rep = append(rep, byte(r.IntN(4)))
		rep = append(rep, bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(300))...)
	}
	// Text with a small alphabet (many literals after matches).
	text := make([]byte, 150<<10)
	for i := range text {
		text[i] = "etaoin shrdlu\n"[r.IntN(14)]
	}
	in := map[string][]byte{
		"empty":      {},
		"one":        {'x'},
		"random":     random,
		"repetitive": rep,
		"text":       text,
		"zeros":      make([]byte, 3<<20+17),
	}
	var vols []byte
	for _, name := range []string{"pmcd-v2.0", "pmcd-v3.0", "sample-v3.0", "pmcd-v3.meta"} {
		b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "archives", name))
		if err != nil {
			t.Fatal(err)
		}
		in["vol-"+name] = b
		vols = append(vols, b...)
	}
	in["volumes"] = vols
	return in
}

// sharedVolumes returns the xz-compressed files of the PCP QA archives
// and damaged archives in ../shared (none without it).
func sharedVolumes(t *testing.T) map[string][]byte {
	root := filepath.Join(filepath.Dir(testenv.RepoRoot(t)), "shared")
	var names []string
	for _, dir := range []string{"pcp-qa-archives", "pcp-qa-badarchives"} {
		n, _ := filepath.Glob(filepath.Join(root, dir, "*.xz"))
		names = append(names, n...)
	}
	out := map[string][]byte{}
	for _, name := range names {
		comp, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(name))+"/"+filepath.Base(name)] = comp
	}
	return out
}

// fataler is the part of testing.TB that checkDecode needs (rapid.T has it).
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkDecode decodes comp with every decoder of the package and compares
// with want.
func checkDecode(t fataler, comp, want []byte) {
	t.Helper()
	got, err := io.ReadAll(NewReader(bytes.NewReader(comp)))
	if err != nil {
		t.Fatalf("Reader: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Reader: %d bytes differ from the %d expected", len(got), len(want))
	}
	blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
	if err != nil {
		t.Fatalf("ReadIndex: %v", err)
	}
	d := NewDecoder()
	got = got[:0]
	var buf []byte
	for i, b := range blocks {
		buf, err = d.DecodeBlock(buf, comp[b.Offset:b.Offset+b.Size], b, i)
		if err != nil {
			t.Fatalf("DecodeBlock: %v", err)
		}
		if int64(len(got)) != b.UncompressedOffset {
			t.Fatalf("block %d: uncompressed offset %d, want %d", i, b.UncompressedOffset, len(got))
		}
		got = append(got, buf...)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("DecodeBlock: %d bytes differ from the %d expected", len(got), len(want))
	}
	for _, ra := range []int{-1, 2} {
		f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: ra})
		if err != nil {
			t.Fatalf("NewFile: %v", err)
		}
		if f.Size() != int64(len(want)) {
			t.Fatalf("Size %d, want %d", f.Size(), len(want))
		}
		got = make([]byte, len(want)+1)
		n, err := f.ReadAt(got, 0)
		if n != len(want) || err != io.EOF || !bytes.Equal(got[:n], want) {
			t.Fatalf("File.ReadAt: %d, %v; bytes equal %v", n, err, bytes.Equal(got[:n], want))
		}
		f.Close()
	}
}

func TestRoundTripXZ(t *testing.T) {
	needXZ(t)
	in := testInputs(t)
	type variant struct {
		inputs []string // nil: all
		args   []string
	}
	var variants []variant
	for p := 0; p <= 9; p++ {
		variants = append(variants, variant{nil, []string{fmt.Sprintf("-%d", p)}})
	}
	small := []string{"one", "empty", "text", "vol-pmcd-v3.0", "volumes", "repetitive"}
	variants = append(variants,
		variant{small, []string{"-6e"}},
		variant{small, []string{"-0e"}},
		variant{nil, []string{"-0", "--block-size=1KiB"}},
		variant{nil, []string{"-6", "--block-size=64KiB"}},
		variant{nil, []string{"-0", "--block-size=10MiB"}},
		variant{small, []string{"--check=none"}},
		variant{small, []string{"--check=crc32"}},
		variant{small, []string{"--check=crc64", "--block-size=4KiB"}},
		variant{small, []string{"--check=sha256", "--block-size=4KiB"}},
		// lc+lp = 4, pb = 0 and the largest lc: other literal paths.
		variant{small, []string{"--lzma2=preset=1,lc=4,lp=0,pb=0"}},
		variant{small, []string{"--lzma2=preset=1,lc=0,lp=4,pb=4"}},
		variant{small, []string{"--lzma2=preset=6,lc=1,lp=3,pb=2,dict=4KiB"}},
		variant{small, []string{"--lzma2=preset=0,mode=fast,nice=273,dict=4KiB"}},
	)
	for _, v := range variants {
		names := v.inputs
		if names == nil {
			for name := range in {
				names = append(names, name)
			}
		}
		for _, name := range names {
			t.Run(strings.Join(v.args, "_")+"/"+name, func(t *testing.T) {
				checkDecode(t, xzCompress(t, in[name], v.args...), in[name])
			})
		}
	}
}

// TestSharedArchives decodes the xz-compressed PCP QA archives in
// ../shared and compares with the real xz.
func TestSharedArchives(t *testing.T) {
	needXZ(t)
	testenv.SharedDir(t, "pcp-qa-archives")
	for name, comp := range sharedVolumes(t) {
		t.Run(name, func(t *testing.T) {
			checkDecode(t, comp, xzDecompress(t, comp))
		})
	}
}

// TestStreamsAndPadding decodes concatenated streams with stream padding
// between and after them (and streams with no blocks).
func TestStreamsAndPadding(t *testing.T) {
	in := testInputs(t)
	a := xzCompress(t, in["text"], "-1", "--block-size=16KiB")
	b := xzCompress(t, in["volumes"], "-0", "--check=sha256")
	e := xzCompress(t, nil, "--check=crc32")
	pad := func(n int) []byte { return make([]byte, n) }
	cases := []struct {
		name string
		comp [][]byte
		want []byte
	}{
		{"two", [][]byte{a, b}, append(append([]byte{}, in["text"]...), in["volumes"]...)},
		{"padded", [][]byte{a, pad(4), b, pad(12)}, append(append([]byte{}, in["text"]...), in["volumes"]...)},
		{"empty streams", [][]byte{e, pad(8), a, e, e, pad(4096 + 4)}, in["text"]},
		{"trailing 5000", [][]byte{b, pad(5000)}, in["volumes"]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			comp := bytes.Join(c.comp, nil)
			if got := xzDecompress(t, comp); !bytes.Equal(got, c.want) {
				t.Fatal("the real xz disagrees with the test's expectation")
			}
			checkDecode(t, comp, c.want)
		})
	}
}

// TestBadInput checks that damaged files give errors (naming the block
// for damage inside one) and never panic.
func TestBadInput(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["volumes"], "-0", "--block-size=8KiB")
	blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
	if err != nil || len(blocks) < 3 {
		t.Fatalf("ReadIndex: %d blocks, %v", len(blocks), err)
	}
	bad := func(f func(b []byte)) []byte {
		b := bytes.Clone(comp)
		f(b)
		return b
	}
	b2 := blocks[2]
	t.Run("block data", func(t *testing.T) {
		c := bad(func(b []byte) { b[b2.Offset+40] ^= 0x55 })
		f, err := NewFile(bytes.NewReader(c), int64(len(c)), Options{Readahead: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.ReadAt(make([]byte, 10), 0); err != nil {
			t.Fatalf("block 0: %v", err)
		}
		_, err = f.ReadAt(make([]byte, 10), b2.UncompressedOffset+5)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Block != 2 || fe.Offset != b2.Offset || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v, want a FormatError for block 2 at %d", err, b2.Offset)
		}
		if _, err := io.ReadAll(NewReader(bytes.NewReader(c))); !errors.As(err, &fe) || fe.Block != 2 {
			t.Fatalf("Reader: err = %v, want a FormatError for block 2", err)
		}
	})
	t.Run("check", func(t *testing.T) {
		c := bad(func(b []byte) { b[b2.Offset+b2.Size-1] ^= 1 })
		f, err := NewFile(bytes.NewReader(c), int64(len(c)), Options{Readahead: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, err = f.ReadAt(make([]byte, 10), b2.UncompressedOffset)
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "block 2 at offset") {
			t.Fatalf("err = %v, want a check mismatch in block 2", err)
		}
		if _, err := io.ReadAll(NewReader(bytes.NewReader(c))); !errors.Is(err, ErrChecksum) {
			t.Fatalf("Reader: err = %v, want ErrChecksum", err)
		}
	})
	idx := blocks[len(blocks)-1].Offset + blocks[len(blocks)-1].Size
	for _, c := range []struct {
		name string
		f    func(b []byte)
	}{
		{"index record", func(b []byte) { b[idx+3]++ }},
		{"index CRC", func(b []byte) { b[len(b)-13]++ }},
		{"backward size", func(b []byte) { b[len(b)-8]++ }},
		{"footer magic", func(b []byte) { b[len(b)-1] = 'X' }},
		{"header magic", func(b []byte) { b[0] = 0 }},
		{"header flags", func(b []byte) { b[7] = 1 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := bad(c.f)
			if _, err := ReadIndex(bytes.NewReader(b), int64(len(b))); err == nil {
				t.Fatal("ReadIndex: no error")
			}
			if _, err := io.ReadAll(NewReader(bytes.NewReader(b))); err == nil {
				t.Fatal("Reader: no error")
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		for n := 0; n < len(comp); n += 1 + n/3 {
			if _, err := ReadIndex(bytes.NewReader(comp[:n]), int64(n)); err == nil {
				t.Fatalf("ReadIndex of %d bytes: no error", n)
			}
			if _, err := io.ReadAll(NewReader(bytes.NewReader(comp[:n]))); err == nil {
				t.Fatalf("Reader of %d bytes: no error", n)
			}
		}
	})
	t.Run("filter", func(t *testing.T) {
		c := xzCompress(t, in["text"], "--delta=dist=4", "--lzma2=preset=0")
		if _, err := io.ReadAll(NewReader(bytes.NewReader(c))); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("Reader: err = %v, want ErrUnsupported", err)
		}
		f, err := NewFile(bytes.NewReader(c), int64(len(c)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("File: err = %v, want ErrUnsupported", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		if _, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{MaxBlock: 4096}); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
}

// TestLZMAAlone decodes .lzma files made by the real xz.
func TestLZMAAlone(t *testing.T) {
	in := testInputs(t)
	for _, name := range []string{"empty", "one", "text", "volumes", "random", "zeros"} {
		for _, args := range [][]string{{"-0"}, {"-6"}, {"--lzma1=preset=1,lc=4,lp=0,pb=0"}, {"--lzma1=preset=1,lc=0,lp=4,pb=4"}} {
			t.Run(name+"/"+strings.Join(args, ""), func(t *testing.T) {
				comp := xzCompress(t, in[name], append([]string{"--format=lzma"}, args...)...)
				r, err := NewLZMAReader(bytes.NewReader(comp))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, in[name]) {
					t.Fatalf("%d bytes differ from the %d expected", len(got), len(in[name]))
				}
				if len(comp) > 20 {
					if _, err := io.ReadAll(must(NewLZMAReader(bytes.NewReader(comp[:len(comp)-5])))); err == nil {
						t.Fatal("truncated: no error")
					}
				}
			})
		}
	}
}

func must(r *Reader, err error) io.Reader {
	if err != nil {
		return bytes.NewReader(nil)
	}
	return r
}

// TestReaderMemory checks that the Reader sizes its dictionary by the
// data, not by the 64 MiB that xz -9 writes in the header.
func TestReaderMemory(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["volumes"], "-9")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := io.ReadAll(NewReader(bytes.NewReader(comp)))
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, in["volumes"]) {
		t.Fatalf("decode: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("decoding %d bytes (xz -9) allocated %d bytes", len(got), n)
	}
}

package xz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	ulxz "github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// fuzzSeeds are small xz files: varied options, two streams, padding.
func fuzzSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	text := []byte("pcp archive pcp archive 0123456789 pcp pcp pcp archive records records")
	for _, cfg := range []ulxz.WriterConfig{
		{DictCap: 4096, BlockSize: 64},
		{DictCap: 4096, CheckSum: ulxz.SHA256, Properties: &lzma.Properties{LC: 0, LP: 4, PB: 4}},
		{DictCap: 4096, NoCheckSum: true, BlockSize: 1024},
		{DictCap: 4096, CheckSum: ulxz.CRC32},
	} {
		var b bytes.Buffer
		w, err := cfg.NewWriter(&b)
		if err != nil {
			f.Fatal(err)
		}
		w.Write(text)
		w.Write(bytes.Repeat([]byte{7}, 3000))
		w.Close()
		seeds = append(seeds, b.Bytes())
	}
	seeds = append(seeds, append(append(bytes.Clone(seeds[0]), 0, 0, 0, 0), seeds[1]...))
	return seeds
}

// decodeAll decodes comp through File (with small limits) and returns
// what it got, up to max bytes.
func fileDecode(comp []byte, limit int64) ([]byte, error) {
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: -1, MaxBlock: 1 << 20})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() > limit {
		return nil, errors.New("too large for the test")
	}
	// A short read first: it decodes its block in part, the read of the
	// whole takes that decode on.
	out := make([]byte, f.Size())
	if _, err := f.ReadAt(out[:min(len(out), 100)], 0); err != nil && err != io.EOF {
		return nil, err
	}
	_, err = f.ReadAt(out, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// FuzzDecode decodes arbitrary bytes as an xz file with File and Reader:
// no panic, no hang, bounded memory; when both decode, they agree with
// each other and with ulikunitz/xz when it decodes too.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, comp []byte) {
		const limit = 1 << 20
		fromFile, ferr := fileDecode(comp, limit)
		fromReader, rerr := io.ReadAll(io.LimitReader(NewReader(bytes.NewReader(comp)), limit+1))
		if len(fromReader) > limit {
			return
		}
		if ferr == nil && rerr == nil && !bytes.Equal(fromFile, fromReader) {
			t.Fatalf("File and Reader disagree: %d and %d bytes", len(fromFile), len(fromReader))
		}
		if rerr != nil {
			return
		}
		ur, err := ulxz.ReaderConfig{DictCap: 1 << 20}.NewReader(bytes.NewReader(comp))
		if err != nil {
			return
		}
		want, err := io.ReadAll(io.LimitReader(ur, limit+1))
		if err == nil && len(want) <= limit && !bytes.Equal(want, fromReader) {
			t.Fatalf("ulikunitz/xz decodes %d bytes, Reader %d, and they differ", len(want), len(fromReader))
		}
	})
}

// FuzzSeek compresses data in small random blocks and checks that a read
// at a random place after a few others returns the bytes of a
// sequential read.
func FuzzSeek(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz0123456789"), uint16(8), uint32(3), uint16(20), uint32(40), uint16(9))
	f.Add(bytes.Repeat([]byte("pcp "), 500), uint16(100), uint32(1900), uint16(300), uint32(10), uint16(50))
	f.Fuzz(func(t *testing.T, data []byte, block uint16, off1 uint32, n1 uint16, off2 uint32, n2 uint16) {
		var comp bytes.Buffer
		w, err := ulxz.WriterConfig{DictCap: 4096, BlockSize: int64(block%2048) + 1}.NewWriter(&comp)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for _, ra := range []int{-1, 2} {
			x, err := NewFile(bytes.NewReader(comp.Bytes()), int64(comp.Len()), Options{Readahead: ra})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range []struct {
				off int64
				n   int
			}{{int64(off1), int(n1)}, {int64(off2), int(n2)}, {int64(off1) + int64(n1), int(n2)}, {int64(off2) - int64(n1), int(n1)}} {
				if r.off < 0 {
					continue
				}
				got, err := x.Bytes(r.off, r.n, i%2 == 0)
				end := min(r.off+int64(r.n), int64(len(data)))
				want := data[min(r.off, end):end]
				if err != nil && (err != io.EOF || r.off+int64(r.n) <= int64(len(data))) {
					t.Fatalf("Bytes(%d, %d): %v", r.off, r.n, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("Bytes(%d, %d) differs from the data", r.off, r.n)
				}
			}
			x.Close()
		}
	})
}

// FuzzReadIndex reads the index of arbitrary bytes: no panic, and a
// success gives blocks that lie in the file, in order, with consistent
// uncompressed offsets.
func FuzzReadIndex(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, comp []byte) {
		blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
		if err != nil {
			return
		}
		var off, uoff int64
		for i, b := range blocks {
			if b.Offset < off || b.Size <= 0 || b.Offset+b.Size > int64(len(comp)) || b.UncompressedOffset != uoff {
				t.Fatalf("block %d: %+v after offset %d, uncompressed %d", i, b, off, uoff)
			}
			off, uoff = b.Offset+b.Size, uoff+b.UncompressedSize
		}
	})
}

package archive

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// damagedCopy copies testdata/archives/<name> into a temporary directory,
// lets change alter its files (keyed ".0", ".meta", ".index"; a nil file
// is left out) and returns the copy's base name.
func damagedCopy(t *testing.T, name string, change func(files map[string][]byte)) string {
	t.Helper()
	files := map[string][]byte{}
	for _, suf := range []string{".0", ".meta", ".index"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "archives", name+suf))
		if err != nil {
			t.Fatal(err)
		}
		files[suf] = b
	}
	change(files)
	base := filepath.Join(t.TempDir(), name)
	for suf, b := range files {
		if b != nil {
			if err := os.WriteFile(base+suf, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return base
}

// metaRecordAt returns the offset of the k-th metadata record (1 = the
// first after the label) of a .meta file.
func metaRecordAt(t *testing.T, meta []byte, k int) int {
	t.Helper()
	off := int(binary.BigEndian.Uint32(meta))
	for i := 1; i < k; i++ {
		off += int(binary.BigEndian.Uint32(meta[off:]))
	}
	return off
}

// TestOpenDamaged checks how Open reports damage that libpcp's
// pmNewContext reports (each case was checked with the real pmdumplog and
// pmlogcheck).
func TestOpenDamaged(t *testing.T) {
	for _, c := range []struct {
		name, archive string
		change        func(files map[string][]byte)
		want          error
	}{
		{
			// "Empty archive log file", whatever the version
			name: "index with its label alone v2", archive: "pmcd-v2",
			change: func(f map[string][]byte) { f[".index"] = f[".index"][:LabelSizeV2] },
			want:   pmapi.ErrNoData,
		},
		{
			name: "index with its label alone v3", archive: "pmcd-v3",
			change: func(f map[string][]byte) { f[".index"] = f[".index"][:LabelSizeV3] },
			want:   pmapi.ErrNoData,
		},
		{
			// a part of an entry is not nothing: the archive opens
			name: "index with part of an entry", archive: "pmcd-v2",
			change: func(f map[string][]byte) { f[".index"] = f[".index"][:LabelSizeV2+1] },
		},
		{
			// "Incorrect record type in an archive"
			name: "unknown metadata record type", archive: "pmcd-v3",
			change: func(f map[string][]byte) {
				off := metaRecordAt(t, f[".meta"], 1)
				f[".meta"][off+7] |= 0x80
			},
			want: pmapi.ErrRecType,
		},
		{
			// a name one byte shorter than written leaves a byte before
			// the trailer: "Corrupted record in a PCP archive log"
			name: "descriptor with bytes left over", archive: "pmcd-v3",
			change: func(f map[string][]byte) {
				m := f[".meta"]
				off := metaRecordAt(t, m, 1)
				if binary.BigEndian.Uint32(m[off+4:]) != MetaDesc {
					t.Fatalf("record 1 is not a descriptor")
				}
				// type, pmid, type, indom, sem, units, numnames, len
				p := off + 8 + 5*4 + 4
				n := binary.BigEndian.Uint32(m[p:])
				binary.BigEndian.PutUint32(m[p:], n-1)
			},
			want: pmapi.ErrLogRec,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := damagedCopy(t, c.archive, c.change)
			a, err := Open(base)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				a.Close()
				return
			}
			if err == nil {
				a.Close()
				t.Fatalf("Open accepted the archive, want %v", c.want)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
		})
	}
}

// TestIndexV2OffsetsUnsigned checks that a Version 2 index offset with its
// top bit set reads as a large offset, as libpcp (and the real pmdumplog
// -t) reads it, not as a negative one.
func TestIndexV2OffsetsUnsigned(t *testing.T) {
	base := damagedCopy(t, "pmcd-v2", func(f map[string][]byte) {
		f[".index"][LabelSizeV2+12] |= 0x80 // entry 1's metadata offset
	})
	a, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.Index()[0].MetaOff; got < 1<<31 {
		t.Fatalf("MetaOff = %d, want at least 2^31", got)
	}
}

// TestValueBlocksMustFit checks that a record whose value blocks, each
// inside the record, add up to more than the space after the value sets
// is damaged, as libpcp's decoding finds it.
func TestValueBlocksMustFit(t *testing.T) {
	a, err := Open(filepath.Join("..", "testdata", "archives", "sample-v3"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c := a.NewCursor()
	for {
		r, err := c.Next()
		if err != nil {
			t.Fatal("no record with two value blocks")
		}
		raw := append([]byte(nil), r.Raw()...)
		var blocks [][2]int64 // block position, padded length
		for i := 0; i < r.NumPMID(); i++ {
			vs := r.VSet(i)
			if vs.ValFmt == pmapi.ValFmtInsitu {
				continue
			}
			for j := 0; j < int(vs.NumVal); j++ {
				bp := r.blockPos(vs, j)
				bl := int64(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)
				blocks = append(blocks, [2]int64{bp, (bl + 3) &^ 3})
			}
		}
		if len(blocks) < 2 {
			continue
		}
		// Grow the first block by the length of the second: it still
		// lies inside the record, but the two no longer fit together.
		first := blocks[0]
		h := binary.BigEndian.Uint32(raw[first[0]:])
		grown := int64(h&0xffffff) + blocks[1][1]
		if first[0]+grown > int64(len(raw)-4) {
			continue
		}
		binary.BigEndian.PutUint32(raw[first[0]:], h&0xff000000|uint32(grown))
		if _, err := DecodeRecord(raw, a.Version()); !errors.Is(err, pmapi.ErrLogRec) {
			t.Fatalf("DecodeRecord: %v, want %v", err, pmapi.ErrLogRec)
		}
		if _, err := DecodeRecord(r.Raw(), a.Version()); err != nil {
			t.Fatalf("the undamaged record: %v", err)
		}
		return
	}
}

// TestVSetAccessors checks VSetInsitu and VSetBlock against LoadValue on
// every value of the repository's archives.
func TestVSetAccessors(t *testing.T) {
	for _, name := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		a, err := Open(filepath.Join("..", "testdata", "archives", name))
		if err != nil {
			t.Fatal(err)
		}
		c := a.NewCursor()
		n := 0
		for {
			r, err := c.Next()
			if err != nil {
				break
			}
			for i := 0; i < r.NumPMID(); i++ {
				vs := r.VSet(i)
				for j := 0; j < int(vs.NumVal); j++ {
					var v pmapi.Value
					r.LoadValue(vs, j, &v)
					if vs.ValFmt == pmapi.ValFmtInsitu {
						if got := r.VSetInsitu(vs, j); got != v.Insitu {
							t.Fatalf("%s: VSetInsitu = %d, LoadValue %d", name, got, v.Insitu)
						}
					} else if bt, b := r.VSetBlock(vs, j); bt != v.BlockType || string(b) != string(v.Block) {
						t.Fatalf("%s: VSetBlock = %v %x, LoadValue %v %x", name, bt, b, v.BlockType, v.Block)
					}
					n++
				}
			}
		}
		a.Close()
		if n == 0 {
			t.Fatalf("%s: no values", name)
		}
	}
}

// TestValueBlocksFill changes the value blocks of records of the
// repository's archives and checks what the real pmdumplog (PCP 6.0.3)
// said of each copy: libpcp refuses a record whose value blocks do not
// begin right after the value sets or do not fill the rest of the record
// exactly, but not blocks that overlap or are out of order. Index (a
// Cursor's reads) and the lazy readers' Check must agree.
func TestValueBlocksFill(t *testing.T) {
	type word struct {
		at, v int
		vlen  bool // v is the length of the block at at (its type kept)
	}
	lenWord := func(at, vlen int) word { return word{at: at, v: vlen, vlen: true} }
	for _, c := range []struct {
		name, archive string
		off           int // the record's offset in the volume
		set           []word
		damaged       bool
	}{
		// pmcd-v2's record at 852: value sets end at 300, blocks
		// at 300 (20 bytes), 320 (12), 332, 340, 348 (8 each),
		// 356 ... 452 (12 each), the first pairs' block words at 32,
		// 52 (to 320), 72, 80, 88, 108 (to 356)
		{name: "block a word shorter", archive: "pmcd-v2", off: 852, set: []word{lenWord(300, 16)}, damaged: true},
		{name: "first block word to the second", archive: "pmcd-v2", off: 852, set: []word{{at: 32, v: (320 + 8) / 4}}, damaged: true},
		{
			// the sizes still add up: the gap after the value sets alone
			name: "gap before the blocks", archive: "pmcd-v2", off: 852,
			set: []word{{at: 32, v: (320 + 8) / 4}, lenWord(320, 20), lenWord(356, 4)}, damaged: true,
		},
		{name: "blocks swapped", archive: "pmcd-v2", off: 852, set: []word{{at: 52, v: (356 + 8) / 4}, {at: 108, v: (320 + 8) / 4}}},
		{name: "overlapping blocks", archive: "pmcd-v2", off: 852, set: []word{lenWord(300, 28), lenWord(356, 4)}},
		{name: "short block, same padded size", archive: "pmcd-v2", off: 852, set: []word{lenWord(320, 9)}},
		// pmcd-v2's record at 304: one value set of one insitu value
		{name: "no blocks, value sets short of the trailer", archive: "pmcd-v2", off: 304, set: []word{{at: 20, v: 0}}, damaged: true},
		{name: "error code, value sets short of the trailer", archive: "pmcd-v2", off: 304, set: []word{{at: 20, v: -16}}, damaged: true},
		// pmcd-v3's record at 1544: value sets end at 304, blocks at
		// 304 (20 bytes), 324 (12), ...; the first pair's block word
		// at 36
		{name: "v3 block a word shorter", archive: "pmcd-v3", off: 1544, set: []word{lenWord(304, 16)}, damaged: true},
		{name: "v3 first block word to the second", archive: "pmcd-v3", off: 1544, set: []word{{at: 36, v: (324 + 8) / 4}}, damaged: true},
		{name: "v3 no blocks, value sets short of the trailer", archive: "pmcd-v3", off: 984, set: []word{{at: 24, v: 0}}, damaged: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			vol, err := os.ReadFile(filepath.Join("..", "testdata", "archives", c.archive+".0"))
			if err != nil {
				t.Fatal(err)
			}
			n := int(binary.BigEndian.Uint32(vol[c.off:]))
			raw := append([]byte(nil), vol[c.off:c.off+n]...)
			version := 2
			if c.archive == "pmcd-v3" {
				version = 3
			}
			if _, err := DecodeRecord(raw, version); err != nil {
				t.Fatalf("the record before the change: %v", err)
			}
			for _, w := range c.set {
				v := uint32(int32(w.v))
				if w.vlen {
					v |= binary.BigEndian.Uint32(raw[w.at:]) & 0xff000000
				}
				binary.BigEndian.PutUint32(raw[w.at:], v)
			}
			_, full := DecodeRecord(raw, version)
			var r Record
			lazy := r.View(raw, version)
			if lazy == nil {
				lazy = r.Check()
			}
			if (full != nil) != c.damaged || (lazy != nil) != c.damaged {
				t.Fatalf("Index: %v, Check: %v; the real pmdumplog finds it damaged: %v", full, lazy, c.damaged)
			}
			for _, err := range []error{full, lazy} {
				if err != nil && !errors.Is(err, pmapi.ErrLogRec) {
					t.Fatalf("%v does not wrap PM_ERR_LOGREC", err)
				}
			}
		})
	}
}

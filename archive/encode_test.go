package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// encSharedArchives lists the archives of both shared directories (base
// names as paths), skipping when ../shared is absent.
func encSharedArchives(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, sub)
		for _, rel := range testenv.Archives(t, dir) {
			out = append(out, filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	if len(out) < 60 {
		t.Fatalf("only %d shared archives found", len(out))
	}
	return out
}

// tildePad returns a copy of a data record with the pad bytes after
// each top-level value block set to '~' (old archives pad with zeros;
// PCP 6.0.3 and the encoder write '~').
func tildePad(raw []byte, r *Record) []byte {
	out := append([]byte(nil), raw...)
	for i := range r.vsets {
		vs := &r.vsets[i]
		if vs.NumVal <= 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for j := 0; j < int(vs.NumVal); j++ {
			w := binary.BigEndian.Uint32(raw[int(vs.off)+8*j+4:])
			bp := dptrPos(w)
			n := int64(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)
			for k := bp + n; (k-bp)%4 != 0; k++ {
				out[k] = padByte
			}
		}
	}
	return out
}

// TestEncodeSharedArchives re-encodes every record of every shared
// archive from its decoded form and requires the bytes on disk: every
// metadata record exactly, every data record but for pad bytes.
func TestEncodeSharedArchives(t *testing.T) {
	for _, path := range encSharedArchives(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a, err := Open(path)
			if err != nil {
				t.Skipf("does not open: %v", err)
			}
			defer a.Close()
			v := a.Version()
			mrs, err := a.MetaRecords()
			if err != nil {
				t.Fatalf("MetaRecords: %v", err)
			}
			if len(mrs) == 0 {
				t.Fatal("no metadata records")
			}
			for _, mr := range mrs {
				got, err := AppendMetaRecord(nil, v, &mr)
				if err != nil {
					t.Fatalf("meta record at %d: %v", mr.Offset, err)
				}
				if !bytes.Equal(got, mr.Raw) {
					t.Fatalf("meta record at %d (type %d) re-encodes differently:\n got %x\nwant %x", mr.Offset, mr.Type, got, mr.Raw)
				}
			}
			c := a.NewCursor()
			n := 0
			for {
				r, err := c.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					break // damaged tails are the reader's business
				}
				var got []byte
				if r.IsMark() {
					got, err = AppendMarkRecord(nil, v, r.Stamp)
				} else {
					got, err = AppendResultRecord(nil, v, r.Result())
				}
				if err != nil {
					t.Fatalf("record at %d/%d: %v", r.Vol, r.Offset, err)
				}
				if want := tildePad(r.Raw(), r); !bytes.Equal(got, want) {
					t.Fatalf("record at %d/%d re-encodes differently:\n got %x\nwant %x", r.Vol, r.Offset, got, want)
				}
				n++
			}
			if n == 0 {
				t.Log("no data records")
			}
		})
	}
}

// TestEncodeWorkedExamples checks the encoders against the hand-decoded
// examples of docs/format.md.
func TestEncodeWorkedExamples(t *testing.T) {
	// synth3.meta @808: the descriptor of synth.ctr32.
	d := pmapi.Desc{PMID: 0x3d400001, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter, Units: pmapi.UnitsFromUint32(0x00100000)}
	got := AppendDescRecord(nil, d, []string{"synth.ctr32"})
	want := []byte("\x00\x00\x00\x33\x00\x00\x00\x01\x3d\x40\x00\x01\x00\x00\x00\x01\xff\xff\xff\xff\x00\x00\x00\x01\x00\x10\x00\x00\x00\x00\x00\x01\x00\x00\x00\x0bsynth.ctr32\x00\x00\x00\x33")
	if !bytes.Equal(got, want) {
		t.Errorf("descriptor:\n got %x\nwant %x", got, want)
	}
	// synth2.0 @1100 and synth3.0 @1796: <mark> records.
	m2, _ := AppendMarkRecord(nil, 2, pmapi.Timestamp{Sec: 0x6553f106, Nsec: 1000000})
	if want := []byte{0, 0, 0, 0x14, 0x65, 0x53, 0xf1, 0x06, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, 0, 0, 0, 0x14}; !bytes.Equal(m2, want) {
		t.Errorf("v2 mark: got %x want %x", m2, want)
	}
	m3, _ := AppendMarkRecord(nil, 3, pmapi.Timestamp{Sec: 0x6553f106, Nsec: 1000000})
	if want := []byte{0, 0, 0, 0x18, 0x65, 0x53, 0xf1, 0x06, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x18}; !bytes.Equal(m3, want) {
		t.Errorf("v3 mark: got %x want %x", m3, want)
	}
	// sample-proc_v3.meta @5660: an instance domain delta.
	ir := &InDomRecord{Type: MetaInDomDelta, Stamp: pmapi.Timestamp{Sec: 1755567013, Nsec: 939978120}, InDom: 0x0740000c,
		Insts: []int32{26, 27, 28}, Names: []string{"", "0027 /usr/bin/waldo", "0028 /usr/local/yobo"}, Deleted: []bool{true, false, false}}
	got, err := AppendInDomRecord(nil, 3, ir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 97 || binary.BigEndian.Uint32(got[40:]) != 0xffffffff || binary.BigEndian.Uint32(got[48:]) != 20 {
		t.Errorf("delta: got %x", got)
	}
	mr, err := DecodeMetaRecord("x", got, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ir, mr.InDom); d != "" {
		t.Errorf("delta round trip (-want +got):\n%s", d)
	}
	// A v2 delta is refused, as is a version 4.
	if _, err := AppendInDomRecord(nil, 2, ir); !errors.Is(err, ErrEncode) {
		t.Errorf("v2 delta: err %v", err)
	}
	if _, err := AppendMarkRecord(nil, 4, pmapi.Timestamp{}); !errors.Is(err, ErrEncode) {
		t.Errorf("version 4: err %v", err)
	}
}

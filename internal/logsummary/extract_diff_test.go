package logsummary

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestValueAtIsFloat64: valueAt (the copy of pmExtractValue this package
// had) and pmapi.Value.Float64 agree on every value of a numeric metric
// (the only ones summarised, isNumeric): insitu words, and blocks of any
// type byte and size. (They differ on an insitu PM_TYPE_UNKNOWN value,
// which pmExtractValue takes as a 32.)
func TestValueAtIsFloat64(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom([]pmapi.Type{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble}).Draw(t, "type")
		insitu := rapid.Bool().Draw(t, "insitu")
		word := rapid.Uint32().Draw(t, "word")
		bt := pmapi.Type(rapid.SampledFrom([]uint8{0, 1, 2, 3, 4, 5, 6, 7, 9, uint8(typ)}).Draw(t, "blocktype"))
		payload := rapid.SliceOfN(rapid.Byte(), 0, 16).Draw(t, "payload")
		if rapid.Bool().Draw(t, "nan") && len(payload) >= 8 {
			binary.BigEndian.PutUint64(payload, math.Float64bits(math.NaN()))
		}
		// the pair at 0, its block at 8 (pointer 4: 4*4-8)
		raw := binary.BigEndian.AppendUint32(nil, 7)
		v := pmapi.Value{Inst: 7}
		if insitu {
			raw = binary.BigEndian.AppendUint32(raw, word)
			v.Insitu = int32(word)
		} else {
			raw = binary.BigEndian.AppendUint32(raw, 4)
			raw = binary.BigEndian.AppendUint32(raw, uint32(bt)<<24|uint32(len(payload)+4))
			raw = append(raw, payload...)
			v.BlockType, v.Block = bt, payload
		}
		a, aerr := valueAt(typ, insitu, raw, 0)
		b, berr := v.Float64(typ)
		if aerr != berr || math.Float64bits(a) != math.Float64bits(b) && aerr == nil {
			t.Fatalf("valueAt %v, %v; Float64 %v, %v", a, aerr, b, berr)
		}
	})
}

// FuzzWalkerVsArchive: on the records package archive accepts (those the
// passes see), this package's walker (vsetWalker, valueAt) and
// archive's scan (View, NextSet, VSetValue, Float64) find the same value
// sets, instances and values.
//
//	go test -run '^$' -fuzz '^FuzzWalkerVsArchive$' -fuzztime 5m ./internal/logsummary/
func FuzzWalkerVsArchive(f *testing.F) {
	for _, name := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		vol, err := os.ReadFile(filepath.Join(testenv.ArchivesDir(f), name+".0"))
		if err != nil {
			f.Fatal(err)
		}
		l, err := archive.DecodeLabel(name, vol)
		if err != nil {
			f.Fatal(err)
		}
		for off := l.Size(); off+8 <= len(vol); {
			n := int(binary.BigEndian.Uint32(vol[off:]))
			if n < 8 || off+n > len(vol) {
				break
			}
			f.Add(l.Version == 3, vol[off:off+n])
			off += n
		}
	}
	types := []pmapi.Type{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble}
	f.Fuzz(func(t *testing.T, v3 bool, raw []byte) {
		version := 2
		if v3 {
			version = 3
		}
		if n := len(raw); n >= 8 {
			// whole framing, so that more inputs get to the value sets
			binary.BigEndian.PutUint32(raw, uint32(n))
			binary.BigEndian.PutUint32(raw[n-4:], uint32(n))
		}
		if _, err := archive.DecodeRecord(raw, version); err != nil {
			return
		}
		r := &rec{version: version, raw: raw}
		var ar archive.Record
		if err := ar.View(raw, version); err != nil {
			t.Fatal(err)
		}
		if ar.IsMark() {
			return
		}
		w := newVsetWalker(r)
		if w.numpmid != ar.NumPMID() {
			t.Fatalf("%d value sets, archive %d", w.numpmid, ar.NumPMID())
		}
		var pos archive.SetPos
		for i := 0; i < w.numpmid; i++ {
			v := w.next()
			vs, err := ar.NextSet(&pos)
			if err != nil {
				t.Fatal(err)
			}
			if v.pmid != vs.PMID || v.numval != vs.NumVal || v.numval > 0 && v.insitu != (vs.ValFmt == pmapi.ValFmtInsitu) {
				t.Fatalf("value set %d: %+v, archive %+v", i, v, vs)
			}
			for j := 0; j < int(v.numval); j++ {
				av := ar.VSetValue(&vs, j)
				if w.inst(&v, j) != av.Inst {
					t.Fatalf("value set %d value %d: inst %d, archive %d", i, j, w.inst(&v, j), av.Inst)
				}
				for _, typ := range types {
					a, aerr := valueAt(typ, v.insitu, raw, v.off+8*j)
					b, berr := av.Float64(typ)
					if aerr != berr || aerr == nil && math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("value set %d value %d as %v: %v, %v; archive %v, %v", i, j, typ, a, aerr, b, berr)
					}
				}
			}
		}
	})
}

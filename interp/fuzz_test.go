package interp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// FuzzScan: interp's scan of a record (Record.Decode, Redecode, scan in
// pieces for the metrics wanted, blocksOK, value, and remember/recall)
// on arbitrary bytes must find what package archive's full check finds
// (View, Check, every value set by NextSet, CheckVSet): the same
// verdicts, the value sets of the wanted metrics in order, the same
// values.
//
//	go test -run '^$' -fuzz '^FuzzScan$' -fuzztime 5m ./interp/
func FuzzScan(f *testing.F) {
	seedRecords(f, func(v3 bool, raw []byte, k int) {
		f.Add(v3, raw, uint64(k)*0x9e3779b97f4a7c15, uint64(k)*0x2545f4914f6cdd1d)
	})
	f.Fuzz(func(t *testing.T, v3 bool, raw []byte, want, cuts uint64) {
		version := 2
		if v3 {
			version = 3
		}
		type hitOut struct {
			vs     archive.VSet
			blocks bool
			values []pmapi.Value
		}
		// What archive finds: the value sets, as far as they are well
		// formed; the wanted metrics are those of the value sets whose
		// bit of want is set.
		var ar archive.Record
		headerOK := ar.View(raw, version) == nil
		sound := headerOK
		var sets []archive.VSet
		wanted := map[pmapi.PMID]bool{}
		if headerOK {
			var pos archive.SetPos
			for {
				vs, err := ar.NextSet(&pos)
				if err == io.EOF {
					break
				}
				if err != nil {
					if !errors.Is(err, pmapi.ErrLogRec) {
						t.Fatalf("NextSet: %v", err)
					}
					sound = false
					break
				}
				k := len(sets)
				sets = append(sets, vs)
				wanted[vs.PMID] = wanted[vs.PMID] || want>>(k%64)&1 != 0
			}
		}
		var hits []hitOut
		for i := range sets {
			vs := &sets[i]
			if !wanted[vs.PMID] {
				continue
			}
			o := hitOut{vs: *vs, blocks: ar.CheckVSet(vs) == nil}
			for j := 0; o.blocks && j < int(vs.NumVal); j++ {
				o.values = append(o.values, ar.VSetValue(vs, j))
			}
			hits = append(hits, o)
		}

		ip := &Interp{metrics: map[pmapi.PMID]*metric{}, gen: 1}
		for p, w := range wanted {
			if w {
				ip.metrics[p] = &metric{pmid: p}
			}
		}
		// interp's scan, stopping after a hit when cuts says so, then
		// remembered and recalled into a record read again
		r := &Record{Handle: Handle{OK: true, Off: 808, Len: int64(len(raw))}}
		whole := headerOK && ar.Check() == nil
		if r.Decode(raw, version) != whole {
			t.Fatalf("Decode %v, View %v and Check %v", !whole, headerOK, whole)
		}
		// The scan of a damaged record too (the header read alone, as
		// for a record read again).
		if r.Redecode(raw, version) != headerOK {
			t.Fatalf("Redecode %v, View %v", !headerOK, headerOK)
		}
		if !headerOK {
			return
		}
		if r.Stamp != ar.Stamp || r.IsMark() != ar.IsMark() {
			t.Fatalf("time %v mark %v in interp, %v %v in archive", r.Stamp, r.IsMark(), ar.Stamp, ar.IsMark())
		}
		var got []hitOut
		for {
			one := cuts>>(len(got)%64)&1 != 0
			more := r.scan(ip, one)
			for _, h := range r.hits[len(got):] {
				o := hitOut{vs: h.vs, blocks: r.blocksOK(&h.vs)}
				for j := 0; o.blocks && j < int(h.vs.NumVal); j++ {
					var v pmapi.Value
					r.value(&h.vs, j, &v)
					if v.Inst != r.inst(&h.vs, j) {
						t.Fatalf("value %d: Inst %d, inst %d", j, v.Inst, r.inst(&h.vs, j))
					}
					o.values = append(o.values, v)
				}
				got = append(got, o)
			}
			if !more {
				break
			}
			if cuts>>63 != 0 {
				// read again, the scan so far replayed
				r2 := &Record{Handle: r.Handle}
				r2.Redecode(raw, version)
				r2.hits = append(r2.hits, r.hits...)
				r2.pos, r2.gen = r.pos, r.gen
				r = r2
			}
		}
		if r.sound != sound {
			t.Fatalf("sound %v in interp, %v in archive", r.sound, sound)
		}
		ip.remember(r)
		r2 := &Record{Handle: r.Handle}
		r2.Redecode(raw, version)
		if ip.recall(r2) != !r.IsMark() || !r2.walked || r2.sound != r.sound || len(r2.hits) != len(r.hits) {
			t.Fatalf("recall: walked %v sound %v, %d hits; want %v, %d", r2.walked, r2.sound, len(r2.hits), r.sound, len(r.hits))
		}
		if len(got) != len(hits) {
			t.Fatalf("%d value sets wanted in interp, %d in archive", len(got), len(hits))
		}
		for i := range got {
			a, b := &got[i], &hits[i]
			if a.vs != b.vs || a.blocks != b.blocks || len(a.values) != len(b.values) {
				t.Fatalf("hit %d: interp %+v, archive %+v", i, *a, *b)
			}
			for j := range a.values {
				x, y := a.values[j], b.values[j]
				if x.Inst != y.Inst || x.Insitu != y.Insitu || x.BlockType != y.BlockType || !bytes.Equal(x.Block, y.Block) || (x.Block == nil) != (y.Block == nil) {
					t.Fatalf("hit %d value %d: interp %+v, archive %+v", i, j, x, y)
				}
			}
		}
	})
}

// seedRecords gives add the first records of the committed archives
// (testdata/archives) and of a few shared ones, with their number.
func seedRecords(tb testing.TB, add func(v3 bool, raw []byte, k int)) {
	var files []string
	dir := filepath.Join(testenv.RepoRoot(tb), "testdata", "archives")
	for _, n := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		files = append(files, filepath.Join(dir, n+".0"))
	}
	made := filepath.Join(filepath.Dir(testenv.RepoRoot(tb)), "shared", "pcp-made-archives")
	for _, n := range []string{"synth2", "synth3", "sample3", "basic3"} {
		files = append(files, filepath.Join(made, n+".0")) // skipped when absent
	}
	for _, name := range files {
		vol, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		l, err := archive.DecodeLabel(name, vol)
		if err != nil {
			tb.Fatal(err)
		}
		for off, k := l.Size(), 0; off+8 <= len(vol) && k < 20; k++ {
			n := int(binary.BigEndian.Uint32(vol[off:]))
			if n < 8 || off+n > len(vol) {
				break
			}
			add(l.Version == 3, vol[off:off+n], k)
			off += n
		}
	}
}

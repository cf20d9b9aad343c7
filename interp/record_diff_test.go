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

// FuzzScanVsArchive runs interp's record scan (Record.Decode, scan in
// pieces with its layout cache, blocksOK, value) and package archive's
// (View, NextSet, CheckVSet, VSetValue) on the same bytes, for the same
// wanted metrics, and requires the same verdicts and the same values.
//
//	go test -run '^$' -fuzz '^FuzzScanVsArchive$' -fuzztime 5m ./interp/
func FuzzScanVsArchive(f *testing.F) {
	seedRecords(f, func(v3 bool, raw []byte, k int) {
		f.Add(v3, raw, uint64(k)*0x9e3779b97f4a7c15, uint64(k)*0x2545f4914f6cdd1d, uint16(k))
	})
	f.Fuzz(func(t *testing.T, v3 bool, raw []byte, want, cuts uint64, flip uint16) {
		version := 2
		if v3 {
			version = 3
		}
		// The metrics wanted: those of the value sets whose bit of want
		// is set, as far as archive's scan reads.
		var ar archive.Record
		wanted := map[pmapi.PMID]bool{}
		if ar.View(raw, version) == nil {
			var pos archive.SetPos
			for {
				vs, err := ar.NextSet(&pos)
				if err != nil {
					break
				}
				k := pos.Index() - 1
				wanted[vs.PMID] = wanted[vs.PMID] || want>>(k%64)&1 != 0
			}
		}
		ip := &Interp{metrics: map[pmapi.PMID]*metric{}, gen: 1}
		for p, w := range wanted {
			if w {
				ip.metrics[p] = &metric{pmid: p}
			}
		}
		// A record scanned before (a copy with one byte changed) leaves
		// its layout for the layout cache.
		if len(raw) > 0 {
			prev := append([]byte(nil), raw...)
			prev[int(flip)%len(prev)] ^= byte(flip >> 8)
			var pr Record
			if pr.Decode(prev, version) {
				pr.scanAll(ip)
			}
		}

		type hitOut struct {
			vs     archive.VSet
			blocks bool
			values []pmapi.Value
		}
		// interp's scan, stopping after a hit when cuts says so
		var old []hitOut
		var r Record
		oldOK := r.Decode(raw, version)
		oldSound := oldOK
		if oldOK {
			for {
				one := cuts>>(len(old)%64)&1 != 0
				more := r.scan(ip, one)
				for _, h := range r.hits[len(old):] {
					o := hitOut{vs: vsetOf(h.vs), blocks: r.blocksOK(&h.vs)}
					if o.blocks {
						for j := 0; j < int(h.vs.numval); j++ {
							var v pmapi.Value
							r.value(&h.vs, j, &v)
							if v.Inst != r.inst(&h.vs, j) {
								t.Fatalf("value %d: Inst %d, inst %d", j, v.Inst, r.inst(&h.vs, j))
							}
							o.values = append(o.values, v)
						}
					}
					old = append(old, o)
				}
				if !more {
					break
				}
			}
			oldSound = r.sound
		}

		// archive's
		var hits []hitOut
		newOK := ar.View(raw, version) == nil
		newSound := newOK
		if newOK {
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
					newSound = false
					break
				}
				if !wanted[vs.PMID] {
					continue
				}
				o := hitOut{vs: vs, blocks: ar.CheckVSet(&vs) == nil}
				if o.blocks {
					for j := 0; j < int(vs.NumVal); j++ {
						o.values = append(o.values, ar.VSetValue(&vs, j))
					}
				}
				hits = append(hits, o)
			}
		}
		if oldOK != newOK || oldSound != newSound {
			t.Fatalf("header ok %v, sound %v in interp; %v, %v in archive", oldOK, oldSound, newOK, newSound)
		}
		if oldOK && r.Stamp != ar.Stamp {
			t.Fatalf("time %v in interp, %v in archive", r.Stamp, ar.Stamp)
		}
		if len(old) != len(hits) {
			t.Fatalf("%d value sets wanted in interp, %d in archive", len(old), len(hits))
		}
		for i := range old {
			a, b := &old[i], &hits[i]
			if a.vs.PMID != b.vs.PMID || a.vs.NumVal != b.vs.NumVal || a.vs.ValFmt != b.vs.ValFmt || a.blocks != b.blocks || len(a.values) != len(b.values) {
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

// vsetOf is interp's value set reference as archive's (without the offset).
func vsetOf(v vsetRef) archive.VSet {
	return archive.VSet{PMID: v.pmid, NumVal: v.numval, ValFmt: v.valfmt}
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

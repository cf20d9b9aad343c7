package archive

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// A label set whose count is negative holds the PMDA's error code in its
// place. libpcp keeps it and reads on; the real pmdumplog -e prints the
// set with no labels (QA amdgpu-0: InDom 162.0, instances 0 and 1, both
// -22). Decoding keeps the code and encoding writes it back.
func TestLabelSetErrorCode(t *testing.T) {
	a := openT(t, sharedPath(t, "pcp-qa-archives", "amdgpu-0"))
	var got []LabelSet
	for _, lr := range a.Meta().Labels {
		if lr.Type == LabelInstances && lr.Ident == uint32(pmapi.NewInDom(162, 0)) {
			got = append(got, lr.Sets...)
		}
	}
	want := []LabelSet{{Inst: 0, JSON: "", Err: -22}, {Inst: 1, JSON: "", Err: -22}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("InDom 162.0 instance label sets (-want +got):\n%s", diff)
	}
	if out, _, rc, ok := realDumplog(t, "", "-e", sharedPath(t, "pcp-qa-archives", "amdgpu-0")); ok {
		if rc != 0 || !strings.Contains(out, "    InDom 162.0[0] labels (0 bytes): \n    InDom 162.0[1] labels (0 bytes): \n") {
			t.Errorf("real pmdumplog -e (exit %d) does not print the two sets without labels", rc)
		}
	}

	rec := &LabelRecord{Stamp: pmapi.Timestamp{Sec: 1}, Type: LabelInstances, Ident: 7,
		Sets: []LabelSet{{Inst: 3, Err: -22}, {Inst: 4, JSON: `{"a":1}`, Labels: []LabelEntry{{NameOff: 2, NameLen: 1, Flags: 0x20, ValueOff: 5, ValueLen: 1}}}}}
	for _, v := range []int{2, 3} {
		raw, err := AppendLabelRecord(nil, v, rec)
		if err != nil {
			t.Fatal(err)
		}
		mr, err := DecodeMetaRecord("x", raw, v)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if diff := cmp.Diff(rec, mr.Label); diff != "" {
			t.Errorf("version %d: round trip (-want +got):\n%s", v, diff)
		}
	}
}

// A metric name ends at its first NUL, as libpcp reads it (QA vldb-disks
// writes disk.dev.total with five NULs after it; the real pmdumplog -d
// prints "PMID: 1.80.7 (disk.dev.total)"). The record itself keeps them,
// for a copy.
func TestNameEndsAtNUL(t *testing.T) {
	path := sharedPath(t, "pcp-qa-archives", "vldb-disks")
	a := openT(t, path)
	p, ok := a.Meta().Lookup("disk.dev.total")
	if !ok || p != pmapi.NewPMID(1, 80, 7) {
		t.Fatalf("Lookup(disk.dev.total) = %s, %v; want 1.80.7", p, ok)
	}
	if got := a.Meta().Names(p); !cmp.Equal(got, []string{"disk.dev.total"}) {
		t.Errorf("Names(1.80.7) = %q", got)
	}
	if out, _, rc, ok := realDumplog(t, "", "-d", path); ok && (rc != 0 || !strings.Contains(out, "PMID: 1.80.7 (disk.dev.total)\n")) {
		t.Errorf("real pmdumplog -d (exit %d) does not print the name without its NULs", rc)
	}
	mrs, err := a.MetaRecords()
	if err != nil {
		t.Fatal(err)
	}
	for _, mr := range mrs {
		if mr.Desc != nil && mr.Desc.PMID == p {
			if want := []string{"disk.dev.total\x00\x00\x00\x00\x00"}; !cmp.Equal(mr.Names, want) {
				t.Errorf("MetaRecords names of 1.80.7 = %q, want %q", mr.Names, want)
			}
			return
		}
	}
	t.Error("no descriptor record for 1.80.7")
}

// An instance domain's history is libpcp's: a state that repeats one
// already at its time is kept once, moved to the end of its time slot.
func TestInsertState(t *testing.T) {
	st := func(sec int64, names ...string) InDomSnapshot {
		s := InDomSnapshot{Stamp: pmapi.Timestamp{Sec: sec}}
		for _, n := range names {
			s.Insts = append(s.Insts, int32(n[0]))
			s.Names = append(s.Names, n)
		}
		return s
	}
	var h []InDomSnapshot
	for _, s := range []InDomSnapshot{st(2, "a", "b"), st(1, "x"), st(2, "c"), st(2, "b", "a"), st(3, "a", "b"), st(2, "c", "d")} {
		pos := 0
		for pos < len(h) && !s.Stamp.Before(h[pos].Stamp) {
			pos++
		}
		h = insertState(h, pos, s)
	}
	// At time 2: "a b" came first, then "c", then "b a" (the same as
	// "a b": it moves to the end), then "c d".
	want := []InDomSnapshot{st(1, "x"), st(2, "c"), st(2, "a", "b"), st(2, "c", "d"), st(3, "a", "b")}
	if diff := cmp.Diff(want, h, cmp.AllowUnexported(InDomSnapshot{})); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// QA 540117-short, bigace_v2, pcp-pidstat and pyapi repeat instance
// domain records (same time, same instances). The history keeps each
// state once, as the real pmdumplog -i prints them; InDomRecordState has
// one state per record.
func TestInDomRepeats(t *testing.T) {
	for _, name := range []string{"540117-short", "bigace_v2", "pcp-pidstat", "pyapi"} {
		path := sharedPath(t, "pcp-qa-archives", name)
		a := openT(t, path)
		m := a.Meta()
		states := 0
		for _, in := range m.InDomOrder {
			h := m.InDomHistory(in)
			states += len(h)
			for i := 1; i < len(h); i++ {
				if h[i].Stamp.Before(h[i-1].Stamp) {
					t.Errorf("%s: history of %s goes back in time", name, in)
				}
				for j := i - 1; j >= 0 && h[j].Stamp == h[i].Stamp; j-- {
					if sameState(&h[i], &h[j]) {
						t.Errorf("%s: history of %s repeats a state at %v", name, in, h[i].Stamp)
					}
				}
			}
		}
		if states >= len(m.InDomRecords) {
			t.Errorf("%s: %d states for %d records: no repeat dropped", name, states, len(m.InDomRecords))
		}
		n := map[pmapi.InDom]int{}
		for _, r := range m.InDomRecords {
			s, ok := m.InDomRecordState(r.InDom, n[r.InDom])
			if !ok || s.Stamp != r.Stamp || len(s.Insts) != len(r.Insts) {
				t.Fatalf("%s: InDomRecordState(%s, %d) = %v, %v for a record of %d instances at %v", name, r.InDom, n[r.InDom], s, ok, len(r.Insts), r.Stamp)
			}
			n[r.InDom]++
		}
		if out, _, rc, ok := realDumplog(t, "", "-i", path); ok {
			if got := strings.Count(out, " instances\n"); rc != 0 || got != states {
				t.Errorf("%s: real pmdumplog -i prints %d states (exit %d), the history has %d", name, got, rc, states)
			}
		}
	}
}

// Repeated label sets are dropped as libpcp drops them: each record of a
// type and ident loses the sets that the record before it in time (or,
// at the same time, the one after it in the file) has too.
func TestDropRepeatedLabels(t *testing.T) {
	set := func(inst int32, v string) LabelSet {
		return LabelSet{Inst: inst, JSON: `{"a":` + v + `}`, Labels: []LabelEntry{{NameOff: 2, NameLen: 1, ValueOff: 5, ValueLen: len(v)}}}
	}
	rec := func(sec int64, typ, ident uint32, sets ...LabelSet) LabelRecord {
		return LabelRecord{Stamp: pmapi.Timestamp{Sec: sec}, Type: typ, Ident: ident, Sets: sets}
	}
	in := []LabelRecord{
		rec(1, LabelInstances, 9, set(1, "1"), set(2, "2")), // 0
		rec(2, LabelInstances, 9, set(1, "1"), set(2, "3")), // 1: loses inst 1
		rec(3, LabelInstances, 9, set(1, "1"), set(2, "3")), // 2: all repeated: dropped
		rec(4, LabelInstances, 9, set(1, "1"), set(2, "2")), // 3: inst 2 differs from 2's
		rec(1, LabelItem, 5, set(-1, "7"), set(-1, "8")),    // 4: same time as 5, which has "8"
		rec(1, LabelItem, 5, set(-1, "8")),                  // 5
		rec(2, LabelItem, 5),                                // 6: no sets, not the oldest: dropped
		rec(1, LabelDomain, 3),                              // 7: no sets, the oldest: kept
		rec(1, LabelInDom, 4, LabelSet{Inst: -1, Err: -22}), // 8
		rec(2, LabelInDom, 4, LabelSet{Inst: -1, Err: -22}), // 9: the same error: dropped
	}
	want := []LabelRecord{in[0], rec(2, LabelInstances, 9, set(2, "3")), rec(4, LabelInstances, 9, set(2, "2")),
		rec(1, LabelItem, 5, set(-1, "7")), in[5], in[7], in[8]}
	if diff := cmp.Diff(want, dropRepeatedLabels(in), cmp.Comparer(func(a, b []LabelSet) bool { return cmp.Equal([]LabelSet(a), []LabelSet(b), cmpopts.EquateEmpty()) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(in[1].Sets) != 2 {
		t.Error("the input records were changed")
	}
}

// QA nvidiagpu-0 holds two records of InDom 3.9's instance labels at its
// first time; the real pmdumplog -e prints the first with only pids
// 59155 and 59156 (which the second lacks), then the second whole.
func TestLabelsAtOneTime(t *testing.T) {
	path := sharedPath(t, "pcp-qa-archives", "nvidiagpu-0")
	a := openT(t, path)
	var got [][]int32
	first := a.Meta().Labels[0].Stamp
	for _, lr := range a.Meta().Labels {
		if lr.Type == LabelInstances && lr.Ident == uint32(pmapi.NewInDom(3, 9)) && lr.Stamp == first {
			var insts []int32
			for _, s := range lr.Sets {
				insts = append(insts, s.Inst)
			}
			got = append(got, insts)
		}
	}
	if len(got) != 2 || !cmp.Equal(got[0], []int32{59155, 59156}) || len(got[1]) != 465 {
		t.Errorf("records of InDom 3.9 instance labels at the first time: %v", got)
	}
	if out, _, rc, ok := realDumplog(t, "", "-e", path); ok && (rc != 0 || !strings.Contains(out, "InDom 120.1 labels (58 bytes)") ||
		!strings.Contains(out, "    InDom 3.9[59155] labels (13 bytes): {\"pid\":59155}\n        [0] name(2,3) : value(7,5) [instances]\n    InDom 3.9[59156] labels (13 bytes): {\"pid\":59156}\n        [0] name(2,3) : value(7,5) [instances]\n    InDom 3.9[1] labels")) {
		t.Errorf("real pmdumplog -e (exit %d) does not print pids 59155 and 59156 first", rc)
	}
}

// TestMetaCutInHeader checks where a .meta that ends early is still read:
// within a record's 8-byte header it ends the metadata (the size counts
// the bytes), as libpcp takes it; nothing after the label is
// pmapi.ErrNoData, part of the first header or a cut body pmapi.ErrLogRec.
func TestMetaCutInHeader(t *testing.T) {
	src := filepath.Join("..", "testdata", "archives", "pmcd-v2")
	meta, err := os.ReadFile(src + ".meta")
	if err != nil {
		t.Fatal(err)
	}
	first := 132 + int(binary.BigEndian.Uint32(meta[132:])) // the second record
	for _, c := range []struct {
		cut  int
		want error // nil: opens
	}{
		{132, pmapi.ErrNoData},
		{135, pmapi.ErrLogRec},
		{140, pmapi.ErrLogRec},
		{first, nil},
		{first + 1, nil},
		{first + 7, nil},
		{first + 8, pmapi.ErrLogRec},
	} {
		dir := t.TempDir()
		for _, ext := range []string{".0", ".index"} {
			b, err := os.ReadFile(src + ext)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "a"+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "a.meta"), meta[:c.cut], 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := Open(filepath.Join(dir, "a"))
		if c.want != nil {
			if !errors.Is(err, c.want) {
				t.Errorf("cut at %d: error %v, want %v", c.cut, err, c.want)
			}
			if err == nil {
				a.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("cut at %d: %v", c.cut, err)
			continue
		}
		if got := a.Meta().Size; got != int64(c.cut) {
			t.Errorf("cut at %d: Meta().Size %d", c.cut, got)
		}
		a.Close()
	}
}

// TestMarkLength checks that a <mark> record (no value sets) is read only
// when it is exactly a header and a trailer, as libpcp reads it: a longer
// one is a damaged record (pmapi.ErrLogRec).
func TestMarkLength(t *testing.T) {
	for _, version := range []int{2, 3} {
		hdr := dataHeaderV2
		if version == 3 {
			hdr = dataHeaderV3
		}
		for _, pad := range []int{0, 4, 8} {
			n := hdr + 4 + pad
			raw := make([]byte, n)
			binary.BigEndian.PutUint32(raw, uint32(n))
			binary.BigEndian.PutUint32(raw[n-4:], uint32(n))
			var r Record
			err := r.View(raw, version)
			if pad == 0 && (err != nil || !r.IsMark()) {
				t.Errorf("v%d mark of %d bytes: %v, mark %v", version, n, err, r.IsMark())
			}
			if pad != 0 && !errors.Is(err, pmapi.ErrLogRec) {
				t.Errorf("v%d mark of %d bytes: error %v, want %v", version, n, err, pmapi.ErrLogRec)
			}
		}
	}
}

// traverseByLookups is Meta.Traverse with the namespace nodes looked up
// at every comparison: the reference for TestTraverseOrder.
func traverseByLookups(m *Meta, prefix string) []string {
	var out []string
	for _, n := range m.AllNames {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		k := 0
		for {
			ea, eb := compEnd(a, k), compEnd(b, k)
			if a[:ea] != b[:eb] {
				return m.nodeSeq[a[:ea]] > m.nodeSeq[b[:eb]]
			}
			if ea == len(a) || eb == len(b) {
				return ea == len(a) && eb != len(b)
			}
			k = ea + 1
		}
	})
	return out
}

// TestTraverseOrder checks Traverse's order (newest node first, a leaf
// before the names below it) against comparisons that look the nodes
// up, on random namespaces with empty components and names below leaves.
func TestTraverseOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newMeta()
		names := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string {
			return strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "dd", ""}), 1, 4).Draw(t, "parts"), ".")
		}), 0, 30).Draw(t, "names")
		for i, n := range names {
			if _, ok := m.byName[n]; ok {
				continue
			}
			m.byName[n] = pmapi.PMID(i)
			m.addNodes(n)
			m.AllNames = append(m.AllNames, n)
		}
		for _, p := range []string{"", "a", "b", "a.b", "dd", "c."} {
			var want []string
			if _, ok := m.byName[p]; ok && p != "" {
				want = []string{p}
			} else if p == "" {
				want = traverseByLookups(m, "")
			} else {
				want = traverseByLookups(m, p+".")
			}
			if got := m.Traverse(p); !slices.Equal(got, want) {
				t.Fatalf("Traverse(%q) = %q, want %q", p, got, want)
			}
		}
	})
}

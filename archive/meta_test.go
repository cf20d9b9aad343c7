package archive

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

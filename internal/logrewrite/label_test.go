package logrewrite

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
)

// TestLabelSplice: label names and values are changed as the real tool
// splices them, stale offsets and all (it does not move a renamed
// label's value offset), and labels are cut out with their comma; the
// expected sets are what the real pmlogrewrite wrote (pmdumplog -e).
func TestLabelSplice(t *testing.T) {
	bin := func() archive.LabelSet { // {"bin":100}
		return archive.LabelSet{Inst: 100, JSON: `{"bin":100}`, Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 3, ValueOff: 7, ValueLen: 3, Flags: archive.LabelInstances}}}
	}
	// label instances 29.2 100 { label -> "x" }, then { value -> 5 }
	s := bin()
	changeAll(&s, `"x"`, false)
	want := archive.LabelSet{Inst: 100, JSON: `{"x":100}`, Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 1, ValueOff: 7, ValueLen: 3, Flags: archive.LabelInstances}}}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("rename -want +got:\n%s", d)
	}
	changeAll(&s, "5", true)
	want = archive.LabelSet{Inst: 100, JSON: `{"x":10`, Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 1, ValueOff: 7, ValueLen: 1, Flags: archive.LabelInstances}}}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("new value -want +got:\n%s", d)
	}
	// two labels: the first cut with the comma after it, the last with
	// the comma before it
	two := func() archive.LabelSet {
		return archive.LabelSet{JSON: `{"agent":"sample","role":"testing"}`, Labels: []archive.LabelEntry{
			{NameOff: 2, NameLen: 5, ValueOff: 9, ValueLen: 8}, {NameOff: 19, NameLen: 4, ValueOff: 25, ValueLen: 9}}}
	}
	s = two()
	extractLabel(&s, 0)
	if want := (archive.LabelSet{JSON: `{"role":"testing"}`, Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 4, ValueOff: 8, ValueLen: 9}}}); !cmp.Equal(want, s) {
		t.Errorf("cut first: %+v", s)
	}
	s = two()
	extractLabel(&s, 1)
	if want := (archive.LabelSet{JSON: `{"agent":"sample"}`, Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 5, ValueOff: 9, ValueLen: 8}}}); !cmp.Equal(want, s) {
		t.Errorf("cut last: %+v", s)
	}
	name, value := `"role"`, `"testing"`
	if k := findLabel(&s, 0, &name, nil); k != -1 {
		t.Errorf("found a cut label at %d", k)
	}
	s = two()
	if k := findLabel(&s, 0, &name, &value); k != 1 {
		t.Errorf("findLabel = %d, want 1", k)
	}
}

// TestAddNew: new labels are checked and merged as __pmAddLabels does.
func TestAddNew(t *testing.T) {
	lp := &labelSpec{}
	for _, l := range [][2]string{{`"b"`, "1"}, {`"a"`, `"x"`}, {`"b"`, "-2.5e-3"}} {
		if !lp.addNew(l[0], l[1], archive.LabelDomain) {
			t.Fatalf("addNew(%s, %s) refused", l[0], l[1])
		}
	}
	if want := `{"a":"x","b":-2.5e-3}`; lp.newSet.JSON != want || len(lp.newSet.Labels) != 2 || lp.newSet.Labels[1].ValueOff != 13 {
		t.Errorf("merged %+v, want %s", lp.newSet, want)
	}
	for _, bad := range [][2]string{{`"9x"`, "1"}, {`"a-b"`, "1"}, {`"_a"`, "1"}, {`"a"`, "007"}, {`"a"`, "NULL"}, {`"a"`, `"a\qb"`}, {`"a"`, "1."}} {
		if lp.addNew(bad[0], bad[1], archive.LabelDomain) {
			t.Errorf("addNew(%s, %s) accepted", bad[0], bad[1])
		}
	}
}

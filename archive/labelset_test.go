package archive

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMakeLabelSet(t *testing.T) {
	pairs := []LabelPair{
		{Name: "agent", Value: `"linux"`, Flags: LabelDomain},
		{Name: "groupid", Value: "0", Flags: LabelContext | LabelOptional},
		{Name: "list", Value: `["irq","cpu"]`, Flags: LabelInDom},
	}
	s := MakeLabelSet(7, pairs...)
	if want := `{"agent":"linux","groupid":0,"list":["irq","cpu"]}`; s.Inst != 7 || s.JSON != want {
		t.Errorf("MakeLabelSet = %d %s, want 7 %s", s.Inst, s.JSON, want)
	}
	if diff := cmp.Diff(pairs, s.Pairs()); diff != "" {
		t.Errorf("Pairs (-want +got):\n%s", diff)
	}
	if e := MakeLabelSet(-1); e.JSON != "" || e.Labels != nil {
		t.Errorf("empty set %+v", e)
	}
	// an entry pointing outside the text is left out
	s.Labels = append(s.Labels, LabelEntry{NameOff: 40, NameLen: 20, ValueOff: 1, ValueLen: 2})
	if got := len(s.Pairs()); got != 3 {
		t.Errorf("%d pairs with a bad entry, want 3", got)
	}
}

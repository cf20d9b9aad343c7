package pmapi

import "testing"

// TestPMIDString checks the forms pmIDStr prints: the dynamic subtree root
// (511.d.0) is "d.*.*"; a derived metric (511.c.i, i > 0) is not.
func TestPMIDString(t *testing.T) {
	for _, c := range []struct {
		p    PMID
		want string
	}{
		{NewPMID(29, 0, 16), "29.0.16"},
		{PMIDNull, "PM_ID_NULL"},
		{NewPMID(DynamicDomain, 0, 0), "0.*.*"},
		{NewPMID(DynamicDomain, 40, 0), "40.*.*"},
		{NewPMID(DynamicDomain, 0, 3), "511.0.3"},
		{NewPMID(DynamicDomain, 2048, 1), "511.2048.1"},
		{NewPMID(510, 4095, 1023), "510.4095.1023"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%#08x: String() = %q, want %q", uint32(c.p), got, c.want)
		}
	}
}

// TestResultEqual: Equal tells every field of a result apart, a nil
// block from an empty one, and nil Results from others.
func TestResultEqual(t *testing.T) {
	base := func() *Result {
		return &Result{Timestamp: Timestamp{Sec: 5, Nsec: 6}, VSets: []ValueSet{
			{PMID: 1, NumVal: 1, ValFmt: ValFmtInsitu, Values: []Value{{Inst: 2, Insitu: 3}}},
			{PMID: 4, NumVal: 1, ValFmt: ValFmtDptr, Values: []Value{{Inst: -1, BlockType: TypeString, Block: []byte("x")}}},
		}}
	}
	if r := base(); !r.Equal(base()) || !(*Result)(nil).Equal(nil) || r.Equal(nil) || (*Result)(nil).Equal(r) {
		t.Fatal("Equal of equal results, or of nil ones")
	}
	for name, change := range map[string]func(r *Result){
		"time":       func(r *Result) { r.Timestamp.Nsec++ },
		"sets":       func(r *Result) { r.VSets = r.VSets[:1] },
		"pmid":       func(r *Result) { r.VSets[0].PMID++ },
		"numval":     func(r *Result) { r.VSets[0].NumVal = -12345 },
		"valfmt":     func(r *Result) { r.VSets[1].ValFmt = ValFmtSptr },
		"values":     func(r *Result) { r.VSets[0].Values = nil },
		"inst":       func(r *Result) { r.VSets[0].Values[0].Inst++ },
		"insitu":     func(r *Result) { r.VSets[0].Values[0].Insitu++ },
		"block type": func(r *Result) { r.VSets[1].Values[0].BlockType = TypeAggregate },
		"block":      func(r *Result) { r.VSets[1].Values[0].Block = []byte("y") },
		"nil block":  func(r *Result) { r.VSets[1].Values[0].Block = nil },
		"empty":      func(r *Result) { r.VSets[0].Values[0].Block = []byte{} },
	} {
		r := base()
		change(r)
		if r.Equal(base()) || base().Equal(r) {
			t.Errorf("%s: a changed result is Equal", name)
		}
	}
}

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

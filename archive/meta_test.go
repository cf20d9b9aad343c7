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

package archive

import (
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// A value block with no payload (sample.aggregate.null: a 4-byte block of
// type 7) is still a block once the record is a Result: libpcp returns it
// as a pointer to an empty block, not as an insitu value (QA chartqa1 and
// pyapi, in the replay oracle).
func TestEmptyBlockStaysABlock(t *testing.T) {
	in := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 1}, VSets: []pmapi.ValueSet{{
		PMID: pmapi.NewPMID(29, 0, 33), NumVal: 1, ValFmt: pmapi.ValFmtDptr,
		Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeAggregate, Block: []byte{}}},
	}}}
	for _, v := range []int{2, 3} {
		raw, err := AppendResultRecord(nil, v, in)
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecodeRecord(raw, v)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Result().VSets[0].Values[0]
		if got.Block == nil || len(got.Block) != 0 || got.BlockType != pmapi.TypeAggregate {
			t.Errorf("version %d: value %+v, want an empty aggregate block", v, got)
		}
	}
}

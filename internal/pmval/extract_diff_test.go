package pmval

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestExtractIsFloat64: where pmapi.Value.Float64 (pmExtractValue)
// converts a value, extract (the copy this package had) gives the same
// double; where it does not, extract gives a number (the real pmval stops
// with "pmExtractValue: Impossible value or scale conversion":
// TestInteropExtract).
func TestExtractIsFloat64(t *testing.T) {
	conv := 0
	rapid.Check(t, func(rt *rapid.T) {
		typ := rapid.SampledFrom([]pmapi.Type{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble}).Draw(rt, "type")
		v := pmapi.Value{Insitu: rapid.Int32().Draw(rt, "word")}
		if rapid.Bool().Draw(rt, "block") {
			v.BlockType = pmapi.Type(rapid.SampledFrom([]uint8{0, 1, 2, 3, 4, 5, 6, 7, 9, uint8(typ)}).Draw(rt, "blocktype"))
			v.Block = rapid.SliceOfN(rapid.Byte(), 0, 16).Draw(rt, "payload")
		}
		tl := &tool{desc: pmapi.Desc{Type: typ}}
		a := tl.extract(&v)
		b, err := v.Float64(typ)
		if err != nil {
			conv++
			return
		}
		if math.Float64bits(a) != math.Float64bits(b) {
			rt.Fatalf("extract %v, Float64 %v", a, b)
		}
	})
	if conv == 0 {
		t.Error("no value Float64 refuses")
	}
}

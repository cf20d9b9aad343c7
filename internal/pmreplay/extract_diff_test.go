package pmreplay

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestExtractIsFloat64: on the values replay's interpolation gives (the
// only ones this tool sees: insitu 32-bit words, and blocks of the
// metric's own type and size), extract (the copy this package had) and
// pmapi.Value.Float64 (pmExtractValue) agree, and so do host64 and
// HostUint64. (On other blocks extract is laxer, and reads a FLOAT block
// big-endian whatever its type.)
func TestExtractIsFloat64(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		typ := rapid.SampledFrom([]pmapi.Type{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble}).Draw(rt, "type")
		v := pmapi.Value{Insitu: rapid.Int32().Draw(rt, "word")}
		switch {
		case typ == pmapi.Type64 || typ == pmapi.TypeU64 || typ == pmapi.TypeDouble:
			v.BlockType, v.Block = typ, rapid.SliceOfN(rapid.Byte(), 8, 8).Draw(rt, "payload")
		case typ == pmapi.TypeFloat && rapid.Bool().Draw(rt, "block"):
			v.BlockType, v.Block = typ, rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(rt, "payload")
		}
		a, ok := extract(typ, &v)
		b, err := v.Float64(typ)
		if !ok || err != nil || math.Float64bits(a) != math.Float64bits(b) {
			rt.Fatalf("extract %v, %v; Float64 %v, %v", a, ok, b, err)
		}
		if len(v.Block) == 8 && host64(&v) != v.HostUint64() {
			rt.Fatalf("host64 %#x, HostUint64 %#x", host64(&v), v.HostUint64())
		}
	})
}

package sampler

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// slowConvert is convert's general path for a value without rate
// conversion: pmExtractValue to a double, the unit conversion (when
// c.unit), then __pmStuffDoubleValue to the output type, or
// pmExtractValue to the metric's own type.
func slowConvert(m *Metric, v *pmapi.Value) Value {
	typ := m.Desc.Type
	x, err := v.Float64(typ)
	if err != nil {
		return Value{}
	}
	var out Value
	if m.conv.unit {
		x, ok := m.rescale(x)
		if !ok {
			return Value{}
		}
		stuff(&out, x, m.OType)
		return out
	}
	switch typ {
	case pmapi.Type32:
		return Value{OK: true, Kind: KindSigned, I: int64(v.Insitu)}
	case pmapi.TypeU32:
		return Value{OK: true, Kind: KindUnsigned, U: uint64(uint32(v.Insitu))}
	case pmapi.Type64:
		return Value{OK: true, Kind: KindSigned, I: int64(v.HostUint64())}
	case pmapi.TypeU64:
		return Value{OK: true, Kind: KindUnsigned, U: v.HostUint64()}
	}
	return Value{OK: true, Kind: KindDouble, F: x}
}

// TestConvertOwnType: convert's shortcut for values kept in their own
// type (no conversion, or to the metric's own units, as pmrep's raw
// values are) gives what its general path gives, for values of every
// numeric type, insitu or in blocks, well-formed or not (a block's type
// or length wrong), 64-bit integers beyond a double's 53 bits included.
func TestConvertOwnType(t *testing.T) {
	types := []pmapi.Type{pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble}
	rapid.Check(t, func(t *rapid.T) {
		typ := rapid.SampledFrom(types).Draw(t, "type")
		m := &Metric{Desc: pmapi.Desc{Type: typ}, OType: typ}
		if rapid.Bool().Draw(t, "unit") {
			m.conv = conversion{unit: true, factor: 1, mult: 1, scaleOK: true}
		}
		v := pmapi.Value{Insitu: rapid.Int32().Draw(t, "insitu")}
		if rapid.Bool().Draw(t, "block") {
			n := rapid.SampledFrom([]int{4, 8, 8, 8, 3}).Draw(t, "len")
			v.Block = make([]byte, n)
			bits := rapid.Uint64().Draw(t, "bits")
			switch rapid.IntRange(0, 2).Draw(t, "size") {
			case 0:
				bits &= 1<<20 - 1
			case 1:
				bits |= 1<<62 | 1 // beyond a double's 53 bits
			}
			for i := range v.Block {
				v.Block[i] = byte(bits >> (8 * i))
			}
			v.BlockType = rapid.SampledFrom([]pmapi.Type{typ, typ, typ, 0, pmapi.TypeU32}).Draw(t, "btype")
		}
		var r Sampler
		var got Value
		r.convert(&got, m, 0, &v, nil)
		want := slowConvert(m, &v)
		if got.OK != want.OK || got.Kind != want.Kind || got.I != want.I || got.U != want.U ||
			math.Float64bits(got.F) != math.Float64bits(want.F) && !(math.IsNaN(got.F) && math.IsNaN(want.F)) {
			t.Fatalf("convert %+v (type %v, conv %+v): %+v, the general path %+v", v, typ, m.conv, got, want)
		}
	})
}

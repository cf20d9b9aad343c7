package derive

import (
	"encoding/binary"
	"math"

	"github.com/pcpkit/pcpkit/pmapi"
)

// ival is one instance's value inside the evaluator (libpcp's val_t): an
// instance and a value held by type.
//
//   - 32: the value sign-extended into u; U32: zero-extended into u;
//   - 64 and U64: the 64 bits in u;
//   - FLOAT: the value in f (exactly representable as a float32);
//   - DOUBLE: the value in f;
//   - other types (STRING, AGGREGATE, EVENT, ...): ref is the fetched
//     value (its block), or emptyValue for libpcp's empty strings.
type ival struct {
	inst int32
	u    uint64
	f    float64
	ref  *pmapi.Value
}

// emptyValue stands for an empty string value of any block type.
var emptyValue = pmapi.Value{Block: []byte{}}

// ivset is the values of one node: num is the count of values, or a
// negative PCP error code; v holds the first num values (its capacity is
// reused from fetch to fetch).
type ivset struct {
	num int32
	v   []ival
}

// reset empties the set, keeping its storage.
func (s *ivset) reset() {
	s.num = 0
	s.v = s.v[:0]
}

// setErr records an error (or, for code 0, no values).
func (s *ivset) setErr(code int32) {
	s.num = code
	s.v = s.v[:0]
}

// add appends a value and counts it.
func (s *ivset) add(v ival) {
	s.v = append(s.v, v)
	s.num = int32(len(s.v))
}

// copyFrom makes s a copy of o (values with payloads referencing o's).
func (s *ivset) copyFrom(o *ivset) {
	s.num = o.num
	s.v = append(s.v[:0], o.v...)
}

// isInt reports whether t is an integer type.
func isInt(t pmapi.Type) bool { return t >= pmapi.Type32 && t <= pmapi.TypeU64 }

// isFloat reports whether t is FLOAT or DOUBLE.
func isFloat(t pmapi.Type) bool { return t == pmapi.TypeFloat || t == pmapi.TypeDouble }

// toDouble converts a value of type t to a double as C converts it.
func toDouble(v *ival, t pmapi.Type) float64 {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return float64(int64(v.u))
	case pmapi.TypeU32, pmapi.TypeU64:
		return float64(v.u)
	}
	return v.f
}

// toFloat converts a value of type t to a float as C converts it.
func toFloat(v *ival, t pmapi.Type) float32 {
	switch t {
	case pmapi.Type32, pmapi.Type64:
		return float32(int64(v.u))
	case pmapi.TypeU32, pmapi.TypeU64:
		return float32(v.u)
	}
	return float32(v.f)
}

// isZero reports whether a value of type t is 0 (false).
func isZero(v *ival, t pmapi.Type) bool {
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		return uint32(v.u) == 0
	case pmapi.Type64, pmapi.TypeU64:
		return v.u == 0
	}
	return v.f == 0
}

// fromInt sets the integer x as a value of integer type t (truncating to
// 32 bits for 32 and U32, as a C assignment does).
func fromInt(x uint64, t pmapi.Type) uint64 {
	switch t {
	case pmapi.Type32:
		return uint64(int64(int32(uint32(x))))
	case pmapi.TypeU32:
		return uint64(uint32(x))
	}
	return x
}

// convert converts a value of type from to type to as C's assignment of
// one pmAtomValue field to another does (libpcp's promotions).
func convert(v *ival, from, to pmapi.Type) ival {
	out := ival{inst: v.inst}
	switch {
	case to == pmapi.TypeDouble:
		out.f = toDouble(v, from)
	case to == pmapi.TypeFloat:
		out.f = float64(toFloat(v, from))
	case isInt(to) && isInt(from):
		out.u = fromInt(v.u, to)
	case isInt(to):
		out.u = fromInt(uint64(cDoubleToInt64(v.f)), to)
	default:
		out = *v
	}
	return out
}

// cDoubleToInt64 converts as C's (long long) cast does on x86-64: out of
// range and NaN give the "integer indefinite" value.
func cDoubleToInt64(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// decodeLeaf reads value i of a fetched value set as a value of type t
// (libpcp's extraction into a pmAtomValue). It reports false for a value
// whose format does not fit its type (PM_ERR_LOGREC in libpcp).
func decodeLeaf(pv *pmapi.Value, valfmt int32, t pmapi.Type) (ival, bool) {
	out := ival{inst: pv.Inst}
	switch t {
	case pmapi.Type32:
		if pv.Block != nil {
			return out, false
		}
		out.u = uint64(int64(pv.Insitu))
	case pmapi.TypeU32:
		if pv.Block != nil {
			return out, false
		}
		out.u = uint64(uint32(pv.Insitu))
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		if len(pv.Block) < 8 {
			return out, false
		}
		bits := pv.HostUint64()
		if t == pmapi.TypeDouble {
			out.f = math.Float64frombits(bits)
		} else {
			out.u = bits
		}
	case pmapi.TypeFloat:
		if pv.Block == nil {
			// old-style insitu float
			out.f = float64(math.Float32frombits(uint32(pv.Insitu)))
			return out, true
		}
		if len(pv.Block) < 4 {
			return out, false
		}
		out.f = float64(math.Float32frombits(pv.HostUint32()))
	default:
		if pv.Block == nil {
			return out, false
		}
		out.ref = pv
	}
	return out, true
}

// encodeValue appends the pmapi form of v (of type t) to out: 32-bit
// integers insitu, 64-bit integers, FLOAT and DOUBLE as big-endian value
// blocks (as archives and PDUs hold them) carved from arena, other types
// as their payload copied into arena.
func encodeValue(v *ival, t pmapi.Type, arena []byte) (pmapi.Value, []byte) {
	pv := pmapi.Value{Inst: v.inst}
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		pv.Insitu = int32(uint32(v.u))
		return pv, arena
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		bits := v.u
		if t == pmapi.TypeDouble {
			bits = math.Float64bits(v.f)
		}
		n := len(arena)
		arena = binary.BigEndian.AppendUint64(arena, bits)
		pv.BlockType, pv.Block = t, arena[n:n+8:n+8]
		return pv, arena
	case pmapi.TypeFloat:
		n := len(arena)
		arena = binary.BigEndian.AppendUint32(arena, math.Float32bits(float32(v.f)))
		pv.BlockType, pv.Block = t, arena[n:n+4:n+4]
		return pv, arena
	}
	if v.ref == nil || len(v.ref.Block) == 0 {
		pv.BlockType, pv.Block = t, emptyBlock
		if v.ref != nil && v.ref != &emptyValue {
			pv.BlockType = v.ref.BlockType
		}
		return pv, arena
	}
	n := len(arena)
	arena = append(arena, v.ref.Block...)
	pv.BlockType, pv.Block = v.ref.BlockType, arena[n:len(arena):len(arena)]
	return pv, arena
}

// emptyBlock is the payload of an empty value block (not nil: a nil Block
// is an insitu value).
var emptyBlock = []byte{}

// blockSize is the arena space encodeValue needs for v.
func blockSize(v *ival, t pmapi.Type) int {
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		return 0
	case pmapi.TypeFloat:
		return 4
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		return 8
	}
	if v.ref == nil {
		return 0
	}
	return len(v.ref.Block)
}

package logrewrite

import (
	"encoding/binary"
	"math"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// atom is one numeric value as libpcp's pmAtomValue holds it: an integer
// (u, sign-extended for 32 and 64) or a floating point number (f).
type atom struct {
	u uint64
	f float64
}

// extract reads value v of a metric of type t (an arithmetic type).
func extract(v *pmapi.Value, t pmapi.Type) (atom, error) {
	switch t {
	case pmapi.Type32:
		if v.Block == nil {
			return atom{u: uint64(int64(v.Insitu))}, nil
		}
	case pmapi.TypeU32:
		if v.Block == nil {
			return atom{u: uint64(uint32(v.Insitu))}, nil
		}
	case pmapi.TypeFloat:
		if v.Block == nil {
			return atom{f: float64(math.Float32frombits(uint32(v.Insitu)))}, nil
		}
		if len(v.Block) == 4 {
			return atom{f: float64(math.Float32frombits(v.HostUint32()))}, nil
		}
	case pmapi.Type64, pmapi.TypeU64:
		if len(v.Block) == 8 {
			return atom{u: v.HostUint64()}, nil
		}
	case pmapi.TypeDouble:
		if len(v.Block) == 8 {
			return atom{f: math.Float64frombits(v.HostUint64())}, nil
		}
	}
	return atom{}, pmapi.ErrConv
}

func isFloat(t pmapi.Type) bool { return t == pmapi.TypeFloat || t == pmapi.TypeDouble }

// convert changes a value of type from into type to as pmExtractValue
// does: integers are checked for range (PM_ERR_TRUNC) and sign
// (PM_ERR_SIGN), floating point numbers are truncated toward zero.
func convert(a atom, from, to pmapi.Type) (atom, error) {
	if from == to {
		return a, nil
	}
	if isFloat(from) {
		f := a.f
		switch to {
		case pmapi.Type32:
			if f > math.MaxInt32 || f < math.MinInt32 {
				return atom{}, pmapi.ErrTrunc
			}
			return atom{u: uint64(int64(int32(f)))}, nil
		case pmapi.TypeU32:
			if f < 0 {
				return atom{}, pmapi.ErrSign
			}
			if f > math.MaxUint32 {
				return atom{}, pmapi.ErrTrunc
			}
			return atom{u: uint64(uint32(f))}, nil
		case pmapi.Type64:
			if f > math.MaxInt64 || f < math.MinInt64 {
				return atom{}, pmapi.ErrTrunc
			}
			return atom{u: uint64(int64(f))}, nil
		case pmapi.TypeU64:
			if f < 0 {
				return atom{}, pmapi.ErrSign
			}
			if f > math.MaxUint64 {
				return atom{}, pmapi.ErrTrunc
			}
			return atom{u: uint64(f)}, nil
		case pmapi.TypeFloat:
			return atom{f: float64(float32(f))}, nil
		}
		return atom{f: f}, nil
	}
	signed := from == pmapi.Type32 || from == pmapi.Type64
	s := int64(a.u)
	neg := signed && s < 0
	switch to {
	case pmapi.Type32:
		if neg && s < math.MinInt32 || !neg && a.u > math.MaxInt32 {
			return atom{}, pmapi.ErrTrunc
		}
	case pmapi.TypeU32:
		if neg {
			return atom{}, pmapi.ErrSign
		}
		if a.u > math.MaxUint32 {
			return atom{}, pmapi.ErrTrunc
		}
	case pmapi.Type64:
		if !signed && a.u > math.MaxInt64 {
			return atom{}, pmapi.ErrTrunc
		}
	case pmapi.TypeU64:
		if neg {
			return atom{}, pmapi.ErrSign
		}
	case pmapi.TypeFloat:
		if signed {
			return atom{f: float64(float32(s))}, nil
		}
		return atom{f: float64(float32(a.u))}, nil
	case pmapi.TypeDouble:
		if signed {
			return atom{f: float64(s)}, nil
		}
		return atom{f: float64(a.u)}, nil
	}
	return a, nil
}

// stuff stores a value of type t in v, as __pmStuffValue does, and
// returns the value set's format.
func stuff(a atom, t pmapi.Type, v *pmapi.Value) int32 {
	v.Block, v.BlockType, v.Insitu = nil, 0, 0
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		v.Insitu = int32(uint32(a.u))
		return pmapi.ValFmtInsitu
	case pmapi.TypeFloat:
		v.Block = binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(a.f)))
	case pmapi.TypeDouble:
		v.Block = binary.BigEndian.AppendUint64(nil, math.Float64bits(a.f))
	default:
		v.Block = binary.BigEndian.AppendUint64(nil, a.u)
	}
	v.BlockType = t
	return pmapi.ValFmtDptr
}

// rescale converts a value of type t from units in to out (pmConvScale).
func rescale(a atom, t pmapi.Type, in, out pmapi.Units) (atom, error) {
	u, f, ok := derive.ConvScale(t, a.u, a.f, in, out)
	if !ok {
		return atom{}, pmapi.ErrConv
	}
	return atom{u: u, f: f}, nil
}

package pmapi

import (
	"encoding/binary"
	"math"
)

// Float64 is the value as a double, as libpcp's pmExtractValue gives it
// for a metric of type t with PM_TYPE_DOUBLE as the output type, or
// ErrConv where pmExtractValue fails.
//
// An insitu value (Block nil) is a 32 (or PM_TYPE_UNKNOWN), U32 or old
// style FLOAT metric's. A block must be the type's size exactly (8 bytes
// for 64, U64 and DOUBLE, 4 for FLOAT) and have the metric's type or
// none (0, in very old archives); other types do not convert. The bytes
// are read as libpcp holds them in memory after reading them (see
// HostUint64): a typed block is big-endian, an untyped one is read as it
// is, little-endian.
func (v Value) Float64(t Type) (float64, error) {
	if v.Block == nil {
		switch t {
		case Type32, TypeUnknown:
			return float64(v.Insitu), nil
		case TypeU32:
			return float64(uint32(v.Insitu)), nil
		case TypeFloat:
			return float64(math.Float32frombits(uint32(v.Insitu))), nil
		}
		return 0, ErrConv
	}
	if v.BlockType != t && v.BlockType != 0 {
		return 0, ErrConv
	}
	switch t {
	case Type64:
		if len(v.Block) == 8 {
			return float64(int64(v.HostUint64())), nil
		}
	case TypeU64:
		if len(v.Block) == 8 {
			return float64(v.HostUint64()), nil
		}
	case TypeDouble:
		if len(v.Block) == 8 {
			return math.Float64frombits(v.HostUint64()), nil
		}
	case TypeFloat:
		if len(v.Block) == 4 {
			return float64(math.Float32frombits(v.HostUint32())), nil
		}
	}
	return 0, ErrConv
}

// HostUint64 is the first 8 bytes of the value's block (which must have
// them) as libpcp holds them in memory on the reference machine (x86-64):
// libpcp turns the payload of a block whose own type is 64, U64 or DOUBLE
// to host order when it reads it (archives and PDUs hold it big-endian),
// and leaves any other block as it is, to be read in host (little-endian)
// order.
func (v Value) HostUint64() uint64 {
	switch v.BlockType {
	case Type64, TypeU64, TypeDouble:
		return binary.BigEndian.Uint64(v.Block)
	}
	return binary.LittleEndian.Uint64(v.Block)
}

// HostUint32 is HostUint64 for the first 4 bytes: a FLOAT block is
// turned to host order, any other is read as it is.
func (v Value) HostUint32() uint32 {
	if v.BlockType == TypeFloat {
		return binary.BigEndian.Uint32(v.Block)
	}
	return binary.LittleEndian.Uint32(v.Block)
}

package pmapi

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// ParseValue converts text to a value of type typ, as libpcp's
// __pmStringValue does for pmStore (pmstore's value, pmval's -x): a
// decimal, octal (0...) or hexadecimal (0x...) integer for the integer
// types, a floating-point number for FLOAT and DOUBLE, the text itself
// for STRING (with its NUL). 32-bit values are insitu, the others value
// blocks (big-endian, as in a PDU). A number out of the type's range is
// strconv.ErrRange; text that is not one, or a type with no text form
// (AGGREGATE, EVENT, ...), is ErrType.
func ParseValue(text string, typ Type) (Value, error) {
	var v Value
	switch typ {
	case Type32:
		n, err := strconv.ParseInt(text, 0, 32)
		if err != nil {
			return v, numErr(err)
		}
		v.Insitu = int32(n)
	case TypeU32:
		n, err := strconv.ParseUint(text, 0, 32)
		if err != nil {
			return v, numErr(err)
		}
		v.Insitu = int32(uint32(n))
	case Type64, TypeU64, TypeDouble, TypeFloat:
		var bits uint64
		var err error
		switch typ {
		case Type64:
			var n int64
			n, err = strconv.ParseInt(text, 0, 64)
			bits = uint64(n)
		case TypeU64:
			bits, err = strconv.ParseUint(text, 0, 64)
		case TypeFloat:
			var f float64
			f, err = strconv.ParseFloat(text, 32)
			bits = uint64(math.Float32bits(float32(f)))
		default:
			var f float64
			f, err = strconv.ParseFloat(text, 64)
			bits = math.Float64bits(f)
		}
		if err != nil {
			return v, numErr(err)
		}
		v.BlockType = typ
		if typ == TypeFloat {
			v.Block = binary.BigEndian.AppendUint32(nil, uint32(bits))
		} else {
			v.Block = binary.BigEndian.AppendUint64(nil, bits)
		}
	case TypeString:
		v.BlockType = typ
		v.Block = append([]byte(text), 0)
	default:
		return v, ErrType
	}
	return v, nil
}

// numErr is a parse failure as __pmStringValue reports it: out of range,
// or not a number of the type.
func numErr(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return strconv.ErrRange
	}
	return ErrType
}

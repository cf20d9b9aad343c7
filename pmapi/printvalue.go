package pmapi

import (
	"encoding/binary"
	"math"
	"strconv"
)

// AppendValue appends the text that libpcp's pmPrintValue prints for the
// value v of a metric of type t, with no field width (pmdumplog passes a
// width of 1): what pmdumplog prints after "value ".
//
// v is insitu when v.Block is nil, and a value block otherwise (an empty
// payload must be an empty, non-nil slice). v.Block holds the payload as it
// is stored in an archive or a PDU, where the numeric types are big-endian:
// synth3.0 holds U64 1000 as the block 0300000c 00000000 000003e8, DOUBLE
// 10 as 0500000c 40240000 00000000 and FLOAT 1.5 as 04000008 3fc00000.
// libpcp turns the first 8 bytes of a block whose header says 64, U64 or
// DOUBLE (the first 4 of a FLOAT block) to host order when it reads the
// block, and leaves other blocks (STRING, AGGREGATE, ...) as they are
// (seen by giving such metrics the type AGGREGATE in a copy of synth3.meta:
// pmdumplog then dumps U64 1000 as [e803000000000000]; for a numeric block
// of the wrong size this is inferred);
// pmPrintValue then reads the bytes in host order, which for the reference
// machine (x86-64) is little-endian. AppendValue does the same, so
// aggregates print as a little-endian reading of their bytes
// (sample.aggregate in sample3: the bytes 01 03 07 0f 1f 3f 7f ff print as
// 18410503204342530817).
//
// Insitu values: 32 prints %d, U32 %u, FLOAT the 32 bits as a float with
// %.8g; any other type prints the word as "%u %.8g 0x%x" (the float left out
// if it is a NaN).
//
// Blocks: when the block's type (v.BlockType) is t or 0, 64 prints %d, U64
// %u, FLOAT %.8g and DOUBLE %.16g if the payload has the right size (8, 8,
// 4, 8 bytes), and STRING prints the bytes up to the first NUL in double
// quotes, unescaped. Every other block (AGGREGATE, AGGREGATE_STATIC, a type
// mismatch, a wrong size) is dumped: an 8-byte payload as %llu and, unless
// it is a NaN, %.16g of the same bytes as a double; a 4-byte payload as
// %.8g of a float unless a NaN; then the bytes in double quotes if every
// one is printable (0x20..0x7e, so always for an empty payload); then the
// bytes in hexadecimal in brackets. The parts are separated by a space:
// `"hullo world!" [68756c6c6f20776f726c6421]`,
// `18410503204342530817 -1.371380375612005e+306 [0103070f1f3f7fff]`,
// `"" []`.
//
// Event record arrays (EVENT, HIGHRES_EVENT) are not decoded here.
func AppendValue(dst []byte, t Type, v *Value) []byte {
	if v.Block == nil {
		return appendInsitu(dst, t, v.Insitu)
	}
	var buf [8]byte
	b := hostBlock(&buf, v.BlockType, v.Block)
	if v.BlockType == t || v.BlockType == Type32 {
		switch t {
		case Type64:
			if len(b) == 8 {
				return strconv.AppendInt(dst, int64(binary.LittleEndian.Uint64(b)), 10)
			}
		case TypeU64:
			if len(b) == 8 {
				return strconv.AppendUint(dst, binary.LittleEndian.Uint64(b), 10)
			}
		case TypeFloat:
			if len(b) == 4 {
				f := math.Float32frombits(binary.LittleEndian.Uint32(b))
				return AppendFloatG(dst, float64(f), 8)
			}
		case TypeDouble:
			if len(b) == 8 {
				return AppendFloatG(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 16)
			}
		case TypeString:
			dst = append(dst, '"')
			for _, c := range b {
				if c == 0 {
					break
				}
				dst = append(dst, c)
			}
			return append(dst, '"')
		}
	}
	return appendDump(dst, b)
}

// hostBlock returns the payload as libpcp holds it in memory after reading
// it: the leading 8 (or 4, for FLOAT) bytes of a numeric block reversed
// into little-endian order. The copy uses buf when it is needed.
func hostBlock(buf *[8]byte, vtype Type, p []byte) []byte {
	n := 0
	switch vtype {
	case Type64, TypeU64, TypeDouble:
		n = 8
	case TypeFloat:
		n = 4
	}
	if n == 0 || len(p) < n {
		return p
	}
	if len(p) > n {
		// rare: a numeric block of the wrong size
		q := make([]byte, len(p))
		copy(q, p)
		reverseBytes(q[:n])
		return q
	}
	copy(buf[:], p)
	reverseBytes(buf[:n])
	return buf[:n]
}

func reverseBytes(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

func appendInsitu(dst []byte, t Type, w int32) []byte {
	switch t {
	case Type32:
		return strconv.AppendInt(dst, int64(w), 10)
	case TypeU32:
		return strconv.AppendUint(dst, uint64(uint32(w)), 10)
	case TypeFloat:
		return AppendFloatG(dst, float64(math.Float32frombits(uint32(w))), 8)
	}
	dst = strconv.AppendUint(dst, uint64(uint32(w)), 10)
	if f := math.Float32frombits(uint32(w)); f == f {
		dst = append(dst, ' ')
		dst = AppendFloatG(dst, float64(f), 8)
	}
	dst = append(dst, " 0x"...)
	return strconv.AppendUint(dst, uint64(uint32(w)), 16)
}

const lowerHexDigits = "0123456789abcdef"

// appendDump appends pmPrintValue's dump of a block it does not decode.
func appendDump(dst []byte, b []byte) []byte {
	start := len(dst)
	switch len(b) {
	case 8:
		u := binary.LittleEndian.Uint64(b)
		dst = strconv.AppendUint(dst, u, 10)
		if d := math.Float64frombits(u); d == d {
			dst = append(dst, ' ')
			dst = AppendFloatG(dst, d, 16)
		}
	case 4:
		if f := math.Float32frombits(binary.LittleEndian.Uint32(b)); f == f {
			dst = AppendFloatG(dst, float64(f), 8)
		}
	}
	printable := true
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			printable = false
			break
		}
	}
	if printable {
		if len(dst) > start {
			dst = append(dst, ' ')
		}
		dst = append(dst, '"')
		dst = append(dst, b...)
		dst = append(dst, '"')
	}
	if len(dst) > start {
		dst = append(dst, ' ')
	}
	dst = append(dst, '[')
	for _, c := range b {
		dst = append(dst, lowerHexDigits[c>>4], lowerHexDigits[c&0xf])
	}
	return append(dst, ']')
}

// AppendFloatG appends f formatted as C's printf("%.<prec>g") does: prec
// significant digits (a precision of 0 counts as 1, a negative one as 6),
// the exponent form when the decimal exponent after rounding is below -4 or
// at least prec, trailing zeros and a trailing point removed, an exponent
// of at least two digits ("1e-07", "1.5e+20"), and "inf", "-inf", "nan",
// "-nan" (the sign of a NaN is its sign bit).
func AppendFloatG(dst []byte, f float64, prec int) []byte {
	if b, ok := appendNonFinite(dst, f); ok {
		return b
	}
	if prec < 0 {
		prec = 6
	} else if prec == 0 {
		prec = 1
	}
	// strconv's 'g' with an explicit precision follows the same rules as C
	// (rounding the exact binary value half to even, choosing the form by
	// the exponent after rounding, dropping trailing zeros).
	return strconv.AppendFloat(dst, f, 'g', prec, 64)
}

// appendNonFinite appends C's text for an infinity or NaN ("inf", "-inf",
// "nan", "-nan": the sign of a NaN is its sign bit) and reports whether f
// was one.
func appendNonFinite(dst []byte, f float64) ([]byte, bool) {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...), true
	case math.IsInf(f, -1):
		return append(dst, "-inf"...), true
	case f != f:
		if math.Signbit(f) {
			return append(dst, "-nan"...), true
		}
		return append(dst, "nan"...), true
	}
	return dst, false
}

// AppendFloatF appends f as C's printf("%.*f", prec, f): a negative
// precision is the default 6; infinities and NaNs as AppendFloatG.
func AppendFloatF(dst []byte, f float64, prec int) []byte {
	if b, ok := appendNonFinite(dst, f); ok {
		return b
	}
	if prec < 0 {
		prec = 6
	}
	return strconv.AppendFloat(dst, f, 'f', prec, 64)
}

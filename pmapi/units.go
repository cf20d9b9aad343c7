package pmapi

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// Units are a metric's dimensions and scales (pmUnits): the powers of
// space, time and count, and the scale of each dimension that has a nonzero
// power.
//
// PCP keeps every field in 4 bits. DimSpace, DimTime and DimCount are signed
// (-8..7). ScaleSpace (a PM_SPACE_* value) and ScaleTime (a PM_TIME_*
// value) are unsigned (0..15). ScaleCount is a signed power of ten (-8..7)
// held with int8 semantics: a negative power is stored as uint8(int8(n)), so
// int8(u.ScaleCount) is the exponent; UnitsFromUint32 and ParseUnits always
// return it that way (and Uint32 also accepts the bare 4-bit form, 8..15).
//
// Pad is pmUnits' last byte, padding that means nothing. PCP copies it
// as it comes (pmlogger from pmcd to the archive, pmlogextract from
// archive to archive: QA darwin_env-1 and extra hold non-zero pads), so
// UnitsFromUint32 and Uint32 keep it; Equal, IsZero and String ignore it.
type Units struct {
	DimSpace, DimTime, DimCount       int8
	ScaleSpace, ScaleTime, ScaleCount uint8
	Pad                               uint8
}

// Space scales (PM_SPACE_*): powers of 1024 bytes.
const (
	SpaceByte  = 0 // PM_SPACE_BYTE
	SpaceKByte = 1 // PM_SPACE_KBYTE
	SpaceMByte = 2 // PM_SPACE_MBYTE
	SpaceGByte = 3 // PM_SPACE_GBYTE
	SpaceTByte = 4 // PM_SPACE_TBYTE
	SpacePByte = 5 // PM_SPACE_PBYTE
	SpaceEByte = 6 // PM_SPACE_EBYTE
	SpaceZByte = 7 // PM_SPACE_ZBYTE
	SpaceYByte = 8 // PM_SPACE_YBYTE
)

// Time scales (PM_TIME_*).
const (
	TimeNSec = 0 // PM_TIME_NSEC
	TimeUSec = 1 // PM_TIME_USEC
	TimeMSec = 2 // PM_TIME_MSEC
	TimeSec  = 3 // PM_TIME_SEC
	TimeMin  = 4 // PM_TIME_MIN
	TimeHour = 5 // PM_TIME_HOUR
)

// sext4 sign-extends the low 4 bits of v.
func sext4(v uint32) int8 { return int8(uint8(v<<4)) >> 4 }

// UnitsFromUint32 unpacks the 32-bit form of pmUnits used in archives and
// PDUs. From the most significant bits down: dimSpace:4 dimTime:4
// dimCount:4 (signed), scaleSpace:4 scaleTime:4 (unsigned), scaleCount:4
// (signed), then 8 bits of padding, which are ignored. For example
// 0x10010000 is Kbyte, 0x00100000 count, 0x0f103000 count / sec and
// 0xf0120300 count x 10^3 / Mbyte.
func UnitsFromUint32(w uint32) Units {
	return Units{
		DimSpace:   sext4(w >> 28),
		DimTime:    sext4(w >> 24),
		DimCount:   sext4(w >> 20),
		ScaleSpace: uint8(w>>16) & 0xf,
		ScaleTime:  uint8(w>>12) & 0xf,
		ScaleCount: uint8(sext4(w >> 8)),
		Pad:        uint8(w),
	}
}

// Uint32 packs u into the 32-bit form that UnitsFromUint32 reads, keeping
// the low 4 bits of each field, and Pad as the low byte.
func (u Units) Uint32() uint32 {
	return uint32(u.DimSpace)&0xf<<28 |
		uint32(u.DimTime)&0xf<<24 |
		uint32(u.DimCount)&0xf<<20 |
		uint32(u.ScaleSpace)&0xf<<16 |
		uint32(u.ScaleTime)&0xf<<12 |
		uint32(u.ScaleCount)&0xf<<8 |
		uint32(u.Pad)
}

// Equal reports whether u and v have the same dimensions and scales,
// whatever their Pad (libpcp compares units field by field).
func (u Units) Equal(v Units) bool {
	u.Pad, v.Pad = 0, 0
	return u == v
}

// IsZero reports whether u has no dimensions and no scales at all.
func (u Units) IsZero() bool { return u.Uint32()&^0xff == 0 }

// CountScale is the power of ten of the count dimension, -8..7.
func (u Units) CountScale() int { return int(sext4(uint32(u.ScaleCount))) }

var spaceNames = [...]string{"byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "Pbyte", "Ebyte", "Zbyte", "Ybyte"}
var timeNames = [...]string{"nanosec", "microsec", "millisec", "sec", "min", "hour"}

// String formats u as libpcp's pmUnitsStr does: "Kbyte", "count / sec",
// "count x 10^3 / Mbyte", "byte^2 / sec", "/ microsec". Units with no
// dimension give "" (callers print "none"), or "x 10^N" when they have a
// count scale. The fields are taken as PCP's 4-bit fields hold them (as
// packed by Uint32), so out-of-range values wrap as they would in PCP.
//
// The rules, checked against the real library for all 2^24 values:
//   - dimensions with a positive power are listed, space then time then
//     count, separated by a space; a power other than 1 follows as "^N";
//   - if any power is negative, "/ " and those dimensions follow (with the
//     power negated), after " " when something came before;
//   - space scales name byte..Ybyte, other values "space-N"; time scales
//     nanosec, microsec, millisec, sec, min, hour, other values "time-N";
//   - count is "count", "count x 10" or "count x 10^N" (N signed), and the
//     power follows that: "count x 10^3^2";
//   - a scale matters only when its dimension's power is nonzero.
func (u Units) String() string {
	var b [64]byte
	return string(u.AppendString(b[:0]))
}

// AppendString appends u.String() to dst.
func (u Units) AppendString(dst []byte) []byte {
	n := UnitsFromUint32(u.Uint32())
	if n.DimSpace == 0 && n.DimTime == 0 && n.DimCount == 0 {
		if n.ScaleCount == 0 {
			return dst
		}
		return appendTimesTen(dst, int8(n.ScaleCount))
	}
	start := len(dst)
	// pass 0: the positive powers; pass 1: "/" and the negative ones
	for pass := 0; pass < 2; pass++ {
		sign := int8(1)
		if pass == 1 {
			sign = -1
			if n.DimSpace >= 0 && n.DimTime >= 0 && n.DimCount >= 0 {
				break
			}
			if len(dst) > start {
				dst = append(dst, ' ')
			}
			dst = append(dst, '/')
		}
		if d := n.DimSpace * sign; d > 0 {
			dst = appendSep(dst, start)
			if int(n.ScaleSpace) < len(spaceNames) {
				dst = append(dst, spaceNames[n.ScaleSpace]...)
			} else {
				dst = append(dst, "space-"...)
				dst = strconv.AppendInt(dst, int64(n.ScaleSpace), 10)
			}
			dst = appendPower(dst, d)
		}
		if d := n.DimTime * sign; d > 0 {
			dst = appendSep(dst, start)
			if int(n.ScaleTime) < len(timeNames) {
				dst = append(dst, timeNames[n.ScaleTime]...)
			} else {
				dst = append(dst, "time-"...)
				dst = strconv.AppendInt(dst, int64(n.ScaleTime), 10)
			}
			dst = appendPower(dst, d)
		}
		if d := n.DimCount * sign; d > 0 {
			dst = appendSep(dst, start)
			dst = append(dst, "count"...)
			if n.ScaleCount != 0 {
				dst = append(dst, ' ')
				dst = appendTimesTen(dst, int8(n.ScaleCount))
			}
			dst = appendPower(dst, d)
		}
	}
	return dst
}

func appendSep(dst []byte, start int) []byte {
	if len(dst) > start {
		dst = append(dst, ' ')
	}
	return dst
}

func appendPower(dst []byte, d int8) []byte {
	if d == 1 {
		return dst
	}
	dst = append(dst, '^')
	return strconv.AppendInt(dst, int64(d), 10)
}

func appendTimesTen(dst []byte, s int8) []byte {
	dst = append(dst, "x 10"...)
	if s != 1 {
		dst = append(dst, '^')
		dst = strconv.AppendInt(dst, int64(s), 10)
	}
	return dst
}

// UnitsError is the error ParseUnits returns: Msg is the text that
// pmParseUnitsStr gives in its errmsg argument, and Code is the PCP error
// code it returns (always ErrConv).
type UnitsError struct {
	Code Error
	Msg  string
}

func (e *UnitsError) Error() string { return e.Msg }

// Unwrap gives the PCP error code, so errors.Is(err, ErrConv) holds.
func (e *UnitsError) Unwrap() error { return e.Code }

// The messages of pmParseUnitsStr.
const (
	unitsMsgUnknown = "unrecognized or duplicate base unit"
	unitsMsgFloat   = "invalid floating point literal"
	unitsMsgSpace   = "space dimension out of bounds"
	unitsMsgTime    = "time dimension out of bounds"
	unitsMsgCount   = "count dimension out of bounds"
	// libpcp 6.0.3 fails an assertion (and aborts the program) when it must
	// convert a time scale above PM_TIME_HOUR; ParseUnits reports this
	// error instead.
	unitsMsgTimeScale = "time scale out of range for conversion"
)

func unitsErr(msg string) error { return &UnitsError{Code: ErrConv, Msg: msg} }

// unitKeyword is one base unit name that pmParseUnitsStr recognises.
type unitKeyword struct {
	name  string
	scale int
}

// The base unit names, matched without regard to case. Within a list the
// order matters only for "count x 10", which must come after the
// "count x 10^N" names because a name may be followed by "^".
var (
	timeKeywords = []unitKeyword{
		{"nanoseconds", TimeNSec}, {"nanosecond", TimeNSec}, {"nanosec", TimeNSec}, {"ns", TimeNSec},
		{"microseconds", TimeUSec}, {"microsecond", TimeUSec}, {"microsec", TimeUSec}, {"us", TimeUSec},
		{"milliseconds", TimeMSec}, {"millisecond", TimeMSec}, {"millisec", TimeMSec}, {"ms", TimeMSec},
		{"seconds", TimeSec}, {"second", TimeSec}, {"sec", TimeSec}, {"s", TimeSec},
		{"minutes", TimeMin}, {"minute", TimeMin}, {"min", TimeMin},
		{"hours", TimeHour}, {"hour", TimeHour}, {"hr", TimeHour}, {"h", TimeHour},
	}
	spaceKeywords = func() []unitKeyword {
		var k []unitKeyword
		k = append(k, unitKeyword{"bytes", 0}, unitKeyword{"byte", 0})
		prefixes := []struct{ letter, binary, decimal string }{
			{"K", "Kibi", "Kilo"}, {"M", "Mebi", "Mega"}, {"G", "Gibi", "Giga"},
			{"T", "Tebi", "Tera"}, {"P", "Pebi", "Peta"}, {"E", "Exbi", "Exa"},
			{"Z", "Zebi", "Zetta"}, {"Y", "Yobi", "Yotta"},
		}
		for i, p := range prefixes {
			s := i + 1
			k = append(k,
				unitKeyword{p.letter + "B", s}, unitKeyword{p.letter + "iB", s},
				unitKeyword{p.letter + "bytes", s}, unitKeyword{p.letter + "byte", s},
				unitKeyword{p.binary + "bytes", s}, unitKeyword{p.binary + "byte", s},
				unitKeyword{p.decimal + "bytes", s}, unitKeyword{p.decimal + "byte", s})
		}
		return k
	}()
	countKeywords = func() []unitKeyword {
		var k []unitKeyword
		for s := -8; s <= 7; s++ {
			if s != 0 && s != 1 {
				k = append(k, unitKeyword{"count x 10^" + strconv.Itoa(s), s})
			}
		}
		return append(k, unitKeyword{"count x 10", 1}, unitKeyword{"counts", 0}, unitKeyword{"count", 0})
	}()
)

// unitsPart is one side of a "/" in a units string: the powers and scales
// of space, time and count (indexed 0, 1, 2) and the product of the numbers.
type unitsPart struct {
	dim, scale [3]int
	mult       float64
}

func isCDigit(c byte) bool { return c >= '0' && c <= '9' }

// endsWord reports whether position i of s (s ends at end) may follow a unit
// name or power: the end, white space, or "^".
func endsWord(s string, i int) bool { return i == len(s) || cnum.IsSpace(s[i]) || s[i] == '^' }

// matchScaled matches "prefix-N" (N one of 0..15 written without leading
// zeros or sign) at the start of s, as followed by the end, a space or "^".
func matchScaled(s, prefix string) (scale, n int, ok bool) {
	if len(s) <= len(prefix) || !equalFoldASCII(s[:len(prefix)], prefix) {
		return 0, 0, false
	}
	i := len(prefix)
	for v := 15; v >= 0; v-- { // "15" before "1"
		d := strconv.Itoa(v)
		if strings.HasPrefix(s[i:], d) && endsWord(s, i+len(d)) {
			return v, i + len(d), true
		}
	}
	return 0, 0, false
}

// matchKeyword finds a unit name of list at the start of s.
func matchKeyword(s string, list []unitKeyword, scaledPrefix string) (scale, n int, ok bool) {
	for _, k := range list {
		if len(s) >= len(k.name) && equalFoldASCII(s[:len(k.name)], k.name) && endsWord(s, len(k.name)) {
			return k.scale, len(k.name), true
		}
	}
	return matchScaled(s, scaledPrefix)
}

// matchPower matches "^N", N in -8..15 written plainly, at the start of s.
func matchPower(s string) (pow, n int, ok bool) {
	if len(s) < 2 || s[0] != '^' {
		return 0, 0, false
	}
	i := 1
	neg := false
	if s[i] == '-' {
		neg = true
		i++
	}
	j := i
	for j < len(s) && isCDigit(s[j]) {
		j++
	}
	digits := s[i:j]
	if digits == "" || len(digits) > 2 || (len(digits) > 1 && digits[0] == '0') || !endsWord(s, j) {
		return 0, 0, false
	}
	v, _ := strconv.Atoi(digits)
	if neg {
		v = -v
		if v == 0 || v < -8 {
			return 0, 0, false
		}
	} else if v > 15 {
		return 0, 0, false
	}
	return v, j, true
}

// parseUnitsPart parses one side of the "/".
func parseUnitsPart(s string) (unitsPart, error) {
	p := unitsPart{mult: 1}
	for i := 0; i < len(s); {
		c := s[i]
		if cnum.IsSpace(c) {
			i++
			continue
		}
		if c == '-' || c == '.' || isCDigit(c) {
			v, n, ok := scanCFloat(s[i:])
			if !ok {
				return p, unitsErr(unitsMsgFloat)
			}
			p.mult = v * p.mult
			i += n
			continue
		}
		// A name for a dimension is looked for only while that dimension
		// has no power yet, time first, then space, then count; this is how
		// a repeated dimension is refused.
		matched := false
		for _, d := range [3]int{1, 0, 2} {
			if p.dim[d] != 0 {
				continue
			}
			var scale, n int
			var ok bool
			switch d {
			case 0:
				scale, n, ok = matchKeyword(s[i:], spaceKeywords, "space-")
			case 1:
				scale, n, ok = matchKeyword(s[i:], timeKeywords, "time-")
			case 2:
				scale, n, ok = matchKeyword(s[i:], countKeywords, "")
			}
			if !ok {
				continue
			}
			matched = true
			p.scale[d] = scale
			i += n
			if i == len(s) || cnum.IsSpace(s[i]) {
				p.dim[d] = 1
			} else if pow, m, ok := matchPower(s[i:]); ok {
				// s[i] is '^'
				p.dim[d] = pow
				i += m
			}
			// otherwise the '^' that follows is left to fail as a name
			break
		}
		if !matched {
			return p, unitsErr(unitsMsgUnknown)
		}
	}
	return p, nil
}

// timeSeconds is the length of each time scale in seconds, as the
// conversion in pmParseUnitsStr uses it.
var timeSeconds = [...]float64{1e-9, 1e-6, 1e-3, 1, 60, 3600}

// ParseUnits parses a units string as libpcp's pmParseUnitsStr does and
// returns the units and a multiplier: a value v in the units as written is
// v/mult in the returned units. For "10 count" mult is 0.1, for
// "Kbyte / Mbyte" 1024, for "1 Kbyte / 1000 sec" 1000, for "ms / sec^2"
// ("/ sec") 1000. It is computed as libpcp does, in the same order, so it
// is the same double.
//
// The grammar: at most one "/" splits the text into a numerator and a
// denominator (either may be empty). Each side is a sequence, separated by
// white space, of numbers (C strtod syntax, starting with a digit, "." or
// "-"; their product is the side's number) and base unit names (case is
// ignored) each optionally followed by a power "^N" (N in -8..15):
//
//   - space: byte(s), [KMGTPEZY]B, [KMGTPEZY]iB, [KMGTPEZY]byte(s),
//     kibibyte(s)..yobibyte(s), kilobyte(s)..yottabyte(s), space-N (0..15);
//   - time: nanosecond(s), nanosec, ns, microsecond(s), microsec, us,
//     millisecond(s), millisec, ms, second(s), sec, s, minute(s), min,
//     hour(s), hr, h, time-N (0..15);
//   - count: count(s), "count x 10" and "count x 10^N" (N in -8..7,
//     written with single spaces).
//
// A dimension may appear once on each side (again only after a "^0").
// The powers of the denominator are subtracted from the numerator's, and
// each result must fit PCP's 4 bits (-8..7). When a dimension has a power
// on both sides (or on neither), both sides are converted to bytes,
// seconds or unscaled counts and the multiplier adjusted; otherwise the
// scale of the side that has the dimension is kept. A scale is cleared when
// its dimension's power is zero. So "Mbyte / hour" is Mbyte^1 time(hour)^-1
// with multiplier 1, and "ms / sec^2" is "/ sec" with multiplier 1000.
//
// pmUnitsStr's output parses back to the same units with multiplier 1
// (when no scale is set without its dimension), except that "x 10^N" (no
// dimensions, a count scale) is not accepted, and that (count x 10)^N for N
// in 2..7 prints as "count x 10^N", which reads back as count x 10^N.
//
// Errors are *UnitsError values (code ErrConv) with pmParseUnitsStr's
// message: "unrecognized or duplicate base unit", "invalid floating point
// literal" (also when strtod would set ERANGE: on overflow, or on an
// inexact result below the smallest normal double), and "space dimension
// out of bounds" (then time, then count). Where libpcp 6.0.3 aborts on a
// failed assertion (a time scale above hour that must be converted, e.g.
// "time-7 / sec"), ParseUnits returns an error.
func ParseUnits(s string) (Units, float64, error) {
	numText, denText, hasDen := strings.Cut(s, "/")
	num, err := parseUnitsPart(numText)
	if err != nil {
		return Units{}, 0, err
	}
	den := unitsPart{mult: 1}
	if hasDen {
		if den, err = parseUnitsPart(denText); err != nil {
			return Units{}, 0, err
		}
	}
	var dims [3]int
	for d, msg := range [3]string{unitsMsgSpace, unitsMsgTime, unitsMsgCount} {
		dims[d] = num.dim[d] - den.dim[d]
		if dims[d] < -8 || dims[d] > 7 {
			return Units{}, 0, unitsErr(msg)
		}
	}
	mult := den.mult / num.mult
	var scales [3]int
	for _, d := range [3]int{0, 2, 1} { // space, count, then time
		nd, dd := num.dim[d], den.dim[d]
		switch {
		case nd != 0 && dd == 0:
			scales[d] = num.scale[d]
		case nd == 0 && dd != 0:
			scales[d] = den.scale[d]
		default:
			// both sides (or neither) have the dimension: convert both to
			// the base unit
			var nf, df float64
			switch d {
			case 0:
				nf, df = powFloat(1024, num.scale[d]), powFloat(1024, den.scale[d])
			case 2:
				nf, df = powFloat(10, num.scale[d]), powFloat(10, den.scale[d])
			case 1:
				if num.scale[d] > TimeHour || den.scale[d] > TimeHour {
					return Units{}, 0, unitsErr(unitsMsgTimeScale)
				}
				nf, df = timeSeconds[num.scale[d]], timeSeconds[den.scale[d]]
				scales[d] = TimeSec
			}
			mult = powFloat(nf, -nd) * mult
			mult = powFloat(df, dd) * mult
		}
		if dims[d] == 0 {
			scales[d] = 0
		}
	}
	u := Units{
		DimSpace:   int8(dims[0]),
		DimTime:    int8(dims[1]),
		DimCount:   int8(dims[2]),
		ScaleSpace: uint8(scales[0]),
		ScaleTime:  uint8(scales[1]),
		ScaleCount: uint8(int8(scales[2])),
	}
	return u, mult, nil
}

// powFloat returns x^n correctly rounded to a float64, with overflow to
// ±Inf and underflow to zero or a subnormal, as the C library's pow gives
// for the values pmParseUnitsStr uses (checked for every base and power
// that can occur). Go's math.Pow is not always correctly rounded, so the
// power is computed exactly.
func powFloat(x float64, n int) float64 {
	if n == 0 {
		return 1
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return math.Pow(x, float64(n))
	}
	abs := n
	if abs < 0 {
		abs = -abs
	}
	bx := new(big.Rat).SetFloat64(x)
	p := new(big.Rat).SetInt64(1)
	for i := 0; i < abs; i++ {
		p.Mul(p, bx)
	}
	if n < 0 {
		p.Inv(p)
	}
	f, _ := p.Float64()
	return f
}

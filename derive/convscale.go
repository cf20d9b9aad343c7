package derive

import (
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/pmapi"
)

// convScale is pmConvScale(3) for the arithmetic types: it converts v, of
// type t in units in, to units out. It reports false when the dimensions
// differ (PM_ERR_CONV). The factor is worked out as two 64-bit integers,
// a multiplier and a divisor, from the canonical units (Mbyte, second,
// count x 10^0); integer values are converted as (v*mult + div/2) / div in
// 64-bit arithmetic, FLOAT and DOUBLE as v * (mult/div).
func convScale(t pmapi.Type, v *ival, in, out pmapi.Units) (ival, bool) {
	if !convScaleOK(in, out) {
		return ival{}, false
	}
	mult, div := int64(1), int64(1)
	pow := func(dim int8, d, m int64) {
		if dim > 0 {
			for k := int8(0); k < dim; k++ {
				div *= d
				mult *= m
			}
		} else {
			for k := dim; k < 0; k++ {
				mult *= d
				div *= m
			}
		}
	}
	if in.DimSpace != 0 {
		d, m := int64(1), int64(1)
		// to Mbytes, then from Mbytes
		switch s := int(in.ScaleSpace); {
		case s < pmapi.SpaceMByte:
			for k := s; k < pmapi.SpaceMByte; k++ {
				d *= 1024
			}
		case s > pmapi.SpaceMByte:
			for k := pmapi.SpaceMByte; k < s; k++ {
				m *= 1024
			}
		}
		switch s := int(out.ScaleSpace); {
		case s < pmapi.SpaceMByte:
			for k := s; k < pmapi.SpaceMByte; k++ {
				m *= 1024
			}
		case s > pmapi.SpaceMByte:
			for k := pmapi.SpaceMByte; k < s; k++ {
				d *= 1024
			}
		}
		pow(in.DimSpace, d, m)
	}
	if in.DimTime != 0 {
		d, m := int64(1), int64(1)
		secs := [...]int64{1000000000, 1000000, 1000, 1, 60, 3600}
		if int(in.ScaleTime) < len(secs) {
			if in.ScaleTime <= pmapi.TimeSec {
				d = secs[in.ScaleTime]
			} else {
				m = secs[in.ScaleTime]
			}
		}
		if int(out.ScaleTime) < len(secs) {
			if out.ScaleTime <= pmapi.TimeSec {
				m *= secs[out.ScaleTime]
			} else {
				d *= secs[out.ScaleTime]
			}
		}
		pow(in.DimTime, d, m)
	}
	if in.DimCount != 0 || in.DimSpace == 0 && in.DimTime == 0 {
		d, m := int64(1), int64(1)
		if s := in.CountScale(); s < 0 {
			for k := s; k < 0; k++ {
				d *= 10
			}
		} else {
			for k := 0; k < s; k++ {
				m *= 10
			}
		}
		if s := out.CountScale(); s < 0 {
			for k := s; k < 0; k++ {
				m *= 10
			}
		} else {
			for k := 0; k < s; k++ {
				d *= 10
			}
		}
		if in.DimCount != 0 {
			pow(in.DimCount, d, m)
		} else {
			mult, div = m, d
		}
	}
	if div != 0 && mult%div == 0 {
		mult /= div
		div = 1
	}
	if div == 0 {
		return ival{}, false
	}
	o := ival{inst: v.inst}
	switch t {
	case pmapi.Type32:
		o.u = fromInt(uint64((int64(int32(v.u))*mult+div/2)/div), t)
	case pmapi.TypeU32:
		o.u = fromInt(uint64((int64(uint32(v.u))*mult+div/2)/div), t)
	case pmapi.Type64:
		o.u = uint64((int64(v.u)*mult + div/2) / div)
	case pmapi.TypeU64:
		o.u = (v.u*uint64(mult) + uint64(div/2)) / uint64(div)
	case pmapi.TypeFloat:
		o.f = float64(float32(v.f) * (float32(mult) / float32(div)))
	case pmapi.TypeDouble:
		o.f = v.f * (float64(mult) / float64(div))
	default:
		return ival{}, false
	}
	return o, true
}

// constValue is the value of a numeric constant of type t written as
// text, converted as libpcp does: atoi for 32 and U32 (strtol, truncated to
// 32 bits), strtoll for 64, strtoull for U64, atof for FLOAT and DOUBLE.
func constValue(text string, t pmapi.Type) ival {
	v := ival{inst: pmapi.InstNull}
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		v.u = fromInt(uint64(cStrtoll(text)), t)
	case pmapi.Type64:
		v.u = uint64(cStrtoll(text))
	case pmapi.TypeU64:
		v.u = cStrtoull(text)
	case pmapi.TypeFloat:
		v.f = float64(float32(cAtof(text)))
	default:
		v.f = cAtof(text)
	}
	return v
}

// cNumPrefix returns the optional sign and the leading digits of s.
func cNumPrefix(s string) (neg bool, digits string) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return neg, s[i:j]
}

// cStrtoll is strtoll(s, NULL, 10): saturating at the 64-bit limits.
func cStrtoll(s string) int64 {
	neg, d := cNumPrefix(s)
	u, err := strconv.ParseUint(d, 10, 64)
	if err != nil && d != "" {
		u = math.MaxUint64
	}
	if neg {
		if u > 1<<63 {
			return math.MinInt64
		}
		return -int64(u)
	}
	if u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}

// cStrtoull is strtoull(s, NULL, 10): saturating, and negated for a
// leading minus.
func cStrtoull(s string) uint64 {
	neg, d := cNumPrefix(s)
	u, err := strconv.ParseUint(d, 10, 64)
	if err != nil && d != "" {
		return math.MaxUint64
	}
	if neg {
		return -u
	}
	return u
}

// cAtof is atof(s): the longest prefix that is a decimal floating point
// number.
func cAtof(s string) float64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	end := i
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			end = k
		}
	}
	f, err := strconv.ParseFloat(s[start:end], 64)
	if err != nil {
		// out of range: ParseFloat gives ±Inf or 0 as strtod does
		return f
	}
	return f
}

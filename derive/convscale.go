package derive

import (
	"github.com/pcpkit/pcpkit/internal/cnum"
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
		v.u = fromInt(uint64(cnum.Strtoll(text)), t)
	case pmapi.Type64:
		v.u = uint64(cnum.Strtoll(text))
	case pmapi.TypeU64:
		v.u = cnum.Strtoull(text)
	case pmapi.TypeFloat:
		v.f = float64(float32(cnum.Atof(text)))
	default:
		v.f = cnum.Atof(text)
	}
	return v
}

// ConvScale is pmConvScale(3) for a value of an arithmetic type t held
// as u (32, U32, 64 and U64: the integer, sign-extended for 32) or f
// (FLOAT and DOUBLE), from units in to units out. It reports false when
// pmConvScale fails (PM_ERR_CONV: the dimensions differ, or t is not
// arithmetic).
func ConvScale(t pmapi.Type, u uint64, f float64, in, out pmapi.Units) (uint64, float64, bool) {
	o, ok := convScale(t, &ival{u: u, f: f}, in, out)
	return o.u, o.f, ok
}

package pcptime

// The time formats of the PCP tools, built on the C library's ctime(3)
// layout "Tue Nov 14 22:13:20 2023" (asctime's "%.3s %.3s%3d
// %.2d:%.2d:%.2d %d"): the day of the month is padded with a space to
// width 2 ("Thu Aug  6"), the year is printed as a plain number.
//
// All functions append to dst and return the extended slice, so that a
// caller can format into a reused buffer without allocating.

const (
	dayNames   = "SunMonTueWedThuFriSat"
	monthNames = "JanFebMarAprMayJunJulAugSepOctNovDec"
)

// appendInt appends v in decimal, zero-padded to at least width digits
// (after the sign of a negative number).
func appendInt(dst []byte, v int64, width int) []byte {
	var buf [24]byte
	i := len(buf)
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	for u >= 10 {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	buf[i] = byte('0' + u)
	if v < 0 {
		dst = append(dst, '-')
	}
	for n := len(buf) - i; n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, buf[i:]...)
}

// appendName appends the three-letter name number i of names, or "???"
// when i is out of range (as asctime does).
func appendName(dst []byte, names string, i int) []byte {
	if i < 0 || 3*i+3 > len(names) {
		return append(dst, "???"...)
	}
	return append(dst, names[3*i:3*i+3]...)
}

// AppendCtimeDate appends the first ten characters of ctime(3), the
// weekday, month and space-padded day: "Tue Nov 14", "Thu Aug  6".
func AppendCtimeDate(dst []byte, c Civil) []byte {
	dst = appendName(dst, dayNames, c.Weekday)
	dst = append(dst, ' ')
	dst = appendName(dst, monthNames, c.Month-1)
	if c.Day < 10 && c.Day >= 0 {
		dst = append(dst, ' ', ' ')
	} else {
		dst = append(dst, ' ')
	}
	return appendInt(dst, int64(c.Day), 1)
}

// AppendClock appends the time of day as "HH:MM:SS".
func AppendClock(dst []byte, c Civil) []byte {
	dst = appendInt(dst, int64(c.Hour), 2)
	dst = append(dst, ':')
	dst = appendInt(dst, int64(c.Minute), 2)
	dst = append(dst, ':')
	return appendInt(dst, int64(c.Second), 2)
}

// AppendFraction appends '.' and the first digits (1..9) of a fraction of
// a second given in nanoseconds, truncated, as the tools' "%0*d" of
// nsec/10^(9-digits) does: 123456789 with 6 digits is ".123456". Like the
// C code it does not normalise: nsec=1000000000 with 3 digits gives
// ".1000". With digits <= 0 it appends nothing.
func AppendFraction(dst []byte, nsec int64, digits int) []byte {
	if digits <= 0 {
		return dst
	}
	if digits > 9 {
		digits = 9
	}
	div := int64(1)
	for i := digits; i < 9; i++ {
		div *= 10
	}
	dst = append(dst, '.')
	return appendInt(dst, nsec/div, digits)
}

// AppendCtime appends the local time as ctime(3) prints it, without the
// trailing newline: "Tue Nov 14 22:13:20 2023".
func AppendCtime(dst []byte, c Civil) []byte {
	dst = AppendCtimeDate(dst, c)
	dst = append(dst, ' ')
	dst = AppendClock(dst, c)
	dst = append(dst, ' ')
	return appendInt(dst, int64(c.Year), 1)
}

// AppendStamp appends "HH:MM:SS" followed by AppendFraction's digits,
// e.g. "22:13:20.000000000" (digits 9) or "22:13:20.000000" (digits 6).
func AppendStamp(dst []byte, c Civil, nsec int64, digits int) []byte {
	dst = AppendClock(dst, c)
	return AppendFraction(dst, nsec, digits)
}

// AppendCtimeStamp appends the ctime(3) layout with a fraction after the
// seconds: "Tue Nov 14 22:13:20.000000000 2023" (pmdumplog -x) or
// "Tue Nov 14 22:13:22.500 2023" (digits 3).
func AppendCtimeStamp(dst []byte, c Civil, nsec int64, digits int) []byte {
	dst = AppendCtimeDate(dst, c)
	dst = append(dst, ' ')
	dst = AppendStamp(dst, c, nsec, digits)
	dst = append(dst, ' ')
	return appendInt(dst, int64(c.Year), 1)
}

// AppendYear appends the year as ctime(3) prints it.
func AppendYear(dst []byte, c Civil) []byte {
	return appendInt(dst, int64(c.Year), 1)
}

// Ctime returns AppendCtime's text for sec seconds since the epoch in z.
func (z *Zone) Ctime(sec int64) string {
	var buf [40]byte
	return string(AppendCtime(buf[:0], z.Civil(sec)))
}

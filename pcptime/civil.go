package pcptime

// Civil is a broken-down local time, the fields of C's struct tm in
// natural units.
type Civil struct {
	Year    int    // the full year, e.g. 2023 (tm_year+1900)
	Month   int    // 1..12 (tm_mon+1)
	Day     int    // day of the month, 1..31
	Hour    int    // 0..23
	Minute  int    // 0..59
	Second  int    // 0..59, or 60 during a leap second in a "right/" zone
	Weekday int    // days since Sunday, 0..6 (tm_wday)
	YearDay int    // days since January 1st, 0..365 (tm_yday)
	Offset  int    // seconds east of UTC (tm_gmtoff)
	Abbrev  string // zone abbreviation (tm_zone), possibly empty
	IsDST   bool   // daylight saving time is in effect (tm_isdst)
}

// floorDiv returns a/b rounded towards minus infinity, and the remainder.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return
}

// daysToDate converts days since 1970-01-01 to a proleptic Gregorian date.
func daysToDate(days int64) (year, month, day int64) {
	// Shift to a calendar that starts on March 1st of year 0, so that the
	// leap day is the last day of its year, and count 400-year eras.
	z := days + 719468
	era, doe := floorDiv(z, 146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of era, 0..399
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of year from March 1st, 0..365
	mp := (5*doy + 2) / 153                                // month from March, 0..11
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return
}

// dateToDays converts a proleptic Gregorian date to days since 1970-01-01.
// The month may be outside 1..12 and the day outside the month: they carry
// over as C's mktime does.
func dateToDays(year, month, day int64) int64 {
	y, m0 := floorDiv(month-1, 12)
	year += y
	month = m0 + 1
	if month <= 2 {
		year--
	}
	era, yoe := floorDiv(year, 400)
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// utcYear is the UTC calendar year of sec.
func utcYear(sec int64) int64 {
	days, _ := floorDiv(sec, secsPerDay)
	y, _, _ := daysToDate(days)
	return y
}

// civilAt breaks down sec seen with offset seconds east of UTC.
func civilAt(sec, offset int64) Civil {
	days, rem := floorDiv(sec, secsPerDay)
	rem += offset
	d2, rem := floorDiv(rem, secsPerDay)
	days += d2
	y, m, d := daysToDate(days)
	_, wd := floorDiv(days+4, 7) // 1970-01-01 was a Thursday
	return Civil{
		Year:    int(y),
		Month:   int(m),
		Day:     int(d),
		Hour:    int(rem / 3600),
		Minute:  int(rem / 60 % 60),
		Second:  int(rem % 60),
		Weekday: int(wd),
		YearDay: int(days - dateToDays(y, 1, 1)),
		Offset:  int(offset),
	}
}

package pcptime

// mktimer converts local times back to instants the way the GNU C
// library's mktime(3) does for tm_isdst = -1: it guesses an instant from
// the offset found by its previous call (zero at first), corrects the guess
// by the difference between the wanted and the obtained local time, and
// in a gap between two offsets settles where its probing oscillates. For
// an ambiguous local time the answer therefore depends on the previous
// conversion, as it does in a real process; a mktimer keeps that state.
type mktimer struct {
	zone *Zone
	off  int64 // glibc's localtime_offset: the previous answer minus its guess
}

// localSeconds counts the seconds of a local date and time from
// 1970-01-01 00:00:00 as if there were no offsets: days from the year, day
// of the year (which may be out of range) and the clock.
func localSeconds(year, yday, hour, min, sec int64) int64 {
	return ((dateToDays(year, 1, 1)+yday)*24+hour)*3600 + min*60 + sec
}

// civilMk breaks sec down with the zone data mktime sees.
func (z *Zone) civilMk(sec int64) Civil {
	mk := z.data().mkFile
	if mk == nil {
		return z.Civil(sec)
	}
	off, abbrev, isDST := mk.lookup(sec)
	corr, hit := mk.leap(sec)
	c := civilAt(sec, off-corr)
	c.Offset, c.Abbrev, c.IsDST = int(off), abbrev, isDST
	c.Second += hit
	return c
}

// mktime returns the instant of the local time year-mon-mday
// hour:min:sec (mon 0-based; all fields may be out of range and carry
// over) and whether it could be found.
func (m *mktimer) mktime(year, mon, mday, hour, min, sec int64) (int64, bool) {
	y, mr := floorDiv(mon, 12)
	year += y
	row := 0
	if isLeap(year) {
		row = 13
	}
	yday := monthStart[row+int(mr)] - 1 + mday
	secRequested := sec
	sec = max(0, min64(sec, 59))

	want := localSeconds(year, yday, hour, min, sec)
	t0 := want + m.off
	t, t1, t2 := t0, t0, t0
	dst2 := false
	var tm Civil
	for probes := 6; ; {
		tm = m.zone.civilMk(t)
		got := localSeconds(int64(tm.Year), int64(tm.YearDay), int64(tm.Hour), int64(tm.Minute), int64(tm.Second))
		dt := want - got
		if dt == 0 {
			break
		}
		if t == t1 && t != t2 && dst2 {
			// Oscillating across a gap: take this side.
			break
		}
		probes--
		if probes == 0 {
			return 0, false
		}
		t1, t2, t, dst2 = t2, t, t+dt, tm.IsDST
	}
	m.off = t - t0 + m.off
	if secRequested != int64(tm.Second) {
		adj := secRequested - sec
		if sec == 0 && tm.Second == 60 {
			adj++
		}
		t += adj
	}
	return t, true
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

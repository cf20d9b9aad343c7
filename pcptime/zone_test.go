package pcptime

import (
	"math/rand"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// zoneSpecs are TZ values covering files, rule strings and the C library's
// treatment of malformed ones.
var zoneSpecs = []string{
	// Files (tried first, also for names that look like rules).
	"", ":", "UTC", ":UTC", "GMT", "EST5EDT", ":EST5EDT", "CST6CDT", "EST", "Europe/Berlin",
	":Europe/Berlin", "America/New_York", "Australia/Melbourne", "Australia/Lord_Howe",
	"Asia/Kolkata", "Pacific/Chatham", "America/Nuuk", "Africa/Casablanca", "Europe/Dublin",
	"Asia/Tehran", "Pacific/Apia", "America/Sao_Paulo", "Antarctica/Troll", "right/UTC",
	"right/Europe/London", "posix/Europe/Berlin", "/usr/share/zoneinfo/Asia/Tokyo",
	":/usr/share/zoneinfo/Asia/Tokyo", "Etc/GMT+5", "Etc/GMT-14", "Factory", "/etc/localtime",
	"America", "zone.tab", "/nonexistent/zone", ":/nonexistent/zone", "Europe/../Europe/Paris",
	// Rule strings.
	"AEST-10AEDT,M10.1.0,M4.1.0/3", "CST+6", "CST6", "<+0530>-5:30", "<-03>3", "<+14>-14",
	"EST-11EST-10,87/2:00,297/2:00", "XST5XDT", "AEST-10AEDT", "XST5XDT,", "XST5XDT4",
	"XST5XDT-3", "XST5XDT4,J60,J300", "XST5XDT,J1/0,J365/25", "XST5XDT,59,60", "XST5XDT,0,365",
	"XST5XDT,365,0", "NZST-12NZDT,M9.5.0,M4.1.0/3", "FOO3BAR,M3.5.0/-2,M10.5.0/-1",
	"IST-1GMT0,M10.5.0,M3.5.0/1", "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "ABC-5:30:45", "FOO-25",
	"FOO5:99:99", "FOO+-5", "FOO+ 5", "FOO- 5:3", "FOO5 ", "FOO5:", "FOO5::3",
	"XST5XDT,M3.2.0/167,M11.1.0/-167", "XST5XDT,M3.2.0/-1:30,M11.1.0/25:30:15",
	"XST5XDT,M3.2.0/2:-30,M11.1.0", "XST5XDT,M3.5.6,M11.5.6", "XST5XDT,M2.5.1,M2.5.2",
	"XST5XDT,M1.1.0/0,M12.5.6/24", "XST5XDT,M3.2.0/,M11.1.0", "XST5XDT4:30:10,M3.2.0,M11.1.0",
	"<A+1>-1<B-2>,M1.1.0,M12.5.6", "UTC0", "GMT0", "UTC+3", "UTC-3", "EST5EDT4", "EST5EDT,M3.2.0",
	"EST5EDT,M3.2.0,", "EST5EDT,,", "NOPE5DST,J60/2,J300/2",
	// Malformed rule strings.
	"EST5xy", "EST5x", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.0.0,M11.1.0",
	"EST5EDT,M3.2.0,M11.1.0garbage", "EST5EDT,M3.2.0,M11.1.0/2garbage", "EST5EDT,M3.2.0/x,M11.1.0",
	"EST5EDT,J0,J100", "EST5EDT,366,100", "EST5EDT,M3.2", "EST5EDT,M3.2.7,M11.1.0",
	"EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.0,M11", "EST5EDT;M3.2.0,M11.1.0", "EST5EDT,J,J",
	"garbage!", "ab", "a", "Foo", "Foo0", "Foo+", "Foo-", "<AB>5", "<ABC", "<ABC>", "<A!C>5",
	"12", "-5", " EST5", "EST 5", "EST5EDT 4", "Universal5", "EST5EDT,M3.2.0 ,M11.1.0",
	"EST5EDT,M 3.2.0,M11.1.0", "EST5EDT,M+3.+2.+0,M11.1.0",
	"EST5EDT,M3.2.0/99999,M11.1.0", "EST5EDT,M3.2.0/-0,M11.1.0/-",
	"EST99999999999999999999", "EST-99999999999999999999EDT",
}

// instantsFor returns instants worth checking for z: a grid, fixed dates,
// and the seconds around each change of offset or name found on the grid.
func instantsFor(z *Zone, r *rand.Rand) []int64 {
	fixed := []int64{
		0, -1, 1, 1000000000, 1700000000, 1720000000, 4000000000, -3000000000, 2147483647,
		2147483648, -2147483648, -2147483649, 253402300799, -62135596800, -62167219200,
		-62198755200, 1483228799, 1483228800, 1483228826, 1483228827, 915148821, 915148822,
		31536000, 31535999, 946684799, 946684800,
	}
	var out []int64
	out = append(out, fixed...)
	for i := 0; i < 200; i++ {
		out = append(out, r.Int63n(2*20000000000)-20000000000)
	}
	// Hourly over selected years, plus the exact changes.
	years := []int64{1850, 1900, 1968, 1969, 1970, 1971, 1996, 2000, 2020, 2023, 2024, 2037, 2038, 2100}
	for _, y := range years {
		start := dateToDays(y, 1, 1)*secsPerDay - 2*86400
		end := dateToDays(y+1, 1, 1)*secsPerDay + 2*86400
		prevOff, prevAbbr, _ := z.Lookup(start)
		prev := start
		for t := start + 3600; t <= end; t += 3600 {
			off, abbr, _ := z.Lookup(t)
			if (y == 2023 || y == 1969) && t%(5*3600) == 0 {
				out = append(out, t)
			}
			if off != prevOff || abbr != prevAbbr {
				// Bisect to the first second with the new values.
				lo, hi := prev, t
				for hi-lo > 1 {
					mid := lo + (hi-lo)/2
					o, a, _ := z.Lookup(mid)
					if o == prevOff && a == prevAbbr {
						lo = mid
					} else {
						hi = mid
					}
				}
				out = append(out, hi-2, hi-1, hi, hi+1, hi+3599, hi+3600)
			}
			prevOff, prevAbbr, prev = off, abbr, t
		}
	}
	return out
}

func TestZonesAgainstCLibrary(t *testing.T) {
	getOracle(t)
	r := rand.New(rand.NewSource(1))
	var qs []tzQuery
	for _, spec := range zoneSpecs {
		z := LoadZone(spec)
		for _, sec := range instantsFor(z, r) {
			qs = append(qs, tzQuery{tz: spec, set: true, sec: sec})
		}
	}
	// TZ unset: /etc/localtime.
	for _, sec := range instantsFor(loadZone("", false), r) {
		qs = append(qs, tzQuery{set: false, sec: sec})
	}
	checkZones(t, qs)
}

// TestZoneDirectoryVariable checks that TZDIR is honoured as the C library
// does, for TZ="" ("Universal"), plain names and "posixrules", with several
// files standing in for posixrules (wall-clock, standard-time and UT rules,
// a zone without current daylight time, and none at all).
func TestZoneDirectoryVariable(t *testing.T) {
	getOracle(t)
	for _, rules := range []string{"America/Chicago", "Australia/Sydney", "Europe/London", "Asia/Tokyo", "Etc/UTC", ""} {
		t.Run(strings.ReplaceAll(rules, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"Universal": "Asia/Tokyo", "Mine": "America/Chicago"}
			if rules != "" {
				files["posixrules"] = rules
			}
			for name, src := range files {
				b, err := os.ReadFile(defaultTZDir + "/" + src)
				if err != nil {
					t.Skipf("no %s: %v", src, err)
				}
				if err := os.WriteFile(dir+"/"+name, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("TZDIR", dir)
			var qs []tzQuery
			r := rand.New(rand.NewSource(2))
			for _, spec := range []string{"", "Mine", ":Mine", "UTC", "EST5EDT", "XST5XDT", "AEST-10AEDT",
				"XST5XDT4,", "XST6XDT5", "XST-9XDT-11", "XST0XDT-1"} {
				for _, sec := range instantsFor(LoadZone(spec), r) {
					qs = append(qs, tzQuery{tz: spec, set: true, sec: sec})
				}
			}
			checkZones(t, qs)
		})
	}
}

// TestZonesRapid checks random instants in a handful of zones.
func TestZonesRapid(t *testing.T) {
	o := getOracle(t)
	specs := []string{"Europe/Berlin", "EST5EDT", "AEST-10AEDT,M10.1.0,M4.1.0/3", "CST+6", "<+0530>-5:30",
		"AEST-10AEDT", "right/Europe/London", "IST-1GMT0,M10.5.0,M3.5.0/1"}
	rapid.Check(t, func(rt *rapid.T) {
		spec := rapid.SampledFrom(specs).Draw(rt, "zone")
		sec := rapid.Int64Range(-1<<36, 1<<36).Draw(rt, "sec")
		want := o.run(t, []tzQuery{{tz: spec, set: true, sec: sec}})[0]
		if got := civilKey(LoadZone(spec).Civil(sec)); got != want {
			rt.Fatalf("TZ=%q @%d: got %s, C library %s", spec, sec, got, want)
		}
	})
}

// TestZoneExamples pins a few results confirmed with
// TZ=... date -d @N '+%Y-%m-%d %H:%M:%S %Z %z %a'.
func TestZoneExamples(t *testing.T) {
	for _, tc := range []struct {
		tz   string
		sec  int64
		want string
	}{
		{"AEST-10AEDT", 4000000000, "2096-10-02 03:06:40 EDT -14400 2"}, // posixrules' own footer wins after 2037
		{"AEST-10AEDT", 1720000000, "2024-07-03 20:46:40 AEDT 39600 3"}, // posixrules' dates, the user's offsets
		{"EST5xy", 0, "1969-12-31 19:00:00 EST -18000 3"},
		{"EST5xy", 1700000000, "2023-11-14 22:13:20  0 2"},
		{"garbage!", 1700000000, "2023-11-14 22:13:20 garbage 0 2"},
		{"ab", 1700000000, "2023-11-14 22:13:20  0 2"},
		{":", 1700000000, "2023-11-14 22:13:20 UTC 0 2"},
		{"", 1700000000, "2023-11-14 22:13:20 UTC 0 2"},
		{"<+0530>-5:30", 1700000000, "2023-11-15 03:43:20 +0530 19800 3"},
		{"EST-11EST-10,87/2:00,297/2:00", 1720000000, "2024-07-03 19:46:40 EST 36000 3"},
	} {
		c := LoadZone(tc.tz).Civil(tc.sec)
		got := sprintCivil(c)
		if got != tc.want {
			t.Errorf("TZ=%q @%d: got %q, want %q", tc.tz, tc.sec, got, tc.want)
		}
	}
}

func sprintCivil(c Civil) string {
	b := appendInt(nil, int64(c.Year), 4)
	b = append(b, '-')
	b = appendInt(b, int64(c.Month), 2)
	b = append(b, '-')
	b = appendInt(b, int64(c.Day), 2)
	b = append(b, ' ')
	b = AppendClock(b, c)
	b = append(b, ' ')
	b = append(b, c.Abbrev...)
	b = append(b, ' ')
	b = appendInt(b, int64(c.Offset), 1)
	b = append(b, ' ')
	b = appendInt(b, int64(c.Weekday), 1)
	return string(b)
}

// TestZoneReadOnUse checks that a zone's file is read when the zone is
// first used, not when it is loaded (pminfo -f prints no local time and
// reads no zone file), and once only.
func TestZoneReadOnUse(t *testing.T) {
	b, err := os.ReadFile(defaultTZDir + "/Asia/Tokyo")
	if err != nil {
		t.Skipf("no zone file: %v", err)
	}
	dir := t.TempDir()
	t.Setenv("TZDIR", dir)
	z := LoadZone("Mine")
	// The file appears after the load: the zone is still Tokyo's.
	if err := os.WriteFile(dir+"/Mine", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if off, abbrev, _ := z.Lookup(1700000000); off != 9*3600 || abbrev != "JST" {
		t.Errorf("Lookup = %d %q, want 32400 \"JST\" (the file written after LoadZone)", off, abbrev)
	}
	// Read once: removing the file changes nothing.
	if err := os.Remove(dir + "/Mine"); err != nil {
		t.Fatal(err)
	}
	if c := z.Civil(1700000000); c.Offset != 9*3600 || c.Abbrev != "JST" {
		t.Errorf("Civil after the file went: %+v", c)
	}
}

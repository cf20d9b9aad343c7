package pcptime

import (
	"os"
	"strings"
	"sync"
)

// The C library's defaults.
const (
	defaultTZDir  = "/usr/share/zoneinfo"
	defaultTZFile = "/etc/localtime" // TZDEFAULT: the zone when TZ is unset
	defaultRules  = "posixrules"     // TZDEFRULES: rules for "std offset dst" without rules
)

// Zone is a time zone exactly as the GNU C library interprets a value of
// the TZ environment variable, for localtime(3) and therefore for the
// times the PCP tools print. A Zone is immutable and safe for concurrent
// use.
//
// A zone's file is read on first use, not when the zone is loaded: a tool
// that prints no local time (pminfo -f) reads no zone file.
type Zone struct {
	spec string // the TZ value it was loaded from

	once sync.Once
	load func() zoneData // reads the data on first use; nil: d is set
	d    zoneData
}

// zoneData is what a Zone holds of its TZ value.
type zoneData struct {
	file  *tzFile // the TZif data, when the C library would use a file
	rules posixTZ // the rule string's zone, when file is nil

	// mkFile is the file mktime(3) sees when it differs from the one
	// localtime(3) sees (a rule string that takes its dates from
	// posixrules; see withUserOffsets).
	mkFile *tzFile
}

// data is the zone's data, read on the first call.
func (z *Zone) data() *zoneData {
	if z.load != nil {
		z.once.Do(func() { z.d = z.load() })
	}
	return &z.d
}

// Name returns the TZ value the zone was loaded from ("" for LocalZone
// when TZ is unset).
func (z *Zone) Name() string { return z.spec }

// String returns the TZ value the zone was loaded from.
func (z *Zone) String() string { return z.spec }

var (
	zoneCacheMu sync.Mutex
	zoneCache   = map[[3]string]*Zone{}
)

// UTC is the zone "UTC" with no leap seconds, as the C library uses when
// nothing at all is specified.
var UTC = &Zone{spec: "UTC", d: zoneData{rules: utcRules()}}

// LoadZone returns the zone the C library uses when the environment holds
// TZ=tz, the way the PCP tools apply the user's $TZ, an archive label's
// zone (-z) or an explicit -Z argument. It never fails; it follows glibc
// 2.36:
//
//   - "" means "Universal" and a leading ':' is dropped;
//   - the value is first tried as a TZif file, relative to $TZDIR (default
//     /usr/share/zoneinfo) unless it starts with '/'; so "EST5EDT", "UTC"
//     and "Europe/Berlin" are files, and a file wins over a rule string of
//     the same name;
//   - an empty name (TZ=":") or an unreadable /etc/localtime is UTC, named
//     "UTC";
//   - anything else is a POSIX rule string "std offset [dst [offset]
//     [,start[/time],end[/time]]]" with Mm.w.d, Jn and n dates and times
//     from -167 to 167 hours; the rules apply to the UTC year of an instant,
//     and for years up to 1970 they are counted from January 1st 1970;
//   - a daylight zone without rules ("AEST-10AEDT", "XST5XDT,") takes its
//     change dates from the "posixrules" file (America/New_York on Debian):
//     changes to daylight time move by the standard offsets' difference,
//     changes back by the user's daylight offset alone (a glibc quirk, see
//     withUserOffsets, that makes "XST5XDT" leave daylight time four hours
//     before New York does), and after the file's last transition (2037)
//     its own rule string applies, names and offsets included ("EDT -0400"
//     for "AEST-10AEDT" in 2096). Without posixrules the US rules
//     M3.2.0,M11.1.0 apply;
//   - what cannot be parsed keeps what was parsed before the error and
//     zero for the rest: "garbage!" is UTC named "garbage", "ab" is UTC
//     named "", "EST5xy" has an unnamed daylight time at offset 0 from
//     January 1st 05:00 UTC to the end of the year, and a rule date that
//     fails its range check is still used with the fields it read (a month
//     outside 1..12 reads outside glibc's table; that is approximated).
//
// glibc caches a rule's change per year and marks never-parsed rules as
// computed for year 0 with change 0; that is reproduced for year 0 too.
func LoadZone(tz string) *Zone {
	return loadZone(tz, true)
}

// LocalZone returns the zone the C library uses for this process's
// environment: TZ when it is set (see LoadZone), /etc/localtime when it is
// not (UTC if that cannot be read).
func LocalZone() *Zone {
	tz, ok := os.LookupEnv("TZ")
	return loadZone(tz, ok)
}

func loadZone(tz string, set bool) *Zone {
	tzdir := os.Getenv("TZDIR")
	if tzdir == "" {
		tzdir = defaultTZDir
	}
	key := [3]string{tz, tzdir, ""}
	if !set {
		key[2] = "unset"
	}
	zoneCacheMu.Lock()
	z, ok := zoneCache[key]
	zoneCacheMu.Unlock()
	if ok {
		return z
	}
	z = &Zone{spec: tz, load: func() zoneData { return newZone(tz, set, tzdir) }}
	zoneCacheMu.Lock()
	if len(zoneCache) > 1000 {
		clear(zoneCache)
	}
	zoneCache[key] = z
	zoneCacheMu.Unlock()
	return z
}

// newZone reads the data of the zone of TZ value tz (set: TZ is set at
// all) with zone files under tzdir.
func newZone(tz string, set bool, tzdir string) zoneData {
	var z zoneData
	name := tz
	if !set {
		name = defaultTZFile
	} else {
		if name == "" {
			name = "Universal"
		}
		name = strings.TrimPrefix(name, ":")
	}
	if f := readZoneFile(name, tzdir); f != nil {
		z.file = f
		return z
	}
	if name == "" || name == defaultTZFile {
		z.rules = utcRules()
		return z
	}
	var mk *tzFile
	defaults := func(std, dst string, stdOff, dstOff int64) *tzFile {
		f := readZoneFile(defaultRules, tzdir)
		if f == nil {
			return nil
		}
		mk = f.withUserOffsets(std, dst, stdOff, dstOff, dstOff)
		return f.withUserOffsets(std, dst, stdOff, dstOff, 0)
	}
	z.rules, z.file = parsePosixTZ(name, defaults)
	if z.file != nil {
		z.mkFile = mk
	}
	return z
}

// readZoneFile reads the TZif file the C library would open for name, or
// returns nil.
func readZoneFile(name, tzdir string) *tzFile {
	if name == "" {
		return nil
	}
	path := name
	if name[0] != '/' {
		path = tzdir + "/" + name
	}
	f, err := readTZif(path)
	if err != nil {
		return nil
	}
	return f
}

// Lookup returns the offset from UTC in seconds (east positive), the zone
// abbreviation and whether daylight saving time applies at sec seconds
// since the epoch: tm_gmtoff, tm_zone and tm_isdst of localtime(3).
func (z *Zone) Lookup(sec int64) (offsetSec int, abbrev string, isDST bool) {
	var off int64
	if d := z.data(); d.file != nil {
		off, abbrev, isDST = d.file.lookup(sec)
	} else {
		off, abbrev, isDST = d.rules.lookup(sec)
	}
	return int(off), abbrev, isDST
}

// Civil returns the local time at sec seconds since the epoch, as
// localtime(3) breaks it down.
func (z *Zone) Civil(sec int64) Civil {
	off, abbrev, isDST := z.Lookup(sec)
	var corr int64
	hit := 0
	if f := z.data().file; f != nil {
		corr, hit = f.leap(sec)
	}
	c := civilAt(sec, int64(off)-corr)
	c.Offset = off
	c.Second += hit
	c.Abbrev = abbrev
	c.IsDST = isDST
	return c
}

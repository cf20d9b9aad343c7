package pcptime

import (
	"os"
	"testing"
)

func TestLocalZone(t *testing.T) {
	t.Setenv("TZ", "EST5EDT")
	if z := LocalZone(); z.Name() != "EST5EDT" {
		t.Errorf("LocalZone with TZ=EST5EDT is %q", z.Name())
	}
	t.Setenv("TZ", "")
	if off, abbr, _ := LocalZone().Lookup(1700000000); off != 0 || abbr != "UTC" && abbr != "Universal" {
		t.Errorf("LocalZone with TZ= is %d %q, want UTC", off, abbr)
	}
	os.Unsetenv("TZ")
	unset := LocalZone()
	if unset.Name() != "" {
		t.Errorf("LocalZone with TZ unset is named %q", unset.Name())
	}
	// The C library reads /etc/localtime; compare a few instants.
	getOracle(t)
	var qs []tzQuery
	for _, sec := range []int64{0, 1000000000, 1700000000, 1720000000} {
		qs = append(qs, tzQuery{set: false, sec: sec})
	}
	checkZones(t, qs)
}

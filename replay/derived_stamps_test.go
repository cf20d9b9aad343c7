package replay_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// rateStamps are record times a few seconds apart whose nanoseconds go
// down and up by turns. For each step, libpcp 6.0.3's derived rate()
// divides by an interval (derive_fetch.c: pmtimespecDec, which borrows a
// second when the nanoseconds go down, then pmtimespecToReal;
// pcptime.SubBorrow) that differs in its last bit from __pmTimestampSub's
// (pcptime.Sub) in the direction in which the nanoseconds go down:
// forwards, then backwards, and so on. The rate differs with it.
var rateStamps = []pmapi.Timestamp{
	{Sec: 1700000000, Nsec: 900000000}, {Sec: 1700000002, Nsec: 644016495},
	{Sec: 1700000004, Nsec: 952196566}, {Sec: 1700000006, Nsec: 895106088},
	{Sec: 1700000008, Nsec: 901379142}, {Sec: 1700000012, Nsec: 461143006},
	{Sec: 1700000014, Nsec: 867874656},
}

// TestDerivedRateStampsOracle compares rate() over an archive of
// rateStamps with libpcp, bit for bit (derive.py prints the doubles'
// bits), reading forwards and backwards: it tells which interval libpcp's
// rate() uses.
func TestDerivedRateStampsOracle(t *testing.T) {
	const step = 4e9
	for i := 1; i < len(rateStamps); i++ {
		a, b := rateStamps[i], rateStamps[i-1] // a - b forwards
		if i%2 == 0 {
			a, b = b, a // backwards
		}
		if a.Nsec > b.Nsec {
			t.Fatalf("%v - %v: the nanoseconds go up", a, b)
		}
		if s, r := step/pcptime.Sub(a, b), step/pcptime.SubBorrow(a, b); math.Float64bits(s) == math.Float64bits(r) {
			t.Fatalf("%v - %v: both intervals give a rate of %v", a, b, s)
		}
	}
	dmOracle(t)
	base := filepath.Join(t.TempDir(), "ratestamps")
	w, err := archive.Create(base, archive.WriterOptions{Hostname: "h", TZ: "UTC", Start: rateStamps[0]})
	if err != nil {
		t.Fatal(err)
	}
	pmid := pmapi.NewPMID(245, 0, 1)
	if err := w.PutDesc(pmapi.Desc{PMID: pmid, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter,
		Units: pmapi.Units{DimCount: 1}}, []string{"x.c"}); err != nil {
		t.Fatal(err)
	}
	for i, ts := range rateStamps {
		v := uint32(uint64(i) * step) // wraps; the U32 difference is step
		vs := pmapi.ValueSet{PMID: pmid, NumVal: 1, Values: []pmapi.Value{{Inst: -1, Insitu: int32(v)}}}
		if err := w.PutResult(&pmapi.Result{Timestamp: ts, VSets: []pmapi.ValueSet{vs}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	first, last := rateStamps[0], rateStamps[len(rateStamps)-1]
	ops := fmt.Sprintf("mode forw %d %d 0 0\nfetch %d\nmode back %d %d 0 0\nfetch %d\n",
		first.Sec, first.Nsec, len(rateStamps), last.Sec, last.Nsec, len(rateStamps))
	dmCompare(t, base, "r.x = rate(x.c)\n", "r.x", ops)
}

package interp_test

import (
	"encoding/binary"
	"testing"

	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// TestCounterMidpoint interpolates a U64 counter of a small committed
// archive between two records and checks libpcp's formula: the prior
// value plus the elapsed fraction of the difference, rounded by adding
// 0.5 and truncating.
func TestCounterMidpoint(t *testing.T) {
	c, err := replay.Open("../testdata/archives/pmcd-v3")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pmid, ok := c.Meta().Lookup("kernel.all.pswitch")
	if !ok {
		t.Fatal("no kernel.all.pswitch")
	}
	var stamps []pmapi.Timestamp
	var vals []uint64
	for len(stamps) < 2 {
		res, err := c.Fetch([]pmapi.PMID{pmid})
		if err != nil {
			t.Fatal(err)
		}
		vs := res.VSets[0]
		if vs.NumVal != 1 {
			continue
		}
		stamps = append(stamps, res.Timestamp)
		vals = append(vals, binary.BigEndian.Uint64(vs.Values[0].Block))
	}
	span := pcptime.Sub(stamps[1], stamps[0])
	at := interp.AddDelta(stamps[0], int64(span*1e9/3))
	if err := c.SetMode(replay.Interp, at, 1e9); err != nil {
		t.Fatal(err)
	}
	res, err := c.Fetch([]pmapi.PMID{pmid})
	if err != nil {
		t.Fatal(err)
	}
	if res.VSets[0].NumVal != 1 {
		t.Fatalf("numval %d at %v", res.VSets[0].NumVal, at)
	}
	got := binary.BigEndian.Uint64(res.VSets[0].Values[0].Block)
	dt := pcptime.Sub(at, stamps[0])
	want := uint64(0.5 + float64(int64(vals[0])) + dt*float64(int64(vals[1]-vals[0]))/span)
	if got != want {
		t.Errorf("at %v: %d, want %d (between %d and %d)", at, got, want, vals[0], vals[1])
	}
	if got < vals[0] || got > vals[1] {
		t.Errorf("at %v: %d is not between %d and %d", at, got, vals[0], vals[1])
	}
}

package replay_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// TestInDomAPI checks the context's instance-domain calls on basic3,
// whose kernel.all.load indom 60.2 has one snapshot (1 "1 minute",
// 5 "5 minute", 15 "15 minute"; pmdumplog -i and pminfo -f agree). The
// name rule is 6.0.3's: "15" finds "1 minute", as the real pmval -i 15
// shows (TestInteropInstanceNames in internal/pmval).
func TestInDomAPI(t *testing.T) {
	c, err := replay.Open(dmArchive(t, "basic3"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	indom := pmapi.NewInDom(60, 2)
	wantIDs := []int32{1, 5, 15}
	wantNames := []string{"1 minute", "5 minute", "15 minute"}

	// Before any snapshot: the origin is the label's start, before the
	// indom's first record.
	if _, _, err := c.InDom(indom); !errors.Is(err, pmapi.ErrInDomLog) {
		t.Errorf("InDom at the start: %v, want PM_ERR_INDOM_LOG", err)
	}
	// libpcp (python3-pcp, basic3) gives -12379 for all three here.
	if _, err := c.LookupInDom(indom, "15"); !errors.Is(err, pmapi.ErrInDomLog) {
		t.Errorf("LookupInDom at the start: %v, want PM_ERR_INDOM_LOG", err)
	}
	if _, err := c.NameInDom(indom, 15); !errors.Is(err, pmapi.ErrInDomLog) {
		t.Errorf("NameInDom at the start: %v, want PM_ERR_INDOM_LOG", err)
	}
	ids, names, err := c.InDomArchive(indom)
	if err != nil || !cmp.Equal(ids, wantIDs) || !cmp.Equal(names, wantNames) {
		t.Errorf("InDomArchive = %v %q %v", ids, names, err)
	}
	end, err := c.End()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetMode(replay.Forw, end, 0); err != nil {
		t.Fatal(err)
	}
	ids, names, err = c.InDom(indom)
	if err != nil || !cmp.Equal(ids, wantIDs) || !cmp.Equal(names, wantNames) {
		t.Errorf("InDom at the end = %v %q %v", ids, names, err)
	}
	for _, tc := range []struct {
		name string
		id   int32
		err  error
	}{
		{"1 minute", 1, nil},
		{"15 minute", 15, nil},
		{"5", 5, nil},
		{"15", 1, nil}, // "1" is a prefix of "15": 6.0.3's rule
		{"150", 1, nil},
		{"minute", 0, pmapi.ErrInstLog},
	} {
		id, err := c.LookupInDomArchive(indom, tc.name)
		if id != tc.id || !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
			t.Errorf("LookupInDomArchive(%q) = %d, %v; want %d, %v", tc.name, id, err, tc.id, tc.err)
		}
		cur := tc.err
		if cur != nil {
			cur = pmapi.ErrInst
		}
		id, err = c.LookupInDom(indom, tc.name)
		if id != tc.id || !errors.Is(err, cur) && !(err == nil && cur == nil) {
			t.Errorf("LookupInDom(%q) = %d, %v; want %d, %v", tc.name, id, err, tc.id, cur)
		}
	}
	if n, err := c.NameInDomArchive(indom, 5); n != "5 minute" || err != nil {
		t.Errorf("NameInDomArchive(5) = %q, %v", n, err)
	}
	if n, err := c.NameInDom(indom, 15); n != "15 minute" || err != nil {
		t.Errorf("NameInDom(15) = %q, %v", n, err)
	}
	if _, err := c.NameInDomArchive(indom, 2); !errors.Is(err, pmapi.ErrInstLog) {
		t.Errorf("NameInDomArchive(2): %v, want PM_ERR_INST_LOG", err)
	}
	if _, err := c.NameInDom(indom, 2); !errors.Is(err, pmapi.ErrInst) {
		t.Errorf("NameInDom(2): %v, want PM_ERR_INST", err)
	}
	if _, _, err := c.InDomArchive(pmapi.NewInDom(60, 999)); !errors.Is(err, pmapi.ErrInDomLog) {
		t.Errorf("InDomArchive of an unknown indom: %v", err)
	}
}

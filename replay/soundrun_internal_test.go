package replay

import "testing"

// TestSoundRun: records found sound one right after the other (either
// way) make one run; anything else starts a new one, and only records
// inside the run are held.
func TestSoundRun(t *testing.T) {
	type rec struct {
		ai, vol  int
		off, end int64
	}
	var s soundRun
	if s.holds(0, 0, 0, 10) {
		t.Fatal("an empty run holds a record")
	}
	for _, c := range []struct {
		add    rec
		lo, hi int64
		holds  []rec
		not    []rec
	}{
		{add: rec{0, 0, 100, 150}, lo: 100, hi: 150,
			holds: []rec{{0, 0, 100, 150}},
			not:   []rec{{0, 0, 150, 200}, {0, 1, 100, 150}, {1, 0, 100, 150}}},
		{add: rec{0, 0, 150, 200}, lo: 100, hi: 200, // after it
			holds: []rec{{0, 0, 100, 150}, {0, 0, 150, 200}},
			not:   []rec{{0, 0, 150, 201}, {0, 0, 99, 150}}},
		{add: rec{0, 0, 60, 100}, lo: 60, hi: 200, // before it (reading back)
			holds: []rec{{0, 0, 60, 100}, {0, 0, 150, 200}}},
		{add: rec{0, 0, 300, 350}, lo: 300, hi: 350, // a gap: a new run
			not: []rec{{0, 0, 100, 150}}},
		{add: rec{0, 1, 350, 400}, lo: 350, hi: 400, // another volume
			not: []rec{{0, 0, 300, 350}}},
		{add: rec{1, 1, 400, 450}, lo: 400, hi: 450, // another archive
			not: []rec{{0, 1, 350, 400}}},
	} {
		s.add(c.add.ai, c.add.vol, c.add.off, c.add.end)
		if s.lo != c.lo || s.hi != c.hi || s.ai != c.add.ai || s.vol != c.add.vol {
			t.Fatalf("after adding %v: run %+v, want [%d, %d)", c.add, s, c.lo, c.hi)
		}
		for _, r := range c.holds {
			if !s.holds(r.ai, r.vol, r.off, r.end) {
				t.Errorf("after adding %v: run %+v does not hold %v", c.add, s, r)
			}
		}
		for _, r := range c.not {
			if s.holds(r.ai, r.vol, r.off, r.end) {
				t.Errorf("after adding %v: run %+v holds %v", c.add, s, r)
			}
		}
	}
}

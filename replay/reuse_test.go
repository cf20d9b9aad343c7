package replay

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestSetReuse: with SetReuse, interpolated fetches of every metric of
// an archive give what fresh results give, forwards and backwards, and
// a fetch after the first allocates nothing for its result.
func TestSetReuse(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "sample-v3")
	for _, delta := range []int64{5e8, -5e8} {
		fresh, reused := openReuse(t, path, delta, 0), openReuse(t, path, delta, 1)
		var pmids []pmapi.PMID
		for _, name := range fresh.Meta().Traverse("") {
			if p, ok := fresh.Meta().Lookup(name); ok {
				pmids = append(pmids, p)
			}
		}
		n := 0
		for ; ; n++ {
			want, werr := fresh.Fetch(pmids)
			got, gerr := reused.Fetch(pmids)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("delta %d, fetch %d: error %v, want %v", delta, n, gerr, werr)
			}
			if errors.Is(werr, pmapi.ErrEOL) {
				break
			}
			if werr != nil {
				t.Fatal(werr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("delta %d, fetch %d: reused result differs (-fresh +reused):\n%s", delta, n, d)
			}
		}
		if n < 5 {
			t.Fatalf("delta %d: only %d fetches", delta, n)
		}
	}
	// Over and over at one time: the result's memory is the last one's.
	c := openReuse(t, path, 0, 1)
	var pmids []pmapi.PMID
	for _, name := range c.Meta().Traverse("") {
		if p, ok := c.Meta().Lookup(name); ok {
			pmids = append(pmids, p)
		}
	}
	first, err := c.Fetch(pmids)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		res, err := c.Fetch(pmids)
		if err != nil || res != first {
			t.Fatalf("fetch: %p, %v; want the first result %p", res, err, first)
		}
	}); n > 0 {
		t.Errorf("%v allocations per fetch with SetReuse", n)
	}
}

// TestSetReuseAfter: with SetReuseAfter(2), a result stays as it was
// through the next fetch (a rate conversion reads it beside the next),
// the one after that fills its memory again, and every result is what a
// fresh one is.
func TestSetReuseAfter(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "sample-v3")
	fresh, reused := openReuse(t, path, 5e8, 0), openReuse(t, path, 5e8, 2)
	var pmids []pmapi.PMID
	for _, name := range fresh.Meta().Traverse("") {
		if p, ok := fresh.Meta().Lookup(name); ok {
			pmids = append(pmids, p)
		}
	}
	var results, wants []*pmapi.Result
	for n := 0; ; n++ {
		want, werr := fresh.Fetch(pmids)
		got, gerr := reused.Fetch(pmids)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("fetch %d: error %v, want %v", n, gerr, werr)
		}
		if errors.Is(werr, pmapi.ErrEOL) {
			if n < 5 {
				t.Fatalf("only %d fetches", n)
			}
			return
		}
		if werr != nil {
			t.Fatal(werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("fetch %d: reused result differs (-fresh +reused):\n%s", n, d)
		}
		if n > 0 {
			if d := cmp.Diff(wants[n-1], results[n-1]); d != "" {
				t.Fatalf("fetch %d changed the result before it (-fresh +reused):\n%s", n, d)
			}
		}
		if n > 1 && got != results[n-2] {
			t.Fatalf("fetch %d: result %p, not the memory of fetch %d's (%p)", n, got, n-2, results[n-2])
		}
		results, wants = append(results, got), append(wants, want)
	}
}

func openReuse(t *testing.T, path string, delta int64, reuse int) *Context {
	t.Helper()
	c, err := OpenOptions(path, Options{Version: Version603})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	start := c.Label().Start
	if delta < 0 {
		if start, err = c.End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetMode(Interp, start, delta); err != nil {
		t.Fatal(err)
	}
	c.SetReuseAfter(reuse)
	return c
}

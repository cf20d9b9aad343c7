package archive

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestEmptyLaterVolumes: empty data volumes after the first (files of
// no bytes, as PCP QA 566 makes them) are passed over forwards and
// backwards, as libpcp passes over a volume it cannot change to: the
// records are those of the archive without them, and no error is given.
func TestEmptyLaterVolumes(t *testing.T) {
	src := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	dir := t.TempDir()
	base := filepath.Join(dir, "a")
	for _, suf := range []string{".0", ".meta", ".index"} {
		b, err := os.ReadFile(src + suf)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(base+suf, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stamps := func(forw bool) []pmapi.Timestamp {
		a, err := Open(base)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		c := a.NewCursor()
		if !forw {
			c.SeekEnd()
		}
		var out []pmapi.Timestamp
		for {
			var r *Record
			var err error
			if forw {
				r, err = c.Next()
			} else {
				r, err = c.Prev()
			}
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatalf("forw=%v after %d records: %v", forw, len(out), err)
			}
			out = append(out, r.Stamp)
		}
	}
	wantF, wantB := stamps(true), stamps(false)
	if len(wantF) == 0 || len(wantF) != len(wantB) {
		t.Fatalf("%d records forwards, %d backwards", len(wantF), len(wantB))
	}
	for _, v := range []string{".1", ".2", ".999"} {
		if err := os.WriteFile(base+v, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, forw := range []bool{true, false} {
		got, want := stamps(forw), wantF
		if !forw {
			want = wantB
		}
		if len(got) != len(want) {
			t.Fatalf("forw=%v: %d records, want %d", forw, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("forw=%v: record %d at %v, want %v", forw, i, got[i], want[i])
			}
		}
	}
}

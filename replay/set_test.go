package replay_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// testdata/archives' pmcd-v3, pmcd-v2 and sample-v3 were recorded one
// after the other on one host, so together they make a multi-archive
// set (in that time order).
const setList = "pmcd-v3,pmcd-v2,sample-v3"

func openCtx(t *testing.T, name string) *replay.Context {
	t.Helper()
	c, err := replay.Open(name)
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readRecords fetches records in c's mode to the end, checking that the
// stamps never go against the direction, and returns the records' and
// the <mark>s' stamps.
func readRecords(t *testing.T, c *replay.Context) (recs, marks []pmapi.Timestamp) {
	t.Helper()
	var last *pmapi.Timestamp
	for {
		r, err := c.FetchRecord()
		if errors.Is(err, pmapi.ErrEOL) {
			return
		}
		if err != nil {
			t.Fatalf("FetchRecord: %v", err)
		}
		if last != nil && (c.Mode() == replay.Forw) == r.Stamp.Before(*last) && r.Stamp != *last {
			t.Fatalf("%v: record at %v after one at %v", c.Mode(), r.Stamp, *last)
		}
		s := r.Stamp
		last = &s
		if r.IsMark() {
			marks = append(marks, s)
		} else {
			recs = append(recs, s)
		}
	}
}

// countRecords counts an archive's records that are not <mark>s.
func countRecords(t *testing.T, a *archive.Archive) (n int) {
	t.Helper()
	c := a.NewCursor()
	for {
		r, err := c.Next()
		if err != nil {
			return n
		}
		if !r.IsMark() {
			n++
		}
	}
}

// TestFetchRecordSet reads a set forwards and backwards: every record of
// every archive, and a virtual <mark> 1 ms after the end of each archive
// but the last (forwards) or 1 ms before the start of each but the first
// (backwards), stamped as libpcp stamps it (an unnormalised 1e9 ns
// stays).
func TestFetchRecordSet(t *testing.T) {
	t.Chdir(testenv.ArchivesDir(t))
	for _, name := range []string{"pmcd-v3", setList, "sample-v3,pmcd-v2,pmcd-v3,"} {
		c := openCtx(t, name)
		s := c.Set()
		n := 0
		for i := 0; i < s.Len(); i++ {
			n += countRecords(t, s.Archive(i))
		}
		recs, marks := readRecords(t, c)
		if len(recs) != n || len(marks) != s.Len()-1 {
			t.Errorf("%s forwards: %d records and %d marks, want %d and %d", name, len(recs), len(marks), n, s.Len()-1)
		}
		for i, m := range marks {
			end, _ := s.Archive(i).End()
			want := end
			if want.Nsec += 1e6; want.Nsec > 1e9 {
				want.Sec, want.Nsec = want.Sec+1, want.Nsec-1e9
			}
			if m != want {
				t.Errorf("%s: mark %d at %v, want %v", name, i, m, want)
			}
		}
		end, _ := c.End()
		if err := c.SetMode(replay.Back, end, 0); err != nil {
			t.Fatal(err)
		}
		brecs, bmarks := readRecords(t, c)
		if len(brecs) != n || len(bmarks) != s.Len()-1 {
			t.Errorf("%s backwards: %d records and %d marks, want %d and %d", name, len(brecs), len(bmarks), n, s.Len()-1)
		}
		for i, m := range bmarks {
			if want := s.Archive(s.Len() - 1 - i).Label().Start.Add(-1e6); m != want {
				t.Errorf("%s: backwards mark %d at %v, want %v", name, i, m, want)
			}
		}
	}
}

// TestFetchRecordOrigin checks that the first record fetched forwards is
// the first record (or virtual mark) at or after the origin, wherever it
// lies.
func TestFetchRecordOrigin(t *testing.T) {
	t.Chdir(testenv.ArchivesDir(t))
	c := openCtx(t, setList)
	all, marks := readRecords(t, c)
	stamps := append(append([]pmapi.Timestamp(nil), all...), marks...)
	for _, at := range stamps {
		for _, d := range []int64{-1, 0, 1, 500e6} {
			origin := at.Add(d)
			c.SetMode(replay.Forw, origin, 0)
			r, err := c.FetchRecord()
			var want *pmapi.Timestamp
			for i := range stamps {
				if stamps[i].Compare(origin) >= 0 && (want == nil || stamps[i].Before(*want)) {
					want = &stamps[i]
				}
			}
			if want == nil {
				if !errors.Is(err, pmapi.ErrEOL) {
					t.Errorf("origin %v: %v, %v; want the end", origin, r, err)
				}
				continue
			}
			if err != nil || r.Stamp != *want {
				t.Errorf("origin %v: first record %v (%v), want %v", origin, r, err, *want)
			}
		}
	}
}

// TestArchiveLabelOrigin checks the effect of pmGetArchiveLabel on a
// context positioned in a later archive: reading resumes from the index
// position, before the origin SetMode gave; in the first archive nothing
// changes.
func TestArchiveLabelOrigin(t *testing.T) {
	t.Chdir(testenv.ArchivesDir(t))
	c := openCtx(t, setList)
	s := c.Set()
	start := s.Archive(1).Label().Start
	c.SetMode(replay.Forw, start.Add(5e9), 0)
	if l := c.ArchiveLabel(); l != s.Label() {
		t.Errorf("ArchiveLabel is not the first archive's label")
	}
	r, err := c.FetchRecord()
	if err != nil {
		t.Fatal(err)
	}
	if !r.Stamp.Before(start.Add(5e9)) || r.Stamp.Before(start) {
		t.Errorf("after ArchiveLabel the first record is at %v, want one in [%v, %v)", r.Stamp, start, start.Add(5e9))
	}
	c.SetMode(replay.Forw, s.Archive(0).Label().Start.Add(3e9), 0)
	c.ArchiveLabel()
	r, err = c.FetchRecord()
	if err != nil || r.Stamp.Before(s.Archive(0).Label().Start.Add(3e9)) {
		t.Errorf("ArchiveLabel in the first archive: %v, %v", r, err)
	}
}

// TestFetchRecordSharedMulti reads the shared multi-archive directories:
// the same records in the v2, v3 and xz copies, a virtual mark between
// archives.
func TestFetchRecordSharedMulti(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-qa-archives")
	var first []pmapi.Timestamp
	for _, d := range []string{"multi", "multi_v3", "multi-xz"} {
		c := openCtx(t, filepath.Join(dir, d))
		recs, marks := readRecords(t, c)
		if len(marks) != 3 {
			t.Errorf("%s: %d virtual marks, want 3", d, len(marks))
		}
		if first == nil {
			first = recs
		} else if len(recs) != len(first) {
			t.Errorf("%s: %d records, multi has %d", d, len(recs), len(first))
		}
	}
}

package replay_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// propertyArchives are single archives for the property tests: the ones
// in testdata/archives, and some shared ones when they are there.
func propertyArchives(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	out := []string{
		filepath.Join(root, "testdata", "archives", "pmcd-v3"),
		filepath.Join(root, "testdata", "archives", "pmcd-v2"),
		filepath.Join(root, "testdata", "archives", "sample-v3"),
	}
	shared := filepath.Join(filepath.Dir(root), "shared")
	for _, a := range []string{
		"pcp-made-archives/synth3", "pcp-made-archives/sample3", "pcp-made-archives/vol3",
		"pcp-qa-archives/gap2", "pcp-qa-archives/mirage", "pcp-qa-archives/ok-mv-bar",
		"pcp-qa-archives/ok-noti-interp", "pcp-qa-archives/19970807.09.54",
	} {
		if _, err := os.Stat(filepath.Join(shared, a+".meta")); err == nil {
			out = append(out, filepath.Join(shared, a))
		}
	}
	return out
}

// records reads every record of an archive, <mark>s included.
func records(t *rapid.T, path string) []*pmapi.Result {
	c, err := replay.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer c.Close()
	var out []*pmapi.Result
	for {
		r, err := c.FetchArchive()
		if errors.Is(err, pmapi.ErrEOL) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
}

// TestPropertyForwBack: reading the records of a time window forwards,
// then backwards, gives the same records in reverse order.
func TestPropertyForwBack(t *testing.T) {
	paths := propertyArchives(t)
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.SampledFrom(paths).Draw(t, "archive")
		all := records(t, path)
		if len(all) == 0 {
			t.Skip("empty")
		}
		first, last := all[0].Timestamp, all[len(all)-1].Timestamp
		span := int64((last.Sec-first.Sec)*1e9) + int64(last.Nsec-first.Nsec)
		a := rapid.Int64Range(-1e9, span+1e9).Draw(t, "from")
		b := rapid.Int64Range(a, span+1e9).Draw(t, "to")
		from, to := first.Add(a), first.Add(b)

		c, err := replay.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var forw, back []*pmapi.Result
		c.SetMode(replay.Forw, from, 0)
		for {
			r, err := c.FetchArchive()
			if err != nil || to.Before(r.Timestamp) {
				break
			}
			forw = append(forw, r)
		}
		c.SetMode(replay.Back, to, 0)
		for {
			r, err := c.FetchArchive()
			if err != nil || r.Timestamp.Before(from) {
				break
			}
			back = append(back, r)
		}
		if len(forw) != len(back) {
			t.Fatalf("%d records forwards, %d backwards", len(forw), len(back))
		}
		for i := range forw {
			if !forw[i].Equal(back[len(back)-1-i]) {
				t.Fatalf("record %d of %d differs: forwards %+v, backwards %+v", i, len(forw), forw[i], back[len(back)-1-i])
			}
		}
	})
}

// TestPropertyInterpAtRecord: interpolating at the time of a record gives
// that record's values for the instant and discrete metrics whose
// instances are also in the records before and after it that hold the
// metric (with no <mark> in between).
func TestPropertyInterpAtRecord(t *testing.T) {
	paths := propertyArchives(t)
	rapid.Check(t, func(t *rapid.T) {
		path := rapid.SampledFrom(paths).Draw(t, "archive")
		all := records(t, path)
		if len(all) < 3 {
			t.Skip("short")
		}
		k := rapid.IntRange(1, len(all)-2).Draw(t, "record")
		rec := all[k]
		if rec.IsMark() || all[k-1].Timestamp == rec.Timestamp || all[k+1].Timestamp == rec.Timestamp {
			t.Skip("a mark, or a time shared with another record")
		}
		c, err := replay.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()

		// instances in the neighbouring records holding each metric
		neighbour := func(p pmapi.PMID, inst int32, step int) bool {
			for i := k + step; i >= 0 && i < len(all); i += step {
				if all[i].IsMark() {
					return false
				}
				for _, vs := range all[i].VSets {
					if vs.PMID != p {
						continue
					}
					for _, v := range vs.Values {
						if v.Inst == inst {
							return true
						}
					}
					return false
				}
			}
			return false
		}
		var pmids []pmapi.PMID
		for _, vs := range rec.VSets {
			if d, ok := c.Meta().Desc(vs.PMID); ok && d.Type != pmapi.TypeNoSupport &&
				(d.Sem == pmapi.SemInstant || d.Sem == pmapi.SemDiscrete) {
				pmids = append(pmids, vs.PMID)
			}
		}
		if len(pmids) == 0 {
			t.Skip("no instant or discrete metrics")
		}
		c.SetMode(replay.Interp, rec.Timestamp, 1e9)
		res, err := c.Fetch(pmids)
		if err != nil {
			t.Fatalf("fetch at %v: %v", rec.Timestamp, err)
		}
		for _, vs := range rec.VSets {
			for j, p := range pmids {
				if p != vs.PMID {
					continue
				}
				for _, v := range vs.Values {
					if !neighbour(p, v.Inst, -1) || !neighbour(p, v.Inst, 1) {
						continue
					}
					found := false
					for _, w := range res.VSets[j].Values {
						if w.Inst == v.Inst {
							found = true
							if w.Insitu != v.Insitu || !bytes.Equal(w.Block, v.Block) {
								t.Fatalf("%s inst %d at %v: interpolated %+v, recorded %+v", p, v.Inst, rec.Timestamp, w, v)
							}
						}
					}
					if !found {
						t.Fatalf("%s inst %d at %v: no interpolated value", p, v.Inst, rec.Timestamp)
					}
				}
			}
		}
	})
}

package replay

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestInterpIncremental replays a long archive (10548 records) with an
// interval of a third of its sampling interval, forwards then backwards,
// and checks that each record is read a bounded number of times and that
// memory does not grow with the length of the replay.
func TestInterpIncremental(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-qa-archives")
	c, err := Open(filepath.Join(dir, "count-mark"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nrec := 0
	for {
		if _, err := c.FetchArchive(); err != nil {
			break
		}
		nrec++
	}
	end, _ := c.End()
	var pmids []pmapi.PMID
	for _, d := range c.Meta().Descs {
		pmids = append(pmids, d.PMID)
	}
	span := pcptime.Sub(end, c.Start())
	step := int64(span / float64(nrec) / 3 * 1e9)
	for _, dir := range []int64{1, -1} {
		origin := c.Start()
		if dir < 0 {
			origin = end
		}
		c.rd.reads = 0
		c.SetMode(Interp, origin, dir*step)
		var heap []uint64
		n := 0
		for {
			_, err := c.Fetch(pmids)
			if errors.Is(err, pmapi.ErrEOL) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n%(nrec/2) == 0 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				heap = append(heap, ms.HeapAlloc)
			}
		}
		if n < 2*nrec {
			t.Fatalf("only %d fetches", n)
		}
		if c.rd.reads > 4*nrec {
			t.Errorf("direction %d: %d fetches read %d records of %d", dir, n, c.rd.reads, nrec)
		}
		t.Logf("direction %d: %d fetches read %d records (%d in the archive); heap %v", dir, n, c.rd.reads, nrec, heap)
		if len(heap) >= 2 && heap[len(heap)-1] > heap[0]+4<<20 {
			t.Errorf("heap grew from %d to %d bytes", heap[0], heap[len(heap)-1])
		}
	}
}

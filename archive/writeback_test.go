package archive

import (
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestWriterEarlyWriteback: a batch writer that fsyncs at Close asks
// for the writing out of each chunk of its data volume as it goes
// (earlyWriteback), and one with NoSync does not; the archive reads back
// whole either way.
func TestWriterEarlyWriteback(t *testing.T) {
	p := pmapi.NewPMID(245, 0, 1)
	blob := make([]byte, 64<<10)
	const n = 3 * writebackChunk / (64 << 10)
	for _, c := range []struct {
		name    string
		opts    WriterOptions
		minSync int64
	}{
		{"coalesced", WriterOptions{CoalesceData: true}, 2 * writebackChunk},
		{"buffered", WriterOptions{Buffered: true}, 2 * writebackChunk},
		{"nosync", WriterOptions{CoalesceData: true, NoSync: true}, 0},
		{"every-record", WriterOptions{SyncEveryRecord: true}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "a")
			c.opts.Version = 3
			w := newTestWriter(t, base, c.opts)
			if err := w.PutDesc(pmapi.Desc{PMID: p, Type: pmapi.TypeAggregate, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"a.b"}); err != nil {
				t.Fatal(err)
			}
			for i := int64(0); i < n; i++ {
				r := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 1700000000 + i}, VSets: []pmapi.ValueSet{{PMID: p, NumVal: 1, ValFmt: pmapi.ValFmtDptr,
					Values: []pmapi.Value{{BlockType: pmapi.TypeAggregate, Block: blob}}}}}
				if err := w.PutResult(r); err != nil {
					t.Fatal(err)
				}
			}
			synced := w.data.synced
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if c.minSync == 0 && synced != 0 || synced < c.minSync {
				t.Errorf("writeback asked up to %d, want %d or more (0 when the writer does not sync at the end)", synced, c.minSync)
			}
			a := openT(t, base)
			defer a.Close()
			cur := a.NewCursor()
			k := 0
			for ; ; k++ {
				if _, err := cur.Next(); err != nil {
					break
				}
			}
			if k != n {
				t.Errorf("%d records read back, want %d", k, n)
			}
		})
	}
}

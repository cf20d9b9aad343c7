package replay

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestReaderPrevPastEnd: reading backwards from past the end of an
// archive's last volume (archive.ErrPastEnd) is the end of the data in
// the last archive of a set, as libpcp's PM_ERR_EOL there; in an earlier
// one libpcp goes on to a <mark> and the next archive (and the real
// pmval then loops, its memory growing), which the reader does not
// follow: a damaged record.
func TestReaderPrevPastEnd(t *testing.T) {
	dir := t.TempDir()
	multi := filepath.Join(testenv.SharedDir(t, "pcp-qa-archives"), "multi")
	for _, name := range []string{"20150508.11.44", "20150508.11.46"} {
		testenv.CopyArchive(t, filepath.Join(multi, name), dir)
	}
	s, err := archive.OpenSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Len() != 2 {
		t.Fatalf("%d archives, want 2", s.Len())
	}
	for _, c := range []struct {
		ai   int
		want error
	}{{1, io.EOF}, {0, pmapi.ErrLogRec}} {
		r := newReader(s)
		r.changeArchive(c.ai, true)
		size, err := s.Archive(c.ai).VolumeSize(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.cursor(c.ai).SetPosition(0, size+1000); err != nil {
			t.Fatal(err)
		}
		if _, err := r.prev(); !errors.Is(err, c.want) {
			t.Errorf("archive %d of 2: prev from past its end: %v, want %v", c.ai, err, c.want)
		}
	}
}

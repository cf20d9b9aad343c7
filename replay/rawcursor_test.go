package replay

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestRawCursor checks where RawCursor leaves the reads of an archive for
// the epoch (pmlogcheck's pass 3) when the first index entry is damaged,
// as the real pmlogcheck reads: a volume number out of range or an offset
// past the volume's end or inside the label start at the first record; a
// sound entry is read from.
func TestRawCursor(t *testing.T) {
	src := filepath.Join("..", "testdata", "archives", "pmcd-v2")
	const entry0 = archive.LabelSizeV2 // v2 entry: sec, usec, vol, meta, data
	for _, c := range []struct {
		name   string
		field  int    // byte offset in the entry
		value  uint32 // written there
		skipTo int    // records the read starts after (0: the first)
	}{
		{"sound", 0, 0, 0},
		{"volume out of range", 8, 1 << 28, 0},
		{"offset past the end", 16, 1 << 24, 0},
		{"offset inside the label", 16, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, suf := range []string{".0", ".meta", ".index"} {
				b, err := os.ReadFile(src + suf)
				if err != nil {
					t.Fatal(err)
				}
				if suf == ".index" && c.field > 0 {
					binary.BigEndian.PutUint32(b[entry0+c.field:], c.value)
				}
				if err := os.WriteFile(filepath.Join(dir, "a"+suf), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a, err := archive.Open(filepath.Join(dir, "a"))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			first, err := a.NewCursor().Next()
			if err != nil {
				t.Fatal(err)
			}
			want := first.Stamp
			r, err := NewContext(archive.NewSet(a, "a")).RawCursor(pmapi.Timestamp{}).Next()
			if err != nil {
				t.Fatalf("first read: %v", err)
			}
			if r.Stamp != want {
				t.Fatalf("first record read at %v, want %v", r.Stamp, want)
			}
		})
	}
}

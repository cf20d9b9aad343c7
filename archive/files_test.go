package archive

import (
	"testing"

	pcpxz "github.com/pcpkit/pcpkit/archive/internal/xz"
)

// TestXZReadSize checks the window of an xz volume: a plain file's for
// pmlogger_daily's 10 MiB blocks, a few blocks' worth for small ones.
func TestXZReadSize(t *testing.T) {
	for _, c := range []struct {
		block int64
		want  int
	}{
		{10 << 20, windowSize},
		{64 << 10, windowSize},
		{16 << 10, 64 << 10},
		{1 << 10, 4 << 10},
		{100, 4 << 10},
	} {
		bs := []pcpxz.Block{{UncompressedSize: c.block / 2}, {UncompressedSize: c.block}, {UncompressedSize: 1}}
		if got := xzReadSize(bs); got != c.want {
			t.Errorf("blocks of %d bytes: window %d, want %d", c.block, got, c.want)
		}
	}
}

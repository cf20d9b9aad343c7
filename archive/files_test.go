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

// TestControlName checks the name libpcp keeps for an archive (dirname(3)
// and basename(3) joined), which decides whether a second context shares
// the first one's archive control.
func TestControlName(t *testing.T) {
	for _, c := range []struct{ base, want string }{
		{"A", "./A"},
		{"./A", "./A"},
		{"d/A", "d/A"},
		{"d//A", "d/A"},
		{"d/A/", "d/A"},
		{"/A", "//A"}, // the real pmlogextract shares /A's control with //A, not /A
		{"//A", "//A"},
		{"/d/../e/A", "/d/../e/A"},
		{"A//", "./A"},
	} {
		if got := ControlName(c.base); got != c.want {
			t.Errorf("ControlName(%q) = %q, want %q", c.base, got, c.want)
		}
	}
}

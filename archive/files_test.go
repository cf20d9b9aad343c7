package archive

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// TestFindFiles checks how an archive name resolves to its files: a name
// that is itself a base name (a file name.meta* exists) wins over
// stripping a volume or file suffix, in the directory listed once or
// twice (a name with glob metacharacters goes through filepath.Glob).
func TestFindFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"19970807.09.54.meta", "19970807.09.54.0",
		"A.meta", "A.index", "A.0", "A.1.xz",
		"B*x.meta", "B*x.0",
		"C.0.meta", "C.0.0", "C.meta", "C.0",
	} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, c := range []struct {
		name, base, meta string
		vols             []int
	}{
		{"19970807.09.54", "19970807.09.54", "19970807.09.54.meta", []int{0}},
		{dir + "/19970807.09.54", dir + "/19970807.09.54", dir + "/19970807.09.54.meta", []int{0}},
		{dir + "/A", dir + "/A", dir + "/A.meta", []int{0, 1}},
		{dir + "/A.0", dir + "/A", dir + "/A.meta", []int{0, 1}},
		{dir + "/A.index", dir + "/A", dir + "/A.meta", []int{0, 1}},
		{dir + "//A.1.xz", dir + "//A", dir + "/A.meta", []int{0, 1}},
		{"A.meta", "A", "A.meta", []int{0, 1}},
		{dir + "/B*x", dir + "/B*x", dir + "/B*x.meta", []int{0}},
		{dir + "/B*x.0", dir + "/B*x", dir + "/B*x.meta", []int{0}},
		{"C.0", "C.0", "C.0.meta", []int{0}},
		{dir + "/C.0", dir + "/C.0", dir + "/C.0.meta", []int{0}},
		{dir + "/C.1", dir + "/C", dir + "/C.meta", []int{0}},
	} {
		fs, err := findFiles(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if fs.base != c.base || fs.meta != c.meta || !slices.Equal(fs.volumes(), c.vols) {
			t.Errorf("%s: base %q meta %q volumes %v, want %q %q %v", c.name, fs.base, fs.meta, fs.volumes(), c.base, c.meta, c.vols)
		}
	}
	for _, name := range []string{dir + "/D", dir + "/nodir/A", "D*"} {
		if _, err := findFiles(name); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want a missing archive", name, err)
		}
	}
}

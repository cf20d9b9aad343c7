package archive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// setDir is testdata/archives: pmcd-v3, pmcd-v2 and sample-v3 were
// recorded one after the other on one host, so together they make a
// multi-archive set (in that time order).
func setDir(t *testing.T) string {
	t.Helper()
	return testenv.ArchivesDir(t)
}

func openSetT(t *testing.T, name string) *Set {
	t.Helper()
	s, err := OpenSet(name)
	if err != nil {
		t.Fatalf("OpenSet(%q): %v", name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenSetSingle(t *testing.T) {
	t.Chdir(setDir(t))
	s := openSetT(t, "pmcd-v3")
	if s.Len() != 1 || s.Name(0) != "pmcd-v3" {
		t.Fatalf("Len %d, Name %q", s.Len(), s.Name(0))
	}
	if s.Meta() != s.Archive(0).Meta() {
		t.Errorf("a set of one archive does not share its metadata")
	}
	end, err := s.End()
	want, _ := s.Archive(0).End()
	if err != nil || end != want {
		t.Errorf("End = %v, %v; want %v", end, err, want)
	}
}

func TestOpenSetList(t *testing.T) {
	t.Chdir(setDir(t))
	for _, name := range []string{"sample-v3,pmcd-v2,pmcd-v3", "pmcd-v3,pmcd-v2,sample-v3,", ".", "pmcd-v2,pmcd-v2,pmcd-v3,sample-v3"} {
		s := openSetT(t, name)
		if s.Len() != 3 {
			t.Fatalf("%s: %d archives", name, s.Len())
		}
		for i, want := range []string{"pmcd-v3", "pmcd-v2", "sample-v3"} {
			if filepath.Base(s.Name(i)) != want {
				t.Errorf("%s: archive %d is %s, want %s (start order)", name, i, s.Name(i), want)
			}
		}
		if s.Label() != s.Archive(0).Label() {
			t.Errorf("%s: Label is not the first archive's", name)
		}
		end, _ := s.End()
		want, _ := s.Archive(2).End()
		if end != want {
			t.Errorf("%s: End %v, want the last archive's %v", name, end, want)
		}
	}
}

// TestOpenSetNames checks that the namespace is the first archive
// opened's, with a later archive's leaves under its nodes only.
func TestOpenSetNames(t *testing.T) {
	t.Chdir(setDir(t))
	s := openSetT(t, "sample-v3,pmcd-v3")
	m := s.Meta()
	if _, ok := m.Lookup("sample.seconds"); !ok {
		t.Errorf("sample.seconds (first archive) not found")
	}
	if _, ok := m.Lookup("hinv.ncpu"); ok {
		t.Errorf("hinv.ncpu (a new node of the second archive) found")
	}
	// Descriptors and instance domains do accumulate.
	a, err := Open("pmcd-v3")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, _ := a.Meta().Lookup("hinv.ncpu")
	if _, ok := m.Desc(p); !ok {
		t.Errorf("the second archive's descriptor for hinv.ncpu is missing")
	}
	for _, ind := range a.Meta().InDomOrder {
		if len(m.InDomHistory(ind)) == 0 {
			t.Errorf("instance domain %v of the second archive is missing", ind)
		}
	}
}

func TestOpenSetErrors(t *testing.T) {
	t.Chdir(setDir(t))
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		want error
	}{
		{"pmcd-v3,nosuch", os.ErrNotExist},
		{",pmcd-v3", os.ErrNotExist},
		{empty, pmapi.ErrLogFile},
		{"pmcd-v3,./pmcd-v3", pmapi.ErrLogOverlap},
	} {
		_, err := OpenSet(tc.name)
		if !errors.Is(err, tc.want) {
			t.Errorf("OpenSet(%q) = %v, want %v", tc.name, err, tc.want)
		}
	}
	// Another host.
	dir := t.TempDir()
	for _, ext := range []string{".0", ".meta", ".index"} {
		b, err := os.ReadFile("pmcd-v2" + ext)
		if err != nil {
			t.Fatal(err)
		}
		// The host name is in every label: "vm" -> "wm".
		i := strings.Index(string(b[:LabelSizeV2]), "vm\x00")
		if i < 0 {
			t.Fatalf("host not found in pmcd-v2%s", ext)
		}
		b[i] = 'w'
		if err := os.WriteFile(filepath.Join(dir, "other"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenSet("pmcd-v3," + filepath.Join(dir, "other")); !errors.Is(err, pmapi.ErrLogHost) {
		t.Errorf("archives of two hosts: %v, want %v", err, pmapi.ErrLogHost)
	}
	// A first volume with nothing after its label.
	b, err := os.ReadFile("pmcd-v3.meta")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "lab.meta"), b, 0o644)
	b, _ = os.ReadFile("pmcd-v3.0")
	os.WriteFile(filepath.Join(dir, "lab.0"), b[:LabelSizeV3], 0o644)
	if _, err := OpenSet(filepath.Join(dir, "lab")); !errors.Is(err, pmapi.ErrNoData) {
		t.Errorf("label-only volume: %v, want %v", err, pmapi.ErrNoData)
	}
}

// TestSetSharedMulti opens the shared multi-archive directories (the
// v2, v3 and xz copies of four archives); two of them overlap.
func TestSetSharedMulti(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-qa-archives")
	for _, d := range []string{"multi", "multi_v3", "multi-xz"} {
		s := openSetT(t, filepath.Join(dir, d))
		if s.Len() != 4 {
			t.Fatalf("%s: %d archives", d, s.Len())
		}
	}
	if _, err := OpenSet(filepath.Join(dir, "multi") + "," + filepath.Join(dir, "multi_v3")); !errors.Is(err, pmapi.ErrLogOverlap) {
		t.Errorf("multi,multi_v3: %v, want %v", err, pmapi.ErrLogOverlap)
	}
}

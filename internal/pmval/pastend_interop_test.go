package pmval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// copyIndexPastEnd copies the QA archive name into dir as out, its
// index entry k pointing past bytes past the end of the entry's volume.
func copyIndexPastEnd(t *testing.T, qa, name, dir, out string, k int, past int64) {
	t.Helper()
	testenv.CopyArchive(t, filepath.Join(qa, name), dir)
	for _, suf := range []string{".meta", ".index"} {
		if err := os.Rename(filepath.Join(dir, name+suf), filepath.Join(dir, out+suf)); err != nil {
			t.Fatal(err)
		}
	}
	vols, _ := filepath.Glob(filepath.Join(dir, name+".[0-9]*"))
	for _, v := range vols {
		if err := os.Rename(v, filepath.Join(dir, out+strings.TrimPrefix(filepath.Base(v), name))); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, out+".index")
	idx, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	version, label, size := 2, archive.LabelSizeV2, 20
	if idx[7] == 3 {
		version, label, size = 3, archive.LabelSizeV3, 32
	}
	at := label + k*size
	e := archive.DecodeIndexEntry(idx[at:at+size], version)
	fi, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%s.%d", out, e.Vol)))
	if err != nil {
		t.Fatal(err)
	}
	e.DataOff = fi.Size() + past
	copy(idx[at:at+size], archive.AppendIndexEntry(nil, e, version))
	if err := os.WriteFile(path, idx, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInteropIndexPastEnd compares pmval with the real one on archives
// whose index entries point past the end of their volume: libpcp
// positions there when the entry is the first (the only one it does not
// set aside in the last volume) or lies in an earlier volume, and its
// reads from there find the end of the volume, forwards and backwards
// (archive.Cursor.Prev): with no volume after, no values; with one, its
// records (read backwards, the first record of the next volume when it is
// longer than the label, as ok-mv-foo's are).
func TestInteropIndexPastEnd(t *testing.T) {
	testenv.RealTool(t, "pmval")
	qa := testenv.SharedDir(t, "pcp-qa-archives")
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		k      int
		past   int64
		metric string
		modes  []string
	}{
		// the last volume: a part of the trailer word in it, or none
		{"sample-proc_v3", 0, 2, "sample.proc.time", []string{"-t 0.3 -s 8", "-r -t 0.3", "-S +2.5 -t 0.3"}},
		{"sample-proc_v3", 0, 86000, "sample.proc.time", []string{"-t 0.3 -s 8", "-r -t 0.3"}},
		// volumes 0 and 1 of three
		{"ok-mv-foo", 0, 8000, "sample.seconds", []string{"-t 1 -s 8", "-r -t 1", "-S +1 -t 1"}},
		{"ok-mv-foo", 1, 8000, "sample.seconds", []string{"-S +1 -t 1", "-S +2.5 -t 1"}},
		{"ok-mv-foo", 2, 8000, "sample.seconds", []string{"-S +2.5 -t 1", "-S +3 -T +5 -t 1", "-S +3.5 -t 0.5 -r"}},
	} {
		out := fmt.Sprintf("%s-e%d-%d", c.name, c.k, c.past)
		copyIndexPastEnd(t, qa, c.name, dir, out, c.k, c.past)
		for _, mode := range c.modes {
			args := append(append([]string{"-a", out}, strings.Fields(mode)...), c.metric)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				compareReal(t, dir, args)
			})
		}
	}
}

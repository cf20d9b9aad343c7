package pcp2arrow

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/pmreplay"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// maxSharedColumns bounds the columns of a file TestEverySharedArchive
// writes: an archive with more (a process or GPU archive has thousands)
// is exported with its first metrics up to that many.
const maxSharedColumns = 2000

// TestEverySharedArchive compares pcp2arrow's wide and long files, read
// back by parquet-go, with pmreplay's CSV (proven equal to the real
// pmrep's by internal/pmreplay's TestInteropShared) on every archive of
// ../shared's pcp-qa-archives and pcp-made-archives, every reportable
// metric (the first ones of the largest archives), in three option sets:
// interpolated and converted to rates, raw, and a one-minute step over
// the whole archive. It needs neither PCP nor DuckDB.
func TestEverySharedArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("every shared archive: not with -short")
	}
	n := 0
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, name := range testenv.Archives(t, dir) {
			a := filepath.Join(dir, name)
			c, err := replay.Open(a)
			if err != nil {
				continue // a damaged archive (TestUsageErrors has one)
			}
			host := c.Label().Hostname
			c.Close()
			names := sharedNames(t, a)
			if len(names) == 0 {
				continue
			}
			for _, opts := range [][]string{{"-t", "7", "-s", "200"}, {"-r", "-t", "3", "-s", "200"}, {"-t", "1min"}} {
				args := append(append([]string{"-a", a}, opts...), names...)
				testenv.Setenv(t)
				var csv, errb bytes.Buffer
				if rc := pmreplay.Main(append([]string{"-P", "9"}, args...), &csv, &errb); rc != 0 {
					// pmrep fails here (TestInteropShared): a window
					// it refuses, or a sample time it cannot print
					// (pcp2arrow writes it: docs/pmreplay.md)
					t.Logf("%s %v: not compared: pmreplay: %s", name, opts, errb.String())
					continue
				}
				tb, _ := readParquet(t, runExport(t, args...))
				if diffs := compareWide(tb, csv.String(), pcptime.LoadZone("UTC"), 9, 10); len(diffs) > 0 {
					t.Errorf("%s %v: the wide file differs from pmreplay:\n%v", name, opts, diffs)
				}
				if opts[0] == "-t" && opts[1] == "7" {
					tb, _ := readParquet(t, runExport(t, append([]string{"--layout=long"}, args...)...))
					tb.Columns[0] = "ts" // (as longQuery names it)
					if diffs := compareLong(tb, csv.String(), host, pcptime.LoadZone("UTC"), 9, 10); len(diffs) > 0 {
						t.Errorf("%s %v: the long file differs from pmreplay:\n%v", name, opts, diffs)
					}
				}
				n++
			}
		}
	}
	if n < 150 {
		t.Errorf("only %d comparisons", n)
	}
	t.Logf("%d exports compared with pmreplay", n)
}

// sharedNames are reportable(a)'s metrics, the first of them up to
// maxSharedColumns columns (at least one metric).
func sharedNames(t *testing.T, a string) []string {
	names, _ := reportable(t, a)
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cols := 0
	for i, n := range names {
		p, _ := c.Meta().Lookup(n)
		d, _ := c.Meta().Desc(p)
		k := 1
		if d.InDom != pmapi.InDomNull {
			seen := map[int32]bool{}
			for _, s := range c.Meta().InDomHistory(d.InDom) {
				for _, id := range s.Insts {
					seen[id] = true
				}
			}
			k = len(seen)
		}
		if cols += k; cols > maxSharedColumns && i > 0 {
			return names[:i]
		}
	}
	return names
}

// TestDamagedArchiveKeepsRows: an archive whose reading fails part way
// (a corrupt record) exports the rows before it, as pmrep prints the
// lines before its error (pmreplay, the same engine, as the reference),
// in a file that is whole, and exits 1 with the error; in both layouts.
func TestDamagedArchiveKeepsRows(t *testing.T) {
	for _, c := range []struct{ set, name string }{
		{"pcp-qa-badarchives", "ok-truncbin"},
		{"pcp-made-archives", "bad/partial3"},
	} {
		a := filepath.Join(testenv.SharedDir(t, c.set), c.name)
		names, _ := reportable(t, a)
		args := append([]string{"-a", a, "-t", "1"}, names...)
		testenv.Setenv(t)
		var csv, errb bytes.Buffer
		if rc := pmreplay.Main(append([]string{"-P", "9"}, args...), &csv, &errb); rc != 1 || !strings.Contains(errb.String(), "Corrupted record") {
			t.Fatalf("%s: pmreplay exit %d (%s): the archive is no longer damaged where expected", c.name, rc, errb.String())
		}
		if strings.Count(csv.String(), "\n") < 2 {
			t.Fatalf("%s: pmreplay printed no row before the error", c.name)
		}
		for _, layout := range []string{"wide", "long"} {
			file := filepath.Join(t.TempDir(), "out.parquet")
			var out, perr bytes.Buffer
			if rc := Main(append([]string{"--layout=" + layout, "-o", file}, args...), &out, &perr); rc != 1 || perr.String() != "pcp2arrow: Corrupted record in a PCP archive log\n" {
				t.Errorf("%s %s: exit %d, stderr %q; want 1 and the error", c.name, layout, rc, perr.String())
			}
			tb, _ := readParquet(t, file)
			var diffs []string
			if layout == "wide" {
				diffs = compareWide(tb, csv.String(), pcptime.LoadZone("UTC"), 9, 10)
			} else {
				tb.Columns[0] = "ts"
				diffs = compareLong(tb, csv.String(), hostOf(t, a), pcptime.LoadZone("UTC"), 9, 10)
			}
			if len(diffs) > 0 {
				t.Errorf("%s %s: the rows kept differ from pmreplay's before the error:\n%v", c.name, layout, diffs)
			}
		}
	}
}

// hostOf is archive a's host.
func hostOf(t *testing.T, a string) string {
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.Label().Hostname
}

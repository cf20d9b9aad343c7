package pcp2arrow

import (
	"bytes"
	"path/filepath"
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

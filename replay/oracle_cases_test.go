package replay_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// oracleArchives are the shared archives the oracle tests cover: marks
// (real and between archives), instance domain changes, volumes, no
// index, compression, sets of archives, and the archives made with the
// real PCP.
var oracleArchives = []struct{ set, name string }{
	{"pcp-qa-archives", "gap"},
	{"pcp-qa-archives", "gap2"},
	{"pcp-qa-archives", "count-mark"},
	{"pcp-qa-archives", "mark-bug"},
	{"pcp-qa-archives", "19970807.09.54"},
	{"pcp-qa-archives", "changeinst"},
	{"pcp-qa-archives", "mirage"},
	{"pcp-qa-archives", "ok-mv-interp"},
	{"pcp-qa-archives", "ok-mv-bar"},
	{"pcp-qa-archives", "ok-noti-interp"},
	{"pcp-qa-archives", "synth/ok-foo-xz"},
	{"pcp-qa-archives", "multi"},
	{"pcp-qa-archives", "multi_v3"},
	{"pcp-made-archives", "synth3"},
	{"pcp-made-archives", "sample3"},
	{"pcp-made-archives", "basic3"},
}

// stamp prints a timestamp as script operations take it.
func stamp(t pmapi.Timestamp) string { return fmt.Sprintf("%d %d", t.Sec, t.Nsec) }

// deltaArg splits a delta in nanoseconds into the two signed fields.
func deltaArg(d int64) string { return fmt.Sprintf("%d %d", d/1e9, d%1e9) }

// archiveFacts counts the records of an archive (marks included) and
// gets its span.
func archiveFacts(t testing.TB, path string) (start, end pmapi.Timestamp, nrec int, pmids []pmapi.PMID) {
	t.Helper()
	start, end, nrec, pmids, ok := archiveFactsOK(t, path)
	if !ok {
		t.Fatalf("%s: cannot open", path)
	}
	return start, end, nrec, pmids
}

func archiveFactsOK(t testing.TB, path string) (start, end pmapi.Timestamp, nrec int, pmids []pmapi.PMID, ok bool) {
	t.Helper()
	c, err := replay.Open(path)
	if err != nil {
		return start, end, 0, nil, false
	}
	defer c.Close()
	start = c.Start()
	end, err = c.End()
	if err != nil {
		return start, end, 0, nil, false
	}
	for {
		if _, err := c.FetchArchive(); err != nil {
			break
		}
		nrec++
	}
	for _, d := range c.Meta().Descs {
		pmids = append(pmids, d.PMID)
	}
	return start, end, nrec, pmids, true
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// recordScript is the FORW/BACK part of the oracle script.
func recordScript(start, end pmapi.Timestamp, nrec int) string {
	var b strings.Builder
	n := minInt(nrec+2, 400)
	mid := interp.AddDelta(start, int64(pcptime.Sub(end, start)*1e9/2))
	fmt.Fprintf(&b, "label\nend\n")
	fmt.Fprintf(&b, "fetch 2\n")
	fmt.Fprintf(&b, "mode forw %s 0 0\nfetch %d\n", stamp(start), n)
	fmt.Fprintf(&b, "mode back %s 0 0\nfetch %d\n", stamp(end), n)
	fmt.Fprintf(&b, "mode forw %s 0 0\narchive %d\n", stamp(start), n)
	fmt.Fprintf(&b, "mode back %s 0 0\narchive %d\n", stamp(end), n)
	fmt.Fprintf(&b, "mode forw %s 0 0\nfetch 3\narchive 3\n", stamp(mid))
	fmt.Fprintf(&b, "mode back %s 0 0\nfetch 3\narchive 3\n", stamp(mid))
	fmt.Fprintf(&b, "mode interp %s 1 0\narchive 1\n", stamp(mid))
	fmt.Fprintf(&b, "mode forw %s 0 0\nfetch 2\narchive 1\n", stamp(interp.AddDelta(start, -10e9)))
	fmt.Fprintf(&b, "mode back %s 0 0\nfetch 2\narchive 1\n", stamp(interp.AddDelta(end, 10e9)))
	fmt.Fprintf(&b, "mode back %s 0 0\nfetch 1\narchive 1\n", stamp(interp.AddDelta(start, -10e9)))
	fmt.Fprintf(&b, "mode forw %s 0 0\nfetch 1\narchive 1\n", stamp(interp.AddDelta(end, 10e9)))
	return b.String()
}

// interpScript is the INTERP part of the oracle script.
func interpScript(start, end pmapi.Timestamp) string {
	var b strings.Builder
	span := int64(pcptime.Sub(end, start) * 1e9)
	if span <= 0 {
		span = 1e9
	}
	for _, k := range []int64{7, 30, 101} {
		d := span / k
		fmt.Fprintf(&b, "mode interp %s %s\nfetch %d\n", stamp(start), deltaArg(d), k+3)
		fmt.Fprintf(&b, "mode interp %s %s\nfetch %d\n", stamp(end), deltaArg(-d), k+3)
	}
	for _, off := range []int64{-500e3, -2e6, 0, 1} {
		fmt.Fprintf(&b, "mode interp %s %s\nfetch 3\n", stamp(interp.AddDelta(start, off)), deltaArg(span/5))
		fmt.Fprintf(&b, "mode interp %s %s\nfetch 3\n", stamp(interp.AddDelta(end, -off)), deltaArg(-span/5))
	}
	// as pmval does it: a microsecond origin, a delta in milliseconds
	for _, ms := range []int64{1000, 333, 7000} {
		n := minInt(int(span/(ms*1e6))+2, 300)
		fmt.Fprintf(&b, "modems interp %d %d %d\nfetch %d\n", start.Sec, start.Nsec/1000, ms, n)
	}
	// back and forth
	mid := interp.AddDelta(start, span/3)
	fmt.Fprintf(&b, "mode interp %s %s\nfetch 4\n", stamp(mid), deltaArg(span/11))
	fmt.Fprintf(&b, "mode interp %s %s\nfetch 4\n", stamp(interp.AddDelta(mid, span/4)), deltaArg(-span/13))
	fmt.Fprintf(&b, "mode interp %s %s\nfetch 4\n", stamp(mid), deltaArg(span/17))
	return b.String()
}

func pmidList(pmids []pmapi.PMID, max int) string {
	var s []string
	for i, p := range pmids {
		if i == max {
			break
		}
		s = append(s, "pmid:"+p.String())
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// TestOracle compares replay with libpcp on the shared archives, for all
// metrics at once and for each metric alone, in every mode.
func TestOracle(t *testing.T) {
	needOracle(t)
	for _, a := range oracleArchives {
		dir := testenv.SharedDir(t, a.set)
		t.Run(a.name, func(t *testing.T) {
			start, end, nrec, pmids := archiveFacts(t, filepath.Join(dir, a.name))
			rs, is := recordScript(start, end, nrec), interpScript(start, end)
			compareOracle(t, dir, a.name, pmidList(pmids, 60), rs)
			compareOracle(t, dir, a.name, pmidList(pmids, 60), is)
			for i, p := range pmids {
				if i == 12 {
					break
				}
				compareOracle(t, dir, a.name, "pmid:"+p.String(), is)
			}
		})
	}
}

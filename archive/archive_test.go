package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The shared archive directories beside the clone (../shared/...).
const (
	qaDir   = "pcp-qa-archives"
	madeDir = "pcp-made-archives"
)

// sharedArch is one archive of the shared directories.
type sharedArch struct {
	name string // "<dir>/<relative base name>", e.g. "pcp-qa-archives/multi/20150508.11.44"
	dir  string // the shared directory it is in
	rel  string // its base name relative to dir, slash-separated
	path string // its base name as a path
}

// sharedArchives lists every archive of both shared directories, recursing
// into multi*/, synth/ and bad/ (every <base>.meta[.comp] gives <base>).
func sharedArchives(t *testing.T) []sharedArch {
	t.Helper()
	var out []sharedArch
	for _, sub := range []string{qaDir, madeDir} {
		dir := testenv.SharedDir(t, sub)
		for _, rel := range testenv.Archives(t, dir) {
			out = append(out, sharedArch{name: sub + "/" + rel, dir: dir, rel: rel, path: filepath.Join(dir, filepath.FromSlash(rel))})
		}
	}
	if len(out) < 60 {
		t.Fatalf("only %d shared archives found", len(out))
	}
	return out
}

// sharedPath is the path of archive rel in the shared directory sub.
func sharedPath(t testing.TB, sub, rel string) string {
	t.Helper()
	return filepath.Join(testenv.SharedDir(t, sub), filepath.FromSlash(rel))
}

func openT(t testing.TB, path string) *Archive {
	t.Helper()
	a, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// recInfo identifies one record read through a Cursor.
type recInfo struct {
	vol     int
	off     int64
	stamp   pmapi.Timestamp
	numpmid int
	length  int
}

func (r recInfo) String() string {
	return fmt.Sprintf("vol %d off %d %s (%d pmids)", r.vol, r.off, fmtStamp(r.stamp, 3), r.numpmid)
}

func infoOf(r *Record) recInfo {
	return recInfo{vol: r.Vol, off: r.Offset, stamp: r.Stamp, numpmid: r.NumPMID(), length: r.Len()}
}

// maxRecords bounds every loop over a cursor, so that a cursor that never
// reaches the end fails the test instead of hanging it.
const maxRecords = 1 << 20

// readAll reads records with c.Next (forward) or c.Prev until io.EOF or an
// error, which it returns (nil at io.EOF).
func readAll(t testing.TB, c *Cursor, forward bool) ([]recInfo, error) {
	t.Helper()
	var out []recInfo
	for i := 0; i < maxRecords; i++ {
		var r *Record
		var err error
		if forward {
			r, err = c.Next()
		} else {
			r, err = c.Prev()
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, infoOf(r))
	}
	t.Fatalf("cursor still delivering records after %d reads", maxRecords)
	return nil, nil
}

// fmtStamp formats a timestamp as pmdumplog prints a record's time in UTC:
// HH:MM:SS and 6 fractional digits for a version 2 archive, 9 for version 3
// (any other version: full date, for messages).
func fmtStamp(ts pmapi.Timestamp, version int) string {
	tm := time.Unix(ts.Sec, int64(ts.Nsec)).UTC()
	switch version {
	case 2:
		return tm.Format("15:04:05") + fmt.Sprintf(".%06d", ts.Nsec/1000)
	case 3:
		return tm.Format("15:04:05") + fmt.Sprintf(".%09d", ts.Nsec)
	}
	return tm.Format("2006-01-02 15:04:05.000000000")
}

// stampOf parses a UTC time as "2006-01-02 15:04:05.999999999".
func stampOf(t testing.TB, s string) pmapi.Timestamp {
	t.Helper()
	tm, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		t.Fatal(err)
	}
	return pmapi.Timestamp{Sec: tm.Unix(), Nsec: int32(tm.Nanosecond())}
}

// ---------------------------------------------------------------------------
// The real pmdumplog, as the oracle.

// realDumplog runs the real pmdumplog with args (TZ=UTC, see
// testenv.RealEnv). ok is false when it is not installed (and PCP_INTEROP is
// not set): the caller then skips the comparison, not the whole test.
func realDumplog(t testing.TB, dir string, args ...string) (stdout, stderr string, rc int, ok bool) {
	t.Helper()
	p := testenv.FindRealTool("pmdumplog")
	if p == "" {
		if testenv.Interop() {
			t.Fatal("PCP_INTEROP=1 but the real pmdumplog is not installed")
		}
		return "", "", 0, false
	}
	o, e, rc := testenv.RunCommand(t, dir, testenv.RealEnv(), p, args...)
	return string(o), string(e), rc, true
}

// dumpRec is one record as pmdumplog prints it: its time of day and its
// metric count (-1 for a <mark>).
type dumpRec struct {
	tod string
	n   int
}

var dumpRecRE = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d+) +(?:(\d+) metrics?|<mark>)$`)

func parseDumpRecords(out string) []dumpRec {
	var recs []dumpRec
	for _, line := range strings.Split(out, "\n") {
		m := dumpRecRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n := -1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		recs = append(recs, dumpRec{m[1], n})
	}
	return recs
}

// dumpLabel is what pmdumplog -L prints about an archive's label.
type dumpLabel struct {
	version            int
	host, tz, zoneinfo string
	pid                int32
	start, end         pmapi.Timestamp
}

func parseDumpLabel(t testing.TB, out string) dumpLabel {
	t.Helper()
	var l dumpLabel
	parseTime := func(s string) pmapi.Timestamp {
		// "Sat Nov 21 05:06:40.206102398 2026" (UTC); the fraction is
		// accepted after the seconds although the layout has none.
		tm, err := time.Parse("Mon Jan _2 15:04:05 2006", strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("pmdumplog -L: %v", err)
		}
		return pmapi.Timestamp{Sec: tm.Unix(), Nsec: int32(tm.Nanosecond())}
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Log Label (Log Format Version "):
			l.version, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Log Label (Log Format Version "), ")"))
		case strings.HasPrefix(line, "Performance metrics from host "):
			l.host = strings.TrimPrefix(line, "Performance metrics from host ")
		case strings.HasPrefix(line, "    commencing "):
			l.start = parseTime(strings.TrimPrefix(line, "    commencing "))
		case strings.HasPrefix(line, "    ending "):
			l.end = parseTime(strings.TrimPrefix(line, "    ending "))
		case strings.HasPrefix(line, "Archive timezone: "):
			l.tz = strings.TrimPrefix(line, "Archive timezone: ")
		case strings.HasPrefix(line, "Archive zoneinfo: "):
			l.zoneinfo = strings.TrimPrefix(line, "Archive zoneinfo: ")
		case strings.HasPrefix(line, "PID for pmlogger: "):
			p, _ := strconv.Atoi(strings.TrimPrefix(line, "PID for pmlogger: "))
			l.pid = int32(p)
		}
	}
	if l.version == 0 {
		t.Fatalf("pmdumplog -L printed no label:\n%s", out)
	}
	return l
}

// ---------------------------------------------------------------------------
// Every shared archive, forwards and backwards, against pmdumplog.

// damagedData are the shared archives that open but hold a damaged data
// record: forward reading delivers good records, then a FormatError wrapping
// pmapi.ErrLogRec. The counts are what pmdumplog 6.0.3 prints before its
// "pmFetch: Corrupted record in a PCP archive log".
var damagedData = map[string]int{
	madeDir + "/bad/trunc3":   21, // last 10 bytes cut
	madeDir + "/bad/partial3": 6,  // last 100 bytes cut
	madeDir + "/bad/corrupt3": 1,  // the second record's length word flipped
}

// openFails are the shared archives that Open must refuse, with the code the
// real pmdumplog reports (see TestOpenBadArchives).
var openFails = map[string]bool{
	madeDir + "/bad/badmagic3":   true,
	madeDir + "/bad/empty3":      true,
	madeDir + "/bad/notarch":     true,
	madeDir + "/bad/shortlabel3": true,
	madeDir + "/bad/truncmeta3":  true,
	qaDir + "/synth/ok-foo-zst":  false, // pcpkit reads .zst; PCP 6.0.3 does not
}

// catalogued holds a few values from ../shared/pcp-qa-archives/CATALOG.md and
// the made archives, each checked with the real pmdumplog 6.0.3 (TZ=UTC):
// the record count including <mark>s, and the first and last record times
// in UTC. CATALOG.md's "recs" column says it includes <mark>s but in fact
// leaves them out (e.g. 19970807.09.54: 24 there, 26 records = 24 + 2 marks
// printed by pmdumplog), so the counts here are pmdumplog's.
var catalogued = map[string]struct {
	recs, marks int
	first, last string
}{
	qaDir + "/ok-foo":                  {9, 0, "1998-08-06 18:34:32.257504", "1998-08-06 18:34:40.258477"},
	qaDir + "/19970807.09.54":          {26, 2, "1997-08-06 23:54:38.625190", "1997-08-06 23:55:01.678140"},
	qaDir + "/20190628.04.03":          {33, 1, "2019-06-27 18:03:46.418159", "2019-06-27 18:05:46.453464"},
	qaDir + "/bug-1044":                {7565, 3, "2014-01-10 22:58:09.600347", "2014-01-13 13:59:49.930068"},
	qaDir + "/count-mark":              {10549, 1, "2014-01-15 13:11:12.432753", "2014-01-17 07:42:13.792329"},
	qaDir + "/omnibus_v3":              {38, 2, "2022-04-03 06:50:55.401624349", "2022-04-03 06:51:04.732225623"},
	qaDir + "/ok-mv-bar":               {71, 0, "2015-11-09 23:53:39.523789", "2015-11-09 23:53:44.743513"},
	qaDir + "/multi_v3/20150508.11.50": {9, 0, "2015-05-08 15:50:27.770262", "2015-05-08 15:57:27.763104"},
	qaDir + "/synth/ok-mv-foo-mixed":   {9, 0, "1998-08-06 18:34:40.368661", "1998-08-06 18:34:48.368813"},
	qaDir + "/synth/ok-foo-zst":        {9, 0, "1998-08-06 18:34:32.257504", "1998-08-06 18:34:40.258477"},
	madeDir + "/synth3":                {9, 1, "2023-11-14 22:13:20", "2023-11-14 22:13:45.25"},
	madeDir + "/vol3":                  {13, 0, "2026-11-21 05:12:50.734339303", "2026-11-21 05:13:00.771780179"},
	madeDir + "/bad/trunc3":            {21, 0, "2026-11-21 05:06:40.206102398", "2026-11-21 05:06:52.226039640"},
	qaDir + "/multi-xz/20150508.11.57": {4, 0, "2015-05-08 15:57:54.522484", "2015-05-08 15:59:54.528286"},
	qaDir + "/multi/20150508.11.44":    {4, 0, "2015-05-08 15:44:04.631443", "2015-05-08 15:46:04.637523"},
	madeDir + "/merged3":               {0, 1, "", ""}, // only the mark count is pinned
	qaDir + "/ok-noti-interp":          {31, 0, "2015-11-09 23:54:32.048132", "2015-11-09 23:55:38.068279"},
	qaDir + "/multi_v3/20150508.11.44": {4, 0, "2015-05-08 15:44:04.631443", "2015-05-08 15:46:04.637523"},
	qaDir + "/pcp-atop-boot":           {13, 0, "", ""},
	qaDir + "/20101004-trunc":          {75, 0, "", ""},
	qaDir + "/960624.08.17_v2":         {11, 0, "", ""},
	qaDir + "/541380_v2":               {1, 0, "1997-11-02 22:33:24.637736", "1997-11-02 22:33:24.637736"},
	qaDir + "/sample-proc_v3":          {22, 0, "", ""},
	qaDir + "/multi-xz/20150508.11.46": {5, 0, "", ""},
	qaDir + "/multi/20150508.11.50":    {9, 0, "", ""},
	qaDir + "/multi_v3/20150508.11.57": {4, 0, "", ""},
	qaDir + "/ok-mv-interp":            {31, 0, "", ""},
	qaDir + "/ok-bigbin":               {1001, 0, "", ""},
	qaDir + "/markmerge":               {151, 1, "", ""},
	qaDir + "/gap2":                    {35, 2, "", ""},
	qaDir + "/changeinst":              {20, 2, "", ""},
	qaDir + "/mark-bug":                {86, 1, "", ""},
	qaDir + "/omnibus_v2":              {38, 2, "", ""},
	qaDir + "/gap":                     {23, 1, "", ""},
	qaDir + "/value-test":              {30, 0, "1970-01-01 00:00:00", "1970-01-01 00:00:29"},
	qaDir + "/dyninsts":                {20, 0, "1970-01-01 00:00:00", "1970-01-01 00:00:19"},
	qaDir + "/multi-xz/20150508.11.50": {9, 0, "", ""},
	qaDir + "/multi-xz/20150508.11.44": {4, 0, "", ""},
	qaDir + "/multi_v3/20150508.11.46": {5, 0, "", ""},
	qaDir + "/multi/20150508.11.57":    {4, 0, "", ""},
	qaDir + "/multi/20150508.11.46":    {5, 0, "", ""},
	qaDir + "/synth/ok-foo-xz":         {9, 0, "1998-08-06 18:34:32.257504", "1998-08-06 18:34:40.258477"},
	qaDir + "/synth/ok-foo-gz":         {9, 0, "1998-08-06 18:34:32.257504", "1998-08-06 18:34:40.258477"},
	qaDir + "/synth/ok-foo-bz2":        {9, 0, "1998-08-06 18:34:32.257504", "1998-08-06 18:34:40.258477"},
	madeDir + "/bad/partial3":          {6, 0, "2026-11-21 05:06:40.210490576", "2026-11-21 05:06:44.230155670"},
	madeDir + "/bad/corrupt3":          {1, 0, "2023-11-14 22:13:20", "2023-11-14 22:13:20"},
	madeDir + "/bad/noindex3":          {9, 1, "2023-11-14 22:13:20", "2023-11-14 22:13:45.25"},
}

func TestSharedArchivesForwardBackward(t *testing.T) {
	archives := sharedArchives(t)
	seen := map[string]bool{}
	for _, sa := range archives {
		seen[sa.name] = true
		t.Run(sa.name, func(t *testing.T) {
			a, err := Open(sa.path)
			if fails, ok := openFails[sa.name]; ok && fails {
				if err == nil {
					a.Close()
					t.Fatalf("Open succeeded on a damaged archive")
				}
				return // the code is checked by TestOpenBadArchives
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer a.Close()
			checkArchiveReads(t, sa, a)
		})
	}
	for name, c := range catalogued {
		if !seen[name] && c.recs > 0 {
			t.Errorf("catalogued archive %s not found among the shared archives", name)
		}
	}
}

// unordered are archives whose records are not in time order on disk
// (gfs: 1,144 records stamped after those that follow them). A Cursor
// reads records as they lie; libpcp's fetches (package replay) pass over
// a record stamped before the one before it, so pmdumplog prints fewer.
var unordered = map[string]bool{qaDir + "/gfs": true}

// fetchOrder is what libpcp's forward fetches give of recs: each record
// not stamped before the last one given.
func fetchOrder(recs []recInfo) []recInfo {
	var out []recInfo
	for _, r := range recs {
		if len(out) == 0 || !r.stamp.Before(out[len(out)-1].stamp) {
			out = append(out, r)
		}
	}
	return out
}

func checkArchiveReads(t *testing.T, sa sharedArch, a *Archive) {
	goodRecs, damaged := damagedData[sa.name]

	fwd, ferr := readAll(t, a.NewCursor(), true)
	if damaged {
		checkLogRecError(t, ferr)
		if len(fwd) != goodRecs {
			t.Errorf("forwards: %d good records before the damage, want %d", len(fwd), goodRecs)
		}
	} else if ferr != nil {
		t.Fatalf("forwards after %d records: %v", len(fwd), ferr)
	}
	if len(fwd) == 0 {
		t.Fatalf("no records")
	}
	for i := 1; i < len(fwd) && !unordered[sa.name]; i++ {
		if fwd[i].stamp.Before(fwd[i-1].stamp) {
			t.Errorf("forwards: record %d (%v) is earlier than record %d (%v)", i, fwd[i], i-1, fwd[i-1])
		}
	}

	// Backwards from the end must give the same records, reversed (for
	// corrupt3 only those after the damage, then the error).
	bc := a.NewCursor()
	bc.SeekEnd()
	bwd, berr := readAll(t, bc, false)
	if sa.name == madeDir+"/bad/corrupt3" {
		checkLogRecError(t, berr)
		if len(bwd) == 0 {
			t.Errorf("backwards: no record after the damage")
		}
	} else {
		if berr != nil {
			t.Fatalf("backwards after %d records: %v", len(bwd), berr)
		}
		if len(bwd) != len(fwd) {
			t.Fatalf("backwards: %d records, forwards %d", len(bwd), len(fwd))
		}
		for i := range fwd {
			if b := bwd[len(bwd)-1-i]; b != fwd[i] {
				t.Fatalf("record %d: forwards %v, backwards %v", i, fwd[i], b)
			}
		}
	}
	for i := 1; i < len(bwd) && !unordered[sa.name]; i++ {
		if bwd[i-1].stamp.Before(bwd[i].stamp) {
			t.Errorf("backwards: record %v comes before %v", bwd[i-1], bwd[i])
		}
	}

	// The end is the last whole record (found reading backwards).
	end, err := a.End()
	if err != nil {
		t.Fatalf("End: %v", err)
	}
	if len(bwd) > 0 && end != bwd[0].stamp {
		t.Errorf("End() = %s, last record %s", fmtStamp(end, 0), fmtStamp(bwd[0].stamp, 0))
	}
	if !damaged && end != fwd[len(fwd)-1].stamp {
		t.Errorf("End() = %s, last record forwards %s", fmtStamp(end, 0), fmtStamp(fwd[len(fwd)-1].stamp, 0))
	}

	marks := 0
	for _, r := range fwd {
		if r.numpmid == 0 {
			marks++
		}
	}
	if c, ok := catalogued[sa.name]; ok {
		if c.recs > 0 && len(fwd) != c.recs {
			t.Errorf("%d records, pmdumplog prints %d", len(fwd), c.recs)
		}
		if marks != c.marks {
			t.Errorf("%d <mark> records, pmdumplog prints %d", marks, c.marks)
		}
		if c.first != "" {
			if got, want := fwd[0].stamp, stampOf(t, c.first); got != want {
				t.Errorf("first record at %s, want %s", fmtStamp(got, 0), fmtStamp(want, 0))
			}
			if got, want := fwd[len(fwd)-1].stamp, stampOf(t, c.last); got != want {
				t.Errorf("last record at %s, want %s", fmtStamp(got, 0), fmtStamp(want, 0))
			}
		}
	}

	// The oracle: pmdumplog prints every record's time and metric count.
	// PCP 6.0.3 cannot read .zst: compare synth/ok-foo-zst with ok-foo.
	target := sa.path
	if sa.name == qaDir+"/synth/ok-foo-zst" {
		target = filepath.Join(sa.dir, "ok-foo")
	}
	out, stderr, rc, ok := realDumplog(t, "", target)
	if !ok {
		return
	}
	if damaged {
		if rc != 1 || !strings.Contains(stderr, "pmFetch: "+pmapi.ErrLogRec.Error()) {
			t.Errorf("pmdumplog: exit %d, stderr %q; want the corrupted record error", rc, stderr)
		}
	} else if rc != 0 {
		t.Fatalf("pmdumplog exit %d: %s", rc, stderr)
	}
	want := parseDumpRecords(out)
	if unordered[sa.name] {
		fwd = fetchOrder(fwd)
	}
	if len(want) != len(fwd) {
		t.Errorf("%d records, pmdumplog prints %d", len(fwd), len(want))
	}
	for i := 0; i < len(want) && i < len(fwd); i++ {
		got := dumpRec{fmtStamp(fwd[i].stamp, a.Version()), fwd[i].numpmid}
		if got.n == 0 {
			got.n = -1
		}
		if got != want[i] {
			t.Errorf("record %d: %v, pmdumplog prints %v", i, got, want[i])
			break
		}
	}

	// The label and the end, against pmdumplog -L.
	lout, lerr, rc, _ := realDumplog(t, "", "-L", target)
	if rc != 0 {
		t.Fatalf("pmdumplog -L exit %d: %s", rc, lerr)
	}
	dl := parseDumpLabel(t, lout)
	l := a.Label()
	if dl.version != l.Version || dl.host != l.Hostname || dl.tz != l.TZ || dl.zoneinfo != l.Zoneinfo || dl.pid != l.PID || dl.start != l.Start {
		t.Errorf("label: version %d host %q tz %q zoneinfo %q pid %d start %s; pmdumplog -L: version %d host %q tz %q zoneinfo %q pid %d start %s",
			l.Version, l.Hostname, l.TZ, l.Zoneinfo, l.PID, fmtStamp(l.Start, 0),
			dl.version, dl.host, dl.tz, dl.zoneinfo, dl.pid, fmtStamp(dl.start, 0))
	}
	if dl.end != end {
		t.Errorf("End() = %s, pmdumplog -L ending %s", fmtStamp(end, 0), fmtStamp(dl.end, 0))
	}
}

// checkLogRecError checks that err is a *FormatError wrapping
// pmapi.ErrLogRec that names its file and offset.
func checkLogRecError(t *testing.T, err error) *FormatError {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want a damaged record (PM_ERR_LOGREC)")
	}
	if !errors.Is(err, pmapi.ErrLogRec) {
		t.Fatalf("error %v does not wrap pmapi.ErrLogRec", err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	msg := err.Error()
	if fe.File == "" || !strings.Contains(msg, fe.File) || !strings.Contains(msg, fmt.Sprintf("offset %d", fe.Offset)) {
		t.Errorf("error %q does not name file %q and offset %d", msg, fe.File, fe.Offset)
	}
	return fe
}

// ---------------------------------------------------------------------------
// Archive.End against the label "ending" of pmdumplog -l.

func TestEndMatchesPmdumplog(t *testing.T) {
	// Values printed by the real pmdumplog -l (TZ=UTC) for each archive.
	cases := []struct {
		sub, rel string
		ending   string
	}{
		{madeDir, "bad/trunc3", "2026-11-21 05:06:52.226039640"},   // last 10 bytes cut: previous record
		{madeDir, "bad/partial3", "2026-11-21 05:06:44.230155670"}, // last 100 bytes cut: chased from the index
		{madeDir, "bad/corrupt3", "2023-11-14 22:13:45.25"},        // damage in the middle, tail intact
		{madeDir, "bad/noindex3", "2023-11-14 22:13:45.25"},
		{madeDir, "killed3", "2026-11-21 05:06:45.230162842"},
		{madeDir, "vol3", "2026-11-21 05:13:00.771780179"},
		{madeDir, "sighup3", "2026-11-21 05:12:57.228100495"},
		{madeDir, "synth3", "2023-11-14 22:13:45.25"},
		{qaDir, "synth/ok-foo-xz", "1998-08-06 18:34:40.258477"},
		{qaDir, "synth/ok-mv-foo-mixed", "1998-08-06 18:34:48.368813"},
		{qaDir, "20190628.04.03", "2019-06-27 18:05:46.453464"},
		{qaDir, "ok-noti-interp", "2015-11-09 23:55:38.068279"},
		{qaDir, "multi-xz/20150508.11.57", "2015-05-08 15:59:54.528286"},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			path := sharedPath(t, c.sub, c.rel)
			a := openT(t, path)
			end, err := a.End()
			if err != nil {
				t.Fatalf("End: %v", err)
			}
			if want := stampOf(t, c.ending); end != want {
				t.Errorf("End() = %s, want %s", fmtStamp(end, 0), fmtStamp(want, 0))
			}
			// Asking again (the cached answer) gives the same.
			if again, err := a.End(); err != nil || again != end {
				t.Errorf("second End() = %s, %v", fmtStamp(again, 0), err)
			}
			if out, stderr, rc, ok := realDumplog(t, "", "-l", path); ok {
				if rc != 0 {
					t.Fatalf("pmdumplog -l exit %d: %s", rc, stderr)
				}
				if dl := parseDumpLabel(t, out); dl.end != end {
					t.Errorf("End() = %s, pmdumplog -l ending %s", fmtStamp(end, 0), fmtStamp(dl.end, 0))
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Opening the damaged archives.

func TestOpenBadArchives(t *testing.T) {
	dir := sharedPath(t, madeDir, "bad")
	// The codes of the "Errors" table of ../shared/notes/pcp-6.0.3-behaviour.md,
	// each confirmed below with the real pmdumplog when it is installed.
	cases := []struct {
		name string
		want error // nil: opens
	}{
		{"badmagic3", pmapi.ErrLabel},
		{"notarch", pmapi.ErrLabel},
		{"shortlabel3", pmapi.ErrLabel},
		{"empty3", pmapi.ErrNoData},
		{"nometa3", pmapi.ErrLogFile},
		{"truncmeta3", pmapi.ErrLogRec},
		{"missing", os.ErrNotExist},
		{"noindex3", nil},
		{"trunc3", nil},
		{"partial3", nil},
		{"corrupt3", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Any file of the archive names it too.
			names := []string{filepath.Join(dir, c.name)}
			for _, suf := range []string{".0", ".meta"} {
				if _, err := os.Stat(filepath.Join(dir, c.name+suf)); err == nil {
					names = append(names, filepath.Join(dir, c.name+suf))
				}
			}
			for _, name := range names {
				a, err := Open(name)
				if c.want == nil {
					if err != nil {
						t.Errorf("Open(%s): %v", name, err)
						continue
					}
					a.Close()
					continue
				}
				if err == nil {
					a.Close()
					t.Errorf("Open(%s) succeeded, want %v", name, c.want)
					continue
				}
				if !errors.Is(err, c.want) {
					t.Errorf("Open(%s) = %v, want an error wrapping %v", name, err, c.want)
				}
				var pe pmapi.Error
				if errors.As(c.want, &pe) {
					if Code(err) != pe {
						t.Errorf("Code(%v) = %v, want %v", err, Code(err), pe)
					}
					var fe *FormatError
					if pe != pmapi.ErrLogFile && !errors.As(err, &fe) {
						t.Errorf("Open(%s) = %v (%T), want a *FormatError", name, err, err)
					}
				}
			}

			// The real tool reports the same.
			_, stderr, rc, ok := realDumplog(t, dir, "-l", c.name)
			if !ok {
				return
			}
			if c.want == nil {
				if rc != 0 {
					t.Errorf("pmdumplog -l %s: exit %d: %s", c.name, rc, stderr)
				}
				return
			}
			text := "No such file or directory"
			var pe pmapi.Error
			if errors.As(c.want, &pe) {
				text = pe.Error()
			}
			want := fmt.Sprintf("pmdumplog: Cannot open archive %q: %s\n", c.name, text)
			if rc != 1 || stderr != want {
				t.Errorf("pmdumplog -l %s: exit %d, stderr %q; want exit 1, %q", c.name, rc, stderr, want)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Damaged data records.

func TestDamagedData(t *testing.T) {
	cases := []struct {
		rel     string
		good    int   // records before the damage (as pmdumplog prints)
		badOff  int64 // offset of the damaged record in the .0 file
		backErr bool  // reading backwards from the end meets the damage too
	}{
		// trunc3.0 is basic3.0 less its last 10 bytes: the 22nd record is cut.
		{"bad/trunc3", 21, -1, false},
		// corrupt3.0 is synth3.0 with the length word of record 2 (at
		// 808+204 = 1012) changed from 248 to 184.
		{"bad/corrupt3", 1, 1012, true},
		{"bad/partial3", 6, -1, false},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			path := sharedPath(t, madeDir, c.rel)
			a := openT(t, path)
			cur := a.NewCursor()
			var last recInfo
			for i := 0; i < c.good; i++ {
				r, err := cur.Next()
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				last = infoOf(r)
			}
			vol, off := cur.Position()
			if vol != 0 || off != last.off+int64(last.length) {
				t.Fatalf("cursor at %d/%d after a record ending at %d", vol, off, last.off+int64(last.length))
			}
			_, err := cur.Next()
			fe := checkLogRecError(t, err)
			if filepath.Base(fe.File) != filepath.Base(path)+".0" {
				t.Errorf("error names file %q, want %s.0", fe.File, filepath.Base(path))
			}
			if fe.Offset != off {
				t.Errorf("error at offset %d, want %d (the end of the last good record)", fe.Offset, off)
			}
			if c.badOff >= 0 && fe.Offset != c.badOff {
				t.Errorf("error at offset %d, want %d", fe.Offset, c.badOff)
			}
			// Records are numbered in the file, the label being record 1.
			if fe.Record != c.good+2 {
				t.Errorf("error names record %d, want %d", fe.Record, c.good+2)
			}
			// The cursor stays at the damage: reading again gives the
			// same error, never a record beyond it.
			for i := 0; i < 3; i++ {
				if _, err2 := cur.Next(); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("Next again: %v, want %v", err2, err)
				}
			}
			// Going back from the damage gives the good records again.
			for i := c.good - 1; i >= 0; i-- {
				r, err := cur.Prev()
				if err != nil {
					t.Fatalf("Prev %d: %v", i, err)
				}
				if i == c.good-1 && infoOf(r) != last {
					t.Errorf("Prev gives %v, want %v", infoOf(r), last)
				}
			}
			if _, err := cur.Prev(); err != io.EOF {
				t.Errorf("Prev at the start: %v, want io.EOF", err)
			}
			// Backwards from the end.
			cur.SeekEnd()
			_, berr := readAll(t, cur, false)
			if c.backErr {
				checkLogRecError(t, berr)
			} else if berr != nil {
				t.Errorf("backwards: %v", berr)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// SeekTime against a linear scan.

func TestSeekTime(t *testing.T) {
	cases := []struct{ sub, rel string }{
		{qaDir, "ok-interp"},
		{qaDir, "ok-noti-interp"}, // no .index
		{qaDir, "ok-mv-bar"},      // 4 volumes
		{qaDir, "ok-mv-interp"},
		{qaDir, "20190628.04.03"}, // xz volumes, a <mark>
		{qaDir, "19970807.09.54"}, // marks 1 ms after a record
		{qaDir, "bug-1044"},       // 7565 records
		{qaDir, "omnibus_v3"},
		{qaDir, "multi_v3/20150508.11.50"},
		{qaDir, "synth/ok-mv-foo-mixed"},
		{qaDir, "late"},
		{madeDir, "synth2"},
		{madeDir, "synth3"},
		{madeDir, "vol3"},
		{madeDir, "sighup3"},
		{madeDir, "killed3"},
		{madeDir, "merged3"},
		{madeDir, "bad/noindex3"},
	}
	for _, c := range cases {
		for _, useIndex := range []bool{true, false} {
			name := c.rel + "/index"
			if !useIndex {
				name = c.rel + "/noindex"
			}
			t.Run(name, func(t *testing.T) {
				a := openT(t, sharedPath(t, c.sub, c.rel))
				if !useIndex {
					a.index = nil
				} else if c.rel == "ok-noti-interp" || c.rel == "bad/noindex3" {
					if a.HasIndex() || a.Index() != nil {
						t.Fatalf("an index where there is none")
					}
				} else if len(a.Index()) == 0 {
					t.Fatalf("no index entries")
				}
				checkSeekTime(t, a)
			})
		}
	}
}

func checkSeekTime(t *testing.T, a *Archive) {
	recs, err := readAll(t, a.NewCursor(), true)
	if err != nil {
		t.Fatal(err)
	}
	n := len(recs)
	var targets []pmapi.Timestamp
	add := func(ts ...pmapi.Timestamp) { targets = append(targets, ts...) }
	add(pmapi.Timestamp{}, recs[0].stamp.Add(-3600e9), recs[0].stamp.Add(-1), a.Label().Start)
	step := 1
	if n > 300 {
		step = n / 150
	}
	for i := 0; i < n; i += step {
		s := recs[i].stamp
		add(s, s.Add(-1), s.Add(1), s.Add(-1000), s.Add(1000))
		if i+1 < n {
			// half way to the next record
			add(s.Add(int64(pcptime.Sub(recs[i+1].stamp, s) * 1e9 / 2)))
		}
	}
	add(recs[n-1].stamp, recs[n-1].stamp.Add(1), recs[n-1].stamp.Add(3600e9), pmapi.Timestamp{Sec: 1 << 40})
	for _, e := range a.Index() {
		add(e.Stamp, e.Stamp.Add(-1), e.Stamp.Add(1))
	}

	c := a.NewCursor()
	for _, tt := range targets {
		want := 0
		for want < n && recs[want].stamp.Before(tt) {
			want++
		}
		if err := c.SeekTime(tt); err != nil {
			t.Fatalf("SeekTime(%s): %v", fmtStamp(tt, 0), err)
		}
		r, err := c.Next()
		switch {
		case want == n:
			if err != io.EOF {
				t.Errorf("SeekTime(%s) after the end: Next = %v, %v; want io.EOF", fmtStamp(tt, 0), r, err)
			}
		case err != nil:
			t.Fatalf("SeekTime(%s): Next: %v", fmtStamp(tt, 0), err)
		case infoOf(r) != recs[want]:
			t.Errorf("SeekTime(%s): Next = %v, want record %d %v", fmtStamp(tt, 0), infoOf(r), want, recs[want])
		}
		if err := c.SeekTime(tt); err != nil {
			t.Fatalf("SeekTime(%s): %v", fmtStamp(tt, 0), err)
		}
		r, err = c.Prev()
		switch {
		case want == 0:
			if err != io.EOF {
				t.Errorf("SeekTime(%s) before the start: Prev = %v, %v; want io.EOF", fmtStamp(tt, 0), r, err)
			}
		case err != nil:
			t.Fatalf("SeekTime(%s): Prev: %v", fmtStamp(tt, 0), err)
		case infoOf(r) != recs[want-1]:
			t.Errorf("SeekTime(%s): Prev = %v, want record %d %v", fmtStamp(tt, 0), infoOf(r), want-1, recs[want-1])
		}
	}
}

// ---------------------------------------------------------------------------
// Labels and index entries: decode(append(x)) == x.

func genLabel(t *rapid.T) *Label {
	l := &Label{Version: rapid.SampledFrom([]int{2, 3}).Draw(t, "version")}
	noNUL := rapid.ByteRange(1, 255)
	str := func(name string, max int) string {
		return string(rapid.SliceOfN(noNUL, 0, max).Draw(t, name))
	}
	l.PID = rapid.Int32().Draw(t, "pid")
	l.Vol = rapid.Int32().Draw(t, "vol")
	if l.Version == 3 {
		l.Start = pmapi.Timestamp{Sec: rapid.Int64().Draw(t, "sec"), Nsec: rapid.Int32Range(0, 999999999).Draw(t, "nsec")}
		l.Hostname = str("host", hostLenV3-1)
		l.TZ = str("tz", tzLenV3-1)
		l.Zoneinfo = str("zoneinfo", zoneLenV3-1)
		l.Features = rapid.Uint32().Draw(t, "features")
	} else {
		l.Start = pmapi.Timestamp{Sec: int64(rapid.Int32().Draw(t, "sec")), Nsec: 1000 * rapid.Int32Range(0, 999999).Draw(t, "usec")}
		l.Hostname = str("host", hostLenV2-1)
		l.TZ = str("tz", tzLenV2-1)
	}
	return l
}

func TestLabelRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := genLabel(t)
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "prefix")
		b := AppendLabel(append([]byte(nil), prefix...), l)
		if !bytes.Equal(b[:len(prefix)], prefix) || len(b)-len(prefix) != l.Size() {
			t.Fatalf("AppendLabel wrote %d bytes after the prefix, want %d", len(b)-len(prefix), l.Size())
		}
		got, err := DecodeLabel("x", b[len(prefix):])
		if err != nil {
			t.Fatalf("DecodeLabel: %v", err)
		}
		if *got != *l {
			t.Fatalf("round trip: got %+v, want %+v", *got, *l)
		}
		// Extra bytes after the label do not matter.
		if got2, err := DecodeLabel("x", append(b[len(prefix):], 1, 2, 3)); err != nil || *got2 != *l {
			t.Fatalf("with trailing bytes: %+v, %v", got2, err)
		}
		// Any strict prefix is refused with PM_ERR_LABEL.
		cut := rapid.IntRange(0, l.Size()-1).Draw(t, "cut")
		if _, err := DecodeLabel("x", b[len(prefix):len(prefix)+cut]); !errors.Is(err, pmapi.ErrLabel) {
			t.Fatalf("DecodeLabel of %d bytes: %v, want PM_ERR_LABEL", cut, err)
		}
	})
}

func TestLabelTruncatesLongStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := genLabel(t)
		long := string(rapid.SliceOfN(rapid.ByteRange(1, 255), 260, 400).Draw(t, "long"))
		l.Hostname, l.TZ = long, long
		if l.Version == 3 {
			l.Zoneinfo = long
		}
		got, err := DecodeLabel("x", AppendLabel(nil, l))
		if err != nil {
			t.Fatal(err)
		}
		hl, tl := hostLenV2-1, tzLenV2-1
		if l.Version == 3 {
			hl, tl = hostLenV3-1, tzLenV3-1
			if got.Zoneinfo != long[:zoneLenV3-1] {
				t.Fatalf("zoneinfo %q", got.Zoneinfo)
			}
		}
		if got.Hostname != long[:hl] || got.TZ != long[:tl] {
			t.Fatalf("host %q tz %q", got.Hostname, got.TZ)
		}
	})
}

func TestDecodeLabelErrors(t *testing.T) {
	good2 := AppendLabel(nil, &Label{Version: 2, Hostname: "h", Vol: 0})
	good3 := AppendLabel(nil, &Label{Version: 3, Hostname: "h", Vol: VolMeta})
	mod := func(b []byte, off int, v ...byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[off:], v)
		return c
	}
	cases := map[string][]byte{
		"empty":           nil,
		"short":           good2[:7],
		"bad magic":       mod(good2, 4, 0x50, 0x05, 0x27),
		"version 1":       mod(good2, 7, 1),
		"version 4":       mod(good3, 7, 4),
		"v2 with v3 size": mod(good3, 7, 2),
		"v3 with v2 size": mod(good2, 7, 3),
		"bad length":      mod(good2, 3, 0x85),
		"bad trailer":     mod(good2, LabelSizeV2-1, 0x80),
		"bad trailer v3":  mod(good3, LabelSizeV3-1, 0x29),
		"truncated v3":    good3[:LabelSizeV3-1],
	}
	for name, b := range cases {
		if l, err := DecodeLabel("f", b); !errors.Is(err, pmapi.ErrLabel) {
			t.Errorf("%s: DecodeLabel = %+v, %v; want PM_ERR_LABEL", name, l, err)
		} else if fe := (*FormatError)(nil); !errors.As(err, &fe) || fe.File != "f" {
			t.Errorf("%s: %v is not a *FormatError naming the file", name, err)
		}
	}
}

func TestIndexEntryRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		version := rapid.SampledFrom([]int{2, 3}).Draw(t, "version")
		var e IndexEntry
		size := indexEntryV2
		if version == 3 {
			size = indexEntryV3
			e = IndexEntry{
				Stamp:   pmapi.Timestamp{Sec: rapid.Int64().Draw(t, "sec"), Nsec: rapid.Int32Range(0, 999999999).Draw(t, "nsec")},
				Vol:     rapid.Int32().Draw(t, "vol"),
				MetaOff: rapid.Int64().Draw(t, "meta"),
				DataOff: rapid.Int64().Draw(t, "data"),
			}
		} else {
			e = IndexEntry{
				Stamp: pmapi.Timestamp{Sec: int64(rapid.Int32().Draw(t, "sec")), Nsec: 1000 * rapid.Int32Range(0, 999999).Draw(t, "usec")},
				Vol:   rapid.Int32().Draw(t, "vol"),
				// 32-bit offsets, unsigned as libpcp reads them
				MetaOff: int64(rapid.Uint32().Draw(t, "meta")),
				DataOff: int64(rapid.Uint32().Draw(t, "data")),
			}
		}
		b := AppendIndexEntry([]byte("xyz"), e, version)
		if len(b) != 3+size || string(b[:3]) != "xyz" {
			t.Fatalf("AppendIndexEntry wrote %d bytes, want %d", len(b)-3, size)
		}
		if got := DecodeIndexEntry(b[3:], version); got != e {
			t.Fatalf("round trip: got %+v, want %+v", got, e)
		}
		// loadIndex reads back a run of them, ignoring a partial tail.
		var all []byte
		n := rapid.IntRange(0, 5).Draw(t, "n")
		for i := 0; i < n; i++ {
			all = AppendIndexEntry(all, e, version)
		}
		tail := rapid.IntRange(0, size-1).Draw(t, "tail")
		all = append(all, make([]byte, tail)...)
		got, err := loadIndex(bytes.NewReader(all), version, 0)
		if err != nil || len(got) != n {
			t.Fatalf("loadIndex: %d entries, %v; want %d", len(got), err, n)
		}
		for _, g := range got {
			if g != e {
				t.Fatalf("loadIndex: %+v, want %+v", g, e)
			}
		}
	})
}

// indexGoesBack lists the index entries of shared archives whose stamps
// are earlier than the entry before (the index is loaded as it is, as
// libpcp loads it). chartqa1's entry 183 is 1 µs earlier than entry 182:
// the real pmdumplog -t prints "Error: timestamp went backwards in time
// 22:35:06.266429 -> 22:35:06.266428" after it.
var indexGoesBack = map[string][]int{"pcp-qa-archives/chartqa1": {183}}

// The index entries of real archives decode to what pmdumplog -t prints:
// checked here through their invariants (the first entry is the label
// start at the end of the data volume's label; stamps do not go back,
// but where indexGoesBack says).
func TestIndexOfSharedArchives(t *testing.T) {
	for _, sa := range sharedArchives(t) {
		if openFails[sa.name] {
			continue
		}
		a, err := Open(sa.path)
		if err != nil {
			t.Errorf("%s: %v", sa.name, err)
			continue
		}
		idx := a.Index()
		if a.HasIndex() && len(idx) == 0 {
			t.Errorf("%s: empty index", sa.name)
		}
		if len(idx) > 0 {
			lab := int64(a.Label().Size())
			// (Old archives have the first MetaOff after some metadata.)
			if e := idx[0]; e.DataOff != lab || e.MetaOff < lab || e.Stamp != a.Label().Start {
				t.Errorf("%s: first index entry %+v, want the label start at offset %d", sa.name, e, lab)
			}
		}
		var back []int
		for i := 1; i < len(idx); i++ {
			if idx[i].Stamp.Before(idx[i-1].Stamp) {
				back = append(back, i)
			}
		}
		if want := indexGoesBack[sa.name]; !slices.Equal(back, want) {
			t.Errorf("%s: index entries %v go back in time, want %v", sa.name, back, want)
		}
		a.Close()
	}
}

// ---------------------------------------------------------------------------
// Values.

func TestSynthFirstRecordValues(t *testing.T) {
	// pmdumplog synth3 (and synth2) print for the first record:
	//   245.0.1 (synth.ctr32): value 100          U32    INSITU
	//   245.0.2 (synth.ctrms): value 1000         U64    DPTR
	//   245.0.3 (synth.inst): value 10            DOUBLE DPTR
	//   245.0.4 (synth.disc): value 5             U32    INSITU
	//   245.0.5 (synth.str): value "a"            STRING DPTR
	//   245.0.6 (synth.multi): inst [1 or "alpha"] value 1.5   FLOAT DPTR
	//   245.0.7 (synth.once): value 42            32     INSITU
	type want struct {
		item   uint32
		valfmt int32
		inst   int32
		typ    pmapi.Type
		insitu int32
		block  []byte
		text   string
	}
	wants := []want{
		{1, pmapi.ValFmtInsitu, -1, pmapi.TypeU32, 100, nil, "100"},
		{2, pmapi.ValFmtDptr, -1, pmapi.TypeU64, 0, []byte{0, 0, 0, 0, 0, 0, 3, 0xe8}, "1000"},
		{3, pmapi.ValFmtDptr, -1, pmapi.TypeDouble, 0, []byte{0x40, 0x24, 0, 0, 0, 0, 0, 0}, "10"},
		{4, pmapi.ValFmtInsitu, -1, pmapi.TypeU32, 5, nil, "5"},
		{5, pmapi.ValFmtDptr, -1, pmapi.TypeString, 0, []byte("a\x00"), `"a"`},
		{6, pmapi.ValFmtDptr, 1, pmapi.TypeFloat, 0, []byte{0x3f, 0xc0, 0, 0}, "1.5"},
		{7, pmapi.ValFmtInsitu, -1, pmapi.Type32, 42, nil, "42"},
	}
	for _, name := range []string{"synth2", "synth3"} {
		t.Run(name, func(t *testing.T) {
			a := openT(t, sharedPath(t, madeDir, name))
			r, err := a.NewCursor().Next()
			if err != nil {
				t.Fatal(err)
			}
			if r.Stamp != (pmapi.Timestamp{Sec: 1700000000}) || r.IsMark() || r.NumPMID() != len(wants) {
				t.Fatalf("first record: %s, %d pmids", fmtStamp(r.Stamp, 0), r.NumPMID())
			}
			wantOff := int64(LabelSizeV2)
			if name == "synth3" {
				wantOff = LabelSizeV3
			}
			if r.Offset != wantOff || r.Vol != 0 || r.Len() != len(r.Raw()) {
				t.Errorf("record at vol %d offset %d, want 0/%d", r.Vol, r.Offset, wantOff)
			}
			for i, w := range wants {
				pmid := pmapi.NewPMID(245, 0, w.item)
				if r.PMID(i) != pmid || r.NumVal(i) != 1 || r.ValFmt(i) != w.valfmt || r.Inst(i, 0) != w.inst {
					t.Errorf("vset %d: pmid %s numval %d valfmt %d inst %d", i, r.PMID(i), r.NumVal(i), r.ValFmt(i), r.Inst(i, 0))
					continue
				}
				d, ok := a.Meta().Desc(pmid)
				if !ok || d.Type != w.typ {
					t.Errorf("%s: descriptor %+v", pmid, d)
					continue
				}
				v := r.Value(i, 0)
				if v.Inst != w.inst {
					t.Errorf("%s: inst %d", pmid, v.Inst)
				}
				if w.block == nil {
					if v.Block != nil || v.Insitu != w.insitu {
						t.Errorf("%s: insitu %d block %x, want insitu %d", pmid, v.Insitu, v.Block, w.insitu)
					}
				} else if !bytes.Equal(v.Block, w.block) || v.BlockType != w.typ {
					t.Errorf("%s: block type %v % x, want %v % x", pmid, v.BlockType, v.Block, w.typ, w.block)
				}
				if got := string(pmapi.AppendValue(nil, d.Type, &v)); got != w.text {
					t.Errorf("%s: value %s, pmdumplog prints %s", pmid, got, w.text)
				}
			}
			// The Result copy holds the same values and owns its bytes.
			res := r.Result()
			if res.Timestamp != r.Stamp || len(res.VSets) != len(wants) {
				t.Fatalf("Result: %+v", res)
			}
			blk := res.VSets[4].Values[0].Block
			if string(blk) != "a\x00" {
				t.Fatalf("Result string block %q", blk)
			}
			cl := r.Clone()
			// Reading on reuses the cursor's buffer; the copies must not change.
			if _, err := a.NewCursor().Next(); err != nil {
				t.Fatal(err)
			}
			if string(blk) != "a\x00" || cl.Value(4, 0).Block == nil || string(cl.Value(4, 0).Block) != "a\x00" {
				t.Fatalf("copies changed")
			}
		})
	}
}

// dumpValue is one value as pmdumplog prints it, in order.
type dumpValue struct {
	rec  int
	pmid string
	inst int32
	text string
}

var (
	dumpVsetRE = regexp.MustCompile(`^    (\d+\.\d+\.\d+) \((.*?)\): ?(.*)$`)
	dumpInstRE = regexp.MustCompile(`^inst \[(-?\d+) or .*?\] value (.*)$`)
	dumpEvtRE  = regexp.MustCompile(`\[(-?\d+) or .*\]$`)
)

// parseDumpValues extracts from pmdumplog's default output every value
// line: value sets of one or many instances, "No values returned!" and
// error texts, and for event metrics their record counts ("#events N").
func parseDumpValues(out string) []dumpValue {
	var vals []dumpValue
	rec := -1
	pmid := ""
	for _, line := range strings.Split(out, "\n") {
		if dumpRecRE.MatchString(line) {
			rec++
			pmid = ""
			continue
		}
		if m := dumpVsetRE.FindStringSubmatch(line); m != nil {
			pmid = m[1]
			rest := m[3]
			inst := int32(-1)
			if em := dumpEvtRE.FindStringSubmatch(m[2]); em != nil {
				i, _ := strconv.Atoi(em[1])
				inst = int32(i)
			}
			switch {
			case rest == "":
				// the instances follow, one a line
			case strings.HasPrefix(rest, "value "):
				vals = append(vals, dumpValue{rec, pmid, inst, strings.TrimPrefix(rest, "value ")})
			case dumpInstRE.MatchString(rest):
				im := dumpInstRE.FindStringSubmatch(rest)
				i, _ := strconv.Atoi(im[1])
				vals = append(vals, dumpValue{rec, pmid, int32(i), im[2]})
			case rest == "No event records":
				vals = append(vals, dumpValue{rec, pmid, inst, "#events 0"})
			case strings.HasSuffix(rest, " event records") || strings.HasSuffix(rest, " event record"):
				n := strings.Fields(rest)[0]
				vals = append(vals, dumpValue{rec, pmid, inst, "#events " + n})
			default:
				vals = append(vals, dumpValue{rec, pmid, inst, "!" + rest})
			}
			continue
		}
		if pmid != "" && strings.HasPrefix(line, "        inst [") {
			im := dumpInstRE.FindStringSubmatch(strings.TrimPrefix(line, "        "))
			if im != nil {
				i, _ := strconv.Atoi(im[1])
				vals = append(vals, dumpValue{rec, pmid, int32(i), im[2]})
			}
		}
	}
	return vals
}

// ourValues lists the values of every record as parseDumpValues does.
func ourValues(t *testing.T, a *Archive) []dumpValue {
	var vals []dumpValue
	c := a.NewCursor()
	for rec := 0; ; rec++ {
		r, err := c.Next()
		if err == io.EOF {
			return vals
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < r.NumPMID(); i++ {
			pmid := r.PMID(i).String()
			nv := r.NumVal(i)
			switch {
			case nv == 0:
				vals = append(vals, dumpValue{rec, pmid, -1, "!No values returned!"})
				continue
			case nv < 0:
				vals = append(vals, dumpValue{rec, pmid, -1, "!" + pmapi.Error(nv).Error()})
				continue
			}
			d, ok := a.Meta().Desc(r.PMID(i))
			if !ok {
				t.Fatalf("record %d: no descriptor for %s", rec, pmid)
			}
			for j := 0; j < int(nv); j++ {
				v := r.Value(i, j)
				if v.Inst != r.Inst(i, j) {
					t.Fatalf("Value and Inst disagree")
				}
				var text string
				switch d.Type {
				case pmapi.TypeEvent, pmapi.TypeHighresEvent:
					ea, err := pmapi.DecodeEvents(v.Block, d.Type == pmapi.TypeHighresEvent)
					if err != nil {
						t.Fatalf("record %d %s: %v", rec, pmid, err)
					}
					text = fmt.Sprintf("#events %d", len(ea.Records))
				default:
					text = string(pmapi.AppendValue(nil, d.Type, &v))
				}
				inst := v.Inst
				if d.InDom == pmapi.InDomNull {
					// pmdumplog prints no instance for a singular
					// metric, whatever the record holds.
					inst = -1
				}
				vals = append(vals, dumpValue{rec, pmid, inst, text})
			}
		}
	}
}

func TestValuesMatchPmdumplog(t *testing.T) {
	cases := []struct{ sub, rel string }{
		{madeDir, "synth2"},
		{madeDir, "synth3"},
		{madeDir, "sample2"},
		{madeDir, "sample3"},
		{madeDir, "basic2"},
		{madeDir, "basic3"},
		{madeDir, "derived3"},
		{madeDir, "merged3"},
		{qaDir, "960624.08.17_v2"}, // INSITU FLOAT, vtype 0 blocks
		{qaDir, "541380_v2"},
		{qaDir, "omnibus_v3"},
		{qaDir, "omnibus_v2"},
		{qaDir, "eventrec"},
		{qaDir, "eventrec-old"},
		{qaDir, "ok-mv-bar"},
		{qaDir, "20190628.04.03"},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			path := sharedPath(t, c.sub, c.rel)
			a := openT(t, path)
			got := ourValues(t, a)
			out, stderr, rc, ok := realDumplog(t, "", path)
			if !ok {
				t.Skip("the real pmdumplog is not installed")
			}
			if rc != 0 {
				t.Fatalf("pmdumplog exit %d: %s", rc, stderr)
			}
			want := parseDumpValues(out)
			if len(want) < 3 {
				t.Fatalf("parsed only %d values from pmdumplog", len(want))
			}
			for i := 0; i < len(got) && i < len(want); i++ {
				if got[i] != want[i] {
					t.Fatalf("value %d: got %+v, pmdumplog prints %+v", i, got[i], want[i])
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d values, pmdumplog prints %d", len(got), len(want))
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Resource bounds on hostile metadata.

// An instance domain record whose name offsets all point at one long string
// with no NUL must not cost a copy of that string per instance (that was
// quadratic: a 100 KB record made 250 MB of names).
func TestInDomNamesShareTheRecord(t *testing.T) {
	const n = 4000
	const tail = 64 << 10
	for _, version := range []int{2, 3} {
		typ := uint32(MetaInDomV2)
		if version == 3 {
			typ = MetaInDom
		}
		body := be32(typ)
		body = append(body, stampBytes(version, pmapi.Timestamp{Sec: 1})...)
		body = append(body, be32(uint32(tinyInDom), n)...)
		for i := 0; i < n; i++ {
			body = append(body, be32(uint32(i))...)
		}
		for i := 0; i < n; i++ {
			body = append(body, be32(uint32(i%7))...) // offsets 0..6
		}
		body = append(body, bytes.Repeat([]byte{'x'}, tail)...)
		rec := framed(body)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m, err := loadMeta("x.meta", bytes.NewReader(rec), 0, version)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
			t.Errorf("v%d: loading a %d byte record allocated %d bytes", version, len(rec), got)
		}
		ir := m.InDomRecords[0]
		if len(ir.Names) != n || len(ir.Names[0]) != tail || len(ir.Names[6]) != tail-6 || ir.Names[8] != ir.Names[1] {
			t.Errorf("v%d: names of lengths %d, %d", version, len(ir.Names[0]), len(ir.Names[6]))
		}
	}
	// Names stop at their NUL.
	body := be32(MetaInDomV2, 1, 0, uint32(tinyInDom), 3, 1, 2, 3, 0, 2, 4)
	body = append(body, "a\x00b\x00cd"...)
	m, err := loadMeta("x.meta", bytes.NewReader(framed(body)), 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.InDomRecords[0].Names; len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "cd" {
		t.Errorf("names %q", got)
	}
}

// firstRecord opens testdata/archives/name (closed at the end of the
// test) and reads its first record with a new cursor.
func firstRecord(t *testing.T, name string) (*Archive, *Cursor, *Record) {
	t.Helper()
	a, err := Open(filepath.Join(testenv.RepoRoot(t), "testdata", "archives", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	c := a.NewCursor()
	first, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	return a, c, first
}

// TestCursorRereadsHeldRecord checks that a record read again at the same
// position (a replay fetching once per metric from one origin) is the
// record held from the last read, not decoded again, and that another
// position is decoded: the values are those of the record at the
// position either way.
func TestCursorRereadsHeldRecord(t *testing.T) {
	_, c, first := firstRecord(t, "sample-v3")
	vol, off, want1 := first.Vol, first.Offset, first.Result()
	second, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	want2 := second.Result()
	if c.held.off == off {
		t.Fatalf("held record is still the first one after reading the second")
	}
	for i, w := range []*pmapi.Result{want1, want1, want2, want1} {
		switch i {
		case 0, 1, 3:
			c.SetPosition(vol, off)
		}
		r, err := c.Next()
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if diff := cmp.Diff(w, r.Result()); diff != "" {
			t.Errorf("read %d: (-want +got)\n%s", i, diff)
		}
		if i == 1 && (!c.held.ok || c.held.off != off) {
			t.Errorf("read %d: the record at %d was not held for reading again: %+v", i, off, c.held)
		}
	}
	// Not decoded again: what the held record's index says survives.
	c.SetPosition(vol, off)
	c.Next()
	c.rec.vsets[0].NumVal = -12345
	c.SetPosition(vol, off)
	if r, _ := c.Next(); r.NumVal(0) != -12345 {
		t.Errorf("the record at %d was decoded again", off)
	}
}

// sizeCounter counts a volume's Size calls (each an fstat of a plain
// file).
type sizeCounter struct {
	volumeData
	n int
}

func (s *sizeCounter) Size() (int64, error) { s.n++; return s.volumeData.Size() }

// countSizes opens testdata archive name at its first record, with the
// Size calls of that record's volume counted.
func countSizes(t *testing.T, name string) (*Archive, *Cursor, *Record, *volume, *sizeCounter) {
	t.Helper()
	a, c, first := firstRecord(t, name)
	v, err := a.volume(first.Vol)
	if err != nil {
		t.Fatal(err)
	}
	sc := &sizeCounter{volumeData: v.data}
	v.data = sc
	return a, c, first, v, sc
}

// TestSeekTimeKnowsVolumeSize checks that positioning by the temporal
// index reads a volume's size again only for an entry beyond the size
// known (pminfo -f positions once per metric), and still finds that a
// volume has grown.
func TestSeekTimeKnowsVolumeSize(t *testing.T) {
	_, c, first, v, sc := countSizes(t, "sample-v3")
	for i := 0; i < 10; i++ {
		if err := c.SeekTime(first.Stamp); err != nil {
			t.Fatal(err)
		}
	}
	if sc.n != 0 {
		t.Errorf("10 positionings read the volume's size %d times, want 0", sc.n)
	}
	v.size -= 100 // as if the volume had grown by 100 bytes since
	e := IndexEntry{Vol: int32(first.Vol), DataOff: v.size + 1}
	if ok := c.usable(e); !ok || sc.n != 1 {
		t.Errorf("an entry beyond the size known: usable %v after %d size reads, want true after 1", ok, sc.n)
	}
}

// TestLoadIndexChunks checks that loadIndex decodes every whole entry of
// an index, and leaves a partial last one, however the reader splits the
// bytes (entries across chunk and read boundaries).
func TestLoadIndexChunks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		version := rapid.SampledFrom([]int{2, 3}).Draw(t, "version")
		size := indexEntryV2
		if version == 3 {
			size = indexEntryV3
		}
		data := rapid.SliceOfN(rapid.Byte(), 0, 600*size).Draw(t, "data")
		var want []IndexEntry
		for b := data; len(b) >= size; b = b[size:] {
			want = append(want, DecodeIndexEntry(b, version))
		}
		readers := map[string]io.Reader{
			"whole": bytes.NewReader(data),
			"byte":  iotest.OneByteReader(bytes.NewReader(data)),
			"half":  iotest.HalfReader(bytes.NewReader(data)),
		}
		for _, name := range []string{"whole", "byte", "half"} {
			r := readers[name]
			// the length of r given (a plain file's) or not
			hint := rapid.SampledFrom([]int{0, len(data)}).Draw(t, "hint "+name)
			got, err := loadIndex(r, version, hint)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %d entries, want %d", name, len(got), len(want))
			}
			if hint > 0 && cap(got) != len(want) {
				t.Fatalf("%s: capacity %d for %d entries", name, cap(got), len(want))
			}
		}
		// More than a chunk: the second read fails, and says so.
		if _, err := loadIndex(iotest.TimeoutReader(bytes.NewReader(data)), version, 0); len(data) > 256*size && !errors.Is(err, iotest.ErrTimeout) {
			t.Fatalf("a read error is not returned: %v", err)
		}
	})
}

// TestKnownVolumeSize checks that KnownVolumeSize answers from the size
// read last, without reading it again (replay's positioning asks it once
// per positioning), and that VolumeSize still reads a volume that grew.
func TestKnownVolumeSize(t *testing.T) {
	a, _, first, v, sc := countSizes(t, "sample-v3")
	want := v.size
	for i := 0; i < 10; i++ {
		if got, err := a.KnownVolumeSize(first.Vol); err != nil || got != want {
			t.Fatalf("KnownVolumeSize = %d, %v, want %d", got, err, want)
		}
	}
	if sc.n != 0 {
		t.Errorf("10 KnownVolumeSize calls read the volume's size %d times, want 0", sc.n)
	}
	v.size -= 100 // as if the volume had grown by 100 bytes since
	if got, err := a.VolumeSize(first.Vol); err != nil || got != want || sc.n != 1 {
		t.Errorf("VolumeSize = %d, %v after %d size reads, want %d after 1", got, err, sc.n, want)
	}
	if _, err := a.KnownVolumeSize(99); err == nil {
		t.Error("KnownVolumeSize of a missing volume: no error")
	}
}

// TestCursorSkipFrames: skipping records read before leaves the cursor
// where reading them would (the next record, and its number in errors),
// and a skip it cannot make changes nothing.
func TestCursorSkipFrames(t *testing.T) {
	_, c, first := firstRecord(t, "sample-v3")
	vol, start := first.Vol, first.Offset+int64(first.Len()) // (c reuses first)
	var ends []int64
	for i := 0; i < 3; i++ {
		r, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, r.Offset+int64(r.Len()))
	}
	want, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	wantRes, wantNo := want.Result(), want.recno

	c.SetPosition(vol, start)
	c.recno = 3
	for _, bad := range []struct {
		vol int
		off int64
		n   int
	}{{vol + 1, ends[2], 3}, {vol, start - 1, 0}, {vol, ends[2], -1}} {
		if err := c.SkipFrames(bad.vol, bad.off, bad.n); err == nil {
			t.Errorf("SkipFrames(%d, %d, %d) did not fail", bad.vol, bad.off, bad.n)
		}
	}
	if v, off := c.Position(); v != vol || off != start || c.recno != 3 {
		t.Fatalf("a failed skip moved the cursor to %d:%d (record %d)", v, off, c.recno)
	}
	if err := c.SkipFrames(vol, ends[2], 3); err != nil {
		v, off := c.Position()
		t.Fatalf("SkipFrames(%d, %d, 3) at %d:%d: %v", vol, ends[2], v, off, err)
	}
	got, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRes, got.Result()); diff != "" || got.recno != wantNo {
		t.Errorf("after the skip: record number %d, want %d; (-want +got)\n%s", got.recno, wantNo, diff)
	}
}

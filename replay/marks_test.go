package replay_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/replay"
)

// TestOracleIgnoreMarks compares interpolation across <mark>s with
// $PCP_IGNORE_MARK_RECORDS set (every <mark>, or those with a gap at most
// as long as an interval), forwards and backwards, on archives with
// <mark>s and on sets of archives (virtual <mark>s between them).
func TestOracleIgnoreMarks(t *testing.T) {
	needOracle(t)
	for _, a := range []struct{ set, name string }{
		{"pcp-qa-archives", "gap2"},
		{"pcp-qa-archives", "gap"},
		{"pcp-qa-archives", "changeinst"},
		{"pcp-qa-archives", "19970807.09.54"},
		{"pcp-qa-archives", "markmerge"},
		{"pcp-qa-archives", "multi"},
		{"pcp-qa-archives", "multi_v3"},
	} {
		dir := testenv.SharedDir(t, a.set)
		t.Run(a.name, func(t *testing.T) {
			start, end, _, pmids := archiveFacts(t, filepath.Join(dir, a.name))
			rng := rand.New(rand.NewSource(int64(len(a.name))))
			for _, v := range markValues {
				env := replay.IgnoreMarksEnv + "=" + v
				if _, err := replay.ParseIgnoreMarks(v, true); err != nil {
					// libpcp leaves the <mark>s in place
					env = "PCPKIT_UNUSED=" + v
				}
				compareOracle(t, dir, a.name, pmidList(pmids, 40), interpScript(start, end), env)
				compareOracle(t, dir, a.name, pmidList(pmids, 40), randomScript(rng, start, end, 8), env)
			}
		})
	}
}

// TestParseIgnoreMarks checks how $PCP_IGNORE_MARK_RECORDS is read and
// libpcp's warning for a bad value (QA 1354's error cases).
func TestParseIgnoreMarks(t *testing.T) {
	for _, c := range []struct {
		v    string
		set  bool
		want interp.MarkPolicy
		warn string
	}{
		{"", false, interp.MarkPolicy{}, ""},
		{"", true, interp.MarkPolicy{Ignore: true}, ""},
		{"0", true, interp.MarkPolicy{Ignore: true}, ""},
		{"6", true, interp.MarkPolicy{Ignore: true, Gap: 6}, ""},
		{"2min", true, interp.MarkPolicy{Ignore: true, Gap: 120}, ""},
		{"1.5sec", true, interp.MarkPolicy{Ignore: true, Gap: 1.5}, ""},
		{"1minuet", true, interp.MarkPolicy{},
			"pmval: Warning: bad $PCP_IGNORE_MARK_RECORDS: not in pmParseInterval(3) format:\n1minuet\n ^ -- unexpected value\n\n"},
		{"1.2^3", true, interp.MarkPolicy{},
			"pmval: Warning: bad $PCP_IGNORE_MARK_RECORDS: not in pmParseInterval(3) format:\n1.2^3\n   ^ -- unexpected value\n\n"},
		{"-123", true, interp.MarkPolicy{},
			"pmval: Warning: bad $PCP_IGNORE_MARK_RECORDS: not in pmParseInterval(3) format:\n-123\n^ -- unexpected value\n\n"},
	} {
		got, err := replay.ParseIgnoreMarks(c.v, c.set)
		if got != c.want {
			t.Errorf("ParseIgnoreMarks(%q, %v) = %+v, want %+v", c.v, c.set, got, c.want)
		}
		warn := ""
		if err != nil {
			warn = replay.MarkWarning("pmval", err)
		}
		if warn != c.warn {
			t.Errorf("ParseIgnoreMarks(%q): warning\n%q\nwant\n%q", c.v, warn, c.warn)
		}
	}
}

var markValues = func() []string {
	if v, ok := os.LookupEnv("MARKV"); ok {
		return []string{v}
	}
	return []string{"", "1", "6", "2min", "0.004", "1.2^3"}
}()

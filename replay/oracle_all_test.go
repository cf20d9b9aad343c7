package replay_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestOracleAll compares replay with libpcp on every shared archive,
// damaged ones included, with all metrics at once.
func TestOracleAll(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needOracle(t)
	forOracleArchives(t, func(t *testing.T, dir, a string, start, end pmapi.Timestamp, nrec int, pmids []pmapi.PMID) {
		compareOracle(t, dir, a, pmidList(pmids, 60), recordScript(start, end, nrec))
		compareOracle(t, dir, a, pmidList(pmids, 60), interpScript(start, end))
	})
}

// forOracleArchives runs f, in a subtest, for every shared archive (not
// the directories of archives, nor the zstd-compressed ones) that opens,
// with its span, number of records and metrics; $ORACLE_ONLY picks the
// archives whose names hold it.
func forOracleArchives(t *testing.T, f func(t *testing.T, dir, a string, start, end pmapi.Timestamp, nrec int, pmids []pmapi.PMID)) {
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, a := range testenv.Archives(t, dir) {
			if strings.HasPrefix(a, "multi") || strings.HasSuffix(a, "-zst") {
				continue
			}
			t.Run(set+"/"+a, func(t *testing.T) {
				if os.Getenv("ORACLE_ONLY") != "" && !strings.Contains(a, os.Getenv("ORACLE_ONLY")) {
					t.Skip()
				}
				start, end, nrec, pmids, ok := archiveFactsOK(t, filepath.Join(dir, a))
				if !ok {
					t.Skip("cannot open")
				}
				f(t, dir, a, start, end, nrec, pmids)
			})
		}
	}
}

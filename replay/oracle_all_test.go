package replay_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestOracleAll compares replay with libpcp on every shared archive,
// damaged ones included, with all metrics at once.
func TestOracleAll(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needOracle(t)
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		names := testenv.Archives(t, dir)
		for _, a := range names {
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
				compareOracle(t, dir, a, pmidList(pmids, 60), recordScript(start, end, nrec))
				compareOracle(t, dir, a, pmidList(pmids, 60), interpScript(start, end))
			})
		}
	}
}

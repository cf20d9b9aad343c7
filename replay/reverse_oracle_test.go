package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestOracleReverse compares with libpcp the replay pmval --reverse makes
// (see internal/pmval): PM_MODE_INTERP set as pmval sets it (an origin in
// microseconds, a delta in milliseconds), here negative, from the end of
// the archive back past its start, on every shared archive, all metrics
// at once, at a coarse and a fine step; and the same from the middle of
// the archive.
func TestOracleReverse(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needOracle(t)
	forOracleArchives(t, func(t *testing.T, dir, a string, start, end pmapi.Timestamp, _ int, pmids []pmapi.PMID) {
		compareOracle(t, dir, a, pmidList(pmids, 60), reverseScript(start, end))
	})
}

// reverseScript is pmval --reverse's replay: origins truncated to
// microseconds, deltas in milliseconds, negative; from the end with a
// step of a tenth and of a hundredth of the archive (at least 1 ms), and
// from the middle with a step of a thirtieth, each far enough to pass the
// start.
func reverseScript(start, end pmapi.Timestamp) string {
	var b strings.Builder
	span := pcptime.Sub(end, start)
	mid := start.Add(int64(span * 1e9 / 2))
	for _, c := range []struct {
		from  pmapi.Timestamp
		parts float64
	}{{end, 10}, {end, 100}, {mid, 30}} {
		ms := int64(span * 1000 / c.parts)
		if ms < 1 {
			ms = 1
		}
		n := int(span*1000/float64(ms)) + 3
		if n > 400 {
			n = 400
		}
		fmt.Fprintf(&b, "modems interp %d %d %d\nfetch %d\n", c.from.Sec, c.from.Nsec/1000, -ms, n)
	}
	return b.String()
}

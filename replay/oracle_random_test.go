package replay_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// randomScript makes a script of random mode changes and fetches around
// the span of an archive: origins inside, just outside and far outside
// it, positive and negative deltas from a millisecond to the whole span,
// and mixes of the three modes, so that kept and forgotten bounds,
// positioning by the index and the counter-after-<mark> rule all get
// exercised.
func randomScript(rng *rand.Rand, start, end pmapi.Timestamp, n int) string {
	var b strings.Builder
	span := int64(pcptime.Sub(end, start) * 1e9)
	if span <= 0 {
		span = 1e9
	}
	for i := 0; i < n; i++ {
		var origin pmapi.Timestamp
		switch rng.Intn(6) {
		case 0:
			origin = start
		case 1:
			origin = end
		case 2:
			origin = interp.AddDelta(start, rng.Int63n(4e6)-2e6)
		case 3:
			origin = interp.AddDelta(end, rng.Int63n(4e6)-2e6)
		default:
			origin = interp.AddDelta(start, rng.Int63n(span+2e9)-1e9)
		}
		switch rng.Intn(8) {
		case 0:
			fmt.Fprintf(&b, "mode forw %s 0 0\nfetch %d\n", stamp(origin), 1+rng.Intn(4))
		case 1:
			fmt.Fprintf(&b, "mode back %s 0 0\nfetch %d\n", stamp(origin), 1+rng.Intn(4))
		case 2:
			fmt.Fprintf(&b, "modems interp %d %d %d\nfetch %d\n", origin.Sec, origin.Nsec/1000,
				(rng.Int63n(2)*2-1)*(1+rng.Int63n(span/1e6/4+1)), 1+rng.Intn(30))
		default:
			var d int64
			switch rng.Intn(3) {
			case 0:
				d = 1e6 * (1 + rng.Int63n(1000))
			case 1:
				d = 1 + rng.Int63n(span/3+1)
			default:
				d = span / int64(2+rng.Intn(40))
			}
			if rng.Intn(3) == 0 {
				d = -d
			}
			fmt.Fprintf(&b, "mode interp %s %s\nfetch %d\n", stamp(origin), deltaArg(d), 1+rng.Intn(40))
		}
	}
	return b.String()
}

// TestOracleRandom compares replay with libpcp on random scripts and
// random sets of metrics. ORACLE_SEED picks the seed (default 1),
// ORACLE_ROUNDS the number of scripts per archive (default 4).
func TestOracleRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	needOracle(t)
	seed, rounds := int64(1), 4
	if s, err := strconv.ParseInt(os.Getenv("ORACLE_SEED"), 10, 64); err == nil {
		seed = s
	}
	if r, err := strconv.Atoi(os.Getenv("ORACLE_ROUNDS")); err == nil {
		rounds = r
	}
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		names := testenv.Archives(t, dir)
		if set == "pcp-qa-archives" {
			// sets of archives: directories and lists (one with a
			// gap, one out of order)
			names = append(names, "multi", "multi_v3", "multi-xz",
				"multi/20150508.11.44,multi/20150508.11.50",
				"multi_v3/20150508.11.57,multi_v3/20150508.11.46")
		}
		for _, a := range names {
			if strings.HasPrefix(a, "bad/") || strings.HasSuffix(a, "-zst") {
				continue
			}
			t.Run(set+"/"+a, func(t *testing.T) {
				if os.Getenv("ORACLE_ONLY") != "" && !strings.Contains(a, os.Getenv("ORACLE_ONLY")) {
					t.Skip()
				}
				start, end, _, pmids, ok := archiveFactsOK(t, filepath.Join(dir, a))
				if !ok {
					t.Skip("cannot open")
				}
				rng := rand.New(rand.NewSource(seed + int64(len(a))))
				for r := 0; r < rounds; r++ {
					var pick []pmapi.PMID
					k := 1 + rng.Intn(8)
					if rng.Intn(4) == 0 {
						k = 40
					}
					for _, i := range rng.Perm(len(pmids)) {
						if len(pick) == k {
							break
						}
						pick = append(pick, pmids[i])
					}
					if !compareOracle(t, dir, a, pmidList(pick, 60), randomScript(rng, start, end, 12)) {
						return
					}
				}
			})
		}
	}
}

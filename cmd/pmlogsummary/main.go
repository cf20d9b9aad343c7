// Command pmlogsummary summarises the metrics of a PCP archive (or of a
// set of archives), with the options and output of PCP 6.0.3's
// pmlogsummary. See pmlogsummary(1).
//
// pcpkit adds --json and --csv, a batch mode (--each ARCHIVE..., with -j N
// workers and --shard K/N) and --merge; see docs/pmlogsummary.md.
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/logsummary"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(logsummary.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Command pmlogsummary summarises the metrics of a PCP archive (or of a
// set of archives), with the options and output of PCP 6.0.3's
// pmlogsummary. See pmlogsummary(1).
//
// pcpkit adds --json and --csv, a batch mode (--each ARCHIVE..., with -j N
// workers and --shard K/N) and --merge; see docs/pmlogsummary.md.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/logsummary"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmlogsummary [options] archive [metricname ...]",
		Short: "summarise the metrics of a PCP archive",
		// The real tool's getopt parsing (permutation, abbreviations,
		// its exact error messages, options applied in order) is
		// reproduced by internal/logsummary, so cobra hands the
		// arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = logsummary.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmlogsummary: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

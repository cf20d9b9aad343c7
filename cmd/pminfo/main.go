// Command pminfo displays information about performance metrics (names,
// identifiers, descriptors, help text, labels, series identifiers and
// values) from PCP archives, a pmcd or pcpkit's built-in collector
// ("-h @"), with the options and output of PCP 6.0.3's pminfo. See
// pminfo(1) and docs/json.md (--json).
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/pminfo"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pminfo [options] [metricname | pmid | indom]...",
		Short: "display information about performance metrics",
		// pminfo's getopt parsing (permutation, abbreviations, its
		// exact error messages) is reproduced by internal/getopt, so
		// cobra hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = pminfo.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pminfo: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

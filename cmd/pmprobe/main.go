// Command pmprobe reports whether performance metrics have values, and
// how many (with the instances or the values on request), from PCP
// archives, a pmcd or pcpkit's built-in collector ("-h @"), with the
// options and output of PCP 6.0.3's pmprobe. See pmprobe(1).
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/pmprobe"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmprobe [options] [metricname ...]",
		Short: "lightweight probe for performance metrics",
		// pmprobe's getopt parsing (permutation, abbreviations, its
		// exact error messages) is reproduced by internal/getopt, so
		// cobra hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = pmprobe.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmprobe: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

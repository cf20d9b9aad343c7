// Command pmval reports the values of a performance metric over time,
// from a PCP archive or live from a pmcd, with the options and output of
// PCP 6.0.3's pmval. See pmval(1) and docs/pmval.md (a local context, -L,
// and the GUI time control, -g and -p, are not supported).
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/pmval"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmval [options] metricname",
		Short: "report performance metric values from a PCP archive or a pmcd",
		// pmval's getopt parsing (permutation, abbreviations, its exact
		// error messages) is reproduced by internal/getopt, so cobra
		// hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = pmval.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmval: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

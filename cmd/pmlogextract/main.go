// Command pmlogextract copies, windows, filters, converts and merges PCP
// archives, with the options and output of PCP 6.0.3's pmlogextract. See
// pmlogextract(1).
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/logextract"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmlogextract [options] input-archive output-archive",
		Short: "reduce, extract, concatenate and merge PCP archives",
		// The real tool's getopt parsing is reproduced by
		// internal/getopt, so cobra hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = logextract.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmlogextract: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

// Command pmdumplog dumps a PCP archive's label, metadata, temporal index
// and records, with the options and output of PCP 6.0.3's pmdumplog. See
// pmdumplog(1); `pmdumplog --json` is a pcpkit extension.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/dumplog"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmdumplog [options] [archive [metricname ...]]",
		Short: "dump a PCP archive",
		// The real tool's getopt parsing (permutation, -xx counting, its
		// exact error messages) is reproduced by internal/getopt, so
		// cobra hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = dumplog.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmdumplog: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

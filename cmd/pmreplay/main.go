// Command pmreplay replays metrics of a PCP archive interpolated on a
// regular grid and prints them as PCP 6.0.3's pmrep prints them with
// -o csv (or as JSON Lines with --json). See internal/pmreplay.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/pmreplay"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmreplay [option...] metricspec [...]",
		Short: "interpolated replay of PCP archive metrics, as pmrep -o csv",
		// The options are parsed as pmrep parses them (internal/getopt).
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = pmreplay.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmreplay: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

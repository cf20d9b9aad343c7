// Command pmlogcheck checks a PCP archive for damage
// with the options, report and exit status of PCP 6.0.3's pmlogcheck. See
// pmlogcheck(1); `pmlogcheck --repair OUTPUT` is a pcpkit extension.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/pcpkit/pcpkit/internal/logcheck"
)

func main() {
	status := 0
	cmd := &cobra.Command{
		Use:   "pmlogcheck [options] archive",
		Short: "check a PCP archive for damage",
		// The real tool's getopt parsing (permutation, -xx counting, its
		// exact error messages) is reproduced by internal/getopt, so
		// cobra hands the arguments over untouched.
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run: func(cmd *cobra.Command, args []string) {
			status = logcheck.Main(args, os.Stdout, os.Stderr)
		},
	}
	cmd.SetArgs(os.Args[1:])
	if err := cmd.Execute(); err != nil {
		os.Stderr.WriteString("pmlogcheck: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(status)
}

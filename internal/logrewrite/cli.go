package logrewrite

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmlogrewrite's command line: its options, its operands (the
// input archive, then the output) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogrewrite",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Archives,
	Extras: []cli.Extra{
		{Option: "--version", Text: "(alone, without an archive version) display the PCP and pcpkit versions"},
	},
}

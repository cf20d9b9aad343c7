package logreduce

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmlogreduce's command line: its options, its operands (the
// input archive, then the output) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogreduce",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Archives,
	Extras: []cli.Extra{
		{Option: "--version", Text: "(alone) display the PCP and pcpkit versions"},
	},
}

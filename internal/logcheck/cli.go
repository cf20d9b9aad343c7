package logcheck

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmlogcheck's command line: its options, its operand (one
// archive) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogcheck",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Archives,
	Extras: []cli.Extra{
		{Option: "--repair=OUTPUT", Text: "write the readable part of a damaged archive as a new archive OUTPUT, and say on standard error what was left out"},
		{Option: "--version", Text: "(alone) display the PCP and pcpkit versions and exit"},
	},
}

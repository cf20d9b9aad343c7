package pmlogger

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmlogger's command line: its options, its operand (the archive
// to create) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogger",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Archive,
	Extras: []cli.Extra{
		{Option: "-h @, --builtin", Text: "record from pcpkit's built-in collector (/proc and /sys, no pmcd needed)"},
		{Option: "--derived=FILE", Text: "load derived metric definitions from FILE"},
		{Option: "--sync", Text: "make every record durable before the next is written"},
		{Option: "--write-lag=DELTA", Text: "how long a fetch's reply may wait for the next (default 1 sec; 0: off)"},
		{Option: "--version", Text: "(alone, without an archive version) display the PCP and pcpkit versions"},
	},
}

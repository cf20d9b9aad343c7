package dumplog

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmdumplog's command line: its options, its operands (an
// archive, then metric names) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmdumplog",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.ArchiveMetrics,
	Extras: []cli.Extra{
		{Option: "--json", Text: "dump as JSON Lines, with -a -d -i -l -m sections (docs/json.md)"},
	},
}

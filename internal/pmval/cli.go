package pmval

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmval's command line: its options, its operand (a metric name)
// and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmval",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Metrics,
	Extras: []cli.Extra{
		{Option: "--reverse", Text: "replay backwards from the end of the window (docs/pmval.md)"},
		{Option: "--json", Text: "one JSON object per sample (docs/json.md)"},
	},
}

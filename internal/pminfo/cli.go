package pminfo

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pminfo's command line: its options, its operands (metric names)
// and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pminfo",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Metrics,
	Extras: []cli.Extra{
		{Option: "-h @", Text: "metrics source is pcpkit's built-in collector (the linux PMDA's metrics from /proc and /sys, no pmcd needed)"},
		{Option: "--json", Text: "print one JSON object per metric (docs/json.md)"},
	},
}

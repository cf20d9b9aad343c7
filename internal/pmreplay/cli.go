package pmreplay

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmreplay's command line: its options and its operands (metric
// specifications). pmreplay is pcpkit's own, so its usage message lists
// everything and there are no extras.
var CLI = cli.Tool{
	Name:     "pmreplay",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Metrics,
}

package pmstore

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pmstore's command line: its options and its operands (a metric
// name and a value).
var CLI = cli.Tool{
	Name:     "pmstore",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Metrics,
}

package logextract

import (
	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/getopt"
)

// CLI is pmlogextract's command line: its options, its operands (input
// archives, then the output) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogextract",
	Short:    shortOpts,
	Longs:    append(append([]getopt.Long{}, longOpts...), extraLongs...),
	Operands: cli.Archives,
	Extras: []cli.Extra{
		{Option: "--sync", Text: "make every record durable before the next is written"},
		{Option: "-X ALGO, --compress[=ALGO]", Text: "compress each finished volume and the metadata: xz (default) or zstd"},
		{Option: "--version", Text: "display the PCP and pcpkit versions and exit"},
	},
}

// extraLongs are pcpkit's long options, which splitExtras takes out of
// the arguments before getopt sees them (they match only in full): listed
// here for completion.
var extraLongs = []getopt.Long{
	{Name: "sync", Short: optSync, Exact: true},
	{Name: "compress", HasArg: true, Short: 'X', Exact: true},
	{Name: "version", Short: optVersion, Exact: true},
}

package pcp2arrow

import "github.com/pcpkit/pcpkit/internal/cli"

// CLI is pcp2arrow's command line: upstream pcp2arrow's options (those it
// implements; the others are refused) and its metric specifications.
var CLI = cli.Tool{
	Name:     "pcp2arrow",
	Short:    shortOpts,
	Longs:    longOpts,
	Operands: cli.Metrics,
	Extras: []cli.Extra{
		{Option: "--layout=wide|long", Text: "one column per metric instance (default), or one row per value"},
		{Option: "--labels", Text: "with --layout=long: a labels column, each value's merged label set (JSON)"},
		{Option: "--each", Text: "each -a (archive, directory, glob) into the dataset -o DIR"},
		{Option: "--shard=K/N", Text: "with --each: only the archives of shard K of N"},
	},
}

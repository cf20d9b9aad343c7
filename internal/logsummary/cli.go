package logsummary

import (
	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/getopt"
)

// CLI is pmlogsummary's command line: its options, its operands (an
// archive, then metric names) and pcpkit's extensions to it.
var CLI = cli.Tool{
	Name:     "pmlogsummary",
	Short:    shortOpts,
	Longs:    append(append([]getopt.Long{}, longOpts...), extLongOpts...),
	Operands: cli.ArchiveMetrics,
	Extras: []cli.Extra{
		{Option: "--json", Text: "one JSON object per archive (docs/json.md)"},
		{Option: "--csv", Text: "a header row, then one CSV row per metric instance"},
		{Option: "--each", Text: "every operand is an archive, directory or glob, each summarised"},
		{Option: "-j N, --jobs=N", Text: "with --each: N workers (default: the usable CPUs)"},
		{Option: "--shard=K/N", Text: "with --each: only the archives of shard K of N"},
		{Option: "--metric=SPEC", Text: "a metric argument (name, subtree, name[inst]), repeatable"},
		{Option: "--merge [FILE ...]", Text: "join --json (or --csv) outputs into one, by archive"},
	},
}

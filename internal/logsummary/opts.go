package logsummary

import (
	"github.com/pcpkit/pcpkit/internal/getopt"
)

// longOpt is one entry of the real tool's long option table. The order
// matters: it decides abbreviations and the order in which an ambiguous
// abbreviation's possibilities are listed. Entries with an empty name are
// the short-only options, which the table holds too.
var longOpts = []getopt.Long{
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "all", HasArg: false, Short: 'a'},
	{Name: "", HasArg: false, Short: 'b'},
	{Name: "bins", HasArg: true, Short: 'B'},
	{Name: "", HasArg: false, Short: 'f'},
	{Name: "", HasArg: false, Short: 'F'},
	{Name: "header", HasArg: false, Short: 'H'},
	{Name: "mintime", HasArg: false, Short: 'i'},
	{Name: "maxtime", HasArg: false, Short: 'I'},
	{Name: "label", HasArg: false, Short: 'l'},
	{Name: "minimum", HasArg: false, Short: 'm'},
	{Name: "maximum", HasArg: false, Short: 'M'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "", HasArg: false, Short: 'N'},
	{Name: "precision", HasArg: true, Short: 'p'},
	{Name: "sum", HasArg: false, Short: 's'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "verbose", HasArg: false, Short: 'v'},
	{Name: "", HasArg: false, Short: 'x'},
	{Name: "samples", HasArg: false, Short: 'y'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", HasArg: false, Short: 'z'},
	{Name: "version", HasArg: false, Short: 'V'},
	{Name: "help", HasArg: false, Short: '?'},
}

// shortOpts are the real tool's short options, and pcpkit's -j.
const shortOpts = "abB:D:fFHiIj:lmMNn:p:rsS:T:vVxyzZ:?"

// Codes of pcpkit's long-only options.
const (
	optJSON = 1000 + iota
	optCSV
	optEach
	optMerge
	optShard
	optMetric
)

// extLongOpts are pcpkit's long options (docs/pmlogsummary.md). They are
// matched in full only, before the real tool's table: abbreviations and
// their ambiguities stay those of the real tool ("--m" is ambiguous among
// its options alone, "--js" is not an option).
var extLongOpts = []getopt.Long{
	{Name: "json", HasArg: false, Short: optJSON, Exact: true},
	{Name: "csv", HasArg: false, Short: optCSV, Exact: true},
	{Name: "each", HasArg: false, Short: optEach, Exact: true},
	{Name: "jobs", HasArg: true, Short: 'j', Exact: true},
	{Name: "merge", HasArg: false, Short: optMerge, Exact: true},
	{Name: "shard", HasArg: true, Short: optShard, Exact: true},
	{Name: "metric", HasArg: true, Short: optMetric, Exact: true},
}

// parseArgs parses args as the getopt_long PCP uses does for
// pmlogsummary (internal/getopt), with pcpkit's extensions matched only
// when spelled in full. It returns the options and complaints in order,
// and the operands.
func parseArgs(args []string) ([]getopt.Event, []string) {
	return getopt.ParseEvents(args, shortOpts, allLongOpts)
}

// allLongOpts is the real tool's table followed by pcpkit's extensions.
var allLongOpts = append(append([]getopt.Long(nil), longOpts...), extLongOpts...)

package logsummary

import (
	"fmt"
	"strings"
)

// longOpt is one entry of the real tool's long option table. The order
// matters: it decides abbreviations and the order in which an ambiguous
// abbreviation's possibilities are listed. Entries with an empty name are
// the short-only options, which the table holds too.
type longOpt struct {
	name   string
	hasArg bool
	short  rune
}

// longOpts is pmlogsummary's table (PCP 6.0.3), in its order.
var longOpts = []longOpt{
	{"debug", true, 'D'},
	{"all", false, 'a'},
	{"", false, 'b'},
	{"bins", true, 'B'},
	{"", false, 'f'},
	{"", false, 'F'},
	{"header", false, 'H'},
	{"mintime", false, 'i'},
	{"maxtime", false, 'I'},
	{"label", false, 'l'},
	{"minimum", false, 'm'},
	{"maximum", false, 'M'},
	{"namespace", true, 'n'},
	{"", false, 'N'},
	{"precision", true, 'p'},
	{"sum", false, 's'},
	{"start", true, 'S'},
	{"finish", true, 'T'},
	{"verbose", false, 'v'},
	{"", false, 'x'},
	{"samples", false, 'y'},
	{"timezone", true, 'Z'},
	{"hostzone", false, 'z'},
	{"version", false, 'V'},
	{"help", false, '?'},
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
var extLongOpts = []longOpt{
	{"json", false, optJSON},
	{"csv", false, optCSV},
	{"each", false, optEach},
	{"jobs", true, 'j'},
	{"merge", false, optMerge},
	{"shard", true, optShard},
	{"metric", true, optMetric},
}

// event is one step of the command line parse, in command-line order: an
// option (with its argument), or a complaint (err, the text after
// "pmlogsummary: ").
type event struct {
	opt rune
	arg string
	err string
}

// parseArgs parses args as PCP's getopt_long (a copy of an older GNU
// getopt) does for pmlogsummary: options are permuted before the
// operands, "--" ends them, long options may be abbreviated. It returns
// the options and complaints in order, and the operands.
func parseArgs(args []string) ([]event, []string) {
	var evs []event
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return evs, append(operands, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			body := a[2:]
			name, val, hasVal := strings.Cut(body, "=")
			var l *longOpt
			var msg string
			for k := range extLongOpts {
				if extLongOpts[k].name == name {
					l = &extLongOpts[k]
				}
			}
			if l == nil {
				l, msg = findLong(a, name)
			}
			if l == nil {
				if msg == "" {
					msg = fmt.Sprintf("unrecognized option '--%s'", body)
				}
				evs = append(evs, event{err: msg})
				continue
			}
			ev := event{opt: l.short}
			switch {
			case l.hasArg && hasVal:
				ev.arg = val
			case l.hasArg && i+1 < len(args):
				i++
				ev.arg = args[i]
			case l.hasArg:
				evs = append(evs, event{err: fmt.Sprintf("option '--%s' requires an argument", l.name)})
				continue
			case hasVal:
				evs = append(evs, event{err: fmt.Sprintf("option '--%s' doesn't allow an argument", l.name)})
				continue
			}
			evs = append(evs, ev)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := rune(a[j])
				k := strings.IndexByte(shortOpts, a[j])
				if c == ':' || k < 0 {
					evs = append(evs, event{err: fmt.Sprintf("invalid option -- '%c'", c)})
					continue
				}
				if k+1 < len(shortOpts) && shortOpts[k+1] == ':' {
					ev := event{opt: c}
					if j+1 < len(a) {
						ev.arg = a[j+1:]
					} else if i+1 < len(args) {
						i++
						ev.arg = args[i]
					} else {
						evs = append(evs, event{err: fmt.Sprintf("option requires an argument -- '%c'", c)})
						break
					}
					evs = append(evs, ev)
					break
				}
				evs = append(evs, event{opt: c})
			}
		default:
			operands = append(operands, a)
		}
	}
	return evs, operands
}

// findLong looks name up: an exact match, or the only option it
// abbreviates. An ambiguous abbreviation gives the complaint, listing the
// first match and then the others from the end of the table back, as
// that getopt does; entries that differ from the first only in name do not
// make it ambiguous.
func findLong(arg, name string) (*longOpt, string) {
	var first *longOpt
	var others []*longOpt
	for i := range longOpts {
		l := &longOpts[i]
		if !strings.HasPrefix(l.name, name) {
			continue
		}
		if len(l.name) == len(name) {
			return l, ""
		}
		if first == nil {
			first = l
		} else if first.hasArg != l.hasArg || first.short != l.short {
			others = append(others, l)
		}
	}
	if first == nil {
		return nil, ""
	}
	if len(others) == 0 {
		return first, ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "option '%s' is ambiguous; possibilities: '--%s'", arg, first.name)
	for i := len(others) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, " '--%s'", others[i].name)
	}
	return nil, b.String()
}

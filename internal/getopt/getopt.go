// Package getopt parses command lines the way the GNU getopt_long that
// PCP's tools use does, with its permutation of arguments, abbreviations
// of long options and its exact error messages, because users' scripts
// depend on how the real tools accept and reject arguments.
package getopt

import (
	"fmt"
	"strings"
)

// Long describes a long option; Short is the option character it stands
// for (or a value above 255 for long-only options). A table may hold
// short-only entries with an empty Name, as the real tools' tables do.
type Long struct {
	Name   string
	HasArg bool
	Short  rune
	// Exact options (pcpkit's extensions) match only when spelled in
	// full, so that they change none of the real tool's abbreviations
	// or messages.
	Exact bool
}

// Opt is one parsed option.
type Opt struct {
	Short rune   // option character (or the Long's Short value)
	Name  string // the long name if given in long form
	Arg   string
}

// Event is one step of a parse, in command-line order: an option, or,
// when Err is not empty, a complaint (exactly what getopt prints after
// "prog: ").
type Event struct {
	Opt
	Err string
}

// Errors are the complaints of one parse. Like getopt, parsing goes on
// after a bad option, so a command line can have several.
type Errors []string

func (e Errors) Error() string { return strings.Join(e, "\n") }

// Parse parses args (without the program name) against the short option
// string (getopt syntax: a letter, followed by ':' if it takes an argument)
// and the long options. It returns the options in order, the remaining
// operands in order, and, if any option was bad, an Errors.
func Parse(args []string, short string, longs []Long) ([]Opt, []string, error) {
	evs, operands := ParseEvents(args, short, longs)
	var opts []Opt
	var errs Errors
	for _, ev := range evs {
		if ev.Err != "" {
			errs = append(errs, ev.Err)
		} else {
			opts = append(opts, ev.Opt)
		}
	}
	if len(errs) > 0 {
		return opts, operands, errs
	}
	return opts, operands, nil
}

// ParseEvents parses args as Parse does, keeping options and complaints
// in command-line order, for tools that interleave their own messages
// with getopt's. Options are permuted before the operands; "--" ends them.
// A short option string that starts with "+" asks for getopt's
// REQUIRE_ORDER (PM_OPTFLAG_POSIX): the first operand ends the options,
// so that `pmstore METRIC -5` stores -5.
func ParseEvents(args []string, short string, longs []Long) ([]Event, []string) {
	var evs []Event
	var operands []string
	short, inOrder := strings.CutPrefix(short, "+")
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case inOrder && (a == "-" || !strings.HasPrefix(a, "-")):
			return evs, append(operands, args[i:]...)
		case a == "--":
			return evs, append(operands, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			body := a[2:]
			name, val, hasVal := strings.Cut(body, "=")
			l, msg := findLong(a, name, longs)
			if l == nil {
				if msg == "" {
					msg = fmt.Sprintf("unrecognized option '--%s'", body)
				}
				evs = append(evs, Event{Err: msg})
				continue
			}
			ev := Event{Opt: Opt{Short: l.Short, Name: l.Name}}
			switch {
			case l.HasArg && hasVal:
				ev.Arg = val
			case l.HasArg && i+1 < len(args):
				i++
				ev.Arg = args[i]
			case l.HasArg:
				evs = append(evs, Event{Err: fmt.Sprintf("option '--%s' requires an argument", l.Name)})
				continue
			case hasVal:
				evs = append(evs, Event{Err: fmt.Sprintf("option '--%s' doesn't allow an argument", l.Name)})
				continue
			}
			evs = append(evs, ev)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := rune(a[j])
				k := strings.IndexByte(short, a[j])
				if c == ':' || k < 0 {
					evs = append(evs, Event{Err: fmt.Sprintf("invalid option -- '%c'", c)})
					continue
				}
				if k+1 < len(short) && short[k+1] == ':' {
					ev := Event{Opt: Opt{Short: c}}
					if j+1 < len(a) {
						ev.Arg = a[j+1:]
					} else if i+1 < len(args) {
						i++
						ev.Arg = args[i]
					} else {
						evs = append(evs, Event{Err: fmt.Sprintf("option requires an argument -- '%c'", c)})
						break
					}
					evs = append(evs, ev)
					break
				}
				evs = append(evs, Event{Opt: Opt{Short: c}})
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
func findLong(arg, name string, longs []Long) (*Long, string) {
	var first *Long
	var others []*Long
	for i := range longs {
		if longs[i].Exact && longs[i].Name == name {
			return &longs[i], ""
		}
	}
	for i := range longs {
		l := &longs[i]
		if l.Exact || !strings.HasPrefix(l.Name, name) {
			continue
		}
		if len(l.Name) == len(name) {
			return l, ""
		}
		if first == nil {
			first = l
		} else if first.HasArg != l.HasArg || first.Short != l.Short {
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
	fmt.Fprintf(&b, "option '%s' is ambiguous; possibilities: '--%s'", arg, first.Name)
	for i := len(others) - 1; i >= 0; i-- {
		fmt.Fprintf(&b, " '--%s'", others[i].Name)
	}
	return nil, b.String()
}

// Package getopt parses command lines the way GNU getopt_long does, with
// its permutation of arguments, abbreviations of long options and its
// exact error messages, because the real PCP tools use it and users'
// scripts depend on how they accept and reject arguments.
package getopt

import (
	"fmt"
	"strings"
)

// Long describes a long option; Short is the option character it stands
// for (or a value above 255 for long-only options).
type Long struct {
	Name   string
	HasArg bool
	Short  rune
}

// Opt is one parsed option.
type Opt struct {
	Short rune   // option character (or the Long's Short value)
	Name  string // the long name if given in long form
	Arg   string
}

// Errors are the complaints of one parse, each exactly what GNU getopt
// prints after "prog: ". Like getopt, parsing goes on after a bad option,
// so a command line can have several.
type Errors []string

func (e Errors) Error() string { return strings.Join(e, "\n") }

// Parse parses args (without the program name) against the short option
// string (getopt syntax: a letter, followed by ':' if it takes an argument)
// and the long options. It returns the options in order, the remaining
// operands in order, and, if any option was bad, an Errors.
func Parse(args []string, short string, longs []Long) ([]Opt, []string, error) {
	opts, operands, errs := parse(args, short, longs)
	if len(errs) > 0 {
		return opts, operands, errs
	}
	return opts, operands, nil
}

func parse(args []string, short string, longs []Long) ([]Opt, []string, Errors) {
	var opts []Opt
	var operands []string
	var errs Errors
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			return opts, operands, errs
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			l, err := findLong(name, longs)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			o := Opt{Short: l.Short, Name: l.Name}
			if l.HasArg {
				if hasVal {
					o.Arg = val
				} else if i+1 < len(args) {
					i++
					o.Arg = args[i]
				} else {
					errs = append(errs, fmt.Sprintf("option '--%s' requires an argument", l.Name))
					continue
				}
			} else if hasVal {
				errs = append(errs, fmt.Sprintf("option '--%s' doesn't allow an argument", l.Name))
				continue
			}
			opts = append(opts, o)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := rune(a[j])
				k := strings.IndexRune(short, c)
				if c == ':' || k < 0 {
					errs = append(errs, fmt.Sprintf("invalid option -- '%c'", c))
					continue
				}
				if k+1 < len(short) && short[k+1] == ':' {
					o := Opt{Short: c}
					if j+1 < len(a) {
						o.Arg = a[j+1:]
					} else if i+1 < len(args) {
						i++
						o.Arg = args[i]
					} else {
						errs = append(errs, fmt.Sprintf("option requires an argument -- '%c'", c))
						break
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, Opt{Short: c})
			}
		default:
			operands = append(operands, a)
		}
	}
	return opts, operands, errs
}

func findLong(name string, longs []Long) (*Long, error) {
	var matches []*Long
	for i := range longs {
		if longs[i].Name == name {
			return &longs[i], nil
		}
		if strings.HasPrefix(longs[i].Name, name) {
			matches = append(matches, &longs[i])
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		s := fmt.Sprintf("option '--%s' is ambiguous; possibilities:", name)
		for _, m := range matches {
			s += " '--" + m.Name + "'"
		}
		return nil, fmt.Errorf("%s", s)
	}
	return nil, fmt.Errorf("unrecognized option '--%s'", name)
}

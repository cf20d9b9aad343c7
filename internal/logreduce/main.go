package logreduce

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
)

const prog = "pmlogreduce"

const shortOpts = "A:D:S:s:T:t:v:Z:z?"

// The long options, in the real tool's order. Its -v has a long option
// with an empty name, which no command line can spell, so it is left out.
var longOpts = []getopt.Long{
	{Name: "align", HasArg: true, Short: 'A'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "samples", HasArg: true, Short: 's'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "interval", HasArg: true, Short: 't'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "help", Short: '?'},
}

const usage = `Usage: pmlogreduce [options] input-archive output-archive

Options:
  -A TIME, --align=TIME align sample times on natural boundaries
  -S TIME, --start=TIME start of the time window
  -s N, --samples=N     terminate after this many samples
  -T TIME, --finish=TIME
                        end of the time window
  -t DELTA, --interval=DELTA
                        sample output interval [default 10min]
  -v NUM                switch log volumes after this many samples
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -?, --help            show this usage message and exit
`

// Main runs pmlogreduce with args (without the program name), writing
// to stdout and stderr, and returns the exit status, with the real
// tool's options and messages (-D's debug output aside).
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--version" {
		// pcpkit's: the real pmlogreduce has no --version.
		io.WriteString(stderr, version.Banner(prog))
		return 0
	}
	// stdout is a C stdio stream: the "Note:" lines come out at exit.
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	o := &Options{Samples: -1, VolSamples: -1, Interval: defaultInterval, Stdout: out, Stderr: stderr}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	errs := 0
	var notes []string // pmprintf's: shown before the usage
	var tz *string
	hostzone := false
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ev.Err)
			errs++
			continue
		}
		arg := ev.Arg
		switch ev.Short {
		case 'A':
			o.Align = &arg
		case 'D':
			if !getopt.ValidDebug(arg) {
				notes = append(notes, fmt.Sprintf("%s: unrecognized debug options specification (%s)\n", prog, arg))
				errs++
			}
		case 's', 'v':
			n, end := cnum.Strtol(arg)
			if end != len(arg) || int32(n) < 0 {
				// strtol's value, cast to int, checked for < 0
				notes = append(notes, fmt.Sprintf("%s: -%c requires numeric argument\n", prog, ev.Short))
				errs++
			}
			if ev.Short == 's' {
				o.Samples = int(int32(n))
			} else {
				o.VolSamples = int(int32(n))
			}
		case 'S':
			o.Start = &arg
		case 'T':
			o.End = &arg
		case 't':
			sec, nsec, _, err := pcptime.ParseInterval(arg)
			if err != nil {
				notes = append(notes, err.(*pcptime.ParseError).Message())
				errs++
				continue
			}
			// pmParseInterval's struct timeval: microseconds.
			o.Interval = sec*1e9 + nsec - nsec%1000
		case 'Z':
			if hostzone {
				notes = append(notes, fmt.Sprintf("%s: at most one of -Z and/or -z allowed\n", prog))
				errs++
			}
			tz = &arg
		case 'z':
			if tz != nil {
				notes = append(notes, fmt.Sprintf("%s: at most one of -Z and/or -z allowed\n", prog))
				errs++
			}
			hostzone = true
		default:
			errs++
		}
	}
	if errs == 0 && len(operands) < 2 {
		notes = append(notes, fmt.Sprintf("%s: Error: insufficient arguments\n", prog))
		errs++
	}
	if errs > 0 {
		CLI.WriteUsage(stderr, notes, usage, args)
		return 1
	}
	// The input is the first operand, the output the last; any between
	// are ignored, as the real tool ignores them.
	o.Input, o.Output = operands[0], operands[len(operands)-1]
	o.HostZone = hostzone
	if tz != nil {
		o.Zone = pcptime.LoadZone(*tz)
		o.ZoneName = *tz
	}
	if err := Reduce(o); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Msg: fmt.Sprintf("%s: Error: %v\n", prog, err)}
		}
		io.WriteString(stderr, e.Msg)
		return 1
	}
	return 0
}

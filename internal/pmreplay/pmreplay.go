// Package pmreplay is pcpkit's pmreplay: interpolated replay of many
// metrics of an archive at once, printed as PCP 6.0.3's pmrep prints
// them with -o csv (byte for byte, for the options it supports), or as
// JSON Lines (--json, docs/json.md).
//
// The samples, their columns and values are internal/sampler's (shared
// with pcp2arrow); this package parses pmrep's command line and prints
// them.
package pmreplay

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pmrepconf"
	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/internal/version"
)

const shortOpts = "a:D:t:S:T:O:s:zZ:o:P:0:l:rRq:Q:b:B:y:Y:HV?"

const optJSON = 1000

var longOpts = append([]getopt.Long{
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "interval", HasArg: true, Short: 't'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "origin", HasArg: true, Short: 'O'},
	{Name: "samples", HasArg: true, Short: 's'},
	{Name: "hostzone", Short: 'z'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "output", HasArg: true, Short: 'o'},
	{Name: "precision", HasArg: true, Short: 'P'},
	{Name: "precision-force", HasArg: true, Short: '0'},
	{Name: "delimiter", HasArg: true, Short: 'l'},
	{Name: "raw", Short: 'r'},
	{Name: "raw-prefer", Short: 'R'},
	{Name: "no-header", Short: 'H'},
	{Name: "json", Short: optJSON, Exact: true},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
}, sampler.ScaleLongOpts...)

const usage = `Usage: pmreplay [option...] metricspec [...]

Interpolated replay of metrics from a PCP archive, printed as pmrep -o csv
prints them (or as JSON Lines with --json).

Options:
  -a FILE, --archive=FILE   the archive (a base name, a directory, a list)
  -D DBG, --debug=DBG       libpcp debug options (accepted, nothing printed)
  -t DELTA, --interval=DELTA
                            sampling interval (default 1 second)
  -S TIME, --start=TIME     start of the time window
  -T TIME, --finish=TIME    end of the time window
  -O TIME, --origin=TIME    initial sample time within the time window
  -s N, --samples=N         number of samples
  -z, --hostzone            report times in the archive's time zone
  -Z TZ, --timezone=TZ      report times in time zone TZ
  -o csv, --output=csv      CSV output (the only text output)
  -P N, --precision=N       digits after the decimal point (default 3)
  -0 N, --precision-force=N force N digits after the decimal point
  -l STR, --delimiter=STR   column delimiter (default ",")
  -r, --raw                 raw counter values (no rate conversion)
  -R, --raw-prefer          as -r for the metrics whose specification has no type
` + sampler.ScaleUsage + `  -H, --no-header           no header line
  --json                    JSON Lines output (see docs/json.md)
  -V, --version             display the PCP and pcpkit versions and exit
  -?, --help                show this usage message and exit
`

type options struct {
	sampler.Options           // -a, -t, -S, -T, -O, -s, -z, -Z, -r, -q...-Y, metrics
	output                    string
	precision, precisionForce int // -1: not given
	delimiter                 string
	noHeader, json            bool
	version, help             bool // -V, -?: print and exit 0
}

// Main runs pmreplay with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	out := bufio.NewWriterSize(stdout, 256<<10)
	defer out.Flush()
	o, msg := parse(args)
	switch {
	case o != nil && o.version:
		io.WriteString(stderr, version.Banner("pmreplay"))
		return 0
	case o != nil && o.help:
		io.WriteString(stderr, usage)
		return 0
	}
	if msg != "" {
		io.WriteString(stderr, msg)
		if !strings.HasPrefix(msg, "pmreplay: ") || strings.Contains(msg, "Usage") {
			return 1
		}
		io.WriteString(stderr, usage)
		return 1
	}
	r, err := newReport(o, out, stderr)
	if err != nil {
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	defer r.s.Close()
	if err := r.run(); err != nil {
		out.Flush()
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	return 0
}

func parse(args []string) (*options, string) {
	o := &options{Options: sampler.Options{Samples: -1}, precision: -1, precisionForce: -1, delimiter: ",", output: "csv"}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	var errs strings.Builder
	num := func(what, arg string) int {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			fmt.Fprintf(&errs, "pmreplay: %s requires a non-negative integer: %q\n", what, arg)
			return 0
		}
		return n
	}
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(&errs, "pmreplay: %s\n", ev.Err)
			continue
		}
		arg := ev.Arg
		if ok, msg := o.ParseOption(ev.Short, arg); ok {
			if msg != "" {
				fmt.Fprintf(&errs, "pmreplay: %s\n", msg)
			}
			continue
		}
		switch ev.Short {
		case 'a':
			o.Archive = arg
		case 'D':
			// libpcp's debug options: accepted, and nothing printed
			if !getopt.ValidDebug(arg) {
				fmt.Fprintf(&errs, "pmreplay: unrecognized debug options specification (%s)\n", arg)
			}
		case 'o':
			if arg != "csv" {
				fmt.Fprintf(&errs, "pmreplay: only -o csv is supported (or --json), not %q\n", arg)
			}
			o.output = arg
		case 'P':
			o.precision = num("-P", arg)
		case '0':
			o.precisionForce = num("-0", arg)
		case 'l':
			o.delimiter = arg
		case 'H':
			o.noHeader = true
		case optJSON:
			o.json = true
		case 'V':
			o.version = true
		case '?':
			o.help = true
		}
	}
	if errs.Len() == 0 && (o.version || o.help) {
		return o, ""
	}
	if errs.Len() == 0 {
		switch {
		case o.Archive == "":
			errs.WriteString("pmreplay: an archive (-a) is required\n")
		case len(operands) == 0:
			errs.WriteString("pmreplay: no metricspec given\n")
		case o.HostZone && o.TZ != nil:
			errs.WriteString("pmreplay: at most one of -Z and -z allowed\n")
		}
	}
	if errs.Len() > 0 {
		return nil, errs.String()
	}
	// compact metricspecs (metric,label,instances,unit/scale,type,...)
	names, specs, _, err := (&pmrepconf.Config{}).Metrics(operands, func(string) bool { return false })
	if err != nil {
		return nil, err.Error()
	}
	o.Metrics, o.Specs = names, specs
	return o, ""
}

type report struct {
	o    *options
	out  *bufio.Writer
	s    *sampler.Sampler
	prec int // digits after the decimal point
	line []byte
}

func newReport(o *options, out *bufio.Writer, stderr io.Writer) (*report, error) {
	so := o.Options
	so.Prog, so.Stderr = "pmreplay", stderr
	s, err := sampler.Open(&so)
	if err != nil {
		return nil, err
	}
	r := &report{o: o, out: out, s: s, prec: 3}
	if o.precision >= 0 {
		r.prec = o.precision
	}
	if o.precisionForce >= 0 {
		r.prec = o.precisionForce
	}
	return r, nil
}

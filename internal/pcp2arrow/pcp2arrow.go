// Package pcp2arrow is pcpkit's pcp2arrow: the samples pmrep reports for
// an archive (internal/sampler, the engine of pmreplay), written as a
// Parquet file that DuckDB, pandas, Polars and Spark read directly.
//
// The wide layout (upstream pcp2arrow's, the default) has a timestamp
// column and one column per metric instance, one row per sample that
// `pmrep -a ARCH -o csv` prints for the same options, null where pmrep
// prints an empty field (wide.go). Row groups are written as samples
// arrive: memory does not grow with the archive's length. See
// docs/pcp2arrow.md.
package pcp2arrow

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/internal/version"
)

const shortOpts = "a:A:c:D:h:i:J:jK:Lno:O:rRs:S:t:T:zZ:8:9:V?"

const (
	optLayout = 1000 + iota
	optUnsupported
)

var longOpts = []getopt.Long{
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "align", HasArg: true, Short: 'A'},
	{Name: "config", HasArg: true, Short: 'c'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "instances", HasArg: true, Short: 'i'},
	{Name: "outfile", HasArg: true, Short: 'o'},
	{Name: "origin", HasArg: true, Short: 'O'},
	{Name: "raw", Short: 'r'},
	{Name: "samples", HasArg: true, Short: 's'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "interval", HasArg: true, Short: 't'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "hostzone", Short: 'z'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "layout", HasArg: true, Short: optLayout, Exact: true},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
}

const usage = `Usage: pcp2arrow [option...] [metricspec ...]

Metrics of a PCP archive, replayed as pmrep -o csv reports them, written as
Apache Parquet (zstd-compressed columns). With no metricspec, every metric
of the archive that pmrep can report.

Options:
  -a FILE, --archive=FILE   the archive (a base name, a directory, a list)
  -o FILE, --outfile=FILE   the Parquet file to write (default: standard output)
  -t DELTA, --interval=DELTA
                            sampling interval (default 1 second)
  -S TIME, --start=TIME     start of the time window
  -T TIME, --finish=TIME    end of the time window
  -O TIME, --origin=TIME    initial sample time within the time window
  -s N, --samples=N         number of samples
  -r, --raw                 raw counter values (no rate conversion)
  -z, --hostzone            times of -S, -T, -O in the archive's time zone
  -Z TZ, --timezone=TZ      times of -S, -T, -O in time zone TZ
  -D DBG, --debug=DBG       libpcp debug options (accepted, nothing printed)
  -V, --version             display the PCP and pcpkit versions and exit
  -?, --help                show this usage message and exit

Not implemented (refused): -A, -c, -h, -i, -J, -j, -K, -L, -n, -R, -8, -9.
`

type options struct {
	archive               string
	outfile               string
	interval              string
	start, finish, origin *string
	samples               int // -1: not given
	hostzone              bool
	tz                    *string
	raw                   bool
	layout                string
	version, help         bool
	metrics               []string
}

// Main runs pcp2arrow with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	o, msg := parse(args)
	switch {
	case o != nil && o.version:
		io.WriteString(stderr, version.Banner("pcp2arrow"))
		return 0
	case o != nil && o.help:
		io.WriteString(stderr, usage)
		CLI.WriteExtensions(stderr, args)
		return 0
	}
	if msg != "" {
		io.WriteString(stderr, msg)
		io.WriteString(stderr, usage)
		return 1
	}
	if err := export(o, stdout, stderr); err != nil {
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	return 0
}

func parse(args []string) (*options, string) {
	o := &options{samples: -1, layout: "wide"}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	var errs strings.Builder
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(&errs, "pcp2arrow: %s\n", ev.Err)
			continue
		}
		arg := ev.Arg
		switch ev.Short {
		case 'a':
			o.archive = arg
		case 'D':
			if !getopt.ValidDebug(arg) {
				fmt.Fprintf(&errs, "pcp2arrow: unrecognized debug options specification (%s)\n", arg)
			}
		case 'o':
			o.outfile = arg
		case 't':
			o.interval = arg
		case 'S':
			o.start = &arg
		case 'T':
			o.finish = &arg
		case 'O':
			o.origin = &arg
		case 's':
			n, ok := nonNegative(arg)
			if !ok {
				fmt.Fprintf(&errs, "pcp2arrow: -s requires a non-negative integer: %q\n", arg)
			}
			o.samples = n
		case 'r':
			o.raw = true
		case 'z':
			o.hostzone = true
		case 'Z':
			o.tz = &arg
		case optLayout:
			if arg != "wide" && arg != "long" {
				fmt.Fprintf(&errs, "pcp2arrow: --layout is wide or long, not %q\n", arg)
			}
			o.layout = arg
		case 'V':
			o.version = true
		case '?':
			o.help = true
		default:
			fmt.Fprintf(&errs, "pcp2arrow: -%c is not implemented\n", ev.Short)
		}
	}
	if errs.Len() == 0 && (o.version || o.help) {
		return o, ""
	}
	if errs.Len() == 0 {
		switch {
		case o.archive == "":
			errs.WriteString("pcp2arrow: an archive (-a) is required\n")
		case o.hostzone && o.tz != nil:
			errs.WriteString("pcp2arrow: at most one of -Z and -z allowed\n")
		}
	}
	if errs.Len() > 0 {
		return nil, errs.String()
	}
	o.metrics = operands
	return o, ""
}

func nonNegative(s string) (int, bool) {
	n := 0
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// export writes the archive of o as Parquet to o.outfile (or stdout).
func export(o *options, stdout, stderr io.Writer) error {
	so := &sampler.Options{
		Prog: "pcp2arrow", Archive: o.archive, Interval: o.interval,
		Start: o.start, Finish: o.finish, Origin: o.origin, Samples: o.samples,
		HostZone: o.hostzone, TZ: o.tz, Raw: o.raw, Metrics: o.metrics, Stderr: stderr,
	}
	if len(so.Metrics) == 0 {
		// every metric pmrep can report
		so.Metrics, so.SkipInvalid = []string{""}, true
	}
	s, err := sampler.Open(so)
	if err != nil {
		return err
	}
	defer s.Close()
	out, closeOut := stdout, func() error { return nil }
	if o.outfile != "" && o.outfile != "-" {
		f, err := os.Create(o.outfile)
		if err != nil {
			return fmt.Errorf("pcp2arrow: %v\n", err)
		}
		out, closeOut = f, f.Close
	}
	err = writeSamples(s, o, out)
	if cerr := closeOut(); err == nil && cerr != nil {
		err = fmt.Errorf("pcp2arrow: %v\n", cerr)
	}
	if err != nil && out != stdout {
		os.Remove(o.outfile)
	}
	return err
}

// writeSamples writes every sample of s to out in o's layout.
func writeSamples(s *sampler.Sampler, o *options, out io.Writer) error {
	w, err := newWide(s.Metrics, out)
	if err != nil {
		return err
	}
	for {
		ts, ok, err := s.Next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := w.add(ts); err != nil {
			return err
		}
	}
	return w.close()
}

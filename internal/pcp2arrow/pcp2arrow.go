// Package pcp2arrow is pcpkit's pcp2arrow: the samples pmrep reports for
// an archive (internal/sampler, the engine of pmreplay), written as a
// Parquet file that DuckDB, pandas, Polars and Spark read directly.
//
// The wide layout (upstream pcp2arrow's, the default) has a timestamp
// column and one column per metric instance, one row per sample that
// `pmrep -a ARCH -o csv` prints for the same options, null where pmrep
// prints an empty field (wide.go). The long layout has a row per value
// (long.go). With --each, every archive of the -a arguments is written
// into a Hive-partitioned dataset, host=H/date=YYYY-MM-DD/part-ID.parquet
// (dataset.go), one archive after the other, --shard K/N taking a share
// of them. Row groups are written as samples arrive: memory does not
// grow with the archive's length nor with the number of archives. See
// docs/pcp2arrow.md.
package pcp2arrow

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/pcpkit/pcpkit/internal/each"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pmapi"
)

const shortOpts = "a:A:b:B:c:D:e:h:i:J:jK:Lno:O:q:Q:rRs:S:t:T:y:Y:zZ:8:9:V?"

const (
	optLayout = 1000 + iota
	optEach
	optShard
	optLabels
)

var longOpts = append([]getopt.Long{
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "align", HasArg: true, Short: 'A'},
	{Name: "config", HasArg: true, Short: 'c'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "derived", HasArg: true, Short: 'e'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "instances", HasArg: true, Short: 'i'},
	{Name: "live-filter", Short: 'j'},
	{Name: "rank", HasArg: true, Short: 'J'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "local-PMDA", Short: 'L'},
	{Name: "invert-filter", Short: 'n'},
	{Name: "raw-prefer", Short: 'R'},
	{Name: "limit-filter", HasArg: true, Short: '8'},
	{Name: "limit-filter-force", HasArg: true, Short: '9'},
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
	{Name: "each", Short: optEach, Exact: true},
	{Name: "shard", HasArg: true, Short: optShard, Exact: true},
	{Name: "labels", Short: optLabels, Exact: true},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
}, sampler.ScaleLongOpts...)

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
  -R, --raw-prefer          as -r for the metrics whose specification has no type
` + sampler.ScaleUsage + `  -A TIME, --align=TIME     align the first sample on a multiple of TIME
  -e DERIVED, --derived=DERIVED
                            derived metrics: name=expression;... or a file
                            (starting with / or .)
  -i INSTS, --instances=INSTS
                            only these instances (names, PIDs, commands,
                            regular expressions; a comma-separated list)
  -j, --live-filter         filter instances (-i) at each sample
  -n, --invert-filter       live filtering after ranking
  -J N, --rank=N            the N highest values of each metric in each
                            sample (the -N lowest when negative)
  -8 N, --limit-filter=N    values at or above N only (at or below -N
                            when negative)
  -9 N, --limit-filter-force=N
                            as -8
  -z, --hostzone            times of -S, -T, -O in the archive's time zone
  -Z TZ, --timezone=TZ      times of -S, -T, -O in time zone TZ
  -D DBG, --debug=DBG       libpcp debug options (accepted, nothing printed)
  -c FILE, --config=FILE    the configuration file or directory
  -V, --version             display the PCP and pcpkit versions and exit
  -?, --help                show this usage message and exit

-L and -K (a local context) are ignored with an archive, as pmrep does;
-h (pmcd, a live source) is refused: pcp2arrow reads archives.
Config file: -c FILE|DIR, else the first of ./pcp2arrow.conf,
$HOME/.pcp2arrow.conf, $HOME/.pcp/pcp2arrow.conf,
$PCP_SYSCONF_DIR/pcp2arrow.conf (pmrep.conf(5): [options], metricsets).
`

type options struct {
	sampler.Options          // -t, -S, -T, -O, -s, -z, -Z, -r, metrics
	archives        []string // -a, repeatable with --each
	outfile         string
	layout          string
	each            bool
	labels          bool // --labels
	shardK, shardN  int  // --shard K/N (shardN 0: none)
	version, help   bool
	host            string // -h: refused
	local           bool   // -L, -K
}

// Main runs pcp2arrow with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	o, msg, bad := parse(args)
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
		if !bad {
			io.WriteString(stderr, usage)
		}
		return 1
	}
	return export(o, stdout, stderr)
}

// parse parses the command line args, with the configuration file's
// options (-c, or the default file) before them. Its message is a usage
// error (printed with the usage), or with bad, a bad configuration
// (pmrep's message alone).
func parse(args []string) (_ *options, msg string, bad bool) {
	o := &options{Options: sampler.Options{Samples: -1}, layout: "wide"}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	conf, msg := loadConfig(o, evs, operands)
	if msg != "" {
		return nil, msg, true
	}
	var errs strings.Builder
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(&errs, "pcp2arrow: %s\n", ev.Err)
			continue
		}
		arg := ev.Arg
		if ok, msg := o.ParseOption(ev.Short, arg); ok {
			if msg != "" {
				fmt.Fprintf(&errs, "pcp2arrow: %s\n", msg)
			}
			continue
		}
		switch ev.Short {
		case 'a':
			o.archives = append(o.archives, arg)
		case 'D':
			if !getopt.ValidDebug(arg) {
				fmt.Fprintf(&errs, "pcp2arrow: unrecognized debug options specification (%s)\n", arg)
			}
		case 'o':
			o.outfile = arg
		case 'c':
			// read by loadConfig
		case 'h':
			o.host = arg
		case 'L', 'K':
			// a local context: pmrep ignores it when given an archive
			o.local = true
		case optLayout:
			if arg != "wide" && arg != "long" {
				fmt.Fprintf(&errs, "pcp2arrow: --layout is wide or long, not %q\n", arg)
			}
			o.layout = arg
		case optEach:
			o.each = true
		case optLabels:
			o.labels = true
		case optShard:
			k, n, ok := each.ParseShard(arg)
			if !ok {
				fmt.Fprintf(&errs, "pcp2arrow: --shard requires K/N with 0 <= K < N, not %q\n", arg)
			}
			o.shardK, o.shardN = k, n
		case 'V':
			o.version = true
		case '?':
			o.help = true
		default:
			fmt.Fprintf(&errs, "pcp2arrow: -%c is not implemented\n", ev.Short)
		}
	}
	if errs.Len() == 0 && (o.version || o.help) {
		return o, "", false
	}
	if errs.Len() == 0 {
		switch {
		case len(o.archives) > 0 && o.host != "":
			errs.WriteString("pcp2arrow: only one host or archive allowed\n")
		case o.host != "" || o.local:
			errs.WriteString("pcp2arrow: live sources (-h, -L) are not supported: an archive (-a) is required\n")
		case len(o.archives) == 0:
			errs.WriteString("pcp2arrow: an archive (-a) is required\n")
		case len(o.archives) > 1 && !o.each:
			errs.WriteString("pcp2arrow: -a given more than once (a comma-separated list is one archive context; --each exports each)\n")
		case o.each && (o.outfile == "" || o.outfile == "-"):
			errs.WriteString("pcp2arrow: --each requires -o DIR\n")
		case o.labels && o.layout != "long":
			errs.WriteString("pcp2arrow: --labels requires --layout=long\n")
		case o.shardN > 0 && !o.each:
			errs.WriteString("pcp2arrow: --shard requires --each\n")
		case o.HostZone && o.TZ != nil:
			errs.WriteString("pcp2arrow: at most one of -Z and -z allowed\n")
		}
	}
	if errs.Len() > 0 {
		return nil, errs.String(), false
	}
	if msg := o.setMetrics(conf, operands); msg != "" {
		return nil, msg, true
	}
	return o, "", false
}

// export writes the archive of o as Parquet to o.outfile (or stdout), or
// with --each, each archive into the dataset o.outfile. It returns the
// exit status.
func export(o *options, stdout, stderr io.Writer) int {
	if !o.each {
		if err := exportFile(o, o.archives[0], stdout, stderr); err != nil {
			fmt.Fprint(stderr, err.Error())
			return 1
		}
		return 0
	}
	names, status := each.Expand(o.archives, func(format string, a ...any) {
		fmt.Fprintf(stderr, "pcp2arrow: "+format+"\n", a...)
	})
	for _, a := range names {
		if o.shardN > 0 && each.Shard(a, o.shardN) != o.shardK {
			continue
		}
		switch err := exportDataset(o, a, stderr); {
		case errors.Is(err, sampler.ErrNoMetrics):
			fmt.Fprintf(stderr, "pcp2arrow: %s: none of the metrics, skipped\n", a)
		case err != nil:
			msg := err.Error()
			if !strings.HasPrefix(msg, "Cannot open archive ") {
				msg = "pcp2arrow: " + a + ": " + strings.TrimPrefix(msg, "pcp2arrow: ")
			}
			fmt.Fprint(stderr, msg)
			status = 1
		}
	}
	return status
}

// openSampler opens archive for o's metrics. With --each, the metrics an
// archive does not have are left out.
func openSampler(o *options, archive string, stderr io.Writer) (*sampler.Sampler, error) {
	so := o.Options
	so.Prog, so.Archive, so.Stderr = "pcp2arrow", archive, stderr
	if len(so.Metrics) == 0 {
		// every metric pmrep can report
		so.Metrics, so.SkipInvalid = []string{""}, true
	}
	so.SkipInvalid = so.SkipInvalid || o.each
	return sampler.Open(&so)
}

// exportFile writes archive to the file o.outfile (or stdout).
func exportFile(o *options, archive string, stdout, stderr io.Writer) error {
	s, err := openSampler(o, archive, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	out, closeOut := stdout, func() error { return nil }
	made := false // a regular file this run made, removed on failure
	if o.outfile != "" && o.outfile != "-" {
		f, err := os.Create(o.outfile)
		if err != nil {
			return fmt.Errorf("pcp2arrow: %v\n", err)
		}
		out, closeOut = f, f.Close
		// (never a device: -o /dev/null, or /dev/full)
		fi, err := f.Stat()
		made = err == nil && fi.Mode().IsRegular()
	}
	w, err := newLayout(s, o, true)(out)
	kept := false
	if err == nil {
		kept, err = writeSamples(s, w)
	}
	if cerr := closeOut(); cerr != nil {
		kept = false
		if err == nil {
			err = fmt.Errorf("pcp2arrow: %v\n", cerr)
		}
	}
	if err != nil && made && !kept {
		os.Remove(o.outfile)
	}
	return err
}

// exportDataset writes archive into the dataset under o.outfile.
func exportDataset(o *options, archive string, stderr io.Writer) error {
	s, err := openSampler(o, archive, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = writeSamples(s, &partitioned{dir: o.outfile, host: s.Label().Hostname, part: partID(archive), open: newLayout(s, o, false)})
	return err
}

// layoutWriter writes samples in a layout: add writes the sample at ts
// (the values in the sampler's metrics), close ends the file.
type layoutWriter interface {
	add(ts pmapi.Timestamp) error
	close() error
}

// writeSamples writes every sample of s with w, and closes w. The
// samples are replayed on every core (sampler.Each). When reading fails
// (a damaged archive), the samples before it are written and the file
// ended whole, as pmrep prints the lines before the error: kept then
// reports that the file holds them (the error is still returned, for a
// non-zero exit). A failed write leaves nothing kept.
func writeSamples(s *sampler.Sampler, w layoutWriter) (kept bool, err error) {
	if err := s.Each(runtime.GOMAXPROCS(0), w.add); err != nil {
		// (after a failed write, close fails with that error too)
		return w.close() == nil, err
	}
	return false, w.close()
}

// Package pmreplay is pcpkit's pmreplay: interpolated replay of many
// metrics of an archive at once, printed as PCP 6.0.3's pmrep prints
// them with -o csv (byte for byte, for the options it supports), or as
// JSON Lines (--json, docs/json.md).
//
// It does what pmrep does for an archive: the metrics are the leaves
// under the names given, in PMNS traversal order, each once; the columns
// are their instances as pmGetInDomArchive lists them; values come from
// one interpolated fetch of all the metrics per sample (PM_MODE_INTERP
// from the window's origin at the interval), through the conversions of
// libpcp's fetchgroups: counters as rates per second (none for the first
// sample, nor where the counter went backwards or an instance was
// missing from the sample before), values with units through a double,
// an instance only while pmGetInDom (as the fetchgroup caches it) names
// it.
package pmreplay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/replay"
)

const shortOpts = "a:D:t:S:T:O:s:zZ:o:P:0:l:rHV?"

const optJSON = 1000

var longOpts = []getopt.Long{
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
	{Name: "no-header", Short: 'H'},
	{Name: "json", Short: optJSON, Exact: true},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
}

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
  -H, --no-header           no header line
  --json                    JSON Lines output (see docs/json.md)
  -V, --version             display the PCP and pcpkit versions and exit
  -?, --help                show this usage message and exit
`

type options struct {
	archive                   string
	interval                  string
	start, finish, origin     *string
	samples                   int // -1: not given
	hostzone                  bool
	tz                        *string
	output                    string
	precision, precisionForce int // -1: not given
	delimiter                 string
	raw, noHeader, json       bool
	version, help             bool // -V, -?: print and exit 0
	metrics                   []string
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
	defer r.c.Close()
	if err := r.run(); err != nil {
		out.Flush()
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	return 0
}

func parse(args []string) (*options, string) {
	o := &options{samples: -1, precision: -1, precisionForce: -1, delimiter: ",", output: "csv"}
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
		switch ev.Short {
		case 'a':
			o.archive = arg
		case 'D':
			// libpcp's debug options: accepted, and nothing printed
			if !getopt.ValidDebug(arg) {
				fmt.Fprintf(&errs, "pmreplay: unrecognized debug options specification (%s)\n", arg)
			}
		case 't':
			o.interval = arg
		case 'S':
			o.start = &arg
		case 'T':
			o.finish = &arg
		case 'O':
			o.origin = &arg
		case 's':
			o.samples = num("-s", arg)
		case 'z':
			o.hostzone = true
		case 'Z':
			o.tz = &arg
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
		case 'r':
			o.raw = true
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
		case o.archive == "":
			errs.WriteString("pmreplay: an archive (-a) is required\n")
		case len(operands) == 0:
			errs.WriteString("pmreplay: no metricspec given\n")
		case o.hostzone && o.tz != nil:
			errs.WriteString("pmreplay: at most one of -Z and -z allowed\n")
		}
	}
	if errs.Len() > 0 {
		return nil, errs.String()
	}
	o.metrics = operands
	return o, ""
}

// column is one column of the report: an instance of a metric (or its
// one value).
type column struct {
	inst int32 // pmapi.InstNull for a singular metric
	name string
}

// metric is one metric of the report.
type metric struct {
	name     string
	pmid     pmapi.PMID
	desc     pmapi.Desc
	cols     []column
	otype    pmapi.Type // the type values are converted to
	rate     bool       // counters converted to rates
	convert  bool       // the value goes through a double (units given)
	timeMult float64    // rates of time counters: the fetchgroup's scaling
	timeConv float64    //   (pmConvScale's factor, then its multiplier)
	prec     int
	// the values of the last sample, by column; ok false: none
	vals []value
}

// value is one column's value in a sample.
type value struct {
	ok   bool
	f    float64 // numbers are all held as doubles, as printed
	i    int64   // integers printed as integers
	u    uint64
	s    string
	kind byte // 'f' double, 'i' signed, 'u' unsigned, 's' string
}

type report struct {
	o       *options
	out     *bufio.Writer
	c       *replay.Context
	zone    *pcptime.Zone
	metrics []*metric
	pmids   []pmapi.PMID
	origin  pmapi.Timestamp
	delta   int64
	samples int // -1: until the end
	wrap    bool
	// the fetchgroup's pmGetInDom cache, by instance domain
	indoms map[pmapi.InDom]*indomCache
	prev   *pmapi.Result
	line   []byte
	reg    *derive.Registry // the derived metrics
}

type indomCache struct {
	refreshed bool
	insts     map[int32]bool
}

func newReport(o *options, out *bufio.Writer, stderr io.Writer) (*report, error) {
	c, err := replay.Open(o.archive)
	if err != nil {
		return nil, fmt.Errorf("Cannot open archive %s: %s\n", o.archive, archive.ErrText(err))
	}
	r := &report{o: o, out: out, c: c, indoms: map[pmapi.InDom]*indomCache{}, samples: -1}
	fail := func(err error) (*report, error) {
		c.Close()
		return nil, err
	}
	lab := c.Label()
	switch {
	case o.hostzone:
		r.zone = pcptime.LoadZone(lab.TZ)
	case o.tz != nil:
		r.zone = pcptime.LoadZone(*o.tz)
	default:
		r.zone = pcptime.LocalZone()
	}
	end, err := c.End()
	if err != nil {
		end = lab.Start
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.start, End: o.finish, Origin: o.origin}, lab.Start, end, r.zone)
	if perr != nil {
		return fail(fmt.Errorf("pmreplay: invalid time window.\n%s\n", perr.Message()))
	}
	r.origin = w.Origin
	sec, nsec := int64(1), int64(0)
	if o.interval != "" {
		var perr error
		sec, nsec, _, perr = pcptime.ParseInterval(o.interval)
		if perr != nil {
			return fail(fmt.Errorf("pmreplay: -t argument not in pmParseInterval(3) format:\n%s\n", perr.(*pcptime.ParseError).Message()))
		}
	}
	r.delta = sec*1e9 + nsec
	if r.delta <= 0 {
		return fail(errors.New("Interval must be greater than zero.\n"))
	}
	interval := tvReal(pmapi.Timestamp{Sec: sec, Nsec: int32(nsec)})
	switch {
	case o.finish != nil:
		// pmrep: the samples that fit from the origin to the end
		runtime := tvReal(w.End) - tvReal(w.Origin)
		if o.samples > 0 {
			// pmrep sets the interval to the window over the samples,
			// as the text of the Python float, which libpcp parses
			// again (pmParseInterval) into a timeval: microseconds
			r.samples = max(2, o.samples)
			step := runtime / float64(r.samples-1)
			switch {
			case step == 0:
				// pmrep 6.0.3 fails here with a Python TypeError
				return fail(errors.New("Interval must be greater than zero.\n"))
			case step > 0:
				if sec, nsec, _, err := pcptime.ParseInterval(strconv.FormatFloat(step, 'g', -1, 64)); err == nil {
					r.delta = sec*1e9 + nsec
				} else {
					r.delta = int64(math.Round(step * 1e9))
				}
				r.delta -= r.delta % 1000
			}
			// (a negative step, a window ending before it starts,
			// does not parse: the interval stays)
		} else {
			r.samples = int(runtime/interval + 1)
		}
	case o.samples > 0:
		// (-s 0 is no limit, as not giving it)
		r.samples = o.samples
	}
	// In the environment, even empty, as libpcp and pmrep test it.
	_, r.wrap = os.LookupEnv("PCP_COUNTER_WRAP")
	c.SetWrap(r.wrap)
	// The process's derived metrics ($PCP_DERIVED_CONFIG, else the
	// system's), as libpcp makes them available in pmrep's context.
	r.reg = derive.NewProcessRegistry(stderr)
	c.UseDerived(r.reg, derive.EvalOptions{})
	if err := r.addMetrics(); err != nil {
		return fail(err)
	}
	return r, nil
}

// tvReal is a time as pmrep's Python sees it: a timeval (microseconds)
// turned into seconds by pmtimevalToReal.
func tvReal(t pmapi.Timestamp) float64 {
	t.Nsec -= t.Nsec % 1000
	return pcptime.ToReal(t)
}

// addMetrics resolves the metric specifications as pmrep does.
func (r *report) addMetrics() error {
	meta := r.c.Meta()
	seen := map[pmapi.PMID]bool{}
	anon := map[string]bool{}
	prec := 3
	if r.o.precision >= 0 {
		prec = r.o.precision
	}
	if r.o.precisionForce >= 0 {
		prec = r.o.precisionForce
	}
	// The archive's names with the derived metrics' grafted in (libpcp's
	// anonymous event.flags and event.missed among them), as
	// pmTraversePMNS walks them.
	var derived []string
	for _, m := range r.reg.Metrics() {
		derived = append(derived, m.Name)
	}
	tree := pmns.NewGrafted(meta.Traverse(""), derived)
	for _, spec := range r.o.metrics {
		leaves := tree.Traverse(spec)
		if len(leaves) == 0 {
			return fmt.Errorf("Invalid metric %s (PM_ERR_NAME Unknown metric name).\n", spec)
		}
		for _, name := range leaves {
			pmid, err := r.c.LookupName(name)
			if dm, ok := r.reg.Lookup(name); ok && dm.Anon && pmid == dm.PMID {
				// an anonymous metric: never in an archive
				if !anon[name] {
					anon[name] = true
					r.metrics = append(r.metrics, &metric{name: name, pmid: pmapi.PMIDNull, prec: prec,
						desc: pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete},
						cols: []column{{inst: pmapi.InstNull}}, vals: make([]value, 1)})
					r.pmids = append(r.pmids, pmapi.PMIDNull)
				}
				continue
			}
			if err != nil {
				return invalidMetric(name, pmapi.ErrName)
			}
			if seen[pmid] {
				continue
			}
			d, err := r.c.Desc(pmid)
			if err != nil {
				if derive.IsDerived(pmid) {
					return invalidMetric(name, pmapi.ErrBadDerive)
				}
				return fmt.Errorf("Invalid metric %s (PM_ERR_PMID_LOG Metric not defined in the PCP archive log).\n", name)
			}
			switch d.Type {
			case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble, pmapi.TypeString:
			default:
				return fmt.Errorf("Invalid metric %s (PM_ERR_TYPE Unknown or illegal metric type).\n", name)
			}
			seen[pmid] = true
			m := &metric{name: name, pmid: pmid, desc: d, prec: prec}
			if d.InDom == pmapi.InDomNull {
				m.cols = []column{{inst: pmapi.InstNull}}
			} else {
				hist := meta.InDomHistory(d.InDom)
				if len(hist) == 0 {
					return fmt.Errorf("Invalid metric %s (PM_ERR_INDOM_LOG Instance domain identifier not defined in the PCP archive log).\n", name)
				}
				for _, p := range unionPairs(hist) {
					m.cols = append(m.cols, column{inst: p.id, name: p.name})
				}
				if len(m.cols) == 0 {
					m.cols = []column{{inst: pmapi.InstNull}}
				}
			}
			m.vals = make([]value, len(m.cols))
			// pmrep's scale: the units, " / s" added for a counter
			// converted to a rate; the fetchgroup converts counters
			// to rates when that is empty (no scale), and otherwise
			// as the scale's dimensions say.
			units := d.Units.String()
			m.otype = d.Type
			m.timeConv, m.timeMult = 1, 1
			counter := d.Sem == pmapi.SemCounter
			if counter && !r.o.raw && d.Type != pmapi.TypeString {
				m.otype = pmapi.TypeDouble
				if strings.Contains(units, "/") {
					m.convert = true
				} else {
					m.rate = true
					if d.Units.DimTime == 1 && d.Units.DimSpace == 0 && d.Units.DimCount == 0 {
						// "ms/s" and the like: pmParseUnitsStr
						// cancels the time dimension into a
						// multiplier, which the fetchgroup scales
						// to nanoseconds, and pmConvScale scales
						// the value to nanoseconds.
						m.timeConv, m.timeMult = timeScaling(d.Units.ScaleTime)
					}
				}
			} else if units == "" {
				m.rate = counter
			} else {
				m.convert = true
			}
			r.metrics = append(r.metrics, m)
			r.pmids = append(r.pmids, pmid)
		}
	}
	if len(r.metrics) == 0 {
		return errors.New("No compatible metrics found.\n")
	}
	return nil
}

// invalidMetric is pmrep's message for a metric it cannot report:
// "Invalid metric NAME (PM_ERR_... text)." and a newline.
func invalidMetric(name string, code pmapi.Error) error {
	return fmt.Errorf("%s", "Invalid metric "+name+" ("+code.Name()+" "+code.Error()+").\n")
}

// timeScaling is, for a counter of time in the given scale, pmConvScale's
// factor to nanoseconds and the fetchgroup's multiplier (pmParseUnitsStr's
// for "<unit>/s", divided by 1e9), as PCP 6.0.3 computes them.
func timeScaling(scale uint8) (conv, mult float64) {
	switch scale {
	case pmapi.TimeNSec:
		return 1, 999999999.9999999 / 1e9
	case pmapi.TimeUSec:
		return 1e3, 1e6 / 1e9
	case pmapi.TimeMSec:
		return 1e6, 1e3 / 1e9
	case pmapi.TimeSec:
		return 1e9, 1 / 1e9
	case pmapi.TimeMin:
		return 60e9, 0.016666666666666666 / 1e9
	case pmapi.TimeHour:
		return 3600e9, 0.0002777777777777778 / 1e9
	}
	return 1, 1
}

type instPair struct {
	id   int32
	name string
}

// unionPairs lists the instances of an instance domain over the whole
// archive as pmGetInDomArchive does: the snapshots newest first, each in
// instance order, every instance once.
func unionPairs(hist []archive.InDomSnapshot) []instPair {
	var out []instPair
	seen := map[int32]bool{}
	for i := len(hist) - 1; i >= 0; i-- {
		s := &hist[i]
		idx := make([]int, len(s.Insts))
		for k := range idx {
			idx[k] = k
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case s.Insts[a] < s.Insts[b]:
				return -1
			case s.Insts[a] > s.Insts[b]:
				return 1
			}
			return 0
		})
		for _, k := range idx {
			if !seen[s.Insts[k]] {
				seen[s.Insts[k]] = true
				out = append(out, instPair{s.Insts[k], s.Names[k]})
			}
		}
	}
	return out
}

// Package logsummary implements pmlogsummary: it summarises the values of
// the metrics in an archive (or a set of archives) exactly as PCP 6.0.3's
// pmlogsummary does: averages over time and over samples, counters as
// rates, minima and maxima with their times, sample counts, sums and value
// distributions. cmd/pmlogsummary is a thin wrapper around Main.
//
// It reads the archive forwards once (twice with -B), keeping one
// accumulator per metric instance, so its memory does not depend on the
// length of the archive. With more than one core, the reading and
// decoding run a batch of records ahead of the arithmetic, in a goroutine
// of their own.
//
// pcpkit adds --json and --csv (machine.go), --each with -j and --shard
// (batch.go), and --merge (merge.go): see docs/pmlogsummary.md.
package logsummary

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/each"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/metricspec"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/replay"
)

// Version is the version the real tool reports.
const Version = "6.0.3"

const usage = `Usage: pmlogsummary [options] archive [metricname ...]

Options:
  -a, --all             print all information (equivalent to -blmMy)
  -b                    print both stochastic and time averages for counter metrics
  -B N, --bins=N        print value distribution across a number of bins
  -f                    print using "spreadsheet" format (tab delimited fields)
  -F                    print using "spreadsheet" format (comma separated values)
  -H, --header          print one-line header at start showing each column
  -i, --mintime         also print timestamp for minimum value
  -I, --maxtime         also print timestamp for maximum value
  -l, --label           also print the archive label and time window
  -m, --minimum         also print minimum value
  -M, --maximum         also print maximum value
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -N                    suppress warnings from individual archive fetches (default)
  -p N, --precision=N   number of digits to display after the decimal point
  -s, --sum             only print the sum of all values of each metric
  -S TIME, --start=TIME start of the time window
  -T TIME, --finish=TIME
                        end of the time window
  -v, --verbose         verbose, enable warnings from individual archive fetches
  -x                    print only stochastic averages for counter metrics
  -y, --samples         print sample count for each metric
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit
`

// intMax is the end the tools use when an archive's end cannot be found.
const intMax = getopt.UnknownEndSec

// summary holds the options and state of one run.
// nameSpace answers name lookups: the archives' namespace, or the one
// loaded with -n.
type nameSpace interface {
	Lookup(name string) (pmapi.PMID, bool)
	Names(pmid pmapi.PMID) []string
	Traverse(name string) []string
}

type summary struct {
	options
	out  *bufio.Writer
	errw io.Writer

	// the state of one archive (or multi-archive context)
	set         *archive.Set
	meta        *archive.Meta
	ns          nameSpace // names: the archive's, or -n's
	z           *pcptime.Zone
	winStart    tv
	winEnd      tv
	logspan     float64
	dayflag     bool
	warned      map[pmapi.PMID]bool
	buf         []byte
	msp         *metricspec.Spec
	archiveName string
	metricArgs  []string
	stats       *stats
	exitStatus  int
	doc         *doc // the rows of --json and --csv
}

// options are what the command line sets, the same for every archive of
// --each.
type options struct {
	// columns and formats, set by the options in command-line order
	stocaveflag, timeaveflag, sumflag bool
	minflag, maxflag, mintimeflag     bool
	maxtimeflag, countflag, warnflag  bool
	lflag, hflag, hostzone            bool
	delimiter                         byte
	nbins                             int
	precision                         int
	tz, start, finish, namespace      string
	startSet, finishSet, namespaceSet bool
	counterWrap                       bool
	altNS                             *pmns.Namespace // loaded with -n

	// pcpkit's extensions (docs/pmlogsummary.md)
	format     outFormat // text, --json or --csv
	each       bool      // --each: every archive on its own
	merge      bool      // --merge: join --json or --csv outputs
	jobs       int       // -j: workers for --each (0: GOMAXPROCS)
	jobsSet    bool
	shardK     int // --shard K/N (shardN 0: none)
	shardN     int
	metricOpts []string // --metric, in order
	pipeline   bool     // read ahead in a goroutine (pass)
}

// Main runs pmlogsummary with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	_, wrap := os.LookupEnv("PCP_COUNTER_WRAP")
	s := &summary{
		options: options{
			timeaveflag: true, delimiter: ' ', precision: 3, counterWrap: wrap,
			pipeline: usePipeline(),
		},
		out: out, errw: stderr, warned: map[pmapi.PMID]bool{},
	}
	return s.run(args)
}

// complain prints "pmlogsummary: " and the message on stderr. Like the
// real tool's stdio, stdout is buffered and written at exit, so on a
// shared pipe the complaints come first.
func (s *summary) complain(format string, a ...any) {
	fmt.Fprintf(s.errw, "pmlogsummary: "+format+"\n", a...)
}

// strtol parses s as C's strtol(s, &end, 10) and reports whether all of s
// was used.
func strtol(s string) (int64, bool) {
	v, end := cnum.Strtol(s)
	return v, end == len(s)
}

func (s *summary) run(args []string) int {
	evs, operands := parseArgs(args)
	errs, exitFlag, runtimeErr := 0, false, false
	for _, ev := range evs {
		if ev.Err != "" {
			s.complain("%s", ev.Err)
			errs++
			continue
		}
		switch ev.Short {
		case 'a':
			s.stocaveflag, s.timeaveflag, s.lflag, s.countflag, s.minflag, s.maxflag = true, true, true, true, true, true
			s.sumflag = false
		case 'b':
			s.stocaveflag, s.timeaveflag, s.sumflag = true, true, false
		case 'B':
			v, ok := strtol(ev.Arg)
			if !ok || int32(v) < 0 {
				s.complain("-B requires positive numeric argument")
				errs++
			} else {
				s.nbins = int(int32(v))
			}
		case 'D':
			if !getopt.ValidDebug(ev.Arg) {
				s.complain("unrecognized debug options specification (%s)", ev.Arg)
				errs++
			}
		case 'f':
			s.delimiter = '\t'
		case 'F':
			s.delimiter = ','
		case 'H':
			s.hflag = true
		case 'i':
			s.mintimeflag = true
		case 'I':
			s.maxtimeflag = true
		case 'l':
			s.lflag = true
		case 'm':
			s.minflag = true
		case 'M':
			s.maxflag = true
		case 'N':
			s.warnflag = false
		case 'n':
			s.namespace, s.namespaceSet = ev.Arg, true
			ns, err := pmns.Load(ev.Arg)
			if err != nil {
				var le *pmns.LoadError
				if errors.As(err, &le) {
					fmt.Fprint(s.errw, le.Messages)
					s.complain("Cannot load namespace from %q: %s", ev.Arg, le.Reason)
				} else {
					s.complain("Cannot load namespace from %q: %v", ev.Arg, err)
				}
				errs++
				runtimeErr = true
			} else {
				s.altNS = ns
			}
		case 'p':
			v, ok := strtol(ev.Arg)
			if !ok {
				s.complain("-p requires numeric argument")
				errs++
			}
			// (unsigned int) then (int): the low 32 bits, signed; a
			// negative precision means the default of printf, 6.
			s.precision = int(int32(v))
		case 's':
			s.stocaveflag, s.timeaveflag, s.lflag, s.countflag, s.minflag, s.maxflag = false, false, false, false, false, false
			s.sumflag = true
		case 'S':
			s.start, s.startSet = ev.Arg, true
		case 'T':
			s.finish, s.finishSet = ev.Arg, true
		case 'v':
			s.warnflag = true
		case 'V':
			io.WriteString(s.errw, version.Banner("pmlogsummary"))
			exitFlag = true
		case 'x':
			s.stocaveflag, s.timeaveflag, s.sumflag = true, false, false
		case 'y':
			s.countflag = true
		case 'z':
			if s.tz != "" {
				s.complain("at most one of -Z and -z allowed")
				errs++
			} else {
				s.hostzone = true
			}
		case 'Z':
			if s.hostzone {
				s.complain("at most one of -Z and -z allowed")
				errs++
			} else {
				s.tz = ev.Arg
			}
		case '?':
			errs++
		case 'j':
			v, ok := strtol(ev.Arg)
			if !ok || v < 1 || v > 1<<16 {
				s.complain("-j requires a positive numeric argument")
				errs++
				runtimeErr = true
			} else {
				s.jobs, s.jobsSet = int(v), true
			}
		case optJSON, optCSV:
			f := jsonFormat
			if ev.Short == optCSV {
				f = csvFormat
			}
			if s.format != textFormat && s.format != f {
				s.complain("at most one of --json and --csv allowed")
				errs++
				runtimeErr = true
			}
			s.format = f
		case optEach:
			s.each = true
		case optMerge:
			s.merge = true
		case optShard:
			k, n, ok := each.ParseShard(ev.Arg)
			if !ok {
				s.complain("--shard requires K/N with 0 <= K < N, not %q", ev.Arg)
				errs++
				runtimeErr = true
			} else {
				s.shardK, s.shardN = k, n
			}
		case optMetric:
			s.metricOpts = append(s.metricOpts, ev.Arg)
		}
	}
	if errs == 0 && !exitFlag {
		if msg := s.checkExtensions(); msg != "" {
			s.complain("%s", msg)
			errs++
			runtimeErr = true
		}
	}
	if errs == 0 && !exitFlag && len(operands) == 0 && !s.merge {
		fmt.Fprint(s.errw, "Error: no archive specified\n\n")
		errs++
	}
	if exitFlag {
		return 0
	}
	if errs > 0 {
		if !runtimeErr {
			fmt.Fprint(s.errw, usage+CLI.Help(args))
		}
		return 1
	}
	switch {
	case s.merge:
		return s.runMerge(operands)
	case s.each:
		return s.runEach(operands)
	}
	return s.runOne(operands[0], append(operands[1:len(operands):len(operands)], s.metricOpts...))
}

// pmidErr prints a warning about a metric once, with -v.
func (s *summary) pmidErr(pmid pmapi.PMID, format string, a ...any) {
	if !s.warnflag || s.warned[pmid] {
		return
	}
	s.warned[pmid] = true
	names := strings.Join(s.ns.Names(pmid), " or ")
	if names == "" {
		names = "<nonames>"
	}
	fmt.Fprintf(s.errw, "pmlogsummary: %s(%s) - "+format, append([]any{names, pmid.String()}, a...)...)
}

// summarise opens the archive and does the work.
func (s *summary) summarise() int {
	set, err := archive.OpenSet(s.archiveName)
	if err != nil {
		s.complain("Cannot open archive %q: %s", s.archiveName, archive.ErrText(err))
		return 1
	}
	defer set.Close()
	s.set, s.meta, s.ns = set, set.Meta(), set.Meta()
	if s.altNS != nil {
		s.ns = s.altNS
	}
	text := s.format == textFormat
	if d := s.doc; d != nil {
		l := set.Label()
		d.opened, d.host, d.tz, d.version = true, l.Hostname, l.TZ, l.Version
	}

	// The reporting zone, then the time window.
	switch {
	case s.hostzone:
		s.z = pcptime.LoadZone(set.Label().TZ)
		if text {
			fmt.Fprintf(s.out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", set.Label().Hostname)
		}
	case s.tz != "":
		s.z = pcptime.LoadZone(s.tz)
		if text {
			fmt.Fprintf(s.out, "Note: timezone set to \"TZ=%s\"\n\n", s.tz)
		}
	default:
		s.z = pcptime.LocalZone()
	}
	if rc := s.window(); rc != 0 {
		return rc
	}

	if d := s.doc; d != nil {
		d.windowed, d.start, d.end = true, s.winStart, s.winEnd
	}
	if s.lflag && text {
		s.printLabel()
	}
	s.logspan = s.winEnd.real() - s.winStart.real()
	s.dayflag = s.winEnd.minus(s.winStart).sec > 86400

	s.stats = newStats(s)
	err = s.pass(s.stats.average, s.lflag)
	if err == nil || !isFatal(err) {
		if s.nbins > 0 {
			err = s.pass(func(r *rec) error { s.stats.binning(r); return nil }, false)
		}
	}
	if err != nil {
		if isFatal(err) {
			fmt.Fprintf(s.errw, "pmlogsummary: possibly corrupt archive?\n")
			return 1
		}
		s.complain("fetch failed: %s", archive.ErrText(err))
		s.exitStatus = 1
	}

	if s.hflag && text {
		s.printHeader()
	}
	if len(s.metricArgs) == 0 {
		for _, name := range s.ns.Traverse("") {
			s.printSummary(name)
		}
	} else {
		for _, arg := range s.metricArgs {
			ms, msg := metricspec.Parse(arg)
			if ms == nil {
				fmt.Fprint(s.errw, msg)
				continue
			}
			s.msp = ms
			names := s.ns.Traverse(ms.Metric)
			if len(names) == 0 {
				s.complain("PMNS traversal failed for %s: %s", ms.Metric, pmapi.ErrName.Error())
			}
			for _, name := range names {
				s.printSummary(name)
			}
			s.msp = nil
		}
	}
	return s.exitStatus
}

// fatalError marks an error that ends the run at once (a value that
// cannot be extracted when a metric is first seen).
type fatalError struct{ error }

func isFatal(err error) bool {
	var f fatalError
	return errors.As(err, &f)
}

// pass reads the records in the window and gives each to fn. It returns
// nil at the end of the window or of the archive(s), and the read error
// otherwise. label says the label was printed (-l) after positioning,
// which in a multi-archive context loses the origin (see
// replay.Context.ArchiveLabel).
//
// With s.pipeline set, reading and decoding run in a goroutine of their
// own, a batch of records ahead of fn (see readAhead).
func (s *summary) pass(fn func(*rec) error, label bool) error {
	c := replay.NewContext(s.set)
	defer c.Release()
	if err := c.SetMode(replay.Forw, pmapi.Timestamp{Sec: s.winStart.sec, Nsec: int32(s.winStart.usec * 1000)}, 0); err != nil {
		return err
	}
	if label {
		c.ArchiveLabel()
	}
	if s.pipeline {
		return s.readAhead(c, fn)
	}
	rr := new(rec) // one for the pass: fn's argument escapes
	for {
		r, err := c.FetchRecord()
		if errors.Is(err, pmapi.ErrEOL) {
			return nil
		}
		if err != nil {
			return err
		}
		if !s.winEnd.notBefore(tvOf(r.Stamp)) {
			return nil
		}
		*rr = recOf(r)
		if err := fn(rr); err != nil {
			return fatalError{err}
		}
	}
}

// batch is a run of records copied out of the reader's buffer.
type batch struct {
	raw  []byte
	sets []archive.VSet
	recs []rec // their raw and sets fields point into raw and sets
	done bool  // the last batch of the pass
	err  error // with done: the read error that ended the pass, if any
}

// batchBytes is the size a batch is sent at (a variable for the tests).
var batchBytes = 128 << 10

// pipelineMode decides whether pass reads ahead: 0 when there is more
// than one core, 1 always, 2 never (for the tests).
var pipelineMode = 0

func usePipeline() bool {
	switch pipelineMode {
	case 1:
		return true
	case 2:
		return false
	}
	return runtime.GOMAXPROCS(0) > 1
}

// readAhead is pass with the reading in a goroutine: it copies the records
// in batches and hands them over, while fn works on the previous ones. fn
// sees the same records in the same order, and the pass ends the same way.
func (s *summary) readAhead(c *replay.Context, fn func(*rec) error) error {
	size := batchBytes
	full := make(chan *batch, 2)
	free := make(chan *batch, 4)
	stop := make(chan struct{})
	go func() {
		defer close(full)
		b := &batch{raw: make([]byte, 0, size+size/4)}
		// send hands b over and starts a new one. (A record larger than
		// a batch reallocates b.raw: the records before it keep the old
		// array, which holds their bytes.)
		send := func() bool {
			select {
			case full <- b:
			case <-stop:
				return false
			}
			select {
			case b = <-free:
				b.raw, b.sets, b.recs = b.raw[:0], b.sets[:0], b.recs[:0]
			default:
				b = &batch{raw: make([]byte, 0, size+size/4)}
			}
			return true
		}
		for {
			r, err := c.FetchRecord()
			if err != nil || !s.winEnd.notBefore(tvOf(r.Stamp)) {
				if err != nil && !errors.Is(err, pmapi.ErrEOL) {
					b.err = err
				}
				b.done = true
				select {
				case full <- b:
				case <-stop:
				}
				return
			}
			rr := recOf(r)
			if len(rr.raw) > 0 {
				if len(b.raw)+len(rr.raw) > cap(b.raw) && len(b.recs) > 0 {
					if !send() {
						return
					}
				}
				start := len(b.raw)
				b.raw = append(b.raw, rr.raw...)
				rr.raw = b.raw[start:len(b.raw):len(b.raw)]
				start = len(b.sets)
				b.sets = append(b.sets, rr.sets...)
				rr.sets = b.sets[start:len(b.sets):len(b.sets)]
			}
			b.recs = append(b.recs, rr)
			if len(b.raw) >= size {
				if !send() {
					return
				}
			}
		}
	}()
	// The reader has ended when full is closed: drain it before
	// returning, so that nothing reads the archive after the pass.
	drain := func() {
		for range full {
		}
	}
	for b := range full {
		for i := range b.recs {
			if err := fn(&b.recs[i]); err != nil {
				close(stop)
				drain()
				return fatalError{err}
			}
		}
		if b.done {
			drain()
			return b.err
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// window computes the time window from the archive's bounds and -S/-T, as
// pmGetContextOptions does for the tool, at microsecond precision.
func (s *summary) window() int {
	trunc := func(t pmapi.Timestamp) pmapi.Timestamp {
		t.Nsec -= t.Nsec % 1000
		return t
	}
	start := trunc(s.set.Label().Start)
	end, err := s.set.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: intMax}
		fmt.Fprint(s.errw, getopt.UnknownEnd("pmlogsummary", s.archiveName, archive.ErrText(err)))
	}
	end = trunc(end)
	spec := pcptime.WindowSpec{}
	if s.startSet {
		spec.Start = &s.start
	}
	if s.finishSet {
		spec.End = &s.finish
	}
	w, _, perr := pcptime.ParseWindowSpec(spec, start, end, s.z)
	if perr != nil {
		fmt.Fprintf(s.errw, "pmlogsummary: invalid time window.\n%s\n", perr.Message())
		return 1
	}
	s.winStart, s.winEnd = tvOf(w.Start), tvOf(w.End)
	return 0
}

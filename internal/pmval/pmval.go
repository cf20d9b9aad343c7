// Package pmval implements pmval: it reports the values of one metric
// over time exactly as PCP 6.0.3's pmval does, from a PCP archive (-a,
// -U), interpolated at a fixed interval or record by record, or live from
// a pmcd (-h HOST, HOST:metric, or the local pmcd by default; live.go),
// with rate conversion of counters. cmd/pmval is a thin wrapper around
// Main.
//
// A local context (-L) runs the PMDAs itself (package local). The GUI
// time control (-g, -p) is not supported: pmval fails for it as the real
// pmval fails where pmtime is not installed. --container
// is sent to pmcd (pmcd.ContainerEnv).
package pmval

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/metricspec"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// instPair is an instance of the reported metric: its number and the
// name it is shown by.
type instPair struct {
	id   int32
	name string
}

// tool holds one run's state.
type tool struct {
	o      *options
	out    *bufio.Writer
	errw   io.Writer
	c      *replay.Context // the archive, nil live
	live   *liveSource     // the pmcd, nil for an archive
	source string
	host   string // the context's host name
	metric string
	pmid   pmapi.PMID
	desc   pmapi.Desc
	zone   *pcptime.Zone

	iall   bool
	pairs  []instPair // sorted by id
	scale  float64
	cols   int
	fixed  int
	xflag  int
	raw    bool
	rawArc bool // -U, or an event metric: records, not interpolation
	events bool // an event metric

	origin, finish pmapi.Timestamp
	delta          int64 // interpolation interval, nanoseconds
	samples        int
	liveEnd        bool // live, with -T: t.origin and t.finish are set

	reporting  bool
	labelStyle int

	scratch []byte   // print.go's number formatting
	stamp   []byte   // and its timestamps
	line    []byte   // and its lines of rates
	wrapEnv int8     // PCP_COUNTER_WRAP: 0 not looked up, 1 set, -1 not
	json    *jsonOut // --json (json.go), nil without
}

// errExit stops a run with an exit status.
type errExit int

// Main runs pmval with args (without the program name), writing to stdout
// and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) (status int) {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	t := &tool{out: out, errw: stderr, labelStyle: -1}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(errExit); ok {
				status = int(e)
				return
			}
			panic(r)
		}
	}()
	return t.run(args)
}

// flushFirst is a Writer that flushes out before each write to w.
type flushFirst struct {
	out *bufio.Writer
	w   io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	f.out.Flush()
	return f.w.Write(p)
}

// fail prints a message on stderr and stops with status 1.
func (t *tool) fail(format string, a ...any) {
	t.out.Flush()
	fmt.Fprintf(t.errw, format, a...)
	panic(errExit(1))
}

func (t *tool) run(args []string) int {
	var immediate, pending strings.Builder
	o, operands := parse(args, &immediate, &pending)
	t.o = o
	if o.json {
		t.startJSON()
	}
	io.WriteString(t.errw, immediate.String())
	if o.version {
		io.WriteString(t.errw, pending.String())
		return 0
	}
	if o.nsFailed {
		return 1
	}
	usageFail := func() int {
		io.WriteString(t.errw, pending.String())
		io.WriteString(t.errw, usageText()+CLI.Help(args))
		return 1
	}
	if o.errors == 0 && len(operands) == 0 {
		pending.WriteString("pmval: error - no metricname specified\n")
		o.errors++
	} else if o.errors == 0 && len(operands) > 1 {
		pending.WriteString("pmval: error - too many arguments\n")
		o.errors++
	}
	if o.errors > 0 {
		return usageFail()
	}

	// The source: -L (whatever else is given), -h, -a, or the metric
	// specification's.
	source := "local:"
	switch {
	case len(o.hosts) > 0:
		source = o.hosts[0]
	case len(o.archives) > 0:
		source = o.archives[0]
	}
	spec, msg := metricspec.Parse(operands[0])
	if spec == nil {
		// The checks of the source below are still made.
		pending.WriteString(msg)
		o.errors++
	} else {
		switch {
		case spec.Archive != "":
			if len(o.archives) == 0 {
				o.archives = append(o.archives, spec.Archive)
			}
			source = spec.Archive
		case spec.Host == "@":
			// pmParseMetricSpec's local context ("@:metric")
			o.local = true
		case spec.Host != "":
			if len(o.hosts) == 0 {
				o.hosts = append(o.hosts, spec.Host)
			}
			source = spec.Host
		}
		if len(o.archives) > 0 && len(o.hosts) > 0 {
			pending.WriteString("pmval: only one host or archive allowed\n")
			return usageFail()
		}
	}
	isArchive := len(o.archives) > 0 && len(o.hosts) == 0 && !o.local
	if !isArchive {
		if o.start != nil || o.align != nil || o.origin != nil {
			pending.WriteString("pmval: time window options are supported for archives only\n")
			o.errors++
		}
		if o.local && o.hostzone {
			pending.WriteString("pmval: use of timezone from metric source requires a source\n")
			o.errors++
		}
		if o.rawArchive {
			pending.WriteString("pmval: uninterpolated mode can only be used with archives")
			o.errors++
		}
		if o.pause {
			pending.WriteString("pmval: delay can only be used with archives\n")
			o.errors++
		}
	}
	if o.errors > 0 {
		return usageFail()
	}
	defer t.closeSource()
	if !isArchive {
		if t.json != nil {
			t.fail("pmval: --json is supported for archives only\n")
		}
		if o.reverse {
			t.fail("pmval: --reverse is supported for archives only\n")
		}
		t.openLive(spec, source)
	} else {
		t.openArchive(spec, source)
	}
	if t.json != nil && t.events {
		t.fail("pmval: --json does not support event metrics\n")
	}
	t.fixed, t.xflag, t.raw = o.fixed, o.xflag, o.raw
	if o.rawArchive {
		t.rawArc = true
	}

	// The number of fetches, when it is not given: an archive's window
	// over the interval (live, every sample until interrupted).
	if t.samples < 0 && !t.rawArc && (t.live == nil || t.liveEnd) && t.finish.Sec != getopt.UnknownEndSec {
		d := realTime(t.finish) - realTime(t.origin)
		if o.reverse {
			d = -d
		}
		n := int(int32(toInt(d / t.intervalReal())))
		if n < 0 {
			t.samples = 0
		} else {
			t.samples = n + 1
		}
	}
	if !o.tzSet && !o.hostzone && !t.events {
		t.out.WriteString("\n")
	}
	if o.gui {
		t.timeConnect()
	}
	if t.live == nil {
		t.setMode()
	}
	t.cols = o.cols
	if t.cols <= 0 {
		if t.cols = howide(t.desc.Type); t.cols < 0 {
			t.fail("pmval: unknown performance metric value type %s\n", typeStr(t.desc.Type))
		}
	}
	if t.fixed == 0 && t.fixed > t.cols || t.fixed > 0 && t.fixed > t.cols-2 {
		t.fail("pmval: -f %d too large for column width %d\n", t.fixed, t.cols)
	}
	t.printHeader()
	t.jsonHeader()
	t.loop()
	return 0
}

// timeConnect is pmTimeConnect for -g and -p, which pcpkit does not
// implement: it fails as the real pmval does where pmtime is not there
// (-g: the child's execvp(3) fails; -p: no pmtime answers on the port),
// else with ENOTSUP.
func (t *tool) timeConnect() {
	err := error(syscall.ENOTSUP)
	switch {
	case t.o.guiPort:
		err = syscall.EINTR
	default:
		if _, lerr := exec.LookPath("pmtime"); lerr != nil {
			t.out.Flush()
			io.WriteString(t.errw, "execvp: No such file or directory\n")
			err = syscall.ENOENT
		}
	}
	t.fail("pmval: pmTimeConnect: %s\n", archive.ErrText(err))
}

// openArchive opens the archive source and sets the run up from it: the
// derived metrics, the host name, the zone and time window, the metric
// and its instances.
func (t *tool) openArchive(spec *metricspec.Spec, source string) {
	t.source = source
	c, err := replay.Open(source)
	if err != nil {
		t.fail("pmval: Cannot open archive \"%s\": %s\n", source, archive.ErrText(err))
	}
	t.c = c
	// libpcp's warnings while reading come after the values printed
	// so far (pmval flushes each line).
	c.SetStderr(flushFirst{t.out, t.errw}, "pmval")
	// libpcp interpolates counters that go down as wrapped when
	// PCP_COUNTER_WRAP is in the environment, whatever its value.
	c.SetWrap(t.counterWrap())
	t.useDerived()
	if t.host = c.Label().Hostname; t.host == "" {
		t.fail("pmval: Cannot evaluate context host name: %s\n", pmapi.Error(0).Error())
	}
	t.contextOptions()
	t.initMetric(spec)
	t.initInstances(spec)
}

// closeSource closes the archive or the connection to pmcd.
func (t *tool) closeSource() {
	if t.c != nil {
		t.c.Close()
	}
	if t.live != nil {
		t.live.c.Close()
	}
}

// realTime is pmtimespecToReal: seconds as a double, the nanoseconds
// divided in long double precision.
func realTime(t pmapi.Timestamp) float64 { return pcptime.ToReal(t) }

// intervalReal is the interval in seconds (pmtimespecToReal).
func (t *tool) intervalReal() float64 {
	return realTime(pmapi.Timestamp{Sec: t.o.intervalSec, Nsec: int32(t.o.intervalNsec)})
}

// toInt truncates a double as C's (int) does, INT_MIN out of range.
func toInt(x float64) int64 {
	if x != x || x >= 2147483648 || x <= -2147483649 {
		return math.MinInt32
	}
	return int64(x)
}

// contextOptions does what pmGetContextOptions does for an archive: the
// reporting zone (and its note), then the time window.
func (t *tool) contextOptions() {
	o := t.o
	lab := t.c.Label()
	switch {
	case o.hostzone:
		t.zone = pcptime.LoadZone(lab.TZ)
		fmt.Fprintf(t.out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", lab.Hostname)
	case o.tzSet:
		t.zone = pcptime.LoadZone(o.tz)
		fmt.Fprintf(t.out, "Note: timezone set to \"TZ=%s\"\n\n", o.tz)
	default:
		t.zone = pcptime.LocalZone()
	}
	end, err := t.c.End()
	if err != nil {
		// The end is unknown, and said so: the window runs to INT_MAX.
		t.out.Flush()
		io.WriteString(t.errw, getopt.UnknownEnd("pmval", t.source, archive.ErrText(err)))
		end = pmapi.Timestamp{Sec: getopt.UnknownEndSec}
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.start, End: o.finish, Align: o.align, Origin: o.origin}, lab.Start, end, t.zone)
	if perr != nil {
		t.fail("pmval: invalid time window.\n%s\n", perr.Message())
	}
	t.origin, t.finish = w.Origin, w.End
	if o.reverse {
		// --reverse: from the window's end (or -O) back to its start.
		t.origin, t.finish = w.End, w.Start
		if o.origin != nil {
			t.origin = w.Origin
		}
	}
	if !o.intervalSet || o.intervalSec == 0 && o.intervalNsec == 0 {
		o.intervalSec, o.intervalNsec = 1, 0
	}
	t.samples = o.samples
	if t.samples == 0 && !o.noSamples {
		t.samples = -1
	}
}

// initMetric looks up the metric and its descriptor.
func (t *tool) initMetric(spec *metricspec.Spec) {
	t.metric = spec.Metric
	meta := t.c.Meta()
	var pmid pmapi.PMID
	var ok bool
	nonLeaf := false
	if t.o.ns != nil {
		pmid, ok = t.o.ns.Lookup(spec.Metric)
		if !ok {
			nonLeaf = len(t.o.ns.Traverse(spec.Metric)) > 0
		}
	} else {
		pmid, ok = meta.Lookup(spec.Metric)
		if !ok {
			nonLeaf = len(meta.Traverse(spec.Metric)) > 0
		}
	}
	if !ok {
		pmid, ok = t.lookupDerived(spec.Metric)
	}
	if !ok {
		e := pmapi.ErrName
		if nonLeaf {
			e = pmapi.ErrNonLeaf
		}
		t.fail("pmval: pmLookupName(%s): %s\n", spec.Metric, e.Error())
	}
	d, ok := meta.Desc(pmid)
	if !ok {
		d, ok = t.derivedDesc(spec.Metric, pmid)
	}
	if !ok {
		t.fail("pmval: pmLookupDesc: %s\n", pmapi.ErrPMIDLog.Error())
	}
	t.pmid, t.desc = pmid, *d
	if d.Type == pmapi.TypeEvent || d.Type == pmapi.TypeHighresEvent {
		t.events, t.rawArc = true, true
	}
	t.setScale()
}

// setScale sets the factor that converts the time between two fetches
// to the time unit of a counter (pmval's x->scale).
func (t *tool) setScale() {
	d := &t.desc
	if d.Sem == pmapi.SemCounter {
		t.scale = 1
		if d.Units.DimTime != 0 {
			st := int(d.Units.ScaleTime)
			if st > 3 {
				t.scale = math.Pow(60, float64(3-st))
			} else {
				t.scale = math.Pow(1000, float64(3-st))
			}
		}
	}
}

// initInstances sets up the instances to report: those named with -i (or
// in the metric specification), else every instance ever in the domain.
func (t *tool) initInstances(spec *metricspec.Spec) {
	ids := t.namedInstances(spec, func(n string) (int32, error) { return t.c.LookupInDomArchive(t.desc.InDom, n) })
	if t.desc.InDom == pmapi.InDomNull {
		return
	}
	if ids != nil {
		indom := t.desc.InDom
		t.c.SetProfile(func(d pmapi.InDom, inst int32) bool { return d != indom || ids[inst] })
	} else {
		if _, _, err := t.c.InDomArchive(t.desc.InDom); err != nil {
			t.fail("pmval: pmGetInDom(%s): %s\n", t.desc.InDom, pmapi.ErrInDomLog.Error())
		}
		t.pairs = t.unionPairs()
	}
	sort.Slice(t.pairs, func(i, j int) bool { return t.pairs[i].id < t.pairs[j].id })
}

// namedInstances sets t.iall and, when instances are named (with -i or
// in the metric specification) for a metric with an instance domain,
// looks each name up (a name lookup does not find stops pmval), adds
// them to t.pairs and returns their ids; otherwise it returns nil.
func (t *tool) namedInstances(spec *metricspec.Spec, lookup func(name string) (int32, error)) map[int32]bool {
	names := t.o.instances
	named := t.o.instancesSet
	if spec.Insts != nil {
		named = true
		names = spec.Insts
	}
	t.iall = !named || len(names) == 0
	if t.desc.InDom == pmapi.InDomNull || t.iall {
		return nil
	}
	ids := map[int32]bool{}
	for _, n := range names {
		id, err := lookup(n)
		if err != nil {
			t.fail("pmval: instance %s not available\n", n)
		}
		ids[id] = true
		t.pairs = append(t.pairs, instPair{id, n})
	}
	return ids
}

// unionPairs is every instance ever in the domain with its name, in
// pmGetInDomArchive's order.
func (t *tool) unionPairs() []instPair {
	insts, names, _ := t.c.InDomArchive(t.desc.InDom)
	out := make([]instPair, len(insts))
	for k, id := range insts {
		out[k] = instPair{id, names[k]}
	}
	return out
}

// setMode sets the replay mode as pmTimeStateMode does: the origin as a
// timeval, the interval in whole milliseconds (whole seconds when that
// does not fit in an int).
func (t *tool) setMode() {
	origin := t.origin
	origin.Nsec -= origin.Nsec % 1000
	usec := t.o.intervalNsec / 1000
	ms := t.o.intervalSec*1000 + usec/1000
	var delta int64
	if ms <= math.MaxInt32 && ms >= math.MinInt32 {
		delta = ms * 1e6
	} else {
		delta = t.o.intervalSec * 1e9
	}
	t.delta = delta
	switch {
	case t.rawArc && t.o.reverse:
		t.c.SetMode(replay.Back, origin, delta)
	case t.rawArc:
		t.c.SetMode(replay.Forw, origin, delta)
	case t.o.reverse:
		t.delta = -delta
		t.c.SetMode(replay.Interp, origin, -delta)
	default:
		t.c.SetMode(replay.Interp, origin, delta)
	}
}

// fetchArchive is -U's fetch: pmFetchArchive until a record holds the
// metric, or is a <mark>. The record comes as a Result of the metric's
// value set alone: the others are passed over, not copied.
func (t *tool) fetchArchive() (*pmapi.Result, error) {
	for {
		r, err := t.c.FetchRecord()
		if err != nil {
			return nil, err
		}
		if r.IsMark() {
			return &pmapi.Result{Timestamp: r.Stamp}, nil
		}
		for i := 0; i < r.NumPMID(); i++ {
			if r.PMID(i) != t.pmid {
				continue
			}
			vs := r.ValueSet(i)
			if vs.ValFmt == pmapi.ValFmtSptr {
				vs.ValFmt = pmapi.ValFmtDptr // as pmFetchArchive gives it
			}
			return &pmapi.Result{Timestamp: r.Stamp, VSets: []pmapi.ValueSet{vs}}, nil
		}
	}
}

// getvals fetches the next value set; it returns it (with the result's
// time), or ok false when there is no value to report (having printed
// why), or end true past the end of the window.
func (t *tool) getvals() (vs *pmapi.ValueSet, stamp pmapi.Timestamp, ok, end bool) {
	var res *pmapi.Result
	var err error
	if t.rawArc {
		res, err = t.fetchArchive()
		if err == nil && res.IsMark() {
			t.jsonMark(res.Timestamp)
			t.timestamp(res.Timestamp)
			t.out.WriteString("  Archive logging suspended\n")
			t.reporting = false
			return nil, stamp, false, false
		}
	} else if t.live != nil {
		res, err = t.live.fetch(t.pmid)
	} else {
		res, err = t.c.Fetch([]pmapi.PMID{t.pmid})
	}
	if err != nil {
		if errors.Is(err, pmapi.ErrEOL) {
			t.out.Flush()
			panic(errExit(0))
		}
		if t.live != nil {
			t.fail("\npmval: pmFetch: %s\n", fetchErrText(err))
		}
		what := "pmFetch"
		if t.rawArc {
			what = "pmFetchArchive"
		}
		t.fail("\npmval: %s: %s\n", what, archive.ErrText(err))
	}
	if (t.live == nil || t.liveEnd) && (!t.o.reverse && realTime(res.Timestamp) > realTime(t.finish) ||
		t.o.reverse && realTime(res.Timestamp) < realTime(t.finish)) {
		return nil, stamp, false, true
	}
	v := &res.VSets[0]
	switch {
	case v.NumVal == 0:
		t.stampSep(res.Timestamp)
		if !t.events {
			t.jsonNoValues(res.Timestamp)
			t.out.WriteString("No values available\n")
		} else if t.o.verbose {
			fmt.Fprintf(t.out, "%s: No values available\n", t.metric)
		}
		return nil, stamp, false, false
	case v.NumVal < 0 && t.events && pmapi.Error(v.NumVal) == pmapi.ErrNotConn:
		// the event source has gone away
		t.out.Flush()
		panic(errExit(0))
	case v.NumVal < 0:
		what := "pmFetch"
		if t.rawArc {
			what = "pmFetchArchive"
		}
		t.out.Flush()
		fmt.Fprintf(t.errw, "\npmval: %s: %s\n", what, pmapi.Error(v.NumVal).Error())
		return nil, stamp, false, false
	}
	sortByInst(v.Values)
	return v, res.Timestamp, true, false
}

// loop fetches and reports, as pmval's main loop does.
func (t *tool) loop() {
	var prev *pmapi.ValueSet
	var prevStamp pmapi.Timestamp
	havePrev := false
	noValues := false
	forever := t.samples < 0
	samples := t.samples
	interval := time.Duration(t.o.intervalSec)*time.Second + time.Duration(t.o.intervalNsec)
	for forever || samples > 0 {
		samples--
		if !havePrev {
			v, stamp, ok, end := t.getvals()
			if ok {
				prev, prevStamp, havePrev = v, stamp, true
				if t.desc.InDom != pmapi.InDomNull {
					t.printLabels()
				}
				if t.events {
					t.stampSep(stamp)
					t.printEvents(v)
					t.reporting = true
					continue
				}
				if t.raw || t.desc.Sem != pmapi.SemCounter {
					t.jsonVals(stamp, v)
					t.timestamp(stamp)
					t.printVals(v)
					t.reporting = true
					continue
				}
				if noValues || t.reporting {
					t.jsonNoValues(stamp)
					t.stampSep(stamp)
					t.out.WriteString("No values available\n")
				}
				noValues = false
			} else if end {
				break
			} else {
				noValues = true
			}
		}
		if t.o.pause || t.live != nil {
			// (live: each fetch an interval after the last line)
			t.out.Flush()
			time.Sleep(interval)
		}
		if !havePrev {
			continue
		}
		v, stamp, ok, end := t.getvals()
		if end {
			break
		}
		if !ok {
			havePrev = false
			continue
		}
		if t.iall && !t.knowsAll(v) {
			if t.live != nil {
				t.pairs = t.livePairs()
			} else {
				t.pairs = t.unionPairs()
			}
			sort.Slice(t.pairs, func(i, j int) bool { return t.pairs[i].id < t.pairs[j].id })
			t.printLabels()
		}
		switch {
		case t.events:
			t.stampSep(stamp)
			t.printEvents(v)
		case t.raw || t.desc.Sem != pmapi.SemCounter:
			t.jsonVals(stamp, v)
			t.timestamp(stamp)
			t.printVals(v)
		default:
			t.timestamp(stamp)
			t.jsonRates(v, stamp, prev, prevStamp)
			t.printRates(v, stamp, prev, prevStamp)
		}
		t.reporting = true
		prev, prevStamp = v, stamp
	}
}

// knowsAll reports whether every instance of vs has a name (chkinsts).
func (t *tool) knowsAll(vs *pmapi.ValueSet) bool {
	if t.desc.InDom == pmapi.InDomNull || t.events {
		return true
	}
	return t.allKnown(vs.Values) // sorted by getvals
}

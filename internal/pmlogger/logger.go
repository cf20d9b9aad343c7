// Package pmlogger is pcpkit's recording engine: it fetches fetch groups
// from a live source (source.Source: a pmcd, the built-in collector, or
// a fake) on their intervals and writes them into a new PCP archive as
// PCP 6.0.3's pmlogger does — the prologue and epilogue records,
// metadata (descriptors, instance domains, labels, help text) before the
// data that needs it, one write per record, temporal index entries on
// pmlogger's policy, volume switches and limits, <mark> records after a
// reconnection or a new PMDA — and reproduces the real tool's command
// line and log file (Main).
package pmlogger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/logctl"
	"github.com/pcpkit/pcpkit/internal/sizearg"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// GroupMetric is one metric of a fetch group.
type GroupMetric struct {
	Name  string     // the name the configuration gave (after expansion)
	PMID  pmapi.PMID // as the source knows it
	Desc  pmapi.Desc
	Insts []int32 // instances to log; nil logs all of them
}

// Group is what the real pmlogger calls a task: the metrics logged at one
// interval. They are fetched in one or more fetch groups (the real tool
// splits a task where instance profiles conflict); each fetch group is
// written as its own record, its metrics in descending PMID order, and
// one tick of the whole group is one sample for -s and -v.
type Group struct {
	Interval time.Duration   // 0: logged once
	Fetches  [][]GroupMetric // the fetch groups, in order
}

// Once reports whether the group is logged once only.
func (g *Group) Once() bool { return g.Interval <= 0 }

// Limit is a -s or -v size: a count of samples, a number of bytes or a
// duration (at most one is set).
type Limit = sizearg.Limit

// Options configure a recording.
type Options struct {
	Archive string        // base name of the new archive
	Source  source.Source // where the values come from
	Groups  []Group       // the fetch groups, in configuration order

	Version   int    // archive version, 2 or 3 (0: 2)
	LabelHost string // host name in the label ("": Source.Host())
	PMCDHost  string // value of pmcd.pmlogger.host ("": "localhost")
	Port      uint32 // value of pmcd.pmlogger.port (0: 4330)
	TZ        string // $TZ for the label ("": "UTC")
	Zoneinfo  string // Version 3 zoneinfo (":Etc/UTC" style), may be ""

	Sync bool // fsync every record (--sync)
	// WriteLag: a group logged at an interval shorter than this has
	// each fetch's reply read, and its record written, at its next
	// sample (pipeline.go), when the source allows it (0: never).
	WriteLag time.Duration
	End      Limit         // -s
	EndTime  time.Time     // -T (zero: none)
	Volume   Limit         // -v
	Report   bool          // -r: report record sizes in the log
	Log      io.Writer     // the log file (nil: discard)
	Zone     *pcptime.Zone // the time zone of the log's times (nil: local)
	Now      func() time.Time
	Signals  <-chan os.Signal // SIGHUP: new volume; SIGINT/SIGTERM: stop
	// Alive, when not nil, is asked after each wake-up: false stops
	// the recording (-p PID: the process has exited).
	Alive    func() bool
	Progress func(records int) // called after each data record is written (tests)

	// Backoff is the wait before each attempt to reconnect a lost
	// source, the last repeated (nil: $PMCD_RECONNECT_TIMEOUT, a comma
	// list of seconds, or libpcp's 5,10,20,40,80).
	Backoff []time.Duration

	// SourceHost names the source in the log's connection messages
	// ("": Source.Host(), pmcd's host name as the real tool prints it).
	SourceHost string

	// Control, when not nil, opens the control port pmlc talks to, and
	// its map file, before the prologue (whose pmcd.pmlogger.port is
	// then the port's number); PID and Archive are filled in. A port
	// that cannot be opened is reported in the log and the recording
	// goes on without it.
	Control *logctl.Config
	// LogStates is the configuration's control table, which pmlc's
	// query reports (nil: every metric of Groups, mandatory on).
	LogStates []LogState
}

// LogState is how the configuration asks for a metric to be logged.
type LogState struct {
	PMID      pmapi.PMID
	Mandatory bool          // else advisory
	On        bool          // else off, or maybe
	Maybe     bool          // mandatory maybe
	Interval  time.Duration // 0: once (when On)
	Insts     []int32       // nil: all instances
}

// Exit reasons, as the log file names them.
const (
	ReasonSamples  = "Sample limit reached"
	ReasonBytes    = "Byte limit reached"
	ReasonTime     = "End of run time"
	ReasonVanished = "process from -p has vanished"
)

// ErrExists is wrapped by Run's error when the archive exists.
var ErrExists = errors.New("archive exists")

// Stats is what a recording did.
type Stats struct {
	Records int    // data records written (prologue, epilogue and marks excluded)
	Marks   int    // <mark> records
	Samples int64  // group fetches (the -s count)
	Volumes int    // data volumes
	Reason  string // why it stopped: a Reason* or "Caught signal N"
	Errors  int    // fetches that failed
}

// The prologue and epilogue metrics (logue.c), with the descriptors the
// real pmlogger writes for them.
var (
	pmidHost    = pmapi.NewPMID(2, 3, 3)
	pmidPort    = pmapi.NewPMID(2, 3, 0)
	pmidArchive = pmapi.NewPMID(2, 3, 2)
	pmidPid     = pmapi.NewPMID(2, 0, 23)
	pmidSeqnum  = pmapi.NewPMID(2, 0, 24)
	indomLogger = pmapi.NewInDom(2, 1)

	logueDescs = []struct {
		name string
		desc pmapi.Desc
	}{
		{"pmcd.pmlogger.host", pmapi.Desc{PMID: pmidHost, Type: pmapi.TypeString, InDom: indomLogger, Sem: pmapi.SemDiscrete}},
		{"pmcd.pmlogger.port", pmapi.Desc{PMID: pmidPort, Type: pmapi.TypeU32, InDom: indomLogger, Sem: pmapi.SemDiscrete}},
		{"pmcd.pmlogger.archive", pmapi.Desc{PMID: pmidArchive, Type: pmapi.TypeString, InDom: indomLogger, Sem: pmapi.SemDiscrete}},
		{"pmcd.pid", pmapi.Desc{PMID: pmidPid, Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}},
		{"pmcd.seqnum", pmapi.Desc{PMID: pmidSeqnum, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete}},
	}
)

// group is a Group being logged.
type group struct {
	Interval time.Duration
	fetches  []*fetchGroup
	next     time.Time
	done     bool // a "once" group that has been logged
	reported bool // -r: its sizes have been reported
	size     int  // -r: bytes of its records
}

func (g *group) Once() bool { return g.Interval <= 0 }

// fetchGroup is one fetch and record of a group.
type fetchGroup struct {
	metaDone bool // every metric's descriptor is in the archive

	pmids  []pmapi.PMID // what is fetched (derived operands included)
	want   []pmapi.PMID // what is logged, descending
	state  []*mstate    // per PMID of want
	byPMID map[pmapi.PMID]*GroupMetric

	// profile is the fetch's instance profile: the instance domains
	// of its metrics logged for some instances only, with those.
	profile []pmcd.InDomProfile

	fast     fastRec // the fast path's state (fastpath.go)
	replyLen int     // bytes of the last reply (pduSource), 0: none yet
}

// mstate is what the engine remembers of a metric of a fetch group, so
// that a sample like the last one costs no map lookups.
type mstate struct {
	m         *GroupMetric
	descDone  bool         // its descriptor is in the archive (never for derived)
	lastInsts []int32      // instances of its last value set, all in the logged indom
	indomGen  uint64       // generation of the indom when lastInsts was checked
	ind       *loggedInDom // its instance domain as logged (nil: not looked up yet)

	// the group's previous sample of the metric (sampleChanged)
	prevSeen  bool
	prevNum   int32
	prevInsts []int32
}

// loggedInDom is an instance domain as last written to the archive.
type loggedInDom struct {
	members map[int32]bool  // nil: never written
	gen     uint64          // bumped at each write
	stamp   pmapi.Timestamp // of the last write
}

type span struct{ from, to int }

type labelKey struct{ typ, ident uint32 }
type textKey struct{ typ, ident uint32 }

// Logger is one recording.
type Logger struct {
	// verifyFast, when set (tests), is called after each record the
	// fast path writes, with the PDU and the record.
	verifyFast func(fg *fetchGroup, pdu []byte, typ uint32, rec []byte)
	noFast     bool // tests: the general path only (on the same PDUs)

	o   Options
	src source.Source
	w   *archive.Writer
	log io.Writer
	pid int32

	// realClock: Options.Now was nil, so the loop may wait with the
	// system's waiter (newWaiter) instead of a Go timer.
	realClock bool

	groups []*group

	descs  map[pmapi.PMID]bool
	labels map[labelKey]bool
	texts  map[textKey]bool
	indoms map[pmapi.InDom]*loggedInDom

	out        pmapi.Result // the record being written (reused)
	outVSets   []pmapi.ValueSet
	outValues  []pmapi.Value
	spans      []span
	outMetrics []*mstate // the metric of each value set of out
	logue      logueVals // the prologue's pmcd.pid and pmcd.seqnum

	lastStamp    pmapi.Timestamp
	haveStamp    bool
	disconnected bool
	backoffStep  int
	retryAt      time.Time

	volSamples int64
	volStart   time.Time
	prevBytes  int64 // data bytes in earlier volumes
	start      time.Time
	stats      Stats
	stop       string

	flight inFlight   // the sample whose reply is read later (pipeline.go)
	pipe   pipeSource // the source as one, nil when it is not
	psrc   pduSource  // the source as one, nil when it is not
	prof   profiler   // the source as one, nil when it is not

	// The loop's work from other goroutines (control.go).
	calls    chan *loopCall
	loopDone chan struct{}
	endOnce  sync.Once
	wtMu     sync.Mutex
	wt       waiter
	ctl      *logctl.Server // the pmlc control port (nil: none)
}

// New checks the options and returns a Logger ready to Run.
func New(o Options) (*Logger, error) {
	if o.Source == nil {
		return nil, errors.New("pmlogger: no source")
	}
	if o.Archive == "" {
		return nil, errors.New("pmlogger: no archive name")
	}
	if o.Version == 0 {
		o.Version = 2
	}
	if o.Version != 2 && o.Version != 3 {
		return nil, fmt.Errorf("pmlogger: archive version %d: must be 2 or 3", o.Version)
	}
	realClock := o.Now == nil
	if realClock {
		o.Now = time.Now
	}
	if o.Zone == nil {
		o.Zone = pcptime.LocalZone()
	}
	if o.Port == 0 {
		o.Port = 4330
	}
	if o.PMCDHost == "" {
		o.PMCDHost = "localhost"
	}
	if o.TZ == "" {
		o.TZ = "UTC"
	}
	if len(o.Backoff) == 0 {
		o.Backoff = ReconnectBackoff(os.Getenv("PMCD_RECONNECT_TIMEOUT"))
	}
	if o.SourceHost == "" {
		o.SourceHost = o.Source.Host()
	}
	l := &Logger{
		o:      o,
		src:    o.Source,
		log:    o.Log,
		pid:    int32(os.Getpid()),
		descs:  map[pmapi.PMID]bool{},
		labels: map[labelKey]bool{},
		texts:  map[textKey]bool{},
		indoms: map[pmapi.InDom]*loggedInDom{},

		calls:    make(chan *loopCall, 1),
		loopDone: make(chan struct{}),
	}
	l.realClock = realClock
	// (Once: an interface conversion per sample costs an itab lookup.)
	l.pipe, _ = o.Source.(pipeSource)
	l.psrc, _ = o.Source.(pduSource)
	l.prof, _ = o.Source.(profiler)
	if l.log == nil {
		l.log = io.Discard
	}
	for i := range o.Groups {
		g := &group{Interval: o.Groups[i].Interval}
		for _, metrics := range o.Groups[i].Fetches {
			fg := &fetchGroup{byPMID: map[pmapi.PMID]*GroupMetric{}}
			ms := append([]GroupMetric(nil), metrics...)
			sort.SliceStable(ms, func(a, b int) bool { return ms[a].PMID > ms[b].PMID })
			for j := range ms {
				m := &ms[j]
				if _, dup := fg.byPMID[m.PMID]; dup {
					continue
				}
				fg.byPMID[m.PMID] = m
				fg.want = append(fg.want, m.PMID)
				fg.state = append(fg.state, &mstate{m: m})
			}
			if len(fg.want) == 0 {
				continue
			}
			fg.pmids = fg.want
			fg.profile = fetchProfile(fg.state)
			g.fetches = append(g.fetches, fg)
		}
		if len(g.fetches) > 0 {
			l.groups = append(l.groups, g)
		}
	}
	// "once" groups are fetched first, then the others in configuration
	// order (as the real pmlogger's first records show).
	sort.SliceStable(l.groups, func(a, b int) bool { return l.groups[a].Once() && !l.groups[b].Once() })
	return l, nil
}

// profiler is a source that takes an instance profile for its fetches
// (*pmcd.Client).
type profiler interface {
	SetProfile(p []pmcd.InDomProfile)
}

// fetchProfile is the instance profile of a fetch of metrics (in the
// fetch's order): each instance domain logged for some instances only,
// in the order its first metric comes, with the fetch's instances for it
// (loggerconf.Fetch: the same for every metric of the domain). The real
// pmlogger sends it (pmAddProfile) so that a PMDA is asked for those
// instances, some of which it does not list or return otherwise.
func fetchProfile(state []*mstate) []pmcd.InDomProfile {
	var out []pmcd.InDomProfile
	for _, ms := range state {
		m := ms.m
		if m.Insts == nil || m.Desc.InDom == pmapi.InDomNull {
			continue
		}
		seen := false
		for _, p := range out {
			seen = seen || p.InDom == m.Desc.InDom
		}
		if !seen {
			out = append(out, pmcd.InDomProfile{InDom: m.Desc.InDom, Insts: m.Insts})
		}
	}
	return out
}

// useProfile sets the source's instance profile for a fetch of fg.
func (l *Logger) useProfile(fg *fetchGroup) {
	if l.prof != nil {
		l.prof.SetProfile(fg.profile)
	}
}

// Stats reports what the recording did so far.
func (l *Logger) Stats() Stats { return l.stats }

// Writer returns the archive writer (nil before Run has created it).
func (l *Logger) Writer() *archive.Writer { return l.w }

// Start creates the archive and writes the prologue. Run calls it.
func (l *Logger) Start() error {
	vals, stamp, _ := l.logueValues()
	absArchive, err := filepath.Abs(l.o.Archive)
	if err != nil {
		absArchive = l.o.Archive
	}
	host := l.o.LabelHost
	if host == "" {
		host = l.src.Host()
	}
	w, err := archive.Create(l.o.Archive, archive.WriterOptions{
		Version:         l.o.Version,
		Hostname:        host,
		TZ:              l.o.TZ,
		Zoneinfo:        l.o.Zoneinfo,
		Start:           stamp,
		SyncEveryRecord: l.o.Sync,
		RawWrites:       true, // the waiter's note (wait_linux.go)
	})
	if err != nil {
		var ee *archive.ExistsError
		if errors.As(err, &ee) {
			return &existsError{path: ee.Path, host: host, base: l.o.Archive}
		}
		return fmt.Errorf("pmlogger: cannot create archive %s: %w", l.o.Archive, err)
	}
	l.w = w
	l.logue = vals
	l.start = l.o.Now()
	l.volStart = l.start
	l.stats.Volumes = 1
	if err := l.openControl(absArchive); err != nil {
		// (The archive stays, as the real tool leaves it.)
		l.w.Close()
		return err
	}
	if err := l.putLogue(stamp, vals, absArchive, true); err != nil {
		l.closeControl()
		return err
	}
	return nil
}

// existsError is the archive-exists failure, with the real messages.
type existsError struct{ path, host, base string }

func (e *existsError) Error() string {
	return fmt.Sprintf("__pmLogNewFile: \"%s\" already exists, not over-written\n__pmLogCreate(%s, %s, ...): File exists",
		e.path, e.host, e.base)
}

func (e *existsError) Unwrap() error { return ErrExists }

type logueVals struct {
	pid    uint64
	seqnum uint32
}

// logueValues fetches pmcd.pid and pmcd.seqnum (0 when the source does
// not have them, as under pmlogger -o) and the time of the fetch.
func (l *Logger) logueValues() (logueVals, pmapi.Timestamp, bool) {
	var v logueVals
	res, _, err := l.src.Fetch([]pmapi.PMID{pmidPid, pmidSeqnum})
	if err != nil || res == nil {
		return v, l.nowStamp(), false
	}
	for i := range res.VSets {
		vs := &res.VSets[i]
		if vs.NumVal < 1 || len(vs.Values) < 1 {
			continue
		}
		val := &vs.Values[0]
		switch vs.PMID {
		case pmidPid:
			if len(val.Block) == 8 {
				v.pid = beU64(val.Block)
			} else if val.Block == nil {
				v.pid = uint64(uint32(val.Insitu))
			}
		case pmidSeqnum:
			if val.Block == nil {
				v.seqnum = uint32(val.Insitu)
			}
		}
	}
	ts := res.Timestamp
	if ts.Nsec < 0 || ts.Nsec >= 1e9 || ts.Sec <= 0 || (l.o.Version == 2 && ts.Sec > 0x7fffffff) {
		return v, l.nowStamp(), false
	}
	return v, ts, true
}

func beU64(b []byte) uint64 {
	var x uint64
	for _, c := range b[:8] {
		x = x<<8 | uint64(c)
	}
	return x
}

func putBE64(v uint64) []byte {
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func (l *Logger) nowStamp() pmapi.Timestamp {
	t := l.o.Now()
	return pmapi.Timestamp{Sec: t.Unix(), Nsec: int32(t.Nanosecond())}
}

// putLogue writes the prologue (first) or epilogue record: the five
// metrics in their fixed order, with their descriptors and the 2.1
// instance domain before the prologue.
func (l *Logger) putLogue(stamp pmapi.Timestamp, v logueVals, absArchive string, first bool) error {
	inst := l.pid
	if first {
		for i, d := range logueDescs {
			if err := l.w.PutDesc(d.desc, []string{d.name}); err != nil {
				return l.writeErr(err)
			}
			l.descs[d.desc.PMID] = true
			if i == 0 {
				ir := &archive.InDomRecord{Stamp: stamp, InDom: indomLogger, Insts: []int32{inst}, Names: []string{fmt.Sprint(inst)}}
				if err := l.w.PutInDom(ir); err != nil {
					return l.writeErr(err)
				}
				l.loggedInDom(indomLogger).set([]int32{inst}, stamp)
			}
		}
	}
	str := func(s string) []byte { return append([]byte(s), 0) }
	r := &pmapi.Result{Timestamp: stamp, VSets: []pmapi.ValueSet{
		{PMID: pmidHost, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: inst, BlockType: pmapi.TypeString, Block: str(l.o.PMCDHost)}}},
		{PMID: pmidPort, NumVal: 1, Values: []pmapi.Value{{Inst: inst, Insitu: int32(l.o.Port)}}},
		{PMID: pmidArchive, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: inst, BlockType: pmapi.TypeString, Block: str(absArchive)}}},
		{PMID: pmidPid, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeU64, Block: putBE64(v.pid)}}},
		{PMID: pmidSeqnum, NumVal: 1, Values: []pmapi.Value{{Inst: -1, Insitu: int32(v.seqnum)}}},
	}}
	if err := l.w.PutResult(r); err != nil {
		return l.writeErr(err)
	}
	l.lastStamp, l.haveStamp = stamp, true
	return nil
}

func (l *Logger) writeErr(err error) error {
	return fmt.Errorf("pmlogger: writing archive %s: %w", l.o.Archive, err)
}

// Run records until a limit is reached or a stop signal arrives, then
// writes the epilogue and closes the archive. The error is for the
// archive (creation or writing); fetch errors are logged and recording
// goes on.
func (l *Logger) Run() (Stats, error) {
	if l.w == nil {
		if err := l.Start(); err != nil {
			return l.stats, err
		}
	}
	err := l.loop()
	if cerr := l.finish(); err == nil {
		err = cerr
	}
	return l.stats, err
}

// loop runs the timers.
func (l *Logger) loop() error {
	now := l.o.Now()
	for _, g := range l.groups {
		g.next = now
	}
	var endAt time.Time
	if !l.o.EndTime.IsZero() {
		endAt = l.o.EndTime
	}
	if l.o.End.Duration > 0 {
		if t := l.start.Add(l.o.End.Duration); endAt.IsZero() || t.Before(endAt) {
			endAt = t
		}
	}
	var wt waiter
	if l.realClock {
		wt = newWaiter(l.o.Signals)
	} else {
		wt = newTimerWaiter(l.o.Signals)
	}
	defer wt.close()
	l.setWaiter(wt)
	defer l.setWaiter(nil)
	defer l.endCalls()
	for {
		if err := l.runCalls(); err != nil {
			return err
		}
		if l.stop != "" {
			return nil // settling the sample in flight reached a limit
		}
		// The earliest due group; "once" groups first, then in order.
		var due *group
		for _, g := range l.groups {
			if g.done {
				continue
			}
			if due == nil || g.next.Before(due.next) {
				due = g
			}
		}
		wake := time.Time{}
		if due != nil {
			wake = due.next
		}
		if !endAt.IsZero() && (wake.IsZero() || !wake.Before(endAt)) {
			wake = endAt
		}
		var volAt time.Time
		if l.o.Volume.Duration > 0 {
			volAt = l.volStart.Add(l.o.Volume.Duration)
			if wake.IsZero() || volAt.Before(wake) {
				wake = volAt
			}
		}
		now := l.o.Now()
		if wake.IsZero() || wake.After(now) {
			d := time.Duration(-1)
			if !wake.IsZero() {
				d = wake.Sub(now)
			}
			if sig, ok := wt.wait(d); ok {
				if stop := l.signal(sig); stop {
					return nil
				}
				continue
			}
			now = l.o.Now()
		} else {
			// Behind time: no wait, but never starve the signals
			// (the goroutines of os/signal and of the waiter get the
			// P).
			runtime.Gosched()
			if sig, ok := wt.pending(); ok {
				if stop := l.signal(sig); stop {
					return nil
				}
				continue
			}
		}
		if l.o.Alive != nil && !l.o.Alive() {
			l.stop = ReasonVanished
			return nil
		}
		if !endAt.IsZero() && !now.Before(endAt) {
			l.stop = ReasonTime
			return nil
		}
		if !volAt.IsZero() && !now.Before(volAt) {
			if err := l.newVolume("sample time"); err != nil {
				return err
			}
			continue
		}
		if due == nil || now.Before(due.next) {
			continue
		}
		if err := l.tick(due); err != nil {
			return err
		}
		if due.Once() {
			due.done = true
		} else {
			due.next = due.next.Add(due.Interval)
			if n := l.o.Now(); due.next.Before(n.Add(-due.Interval)) {
				// Fell behind by more than an interval: skip ahead.
				due.next = n
			}
		}
		if l.stop != "" {
			return nil
		}
	}
}

// signal handles one signal; it reports whether to stop.
func (l *Logger) signal(sig os.Signal) bool {
	s, _ := sig.(syscall.Signal)
	switch s {
	case syscall.SIGHUP:
		if err := l.newVolume("SIGHUP"); err != nil {
			l.stop = "write error"
			return true
		}
		return false
	case syscall.SIGPIPE:
		return false
	}
	l.stop = fmt.Sprintf("Caught signal %d", int(s))
	return true
}

// newVolume switches to a new data volume and logs why.
func (l *Logger) newVolume(why string) error {
	// The sample in flight was taken before the switch: it belongs to
	// this volume. (Settling may itself switch, or stop.)
	if err := l.settle(); err != nil {
		return err
	}
	if l.stop != "" {
		return nil
	}
	_, data := l.w.Offsets()
	before := l.w.Volume()
	// pmlc's request switches even from a volume with no record yet
	// (the real pmlogger's newvolume always does; an empty volume is
	// kept otherwise, which the real tools would refuse).
	switchVol := l.w.NewVolume
	if why == "pmlc request" {
		switchVol = l.w.SwitchVolume
	}
	if err := switchVol(); err != nil {
		return l.writeErr(err)
	}
	l.volSamples = 0
	l.volStart = l.o.Now()
	if l.w.Volume() != before {
		l.prevBytes += data
		l.stats.Volumes++
		fmt.Fprintf(l.log, "New log volume %d, via %s at %s\n", l.w.Volume(), why, zctime(l.o.Zone, l.o.Now()))
	}
	return nil
}

// tick logs one sample of a group and applies the limits. The sample in
// flight, if any, is settled first; this one's last fetch may be left in
// flight (pipeline.go).
func (l *Logger) tick(g *group) error {
	if err := l.settle(); err != nil {
		return err
	}
	if l.stop != "" {
		return nil
	}
	for i, fg := range g.fetches {
		if i == len(g.fetches)-1 && l.canDefer(g, fg) {
			return l.startDeferred(g, fg)
		}
		if err := l.sample(g, fg); err != nil {
			return err
		}
	}
	return l.account(g)
}

// account counts a sample of g whose records are written, reports its
// size (-r) and applies the limits: -s (setting l.stop) and -v.
func (l *Logger) account(g *group) error {
	if l.o.Report && !g.reported && g.size > 0 {
		g.reported = true
		l.report(g)
	}
	l.stats.Samples++
	l.volSamples++
	if l.o.End.Samples > 0 && l.stats.Samples >= l.o.End.Samples {
		l.stop = ReasonSamples
		return nil
	}
	_, data := l.w.Offsets()
	if l.o.End.Bytes > 0 && l.prevBytes+data >= l.o.End.Bytes {
		l.stop = ReasonBytes
		return nil
	}
	if l.o.Volume.Samples > 0 && l.volSamples >= l.o.Volume.Samples {
		return l.newVolume("sample counter")
	}
	if l.o.Volume.Bytes > 0 && data >= l.o.Volume.Bytes {
		return l.newVolume("sample byte size")
	}
	return nil
}

// Sample fetches and logs one sample of group i (of the groups as New
// ordered them: "once" groups first). It is Run's step, exported for
// benchmarks and tests that drive the engine without timers.
func (l *Logger) Sample(i int) error {
	if i < 0 || i >= len(l.groups) {
		return fmt.Errorf("pmlogger: no fetch group %d", i)
	}
	return l.tick(l.groups[i])
}

// sample fetches a group and writes its record (metadata first).
func (l *Logger) sample(g *group, fg *fetchGroup) error {
	if l.disconnected {
		if !l.reconnect() {
			return nil
		}
	}
	l.useProfile(fg)
	if ps := l.psrc; ps != nil {
		pdu, typ, changes, err := ps.FetchPDU(fg.pmids)
		return l.recordPDU(g, fg, ps, pdu, typ, changes, err)
	}
	res, changes, err := l.src.Fetch(fg.pmids)
	return l.recordResult(g, fg, res, changes, err, nil, 0)
}

// recordPDU writes the record of a fetch reply from a pduSource: by the
// fast path when it applies, else decoded and written the general way.
func (l *Logger) recordPDU(g *group, fg *fetchGroup, ps pduSource, pdu []byte, typ, changes uint32, err error) error {
	fg.replyLen = len(pdu)
	if err == nil && changes == 0 && fg.fast.armed {
		vol0 := l.w.Volume()
		_, before0 := l.w.Offsets()
		stamp, done, err := l.putFast(fg, pdu, typ)
		if done {
			if err != nil {
				fg.fast.armed = false
				if errors.Is(err, archive.ErrEncode) {
					l.stats.Errors++
					fmt.Fprintf(l.log, "pmlogger: bad result from the source, sample dropped: %v\n", err)
					return nil
				}
				return l.writeErr(err)
			}
			l.recorded(g, stamp, vol0, before0)
			return nil
		}
	}
	fg.fast.armed = false
	var res *pmapi.Result
	if err == nil {
		res, err = ps.DecodeResult(pdu, typ)
	}
	if err != nil {
		pdu = nil
	}
	return l.recordResult(g, fg, res, changes, err, pdu, typ)
}

// recordResult writes the record of a fetch's result (metadata first),
// or handles the fetch's error. pdu, when not nil, is the reply res was
// decoded from: a record written from it arms the fast path.
func (l *Logger) recordResult(g *group, fg *fetchGroup, res *pmapi.Result, changes uint32, err error, pdu []byte, typ uint32) error {
	if err != nil {
		l.stats.Errors++
		// As the real pmlogger's disconnect() reports them.
		if rc, ok := l.src.(source.Reconnector); ok && rc.Lost(err) {
			fmt.Fprintf(l.log, "pmlogger: Lost connection to PMCD on \"%s\" at %s\n", l.o.SourceHost, zctime(l.o.Zone, l.o.Now()))
			l.disconnected = true
			l.backoffStep = 0
			l.retryAt = l.o.Now().Add(l.o.Backoff[0])
			return nil
		}
		fmt.Fprintf(l.log, "pmlogger: Error: %s\n", strerr(err))
		return nil
	}
	if changes&1 != 0 { // PMCD_ADD_AGENT
		if err := l.putMark(); err != nil {
			return err
		}
	}
	// (Only once every descriptor is logged: the PDU must not be
	// overwritten by meta's requests before arm reads it.)
	wasMetaDone := fg.metaDone
	r, err := l.select_(fg, res)
	if err != nil {
		l.stats.Errors++
		fmt.Fprintf(l.log, "pmlogger: bad result from the source, sample dropped: %v\n", err)
		return nil
	}
	if len(r.VSets) == 0 {
		return nil
	}
	if !fg.metaDone {
		if pf := l.prefetchMeta(); pf != nil {
			defer pf.Prefetch(nil) // drops what meta did not use
		}
	}
	for i := range r.VSets {
		if err := l.meta(l.outMetrics[i], &r.VSets[i], r.Timestamp); err != nil {
			return err
		}
	}
	if !fg.metaDone {
		fg.metaDone = true
		for _, ms := range fg.state {
			fg.metaDone = fg.metaDone && ms.descDone
		}
	}
	vol := l.w.Volume()
	_, before := l.w.Offsets()
	if err := l.w.PutResult(r); err != nil {
		if errors.Is(err, archive.ErrEncode) {
			// Values the source sent that cannot be encoded: the
			// sample is dropped, the recording goes on.
			l.stats.Errors++
			fmt.Fprintf(l.log, "pmlogger: bad result from the source, sample dropped: %v\n", err)
			return nil
		}
		return l.writeErr(err)
	}
	if pdu != nil && changes == 0 && wasMetaDone && !l.noFast {
		l.arm(fg, pdu, typ, r)
	}
	l.recorded(g, r.Timestamp, vol, before)
	return nil
}

// recorded accounts for a record stamped stamp, written by a sample of
// g that started in volume vol at data offset before.
func (l *Logger) recorded(g *group, stamp pmapi.Timestamp, vol int, before int64) {
	l.lastStamp, l.haveStamp = stamp, true
	l.stats.Records++
	if l.o.Report && !g.reported {
		_, after := l.w.Offsets()
		if l.w.Volume() != vol {
			before = int64((&archive.Label{Version: l.o.Version}).Size())
		}
		g.size += int(after - before)
	}
	if l.o.Progress != nil {
		l.o.Progress(l.stats.Records)
	}
}

// reconnect tries to re-establish a lost source when the back-off
// allows; after success it writes a <mark>.
func (l *Logger) reconnect() bool {
	now := l.o.Now()
	if now.Before(l.retryAt) {
		return false
	}
	rc, ok := l.src.(source.Reconnector)
	if !ok {
		return false
	}
	if err := rc.Reconnect(); err != nil {
		if l.backoffStep+1 < len(l.o.Backoff) {
			l.backoffStep++
		}
		l.retryAt = now.Add(l.o.Backoff[l.backoffStep])
		return false
	}
	l.disconnected = false
	fmt.Fprintf(l.log, "pmlogger: re-established connection to PMCD on \"%s\" at %s\n", l.o.SourceHost, zctime(l.o.Zone, now))
	// The real tool then checks that no metric changed its PMID or
	// descriptor; pcpkit says so as it does and goes on (see
	// docs/pmlogger.md).
	fmt.Fprintf(l.log, "pmlogger: Validating metrics after PMCD state changed at %s\n", zctime(l.o.Zone, l.o.Now()))
	if err := l.putMark(); err != nil {
		fmt.Fprintf(l.log, "pmlogger: %v\n", err)
		return false
	}
	return true
}

// putMark writes a <mark> 1 ms after the last record.
func (l *Logger) putMark() error {
	if !l.haveStamp {
		return nil
	}
	t := l.lastStamp.Add(1e6)
	if err := l.w.PutMark(t); err != nil {
		return l.writeErr(err)
	}
	l.lastStamp = t
	l.stats.Marks++
	return nil
}

// select_ builds the record from a fetched result: the group's metrics
// in its (descending) order, instances filtered to those asked for. It
// checks what the source sent, so a malformed result is refused, never
// written.
func (l *Logger) select_(g *fetchGroup, res *pmapi.Result) (*pmapi.Result, error) {
	if res == nil {
		return nil, errors.New("no result")
	}
	ts := res.Timestamp
	if ts.Nsec < 0 || ts.Nsec >= 1e9 || ts.Sec < 0 {
		return nil, fmt.Errorf("bad timestamp %d.%09d", ts.Sec, ts.Nsec)
	}
	if l.o.Version == 2 && ts.Sec > 0x7fffffff {
		return nil, fmt.Errorf("timestamp %d does not fit a version 2 archive", ts.Sec)
	}
	l.outVSets = l.outVSets[:0]
	l.outMetrics = l.outMetrics[:0]
	l.outValues = l.outValues[:0]
	sp := l.spans[:0]
	for k, pmid := range g.want {
		var vs *pmapi.ValueSet
		if k < len(res.VSets) && res.VSets[k].PMID == pmid {
			vs = &res.VSets[k]
		} else {
			for j := range res.VSets {
				if res.VSets[j].PMID == pmid {
					vs = &res.VSets[j]
					break
				}
			}
		}
		if vs == nil {
			continue
		}
		ms := g.state[k]
		m := ms.m
		out := pmapi.ValueSet{PMID: loggedPMID(pmid), NumVal: vs.NumVal, ValFmt: vs.ValFmt}
		if vs.NumVal > 0 {
			if int(vs.NumVal) != len(vs.Values) {
				return nil, fmt.Errorf("metric %s: %d values, numval %d", pmid, len(vs.Values), vs.NumVal)
			}
			if vs.ValFmt != pmapi.ValFmtInsitu && vs.ValFmt != pmapi.ValFmtDptr && vs.ValFmt != pmapi.ValFmtSptr {
				return nil, fmt.Errorf("metric %s: value format %d", pmid, vs.ValFmt)
			}
			if m.Desc.InDom == pmapi.InDomNull && vs.NumVal != 1 {
				return nil, fmt.Errorf("metric %s: %d values for a metric with no instance domain", pmid, vs.NumVal)
			}
			if m.Insts == nil {
				// All instances: the record takes the source's
				// values as they are (valid until the next fetch).
				if vs.ValFmt != pmapi.ValFmtInsitu {
					for i := range vs.Values {
						if v := &vs.Values[i]; v.Block == nil || len(v.Block) > 1<<24-5 {
							return nil, fmt.Errorf("metric %s: instance %d: bad value block", pmid, v.Inst)
						}
					}
				}
				out.Values = vs.Values
				sp = append(sp, span{-1, -1})
				l.outVSets = append(l.outVSets, out)
				l.outMetrics = append(l.outMetrics, ms)
				continue
			}
			from := len(l.outValues)
			for i := range vs.Values {
				v := &vs.Values[i]
				if vs.ValFmt != pmapi.ValFmtInsitu && (v.Block == nil || len(v.Block) > 1<<24-5) {
					return nil, fmt.Errorf("metric %s: instance %d: bad value block", pmid, v.Inst)
				}
				if m.Insts != nil && !containsInst(m.Insts, v.Inst) {
					continue
				}
				l.outValues = append(l.outValues, *v)
			}
			out.NumVal = int32(len(l.outValues) - from)
			sp = append(sp, span{from, len(l.outValues)})
			if out.NumVal == 0 {
				out.ValFmt = 0
			}
		} else {
			sp = append(sp, span{-1, -1})
		}
		l.outVSets = append(l.outVSets, out)
		l.outMetrics = append(l.outMetrics, ms)
	}
	l.spans = sp
	for i := range l.outVSets {
		if s := sp[i]; s.from >= 0 {
			l.outVSets[i].Values = l.outValues[s.from:s.to:s.to]
		}
	}
	l.out = pmapi.Result{Timestamp: ts, VSets: l.outVSets}
	return &l.out, nil
}

// ReconnectBackoff parses $PMCD_RECONNECT_TIMEOUT as libpcp does: a
// comma-separated list of positive whole seconds; anything else gives
// the default 5,10,20,40,80.
func ReconnectBackoff(spec string) []time.Duration {
	def := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second}
	if spec == "" {
		return def
	}
	var out []time.Duration
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return def
		}
		out = append(out, time.Duration(n)*time.Second)
	}
	return out
}

// loggedPMID is the PMID a metric is logged under: a derived metric's
// 511.c.i becomes 511.(2048|c).i, as the real pmlogger writes it.
func loggedPMID(p pmapi.PMID) pmapi.PMID {
	if derive.IsDerived(p) {
		return derive.Remap(p)
	}
	return p
}

func containsInst(list []int32, inst int32) bool {
	for _, x := range list {
		if x == inst {
			return true
		}
	}
	return false
}

// meta writes what the value set needs before its record: the
// descriptor with its names, labels and help text the first time the
// metric is logged, and its instance domain (as the source has it now)
// when the result holds an instance the last logged one does not, or,
// as the real pmlogger's check_inst finds, when its instances are not
// those of the group's previous sample of the metric (some went away)
// and the instance domain was not written at this sample already.
func (l *Logger) meta(ms *mstate, vs *pmapi.ValueSet, stamp pmapi.Timestamp) error {
	m := ms.m
	desc := m.Desc
	desc.PMID = vs.PMID // remapped for a derived metric
	if !ms.descDone && l.descs[m.PMID] {
		ms.descDone = true
	}
	if !ms.descDone {
		names := l.names(m)
		if err := l.w.PutDesc(desc, names); err != nil {
			return l.writeErr(err)
		}
		// The real pmlogger looks a derived metric's descriptor up under
		// its live PMID (511.0.N) but logs it under 511.(2048+c).N, so
		// it never finds it and writes it again with every record.
		l.descs[m.PMID] = !derive.IsDerived(m.PMID)
		ms.descDone = l.descs[m.PMID]
		if err := l.manageLabels(desc, stamp, false); err != nil {
			return err
		}
		if err := l.manageText(desc); err != nil {
			return err
		}
	}
	if desc.InDom == pmapi.InDomNull {
		return nil
	}
	changed := ms.sampleChanged(vs)
	if vs.NumVal <= 0 {
		return nil
	}
	// The same instances as last time, all in the indom as it was
	// then logged: nothing to check.
	li := ms.ind
	if li == nil {
		li = l.loggedInDom(desc.InDom)
		ms.ind = li
	}
	gen := li.gen
	if !changed && ms.indomGen == gen && gen != 0 && len(ms.lastInsts) == len(vs.Values) {
		same := true
		for i := range vs.Values {
			if vs.Values[i].Inst != ms.lastInsts[i] {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	known := li.members
	need := known == nil
	for i := 0; !need && i < len(vs.Values); i++ {
		need = !known[vs.Values[i].Inst]
	}
	if !need && changed && li.stamp.Before(stamp) {
		need = true
	}
	if !need {
		ms.remember(vs, gen)
		return nil
	}
	insts, names, err := l.src.InDom(desc.InDom)
	if err != nil || len(insts) != len(names) {
		fmt.Fprintf(l.log, "pmGetInDom(%s): %v\n", desc.InDom, err)
		return nil
	}
	ir := &archive.InDomRecord{Stamp: stamp, InDom: desc.InDom, Insts: insts, Names: names}
	if err := l.w.PutInDom(ir); err != nil {
		if errors.Is(err, archive.ErrEncode) {
			fmt.Fprintf(l.log, "pmGetInDom(%s): %v\n", desc.InDom, err)
			return nil
		}
		return l.writeErr(err)
	}
	// (lastInsts is left stale: the next sample checks against the new
	// membership.)
	li.set(insts, stamp)
	return l.manageLabels(desc, stamp, true)
}

// loggedInDom returns the state of indom, made on first use.
func (l *Logger) loggedInDom(indom pmapi.InDom) *loggedInDom {
	li := l.indoms[indom]
	if li == nil {
		li = &loggedInDom{}
		l.indoms[indom] = li
	}
	return li
}

// set records that the instance domain was written with insts at stamp.
func (li *loggedInDom) set(insts []int32, stamp pmapi.Timestamp) {
	li.stamp = stamp
	if li.members == nil {
		li.members = make(map[int32]bool, len(insts))
	} else {
		clear(li.members)
	}
	for _, x := range insts {
		li.members[x] = true
	}
	li.gen++
}

// sampleChanged reports whether the instances of vs are not those of
// the metric's value set in the group's previous sample (the real
// pmlogger's check_inst: another number of values, or an instance the
// previous one lacked; false for the first sample), and keeps vs's for
// the next sample.
func (ms *mstate) sampleChanged(vs *pmapi.ValueSet) bool {
	changed := false
	if ms.prevSeen {
		if vs.NumVal != ms.prevNum {
			changed = true
		} else {
			for i := range vs.Values {
				if !containsInst(ms.prevInsts, vs.Values[i].Inst) {
					changed = true
					break
				}
			}
		}
	}
	ms.prevSeen, ms.prevNum = true, vs.NumVal
	ms.prevInsts = ms.prevInsts[:0]
	for i := range vs.Values {
		ms.prevInsts = append(ms.prevInsts, vs.Values[i].Inst)
	}
	return changed
}

// remember notes the instances of a value set found in the logged
// instance domain of generation gen.
func (ms *mstate) remember(vs *pmapi.ValueSet, gen uint64) {
	ms.lastInsts = ms.lastInsts[:0]
	for i := range vs.Values {
		ms.lastInsts = append(ms.lastInsts, vs.Values[i].Inst)
	}
	ms.indomGen = gen
}

// names are the metric's names from the source, plus the configured
// name when the source does not list it.
func (l *Logger) names(m *GroupMetric) []string {
	names, err := l.src.NamesOf(m.PMID)
	if err != nil {
		names = nil
	}
	for _, n := range names {
		if n == m.Name {
			return names
		}
	}
	if m.Name != "" {
		names = append(names, m.Name)
	}
	return names
}

// metaPrefetcher is a source that can send metadata requests ahead of
// the calls that use them (pmcd.Client).
type metaPrefetcher interface {
	Prefetch(reqs []pmcd.MetaRequest) error
}

// prefetchMeta sends ahead, in a few batches, the requests meta is going
// to make for the metrics of the record being built whose descriptors
// are not in the archive yet: their names, label sets and help text (as
// manageLabels and manageText will ask, in that order). The answers are
// those of the calls, so the archive is the same; a pmcd recording of
// many metrics starts with hundreds of these requests, and one round
// trip each would cost most of the start-up.
func (l *Logger) prefetchMeta() metaPrefetcher {
	pf, ok := l.src.(metaPrefetcher)
	if !ok {
		return nil
	}
	var reqs []pmcd.MetaRequest
	labels := map[labelKey]bool{}
	texts := map[textKey]bool{}
	for i, ms := range l.outMetrics {
		m := ms.m
		if ms.descDone || l.descs[m.PMID] {
			continue
		}
		desc := m.Desc
		desc.PMID = l.outVSets[i].PMID
		reqs = append(reqs, pmcd.MetaRequest{Kind: pmcd.MetaNames, Ident: uint32(m.PMID)})
		var keys [6]labelKey
		for _, k := range labelKeys(desc, false, &keys) {
			if !l.labels[k] && !labels[k] {
				labels[k] = true
				reqs = append(reqs, pmcd.MetaRequest{Kind: pmcd.MetaLabels, Type: k.typ, Ident: k.ident})
			}
		}
		var tkeys [4]textKey
		for _, k := range textKeys(desc, &tkeys) {
			if !l.texts[k] && !texts[k] {
				texts[k] = true
				reqs = append(reqs, pmcd.MetaRequest{Kind: pmcd.MetaText, Type: k.typ, Ident: k.ident})
			}
		}
	}
	if len(reqs) < 2 {
		return nil
	}
	// A failure drops the connection: the calls that follow report it
	// as they would have.
	pf.Prefetch(reqs)
	return pf
}

// labelKeys are the label sets manageLabels asks for, in its order:
// context, domain, indom, cluster, item, instances (only instances
// after an instance domain was written).
func labelKeys(desc pmapi.Desc, onlyInstances bool, out *[6]labelKey) []labelKey {
	types := [...]uint32{archive.LabelContext, archive.LabelDomain, archive.LabelInDom, archive.LabelCluster, archive.LabelItem, archive.LabelInstances}
	first := 0
	if onlyInstances {
		first = 5
	}
	keys := out[:0]
	ident := uint32(0xffffffff)
	for _, typ := range types[first:] {
		switch typ {
		case archive.LabelInDom, archive.LabelInstances:
			if desc.InDom == pmapi.InDomNull {
				continue
			}
			ident = uint32(desc.InDom)
		case archive.LabelDomain:
			ident = desc.PMID.Domain()
		case archive.LabelCluster:
			// As pmlogger 6.0.3 computes it: from the ident of the
			// previous step (the indom, or the domain number), not
			// from the PMID.
			p := pmapi.PMID(ident)
			ident = uint32(pmapi.NewPMID(p.Domain(), p.Cluster(), 0))
		case archive.LabelItem:
			ident = uint32(desc.PMID)
		default:
			ident = 0xffffffff
		}
		keys = append(keys, labelKey{typ, ident})
	}
	return keys
}

// textKeys are the help texts manageText asks for, in its order:
// one-line for the PMID and the indom, then long help for both.
func textKeys(desc pmapi.Desc, out *[4]textKey) []textKey {
	keys := out[:0]
	for _, tt := range []uint32{archive.TextOneLine, archive.TextHelp} {
		for _, it := range []uint32{archive.TextPMID, archive.TextInDom} {
			ident := uint32(desc.PMID)
			if it == archive.TextInDom {
				if desc.InDom == pmapi.InDomNull {
					continue
				}
				ident = uint32(desc.InDom)
			}
			keys = append(keys, textKey{tt | it, ident})
		}
	}
	return keys
}

// manageLabels writes each label set not logged yet, in the real
// pmlogger's order (labelKeys).
func (l *Logger) manageLabels(desc pmapi.Desc, stamp pmapi.Timestamp, onlyInstances bool) error {
	var keys [6]labelKey
	for _, k := range labelKeys(desc, onlyInstances, &keys) {
		typ, ident := k.typ, k.ident
		if l.labels[k] {
			continue
		}
		sets, err := l.src.Labels(typ, ident)
		if err != nil {
			continue
		}
		// Asked once: none now means none (the real pmlogger asks
		// again for each new metric, with the same answer).
		l.labels[k] = true
		if len(sets) == 0 {
			continue
		}
		if err := l.w.PutLabels(&archive.LabelRecord{Stamp: stamp, Type: typ, Ident: ident, Sets: sets}); err != nil {
			if errors.Is(err, archive.ErrEncode) {
				// Label sets the source sent malformed: left out.
				fmt.Fprintf(l.log, "pmlogger: label sets (type %d, ident %#x) not logged: %v\n", typ, ident, err)
				continue
			}
			return l.writeErr(err)
		}
	}
	return nil
}

// manageText writes help text: one-line for the PMID and the indom,
// then long help for both, each once; a derived metric's own again with
// each of its descriptors (the real pmlogger looks them up under the
// live PMID, as it does descriptors: see meta).
func (l *Logger) manageText(desc pmapi.Desc) error {
	var keys [4]textKey
	for _, k := range textKeys(desc, &keys) {
		if l.texts[k] {
			continue
		}
		text, err := l.src.Text(k.typ, k.ident)
		if err != nil {
			continue
		}
		l.texts[k] = k.typ&archive.TextPMID == 0 || !derive.IsRemapped(pmapi.PMID(k.ident))
		if err := l.w.PutText(&archive.HelpText{Type: k.typ, Ident: k.ident, Text: text}); err != nil {
			return l.writeErr(err)
		}
	}
	return nil
}

// report writes the -r line of a group after its first record.
func (l *Logger) report(g *group) {
	n, dm := 0, 0
	for _, fg := range g.fetches {
		n += len(fg.want)
		for _, p := range fg.want {
			if p.Domain() == 511 {
				dm++
			}
		}
	}
	if n > 1 {
		fmt.Fprintf(l.log, "\nGroup [%d metrics", n)
		if dm > 0 {
			fmt.Fprintf(l.log, ", %d derived", dm)
		}
		fmt.Fprintf(l.log, "] {\n")
	} else {
		fmt.Fprintf(l.log, "\nMetric ")
	}
	for _, fg := range g.fetches {
		for _, p := range fg.want {
			name := fg.byPMID[p].Name
			if name == "" {
				name = p.String()
			}
			if n > 1 {
				fmt.Fprintf(l.log, "\t%s\n", name)
			} else {
				fmt.Fprintf(l.log, "%s", name)
			}
		}
	}
	if n > 1 {
		fmt.Fprintf(l.log, "}")
	}
	fmt.Fprintf(l.log, " logged ")
	if g.Once() {
		fmt.Fprintf(l.log, "once: %d bytes\n", g.size)
		return
	}
	sec := g.Interval.Seconds()
	if g.Interval%time.Second == 0 {
		fmt.Fprintf(l.log, "every %d sec: %d bytes ", int64(sec), g.size)
	} else {
		fmt.Fprintf(l.log, "every %.3f sec: %d bytes ", sec, g.size)
	}
	fmt.Fprintf(l.log, "or %.2f Mbytes/day\n", float64(g.size)*24*60*60/(1024*1024*sec))
}

// finish writes the epilogue (stamped by a last fetch of pmcd.pid and
// pmcd.seqnum, or 1 ms after the last record), and closes the archive.
func (l *Logger) finish() error {
	if l.w == nil {
		return errors.New("pmlogger: the archive is not open")
	}
	serr := l.settle()
	vals, stamp, ok := l.logue, l.lastStamp.Add(1e6), false
	if !l.disconnected {
		var v logueVals
		var t pmapi.Timestamp
		if v, t, ok = l.logueValues(); ok && l.lastStamp.Before(t) {
			vals, stamp = v, t
		}
	}
	abs, aerr := filepath.Abs(l.o.Archive)
	if aerr != nil {
		abs = l.o.Archive
	}
	l.endCalls()
	err := l.putLogue(stamp, vals, abs, false)
	if cerr := l.w.Close(); err == nil && cerr != nil {
		err = l.writeErr(cerr)
	}
	l.closeControl()
	l.stats.Reason = l.stop
	if serr != nil {
		return serr
	}
	return err
}

// Finish writes the epilogue and closes the archive, for callers that
// drive the engine with Sample instead of Run.
func (l *Logger) Finish() (Stats, error) {
	err := l.finish()
	l.w = nil
	return l.stats, err
}

// Reason is the stop reason of a finished run ("" while running).
func (l *Logger) Reason() string { return l.stop }

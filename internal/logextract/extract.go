// Package logextract implements pmlogextract: it copies one archive, or
// merges several, into a new archive, with a time window, a metric
// selection and format version conversion, writing what PCP 6.0.3's
// pmlogextract writes: the same records, metadata and temporal index,
// byte for byte but for the writer's pid in the labels. cmd/pmlogextract
// is a thin wrapper around Main.
//
// How the real tool works, as reproduced here (each point was checked by
// running it on the shared archives and on archives crafted to tell the
// alternatives apart):
//
//   - All metadata is gathered first, one record of each input in turn
//     (command-line order), keeping only what the selection wants.
//     Descriptors: the first of each metric. Instance domains: every
//     state (deltas applied), whatever input it came from, in time
//     order. Help texts: the last of each kind. Label sets: all of them,
//     in a libpcp hash table whose chain order decides which one of
//     several for the same kind and identifier is found (only that one is
//     ever written).
//   - Records are taken from the inputs in time order (the first input
//     on a tie). Before each one goes what it needs and has not been
//     written: the context labels, and for each metric its descriptor,
//     item, domain and cluster labels and help texts, and the state of
//     its instance domain in force at that time (then that domain's
//     labels and texts). Label sets and states are stamped with the
//     record's time. In Version 3 a state is written as a delta when
//     libpcp finds it shorter (archive.Writer does so).
//   - After an input's last record a <mark> is written (its time plus
//     1 ms), unless it is the last input to end, or pmcd carried on: the
//     input's last pmcd.pid and pmcd.seqnum (from a 5-metric pmlogger
//     prologue or epilogue) equal those of the input with the next
//     record; -m always writes it.
//   - -S keeps records at or after the start; -T keeps records up to one
//     second past the end (both in microseconds); the output's label
//     start is its first record.
//   - Temporal index: archive.Writer's policy; the closing entry takes
//     the time of the last record read.
package logextract

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Options are the settings of one extraction.
type Options struct {
	Inputs  []string // archives to read (base names or any of their files)
	Names   []string // the inputs as messages name them (nil: Inputs)
	Output  string   // base name of the archive to create
	Version int      // output format version (0: the highest input version)

	Start, End      *string       // -S and -T, as pmParseTimeWindow takes them
	Zone            *pcptime.Zone // zone of -S/-T times (nil: the local zone)
	Config          string        // -c file ("" for none)
	AlwaysMark      bool          // -m: a <mark> between inputs even when pmcd carried on
	SkipMismatched  bool          // -x: leave out metrics whose metadata differ between inputs
	Daily           bool          // -w: the -S to -T window of every day (both must be given)
	FirstTZ         bool          // -f: the output takes the first input's time zone
	Samples         int           // -s: stop after this many records (0: no limit)
	VolSamples      int           // -v: start a new volume after this many records
	VolBytes        int64         // -v (PCP 6.3): a new volume before a record that would take the volume past this size
	VolSpan         time.Duration // -v (PCP 6.3): a new volume before a record this long after the volume's first
	Desperate       bool          // -d: keep the output after a fatal error
	SyncEveryRecord bool          // fsync every record (see archive.WriterOptions)
	Buffered        bool          // write in large chunks (see archive.WriterOptions)
	Compress        string        // -X: compress each finished volume and the metadata ("xz", "zstd"; "" for none)
	Stdout, Stderr  io.Writer
	progName        string
}

// input is one input archive being read.
type input struct {
	name  string
	a     *archive.Archive
	label *archive.Label
	end   pmapi.Timestamp
	cur   *archive.Cursor

	meta *metaStream

	multi     bool          // named by a list or directory of archives
	res       *pmapi.Result // the next record to write, rebuilt (selected): sel.res
	sel       selected
	rec       *archive.Record // or the next record to write as it is (the cursor's: valid until its next read)
	stamp     pmapi.Timestamp // the time of that next record
	mark      bool            // at the end, its <mark> not yet decided
	eof       bool            // done
	laststamp pmapi.Timestamp // time of the last record read
	recnum    int
	pmcdPid   int64 // from the last 5-metric record read, -1 if none
	pmcdSeq   int64
}

// metaStream is the metadata records of an input archive as the real tool
// reads them: one after the other from the archive's .meta file. Inputs
// that libpcp gives the same archive control share it (see shareMeta).
type metaStream struct {
	recs   []archive.MetaRecord
	pos    int
	indomN map[pmapi.InDom]int // records of each indom read so far
}

// pending reports whether the input has a record to write.
func (in *input) pending() bool { return in.res != nil || in.rec != nil }

// indomRec is one state of an instance domain.
type indomRec struct {
	stamp   pmapi.Timestamp
	state   *archive.InDomSnapshot
	written bool
}

// indomList holds the states of one instance domain over all inputs.
type indomList struct {
	recs   []*indomRec
	sorted bool
	// extrasDone: the domain's labels and help texts are written, or
	// absent (putting them again would do nothing).
	extrasDone bool
}

type labelRec struct {
	rec     *archive.LabelRecord
	written bool
}

type textKey struct{ typ, ident uint32 }

type textRec struct {
	text    *archive.HelpText
	written bool
}

type descRec struct {
	desc    pmapi.Desc
	names   []string
	written bool
	// static: the descriptor, the metric's item, domain and cluster
	// labels and its help texts are written, or absent (putting them
	// again would do nothing).
	static bool
	il     *indomList // its instance domain's states (nil: PM_INDOM_NULL or not looked up yet)
}

// extractor holds the state of one run.
type extractor struct {
	opt     *Options
	inputs  []*input // command-line order, empty archives left out
	sel     *selection
	version int

	descs  map[pmapi.PMID]*descRec
	skip   []pmapi.PMID // -x: metrics left out, in the order found
	indoms map[pmapi.InDom]*indomList
	labels map[uint32]*lhash.Table[*labelRec] // by label type, then ident
	// instLabels (PCP 6.3.8): every instance label record of each
	// instance domain, in file order (see putInstLabels)
	instLabels map[pmapi.InDom][]*labelRec
	v638       bool // behave as PCP 6.3.8 (pcpconf.Version)
	texts      map[textKey]*textRec

	winLo, winHi pmapi.Timestamp // winHi is already one second past -T
	hasLo, hasHi bool
	daily        bool // -w: the window moves on a day at its end
	logEnd       pmapi.Timestamp
	w            *archive.Writer
	firstDatarec bool
	written      int
	volNum       int             // the volume the last record went to
	volStart     pmapi.Timestamp // the time of the first record of that volume
	current      pmapi.Timestamp
	errOut       io.Writer
	ctxDone      bool         // the context labels are written, or absent
	pmids        []pmapi.PMID // the metrics of the record being written
}

// Error is a failure of an extraction, reported as the real tool does.
type Error struct {
	Msg        string // the message, without the program name
	NotCreated bool   // the tool adds "Archive "x" not created."
	Usage      bool   // the tool prints its usage after the message
	NoPrefix   bool   // the message is printed as it is
}

func (e *Error) Error() string { return e.Msg }

// Extract runs one extraction.
func Extract(opt *Options) error {
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if opt.progName == "" {
		opt.progName = "pmlogextract"
	}
	x := &extractor{
		opt:          opt,
		descs:        map[pmapi.PMID]*descRec{},
		indoms:       map[pmapi.InDom]*indomList{},
		labels:       map[uint32]*lhash.Table[*labelRec]{},
		instLabels:   map[pmapi.InDom][]*labelRec{},
		v638:         pcpconf.Version() == pcpconf.Version638,
		texts:        map[textKey]*textRec{},
		errOut:       opt.Stderr,
		firstDatarec: true,
	}
	defer x.closeInputs()
	// The real tool opens its configuration file first of all.
	if opt.Config != "" {
		f, err := os.Open(opt.Config)
		if err != nil {
			return &Error{Msg: fmt.Sprintf("%s - invalid file", opt.Config), Usage: true}
		}
		f.Close()
	}
	if err := x.openInputs(); err != nil {
		return err
	}
	if err := x.setup(); err != nil {
		return err
	}
	err := x.run()
	if err != nil && x.w != nil {
		x.abandon()
	}
	return err
}

func (x *extractor) closeInputs() {
	for _, in := range x.inputs {
		in.a.Close()
	}
}

func (x *extractor) openInputs() error {
	for k, path := range x.opt.Inputs {
		name := path
		if k < len(x.opt.Names) {
			name = x.opt.Names[k]
		}
		a, err := archive.Open(path)
		if err != nil && archive.Code(err) == pmapi.ErrNoData {
			fmt.Fprintf(x.errOut, "%s: Warning: empty archive %q will be skipped\n", x.opt.progName, name)
			continue
		}
		if err != nil {
			return &Error{Msg: fmt.Sprintf("Error: cannot open archive %q: %s", name, archive.ErrText(err))}
		}
		in := &input{name: name, a: a, label: a.Label(), pmcdPid: -1, pmcdSeq: -1}
		in.multi = name != path && (strings.Contains(name, ",") || isDir(name))
		x.inputs = append(x.inputs, in)
		end, err := a.End()
		if err != nil {
			if !x.opt.Desperate {
				return &Error{Msg: fmt.Sprintf("Error: cannot get end of archive (%s): %s", name, archive.ErrText(err))}
			}
			end = pmapi.Timestamp{Sec: 1<<63 - 1}
		}
		in.end = end
		in.cur = a.NewCursor()
	}
	if len(x.inputs) == 0 {
		return &Error{Msg: "Warning: all input archive(s) are empty, no output archive created"}
	}
	return nil
}

func (x *extractor) setup() error {
	o := x.opt
	// The output's version: the highest input version, or -V (which
	// may not be lower).
	maxv := 0
	for _, in := range x.inputs {
		v := in.label.Version
		if o.Version != 0 && v > o.Version {
			return &Error{Msg: fmt.Sprintf("Error: input archive version must be no more than %d\narchive: %s version: %d", o.Version, in.name, v), NotCreated: true}
		}
		if v > maxv {
			maxv = v
		}
	}
	x.version = maxv
	if o.Version != 0 {
		x.version = o.Version
	}
	first, tzIn := x.inputs[0], x.inputs[len(x.inputs)-1]
	if o.FirstTZ {
		tzIn = first
	}
	for _, in := range x.inputs {
		if in.label.Hostname != first.label.Hostname {
			return &Error{Msg: fmt.Sprintf("Error: host name mismatch for input archives\narchive: %s host: %s\narchive: %s host: %s",
				first.name, first.label.Hostname, in.name, in.label.Hostname), NotCreated: true}
		}
		if in.label.TZ != tzIn.label.TZ {
			fmt.Fprintf(x.errOut, "%s: Warning: timezone mismatch for input archives\narchive: %s timezone: %s [will be used]\narchive: %s timezone: %s [will be ignored]\n",
				o.progName, tzIn.name, tzIn.label.TZ, in.name, in.label.TZ)
		}
	}
	// The real tool creates its output before it reads anything, so an
	// existing output is reported first; pcpkit creates it at the first
	// record (whose time the labels carry) but checks now.
	for _, suf := range []string{".index", ".meta", ".0"} {
		if _, err := os.Lstat(o.Output + suf); err == nil {
			return &Error{Msg: fmt.Sprintf("__pmLogNewFile: %q already exists, not over-written\n%s: Error: __pmLogCreate: File exists", o.Output+suf, o.progName), NoPrefix: true}
		}
	}
	if _, err := os.Stat(filepath.Dir(o.Output)); err != nil {
		return &Error{Msg: fmt.Sprintf("__pmLogNewFile: failed to create %q: %s\n%s: Error: __pmLogCreate: %s", o.Output+".index", archive.ErrText(err), o.progName, archive.ErrText(err)), NoPrefix: true}
	}
	// The end of all the inputs.
	x.logEnd = first.end
	for _, in := range x.inputs {
		if x.logEnd.Before(in.end) {
			x.logEnd = in.end
		}
	}
	if o.Start != nil || o.End != nil {
		z := o.Zone
		if z == nil {
			z = pcptime.LocalZone()
		}
		// The real tool keeps the span of all the inputs, but parses
		// -S and -T against the first input's (its logstart_tv and
		// logend_tv are set from that input only): -T past that
		// input's end is brought back to it.
		lo, hi := first.label.Start, first.end
		lo.Nsec -= lo.Nsec % 1000
		hi.Nsec -= hi.Nsec % 1000
		w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.End}, lo, hi, z)
		if perr != nil {
			return &Error{Msg: "Invalid time window specified: " + perr.Message(), NotCreated: true}
		}
		if o.Start != nil {
			x.winLo, x.hasLo = w.Start, true
			x.winLo.Nsec -= x.winLo.Nsec % 1000
		}
		if o.End != nil {
			// The real tool adds a second to dodge its own truncation
			// to microseconds.
			x.winHi, x.hasHi = w.End, true
			x.winHi.Nsec -= x.winHi.Nsec % 1000
			x.winHi.Sec++
		}
	}
	if o.Config != "" {
		f, err := os.Open(o.Config)
		if err != nil {
			return &Error{Msg: fmt.Sprintf("%s - invalid file", o.Config), Usage: true}
		}
		specs, err := parseConfig(f)
		f.Close()
		// The real tool looks each metric up as its parser reduces it:
		// the warnings of those before a syntax error come first.
		x.sel = x.resolveConfig(specs, o.Config, x.errOut)
		if err != nil {
			var se *cfgSyntaxError
			if errors.As(err, &se) {
				return &Error{Msg: fmt.Sprintf("Specification error in configuration file (%s)\n%s", o.Config, se), NoPrefix: true}
			}
			return err
		}
	}
	if x.daily = o.Daily && x.hasLo && x.hasHi; x.daily && x.winLo.Sec+secPerDay < x.winHi.Sec {
		fmt.Fprintf(x.errOut, "%s: Warning: -S and -T must specify a time window within\nthe same day, for -w to be used.  Ignoring -w flag.\n", o.progName)
		x.daily = false
	}
	for k, in := range x.inputs {
		if in.meta = x.shareMeta(k); in.meta != nil {
			continue
		}
		mrs, err := in.a.MetaRecords()
		if err != nil {
			// The real tool reads the metadata records on its own, and
			// refuses a file that ends within a record's header (which
			// libpcp's open takes for the end): its read stops at the
			// end of the file.
			size := in.a.Meta().Size
			return &Error{Msg: fmt.Sprintf("Error: pmaGetLog[meta %s]: %s\n%s: Error occurred at byte offset %d into a file of %d bytes.\nThe last record, and the remainder of this file will not be extracted.", in.name, archive.ErrText(err), o.progName, size, size), NotCreated: true}
		}
		in.meta = &metaStream{recs: mrs, indomN: map[pmapi.InDom]int{}}
	}
	return x.loadMeta()
}

// shareMeta returns the metadata stream of an earlier input that input k
// shares, or nil. libpcp gives a new archive context the archive control
// of an open one (not of a list or directory) whose name, as libpcp keeps
// it (archive.ControlName), is the new context's name exactly as given; the .meta
// file's read position is in that control, so the real tool reads each
// record of "pmlogextract ./A ./A" or "/d/A /d/A" once, for one input or
// the other, but every record twice for "A A" (libpcp keeps "./A"), "A
// A.meta", "A.meta A.meta" and "/d//A /d//A".
func (x *extractor) shareMeta(k int) *metaStream {
	in := x.inputs[k]
	if in.multi {
		return nil
	}
	for _, prev := range x.inputs[:k] {
		if !prev.multi && archive.ControlName(prev.a.BaseName()) == in.name {
			return prev.meta
		}
	}
	return nil
}

// loadMeta gathers the wanted metadata of all inputs, one record of each
// input in turn, as the real tool does.
func (x *extractor) loadMeta() error {
	for {
		more := false
		for _, in := range x.inputs {
			for ms := in.meta; ms.pos < len(ms.recs); {
				mr := &ms.recs[ms.pos]
				ms.pos++
				if x.wantMeta(in, mr) {
					if err := x.addMeta(in, mr); err != nil {
						return err
					}
					more = true
					break
				}
			}
		}
		if !more {
			break
		}
	}
	for _, l := range x.indoms {
		sort.SliceStable(l.recs, func(i, j int) bool { return l.recs[i].stamp.Before(l.recs[j].stamp) })
		l.sorted = true
	}
	if len(x.skip) > 0 {
		fmt.Fprintf(x.errOut, "Warning: the metrics below will be missing from the output archive\n")
		for _, p := range x.skip {
			fmt.Fprintf(x.errOut, "\tPMID: %s\n", p)
		}
	}
	return nil
}

// wantMeta applies the selection to a metadata record. (An instance
// domain state is counted even when it is not wanted: a delta needs the
// states before it.)
func (x *extractor) wantMeta(in *input, mr *archive.MetaRecord) bool {
	if mr.InDom != nil {
		in.meta.indomN[mr.InDom.InDom]++
	}
	if x.sel == nil {
		return true
	}
	switch {
	case mr.Desc != nil:
		return x.sel.hasPMID(mr.Desc.PMID)
	case mr.InDom != nil:
		return x.sel.hasInDom(mr.InDom.InDom)
	case mr.Label != nil:
		switch mr.Label.Type {
		case archive.LabelContext:
			return true
		case archive.LabelDomain:
			// The real tool compares the domain of the label's ident
			// (itself a domain number) with the metrics' domains, so a
			// selection keeps no domain labels.
			d := pmapi.PMID(mr.Label.Ident).Domain()
			for _, e := range x.sel.ml {
				if e.pmid.Domain() == d {
					return true
				}
			}
			return false
		case archive.LabelCluster:
			return x.sel.hasCluster(mr.Label.Ident)
		case archive.LabelItem:
			return x.sel.hasPMID(pmapi.PMID(mr.Label.Ident))
		case archive.LabelInDom, archive.LabelInstances:
			return x.sel.hasInDom(pmapi.InDom(mr.Label.Ident))
		}
		return false
	case mr.Text != nil:
		if mr.Text.Type&archive.TextPMID != 0 {
			return x.sel.hasPMID(pmapi.PMID(mr.Text.Ident))
		}
		return x.sel.hasInDom(pmapi.InDom(mr.Text.Ident))
	}
	return false
}

func (x *extractor) addMeta(in *input, mr *archive.MetaRecord) error {
	switch {
	case mr.Desc != nil:
		return x.addDesc(in, mr)
	case mr.InDom != nil:
		// The state the record leaves (deltas applied).
		st, ok := in.a.Meta().InDomRecordState(mr.InDom.InDom, in.meta.indomN[mr.InDom.InDom]-1)
		if !ok {
			return &Error{Msg: fmt.Sprintf("Error: instance domain %s of %s is inconsistent", mr.InDom.InDom, in.name), NotCreated: true}
		}
		l := x.indomList(mr.InDom.InDom)
		l.recs = append(l.recs, &indomRec{stamp: mr.InDom.Stamp, state: st})
	case mr.Label != nil && x.v638 && mr.Label.Type == archive.LabelInstances:
		indom := pmapi.InDom(mr.Label.Ident)
		x.instLabels[indom] = append(x.instLabels[indom], &labelRec{rec: mr.Label})
	case mr.Label != nil:
		t := x.labels[mr.Label.Type]
		if t == nil {
			t = &lhash.Table[*labelRec]{}
			x.labels[mr.Label.Type] = t
		}
		t.Add(mr.Label.Ident, &labelRec{rec: mr.Label})
	case mr.Text != nil:
		k := textKey{mr.Text.Type, mr.Text.Ident}
		if old, ok := x.texts[k]; ok {
			if old.text.Text != mr.Text.Text {
				x.warnTextChange(old.text, mr.Text)
			}
			old.text = mr.Text
		} else {
			x.texts[k] = &textRec{text: mr.Text}
		}
	}
	return nil
}

func (x *extractor) indomList(indom pmapi.InDom) *indomList {
	l := x.indoms[indom]
	if l == nil {
		l = &indomList{}
		x.indoms[indom] = l
	}
	return l
}

// addDesc keeps the first descriptor of each metric, and refuses
// metadata that changed between inputs, as the real tool does.
func (x *extractor) addDesc(in *input, mr *archive.MetaRecord) error {
	d := mr.Desc
	// Every difference is reported: with -x as a warning, the metric
	// then left out; without, the first stops the extraction.
	var err error
	mismatch := func(p pmapi.PMID, format string, args ...any) {
		if err != nil {
			return
		}
		if !x.opt.SkipMismatched {
			err = &Error{Msg: "Error: " + fmt.Sprintf(format, args...), NotCreated: true}
			return
		}
		fmt.Fprintf(x.errOut, "%s: Warning: %s\n", x.opt.progName, fmt.Sprintf(format, args...))
		x.skipMetric(p)
	}
	others := make([]pmapi.PMID, 0, len(x.descs))
	for p := range x.descs {
		others = append(others, p)
	}
	slices.Sort(others)
	for _, p := range others {
		if old := x.descs[p]; p != d.PMID && matchNames(old.names, mr.Names) {
			mismatch(old.desc.PMID, "metric %s: PMID changed from %s to %s!", strings.Join(old.names, ", "), old.desc.PMID, d.PMID)
		}
	}
	old, ok := x.descs[d.PMID]
	if !ok {
		if err == nil {
			x.descs[d.PMID] = &descRec{desc: *d, names: mr.Names}
			x.indomList(d.InDom)
		}
		return err
	}
	names := strings.Join(old.names, ", ")
	p := d.PMID
	if !sameNames(old.names, mr.Names) {
		mismatch(p, "metric PMID %s: name changed from %s to %s!", d.PMID, names, strings.Join(mr.Names, ", "))
	}
	if old.desc.Type != d.Type {
		mismatch(p, "metric %s: type changed from %s to %s!", names, old.desc.Type, d.Type)
	}
	if old.desc.InDom != d.InDom {
		mismatch(p, "metric %s: indom changed from %s to %s!", names, old.desc.InDom, d.InDom)
	}
	if old.desc.Sem != d.Sem {
		mismatch(p, "metric %s: semantics changed from %s to %s!", names, semText(old.desc.Sem), semText(d.Sem))
	}
	if !old.desc.Units.Equal(d.Units) {
		mismatch(p, "metric %s: units changed from %s to %s!", names, old.desc.Units, d.Units)
	}
	return err
}

// semText is the real tool's printsem.
func semText(s pmapi.Sem) string {
	if t := s.String(); t != "???" {
		return t
	}
	return fmt.Sprintf("unknown (%d)", int32(s))
}

// skipMetric adds p to the metrics -x leaves out (once).
func (x *extractor) skipMetric(p pmapi.PMID) {
	if !slices.Contains(x.skip, p) {
		x.skip = append(x.skip, p)
	}
}

// skipped reports whether -x leaves p out.
func (x *extractor) skipped(p pmapi.PMID) bool { return slices.Contains(x.skip, p) }

// matchNames reports whether two name lists share a name.
func matchNames(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// sameNames reports whether two name lists hold the same names.
func sameNames(a, b []string) bool {
	in := func(x string, l []string) bool {
		for _, y := range l {
			if x == y {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !in(x, b) {
			return false
		}
	}
	for _, y := range b {
		if !in(y, a) {
			return false
		}
	}
	return len(a) > 0 || len(b) == 0
}

func (x *extractor) warnTextChange(old, cur *archive.HelpText) {
	what := "metric PMID " + pmapi.PMID(old.Ident).String()
	if old.Type&archive.TextInDom != 0 {
		what = "instance domain " + pmapi.InDom(old.Ident).String()
	}
	if old.Type&archive.TextOneLine != 0 {
		fmt.Fprintf(x.errOut, "%s: Warning: %s one line text changed from\n  \"%s\" to\n  \"%s\"!\n", x.opt.progName, what, old.Text, cur.Text)
	} else {
		fmt.Fprintf(x.errOut, "%s: Warning: %s help text changed!\n", x.opt.progName, what)
	}
}

// nextlog reads ahead one selected record (or the end) of every input
// that has none. It reports whether every input is done.
func (x *extractor) nextlog() bool {
	done := 0
	for _, in := range x.inputs {
		if in.eof {
			done++
			continue
		}
		if in.mark || in.pending() {
			continue
		}
		for {
			r, err := in.cur.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					x.reportDamage(in, err)
				}
				// No <mark> for an input that ends before anything
				// was written.
				if x.firstDatarec {
					in.eof = true
					done++
				} else {
					in.mark = true
				}
				break
			}
			// Over a multi-archive input the real tool's time of the
			// last record read only counts records it keeps (checked
			// with -c on QA multi/: the closing index entry then
			// carries the last record written).
			if !in.multi {
				in.laststamp = r.Stamp
			}
			in.recnum++
			if r.NumPMID() == 5 {
				x.notePmcd(in, r)
			}
			if x.hasLo && r.Stamp.Before(x.winLo) {
				continue
			}
			if in.multi && (r.IsMark() || x.sel == nil && len(x.skip) == 0 || x.keeps(r)) {
				in.laststamp = r.Stamp
			}
			if r.IsMark() || x.sel == nil && len(x.skip) == 0 {
				// Copied as it is, or converted to the output's
				// version, by archive.Writer.PutRecord (see
				// putRecord); the cursor is not read again before it
				// is written.
				in.rec, in.stamp = r, r.Stamp
				break
			}
			if x.searchRecord(&in.sel, r) {
				in.res, in.stamp = &in.sel.res, r.Stamp
				break
			}
		}
	}
	return done == len(x.inputs)
}

var (
	pmidPmcdPid    = pmapi.NewPMID(2, 0, 23)
	pmidPmcdSeqnum = pmapi.NewPMID(2, 0, 24)
)

// notePmcd keeps pmcd.pid and pmcd.seqnum from a 5-metric record (a
// pmlogger prologue or epilogue).
func (x *extractor) notePmcd(in *input, r *archive.Record) {
	for i := 0; i < r.NumPMID(); i++ {
		p := r.PMID(i)
		if (p != pmidPmcdPid && p != pmidPmcdSeqnum) || r.NumVal(i) < 1 {
			continue
		}
		v := r.Value(i, 0)
		var n int64
		switch {
		case r.ValFmt(i) == pmapi.ValFmtInsitu:
			n = int64(v.Insitu)
		case len(v.Block) >= 8:
			n = int64(binary.BigEndian.Uint64(v.Block))
		case len(v.Block) >= 4:
			n = int64(int32(binary.BigEndian.Uint32(v.Block)))
		default:
			continue
		}
		if p == pmidPmcdPid {
			in.pmcdPid = n
		} else {
			in.pmcdSeq = int64(int32(n))
		}
	}
}

// selected is a record with the selection applied, built in buffers
// that are reused from one record to the next. Its value blocks alias
// the record's bytes, which stay put until the input's cursor reads on
// (after it is written).
type selected struct {
	res  pmapi.Result
	vals []pmapi.Value
	ends []int // where each value set's values end in vals
}

// keeps reports whether a record has a metric the selection (if any)
// keeps and -x does not leave out.
func (x *extractor) keeps(r *archive.Record) bool {
	for i := 0; i < r.NumPMID(); i++ {
		if p := r.PMID(i); !x.skipped(p) && (x.sel == nil || x.sel.hasPMID(p)) {
			return true
		}
	}
	return false
}

// searchRecord applies the selection and -x's skipped metrics to a
// record as the real tool does (searchmlist), into out; it reports false when none of the record's
// metrics is selected. Value sets keep the record's order; a metric
// with listed instances keeps those, in the list's order. The real tool
// decides whether to pick instances for a value set by the number of
// values of the value set it last picked from (starting with the
// record's last value set), so a set after one left empty keeps all its
// values, and a selected singular metric can lose a value whose instance
// is not PM_IN_NULL (QA 960624.08.17_v2).
func (x *extractor) searchRecord(out *selected, r *archive.Record) bool {
	n := r.NumPMID()
	out.res.Timestamp = r.Stamp
	out.res.VSets = out.res.VSets[:0]
	out.vals, out.ends = out.vals[:0], out.ends[:0]
	if n == 0 {
		return false
	}
	lastNumVal := r.NumVal(n - 1)
	for i := 0; i < n; i++ {
		if x.skipped(r.PMID(i)) {
			continue
		}
		vs := pmapi.ValueSet{PMID: r.PMID(i), NumVal: r.NumVal(i), ValFmt: r.ValFmt(i)}
		e := &mlEntry{numinst: -1} // no selection: every value
		if x.sel != nil {
			j := x.sel.find(r.PMID(i))
			if j < 0 {
				continue
			}
			e = &x.sel.ml[j]
		}
		start := len(out.vals)
		if e.numinst != -1 && lastNumVal > 0 {
			for _, want := range e.insts {
				for k := 0; k < int(vs.NumVal); k++ {
					if r.Inst(i, k) == want {
						out.vals = append(out.vals, r.Value(i, k))
						break
					}
				}
			}
			vs.NumVal = int32(len(out.vals) - start)
			lastNumVal = vs.NumVal
		} else {
			for k := 0; k < int(vs.NumVal); k++ {
				out.vals = append(out.vals, r.Value(i, k))
			}
		}
		out.res.VSets = append(out.res.VSets, vs)
		out.ends = append(out.ends, len(out.vals))
	}
	start := 0
	for k := range out.res.VSets {
		out.res.VSets[k].Values = out.vals[start:out.ends[k]:out.ends[k]]
		start = out.ends[k]
	}
	return len(out.res.VSets) > 0
}

// reportDamage reports a damaged input record, as the real tool does
// (the input ends there).
func (x *extractor) reportDamage(in *input, err error) {
	vol, _ := in.cur.Position()
	size, _ := in.a.VolumeSize(vol)
	at := size
	var fe *archive.FormatError
	if errors.As(err, &fe) {
		// where libpcp's stdio stream is left (the real tool reports
		// its file descriptor's position)
		at = in.a.FailOffset(vol, fe.Offset)
	}
	what := archive.ErrText(err)
	fmt.Fprintf(x.errOut, "%s: Error: __pmLogRead[log %s]: %s\n", x.opt.progName, in.name, what)
	fmt.Fprintf(x.errOut, "%s: Error occurred at byte offset %d into a file of %d bytes.\n", x.opt.progName, at, size)
	fmt.Fprintf(x.errOut, "The last record, and the remainder of this file will not be extracted.\n")
}

func (x *extractor) run() error {
	for x.opt.Samples <= 0 || x.written < x.opt.Samples {
		if x.nextlog() {
			break
		}
		// The earliest pending record or <mark> (at its input's last
		// time), the first input on a tie. A zero time counts as "none
		// yet", as in the real tool.
		ilog := -1
		var curlog pmapi.Timestamp
		for i, in := range x.inputs {
			var t pmapi.Timestamp
			switch {
			case in.pending():
				t = in.stamp
			case in.mark:
				t = in.laststamp
			default:
				continue
			}
			if (curlog == pmapi.Timestamp{}) || t.Before(curlog) {
				ilog, curlog = i, t
			}
		}
		if ilog < 0 {
			break
		}
		if x.logEnd.Before(curlog) {
			break
		}
		if x.hasHi && x.winHi.Before(curlog) {
			if !x.daily {
				break
			}
			done, err := x.nextDay()
			if err != nil {
				return err
			}
			if done {
				break
			}
			continue
		}
		x.current = curlog
		in := x.inputs[ilog]
		if in.mark {
			if !x.opt.AlwaysMark && x.pmcdCarriedOn(in) {
				// no gap: pmcd went on from this input to the next
			} else if !x.lastInput(in) {
				t := in.laststamp.Add(1e6)
				if err := x.w.PutMark(t); err != nil {
					return x.writeErr(err)
				}
				x.current = t
				x.written++
			}
			in.mark, in.eof = false, true
			continue
		}
		if err := x.putRecord(in, curlog); err != nil {
			return err
		}
		in.res, in.rec = nil, nil
	}
	if x.firstDatarec {
		return &Error{Msg: "Warning: no qualifying records found.", NotCreated: true}
	}
	x.w.SetEnd(x.current)
	if err := x.w.Close(); err != nil {
		return x.writeErr(err)
	}
	return nil
}

// secPerDay is -w's step.
const secPerDay = 86400

// nextDay moves -w's window on a day, as the real tool's checkwinend
// does: it is done when the window then starts after the end of the
// inputs; otherwise the records pending before the window's new start
// are dropped and a <mark> 1 ms after the last record written closes the
// day.
func (x *extractor) nextDay() (done bool, err error) {
	x.winLo.Sec += secPerDay
	x.winHi.Sec += secPerDay
	if x.logEnd.Before(x.winLo) {
		return true, nil
	}
	for _, in := range x.inputs {
		if in.pending() && in.stamp.Before(x.winLo) {
			in.res, in.rec = nil, nil
		}
	}
	if x.w == nil {
		// Nothing written yet (a first day with no record): PCP 6.0.3
		// writes this <mark> before the data volume's label, and its
		// output is "Illegal label record"; pcpkit writes none.
		return false, nil
	}
	t := x.current.Add(1e6)
	if err := x.w.PutMark(t); err != nil {
		return false, x.writeErr(err)
	}
	x.current = t
	x.written++
	return false, nil
}

// pmcdCarriedOn reports whether the input that ends and the input with
// the next record saw the same pmcd (pmcd.pid and pmcd.seqnum).
func (x *extractor) pmcdCarriedOn(in *input) bool {
	if in.pmcdPid == -1 || in.pmcdSeq == -1 {
		return false
	}
	var next *input
	for _, o := range x.inputs {
		if o == in || !o.pending() {
			continue
		}
		if next == nil || o.stamp.Before(next.stamp) {
			next = o
		}
	}
	return next != nil && next.pmcdPid == in.pmcdPid && next.pmcdSeq == in.pmcdSeq
}

// lastInput reports whether every other input is done.
func (x *extractor) lastInput(in *input) bool {
	for _, o := range x.inputs {
		if o != in && !o.eof {
			return false
		}
	}
	return true
}

// putRecord writes one record, with the metadata it needs first.
func (x *extractor) putRecord(in *input, mintime pmapi.Timestamp) error {
	if x.firstDatarec {
		if err := x.create(in.stamp); err != nil {
			return err
		}
		x.firstDatarec = false
	}
	if !x.ctxDone {
		done, err := x.putLabel(archive.LabelContext, 0xffffffff, mintime)
		if err != nil {
			return err
		}
		x.ctxDone = done
	}
	x.pmids = x.pmids[:0]
	if r := in.rec; r != nil {
		for i := 0; i < r.NumPMID(); i++ {
			x.pmids = append(x.pmids, r.PMID(i))
		}
	} else {
		for i := range in.res.VSets {
			x.pmids = append(x.pmids, in.res.VSets[i].PMID)
		}
	}
	if err := x.putMetadata(in.stamp, x.pmids); err != nil {
		return err
	}
	if x.volumeDue(in) {
		// SwitchVolume: by size, the first volume may be left with
		// its label alone
		if err := x.w.SwitchVolume(); err != nil {
			return x.writeErr(err)
		}
		var b []byte
		b = pcptime.AppendStamp(b, x.zone().Civil(in.stamp.Sec), int64(in.stamp.Nsec), 9)
		fmt.Fprintf(x.errOut, "%s: New log volume %d, at %s\n", x.opt.progName, x.w.Volume(), b)
	}
	var err error
	if in.rec != nil {
		err = x.w.PutRecord(in.rec)
	} else {
		err = x.w.PutResult(in.res)
	}
	if err != nil {
		return x.writeErr(err)
	}
	if x.w.Volume() != x.volNum || x.written == 0 {
		x.volNum, x.volStart = x.w.Volume(), in.stamp
	}
	x.written++
	return nil
}

// volumeDue reports whether the data record of in goes into a new volume
// (-v): after every VolSamples records; or (PCP 6.3.8) when the record
// would take the volume past VolBytes (its label counts: the first
// volume may be left with its label alone), or when the record comes
// more than VolSpan after the volume's first record.
func (x *extractor) volumeDue(in *input) bool {
	switch {
	case x.opt.VolSamples > 0:
		return x.written > 0 && x.written%x.opt.VolSamples == 0
	case x.opt.VolBytes > 0:
		var n int
		if in.rec != nil {
			n = x.w.RecordSize(in.rec)
		} else {
			n = x.w.ResultSize(in.res)
		}
		_, off := x.w.Offsets()
		return off+int64(n) > x.opt.VolBytes
	case x.opt.VolSpan > 0:
		return x.written > 0 && x.volStart.Add(int64(x.opt.VolSpan)).Before(in.stamp)
	}
	return false
}

func (x *extractor) zone() *pcptime.Zone {
	if x.opt.Zone != nil {
		return x.opt.Zone
	}
	return pcptime.LocalZone()
}

// create makes the output archive, whose label starts at its first
// record. Its time zone is the last input's (-f: the first's).
func (x *extractor) create(start pmapi.Timestamp) error {
	first, tzIn := x.inputs[0], x.inputs[len(x.inputs)-1]
	if x.opt.FirstTZ {
		tzIn = first
	}
	opts := archive.WriterOptions{
		Version:         x.version,
		Hostname:        first.label.Hostname,
		TZ:              tzIn.label.TZ,
		Start:           start,
		SyncEveryRecord: x.opt.SyncEveryRecord,
		Buffered:        x.opt.Buffered,
		CoalesceData:    true, // (SyncEveryRecord overrides it)
		Compress:        x.opt.Compress,
	}
	if x.version == 3 {
		opts.Zoneinfo = tzIn.label.Zoneinfo
	}
	w, err := archive.Create(x.opt.Output, opts)
	if err != nil {
		var ee *archive.ExistsError
		if errors.As(err, &ee) {
			return &Error{Msg: fmt.Sprintf("__pmLogNewFile: %q already exists, not over-written\n%s: Error: __pmLogCreate: File exists", ee.Path, x.opt.progName), NoPrefix: true}
		}
		return &Error{Msg: fmt.Sprintf("Error: __pmLogCreate: %s", archive.ErrText(err))}
	}
	x.w = w
	return nil
}

func (x *extractor) writeErr(err error) error {
	return &Error{Msg: fmt.Sprintf("Error: %v", err), NotCreated: !x.opt.Desperate}
}

// abandon removes a partial output, as the real tool does after a fatal
// error (unless -d).
func (x *extractor) abandon() {
	if x.opt.Desperate {
		x.w.Abandon()
		return
	}
	x.w.Close()
	names := []string{x.opt.Output + ".meta", x.opt.Output + ".index"}
	for v := x.w.Volume(); v >= 0; v-- {
		names = append(names, fmt.Sprintf("%s.%d", x.opt.Output, v))
	}
	for _, n := range names {
		os.Remove(n)
		for _, suf := range []string{".xz", ".zst"} {
			os.Remove(n + suf) // -X compressed it
		}
	}
}

// putMetadata writes what a record at t with the metrics pmids needs,
// for each metric in order: its descriptor, item, domain and cluster
// labels and help texts, then the state of its instance domain in force,
// with that domain's labels and help texts. A metric without a
// descriptor stops the extraction, as it stops PCP 6.0.3's (QA
// 20230506.20.02-01 in the bad archives; later versions warn and leave
// the metric out). What is written, or known to be absent, is remembered
// so that a record whose metadata are all out costs a few flag tests per
// metric.
func (x *extractor) putMetadata(t pmapi.Timestamp, pmids []pmapi.PMID) error {
	for _, p := range pmids {
		d, ok := x.descs[p]
		if !ok {
			return &Error{Msg: fmt.Sprintf("Error: meta data (TYPE_DESC) for pmid %s has not been found.", p), NotCreated: !x.opt.Desperate}
		}
		if !d.static {
			done, err := x.putMetricMeta(d, t)
			if err != nil {
				return err
			}
			d.static = done
		}
		indom := d.desc.InDom
		if indom == pmapi.InDomNull {
			continue
		}
		l := d.il
		if l == nil {
			l = x.indomList(indom)
			d.il = l
		}
		var ir *indomRec
		switch len(l.recs) {
		case 0:
			// No state at all: the domain's labels and help text
			// still go out (QA 20190628.04.03, hinv.map.mdname).
		case 1:
			ir = l.recs[0] // the only state, whatever its time
		default:
			ir = closestBefore(l.recs, t)
			if ir == nil {
				continue
			}
		}
		if ir != nil {
			if ir.written {
				continue
			}
			rec := &archive.InDomRecord{Stamp: t, InDom: indom, Insts: ir.state.Insts, Names: ir.state.Names}
			if err := x.w.PutInDom(rec); err != nil {
				return x.writeErr(err)
			}
			ir.written = true
		}
		if !l.extrasDone {
			done, err := x.putInDomExtras(indom, t)
			if err != nil {
				return err
			}
			l.extrasDone = done
		} else if err := x.putInstLabels(indom, t); err != nil {
			return err
		}
	}
	return nil
}

// putInstLabels writes, as PCP 6.3.8's pmlogextract does, every instance
// label record of indom stamped no later than t that is not written yet,
// in file order, each stamped t (6.0.3 writes one, see putLabel).
func (x *extractor) putInstLabels(indom pmapi.InDom, t pmapi.Timestamp) error {
	for _, l := range x.instLabels[indom] {
		if l.written || t.Before(l.rec.Stamp) {
			continue
		}
		rec := *l.rec
		rec.Stamp = t
		if err := x.w.PutLabels(&rec); err != nil {
			return x.writeErr(err)
		}
		l.written = true
	}
	return nil
}

// putMetricMeta writes a metric's descriptor, item, domain and cluster
// labels and help texts that are not written yet; done reports that
// none is left to write later (a label set not yet in force at t is).
func (x *extractor) putMetricMeta(d *descRec, t pmapi.Timestamp) (done bool, err error) {
	p := d.desc.PMID
	if !d.written {
		if err := x.w.PutDesc(d.desc, d.names); err != nil {
			return false, x.writeErr(err)
		}
		d.written = true
	}
	done = true
	for _, l := range [...]struct{ typ, ident uint32 }{
		{archive.LabelItem, uint32(p)},
		{archive.LabelDomain, p.Domain()},
		{archive.LabelCluster, uint32(pmapi.NewPMID(p.Domain(), p.Cluster(), 0))},
	} {
		ok, err := x.putLabel(l.typ, l.ident, t)
		if err != nil {
			return false, err
		}
		done = done && ok
	}
	if err := x.putText(archive.TextOneLine|archive.TextPMID, uint32(p)); err != nil {
		return false, err
	}
	if err := x.putText(archive.TextHelp|archive.TextPMID, uint32(p)); err != nil {
		return false, err
	}
	return done, nil
}

// putInDomExtras writes an instance domain's labels and help texts that
// are not written yet; done as for putMetricMeta.
func (x *extractor) putInDomExtras(indom pmapi.InDom, t pmapi.Timestamp) (done bool, err error) {
	ok1, err := x.putLabel(archive.LabelInDom, uint32(indom), t)
	if err != nil {
		return false, err
	}
	ok2, err := x.putLabel(archive.LabelInstances, uint32(indom), t)
	if err != nil {
		return false, err
	}
	if x.v638 {
		if err := x.putInstLabels(indom, t); err != nil {
			return false, err
		}
	}
	if err := x.putText(archive.TextOneLine|archive.TextInDom, uint32(indom)); err != nil {
		return false, err
	}
	if err := x.putText(archive.TextHelp|archive.TextInDom, uint32(indom)); err != nil {
		return false, err
	}
	return ok1 && ok2, nil
}

// closestBefore finds, in states sorted by time, the one in force at t
// with the real tool's binary search: an exact match, or the element the
// search stops on if it is earlier than t, else none.
func closestBefore(recs []*indomRec, t pmapi.Timestamp) *indomRec {
	first, last := 0, len(recs)-1
	count := last
	middle := (first + last) / 2
	previous := middle
	cmp := -1
	for first <= last {
		cmp = recs[middle].stamp.Compare(t)
		if cmp == 0 {
			return recs[middle]
		}
		previous = middle
		if cmp < 0 {
			if middle == count {
				break
			}
			first = middle + 1
		} else {
			if middle == 0 {
				break
			}
			last = middle - 1
		}
		middle = (first + last) / 2
	}
	if previous != middle {
		cmp = recs[middle].stamp.Compare(t)
	}
	if cmp < 0 {
		return recs[middle]
	}
	return nil
}

// putLabel writes the label set of a kind and identifier that the
// table's search finds, if it is in force at t (stamped no later) and
// not written yet; it is stamped t. done reports that there is none, or
// that it is written: a later call would do nothing.
func (x *extractor) putLabel(typ, ident uint32, t pmapi.Timestamp) (done bool, err error) {
	tab := x.labels[typ]
	if tab == nil {
		return true, nil
	}
	l, ok := tab.Search(ident)
	if !ok || l.written {
		return true, nil
	}
	if t.Before(l.rec.Stamp) {
		return false, nil
	}
	rec := *l.rec
	rec.Stamp = t
	if err := x.w.PutLabels(&rec); err != nil {
		return false, x.writeErr(err)
	}
	l.written = true
	return true, nil
}

func (x *extractor) putText(typ, ident uint32) error {
	tr, ok := x.texts[textKey{typ, ident}]
	if !ok || tr.written {
		return nil
	}
	if err := x.w.PutText(tr.text); err != nil {
		return x.writeErr(err)
	}
	tr.written = true
	return nil
}

func isDir(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.IsDir()
}

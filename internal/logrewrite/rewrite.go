// Package logrewrite implements pmlogrewrite: it copies an archive,
// rewriting its metadata and values by the rules of configuration files
// (pmlogrewrite(1)'s language), and writes what PCP 6.0.3's pmlogrewrite
// writes: the same records, metadata and temporal index, byte for byte
// (the labels keep the input's pid, as the real tool's do).
// cmd/pmlogrewrite is a thin wrapper around Main.
//
// How the real tool works, as reproduced here (checked by running it on
// the shared archives):
//
//   - The data records are read in order. Before each one goes the
//     metadata due: descriptors up to the first one whose metric is not in
//     the record (all of them, once an event metric has been seen),
//     instance domains, label sets and help texts up to the first one
//     stamped after the record. Metadata after the last record is not
//     copied.
//   - A record gets a temporal index entry when the input has one at its
//     time, when metadata (but a descriptor) went before it, when it is
//     the first, and after a <mark>. A closing entry follows the last
//     record unless it has one.
//   - The output changes volume where the input does.
//   - A record is rewritten as libpcp encodes it; one left without value
//     sets (all its metrics deleted) is not written.
//
// Text and label rules are applied to the help text and label records
// as they are copied. The data streams: memory holds the metadata (as
// the archive reader does) and one record.
package logrewrite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Options are the settings of one rewrite.
type Options struct {
	Input          string   // the archive to read
	Output         string   // base name of the archive to create ("" with InPlace)
	Configs        []string // -c: configuration files, in order
	Check          bool     // -C: parse the configuration and stop
	Desperate      bool     // -d: keep the output after a fatal error
	InPlace        bool     // -i: replace the input
	Quick          bool     // -q: write nothing when no rule changes anything
	Scale          bool     // -s: rescale values when units change scale
	Verbose        int      // -v
	Warnings       bool     // -w
	Version        int      // -V: output version (0: the input's)
	Stdout, Stderr io.Writer

	// failAfterRename, for tests: an in-place rewrite stops with this
	// error after renaming that many files.
	failAfterRename int
	failErr         error
}

// Error is a failure reported as the real tool reports it: Msg is
// printed as it is.
type Error struct {
	Msg        string
	NotCreated bool // "Archive "x" not created." follows
	Truncated  bool // -d: "Archive "x" creation truncated." follows
	Abort      bool // the real tool fails an assertion here: exit status 134
}

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

const prog = "pmlogrewrite"

// Rewrite runs one rewrite.
func Rewrite(o *Options) error {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	a, err := archive.Open(o.Input)
	if errors.Is(err, pmapi.ErrNoData) {
		// An archive without data (files of a label or less) is left
		// as it is, and the run succeeds.
		fmt.Fprintf(o.Stderr, "%s: Warning: empty archive \"%s\" will be skipped\n", prog, o.Input)
		return nil
	}
	if err != nil {
		return errorf("%s: Error: cannot open archive \"%s\": %s\n", prog, o.Input, archive.ErrText(err))
	}
	defer a.Close()
	in := a.Label()
	outVer := o.Version
	if outVer == 0 {
		outVer = in.Version
	}
	if outVer < in.Version {
		return errorf("%s: Error: cannot create a v%d archive from v%d (%s)\n", prog, outVer, in.Version, o.Input)
	}
	r := newRules()
	lastLine := 0
	for _, f := range o.Configs {
		src, err := os.ReadFile(f)
		if err != nil {
			return errorf("%s: Cannot open config file \"%s\": %s\n", prog, f, archive.ErrText(err))
		}
		p := &parser{lx: newLexer(string(src)), file: f, r: r, meta: a.Meta(), label: in, arch: a,
			outVer: outVer, warn: o.Warnings || o.Check, scale: o.Scale, stderr: o.Stderr}
		if err := p.parse(); err != nil {
			var ce *cfgError
			return &Error{Msg: err.Error(), Abort: errors.As(err, &ce) && ce.assert != ""}
		}
		lastLine = p.lx.line
	}
	last := ""
	if len(o.Configs) > 0 {
		last = o.Configs[len(o.Configs)-1]
	}
	if err := r.link(a.Meta(), last, lastLine, o.Warnings || o.Check, o.Stderr); err != nil {
		return &Error{Msg: err.Error()}
	}
	if o.Verbose > 0 || o.Check {
		r.report(o.Stdout, in, a.Meta().Names)
	}
	if o.Check || o.Quick && !r.anyChange() {
		return nil
	}
	out := o.Output
	if o.InPlace {
		out = tempBase(o.Input)
	}
	x := &rewriter{opt: o, a: a, r: r, version: outVer, out: out}
	if err := x.run(); err != nil {
		if x.w != nil && !o.Desperate {
			x.w.Abandon()
			removeArchive(out)
		} else if x.w != nil {
			x.w.Abandon()
		}
		var e *Error
		if errors.As(err, &e) && !o.InPlace {
			e.NotCreated, e.Truncated = !o.Desperate, o.Desperate
		}
		return err
	}
	if o.InPlace {
		return replace(o.Input, a, out, o)
	}
	return nil
}

// rewriter holds the state of one rewrite.
type rewriter struct {
	opt     *Options
	a       *archive.Archive
	r       *rules
	version int
	out     string
	w       *archive.Writer

	active map[pmapi.PMID]*metricSpec // metrics whose values change
	// usedInDoms are the instance domains of the output's metrics: the
	// real tool writes no other
	usedInDoms map[pmapi.InDom]bool
	seenEvt    bool
	// the stamp of the metadata record at pendingAt-1 as last shifted
	pending   pmapi.Timestamp
	pendingAt int
	meta      []archive.MetaRecord
	mi        int
	buf       []byte
}

// fix applies the global time change.
func (x *rewriter) fix(t pmapi.Timestamp) pmapi.Timestamp {
	g := &x.r.global
	if g.flags&gTime == 0 || g.sec == 0 {
		// (a delta under a second changes nothing in the real tool)
		return t
	}
	if g.sec > 0 {
		t.Sec += g.sec
		t.Nsec += int32(g.nsec)
		if t.Nsec >= 1e9 {
			t.Sec++
			t.Nsec -= 1e9
		}
		return t
	}
	t.Sec += g.sec
	t.Nsec -= int32(g.nsec)
	if t.Nsec < 0 {
		t.Sec--
		t.Nsec += 1e9
	}
	return t
}

func (x *rewriter) run() error {
	x.active = map[pmapi.PMID]*metricSpec{}
	for _, mp := range x.r.metrics {
		// (a new name or semantics changes no value)
		if mp.flags&^(mChangeName|mChangeSem) != 0 || mp.ip != nil {
			x.active[mp.old.PMID] = mp
		}
	}
	x.usedInDoms = map[pmapi.InDom]bool{}
	for _, d := range x.a.Meta().Descs {
		indom := d.InDom
		if mp := x.r.byPMID[d.PMID]; mp != nil {
			if mp.flags&mDelete != 0 {
				continue
			}
			indom = mp.new.InDom
		}
		x.usedInDoms[indom] = true
	}
	var err error
	if x.meta, err = x.a.MetaRecords(); err != nil {
		return errorf("%s: Error: %s\n", prog, err)
	}
	cur := x.a.NewCursor()
	index := x.a.Index()
	ti := 0
	needIndex := false
	lastVol := -1
	for {
		rec, err := cur.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return x.readErr(cur, err)
		}
		if x.w != nil && rec.Vol != lastVol && lastVol >= 0 {
			if err := x.w.NewVolume(); err != nil {
				return x.writeErr(err)
			}
		}
		lastVol = rec.Vol
		if ti < len(index) && index[ti].Stamp == rec.Stamp {
			needIndex = true
			ti++
		}
		stamp := x.fix(rec.Stamp)
		if x.w == nil {
			if err := x.create(stamp); err != nil {
				return err
			}
			if err := x.putNewLabels(stamp); err != nil {
				return err
			}
			needIndex = true
		}
		more, err := x.putMeta(rec, stamp)
		if err != nil {
			return err
		}
		needIndex = needIndex || more
		if needIndex {
			x.w.IndexNext()
		}
		needIndex = rec.IsMark()
		if err := x.putRecord(rec, stamp); err != nil {
			// the real tool wrote the record's index entry before it
			// failed on the record (what -d keeps)
			x.w.Skipped(stamp)
			return err
		}
	}
	if x.w == nil {
		// no record: an empty archive
		fmt.Fprintf(x.opt.Stderr, "%s: Warning: empty archive \"%s\" will be skipped\n", prog, x.opt.Input)
		return nil
	}
	if err := x.w.Close(); err != nil {
		return x.writeErr(err)
	}
	return nil
}

func (x *rewriter) writeErr(err error) error {
	return errorf("%s: Error: %s\n", prog, err)
}

// create starts the output archive, its label made from the input's and
// the global rules, starting at the first record.
func (x *rewriter) create(start pmapi.Timestamp) error {
	in := x.a.Label()
	g := &x.r.global
	opts := archive.WriterOptions{
		Version:       x.version,
		Hostname:      in.Hostname,
		TZ:            in.TZ,
		Zoneinfo:      in.Zoneinfo,
		Features:      in.Features,
		PID:           in.PID,
		Start:         start,
		IndexByCaller: true,
		CoalesceData:  true,
	}
	if g.flags&gHostname != 0 {
		opts.Hostname = g.hostname
	}
	if g.flags&gTZ != 0 {
		opts.TZ = g.tz
	}
	if g.flags&gZoneinfo != 0 {
		opts.Zoneinfo = g.zoneinfo
	}
	if g.flags&gFeatures != 0 {
		opts.Features = g.features
	}
	if x.opt.InPlace {
		opts.Perm = 0o600
	}
	w, err := archive.Create(x.out, opts)
	if err != nil {
		return errorf("%s: Error: __pmLogCreate(%s): %s\n", prog, x.out, archive.ErrText(err))
	}
	x.w = w
	return nil
}

// pendingStamp is the time of the metadata record at x.mi as the real
// tool sees it: it shifts the record's time (the global time rule) each
// time it looks at it, and looks at a record that is not due yet again
// with the next data record, so a record held back is shifted again
// (and a forward shift can push it past every record: it is then never
// written).
func (x *rewriter) pendingStamp(t pmapi.Timestamp) pmapi.Timestamp {
	if x.pendingAt != x.mi+1 {
		x.pendingAt, x.pending = x.mi+1, t
	}
	x.pending = x.fix(x.pending)
	return x.pending
}

// putMeta writes the metadata due before rec (stamped t), and reports
// whether an index entry is due (anything but a descriptor went out).
func (x *rewriter) putMeta(rec *archive.Record, t pmapi.Timestamp) (bool, error) {
	due := false
	for ; x.mi < len(x.meta); x.mi++ {
		mr := &x.meta[x.mi]
		switch {
		case mr.Desc != nil:
			if !x.seenEvt {
				if mr.Desc.Type == pmapi.TypeEvent || mr.Desc.Type == pmapi.TypeHighresEvent {
					x.seenEvt = true
				} else if !recordHas(rec, mr.Desc.PMID) {
					return due, nil
				}
			}
			if err := x.putDesc(mr); err != nil {
				return due, err
			}
		case mr.InDom != nil:
			st := mr.InDom.Stamp
			if mr.InDom.Type == archive.MetaInDomDelta {
				// the real tool does not shift the time of a delta
				x.pendingAt, x.pending = x.mi+1, st
			} else {
				st = x.pendingStamp(st)
			}
			if t.Before(st) {
				return due, nil
			}
			due = true
			if err := x.putInDom(mr); err != nil {
				return due, err
			}
		case mr.Label != nil:
			if t.Before(x.pendingStamp(mr.Label.Stamp)) {
				return due, nil
			}
			due = true
			if err := x.putLabel(mr); err != nil {
				return due, err
			}
		case mr.Text != nil:
			due = true
			if err := x.putText(mr); err != nil {
				return due, err
			}
		}
	}
	return due, nil
}

func recordHas(rec *archive.Record, pmid pmapi.PMID) bool {
	for i := range rec.NumPMID() {
		if rec.PMID(i) == pmid {
			return true
		}
	}
	return false
}

// putRaw writes a metadata record re-encoded for the output's version.
func (x *rewriter) putRaw(mr *archive.MetaRecord) error {
	var err error
	if x.buf, err = archive.AppendMetaRecord(x.buf[:0], x.version, mr); err != nil {
		return x.writeErr(err)
	}
	if err := x.w.PutRawMeta(x.buf); err != nil {
		return x.writeErr(err)
	}
	return nil
}

func (x *rewriter) putDesc(mr *archive.MetaRecord) error {
	mp := x.r.byPMID[mr.Desc.PMID]
	if mp != nil && mp.flags&mDelete != 0 {
		return nil
	}
	d := *mr.Desc
	// names are C strings: each ends at its first NUL
	names := make([]string, len(mr.Names))
	for i, n := range mr.Names {
		names[i], _, _ = strings.Cut(n, "\x00")
	}
	c := *mr
	c.Desc, c.Names = &d, names
	if mp == nil || mp.flags == 0 {
		return x.putRaw(&c)
	}
	if mp.flags&mChangePMID != 0 {
		d.PMID = mp.new.PMID
	}
	if mp.flags&mChangeName != 0 {
		// (the real tool looks at the first name only)
		if len(names) == 0 || names[0] != mp.oldName {
			return errorf("%s: Botch: old name %s not found in list of %d names for pmid %s\n", prog, mp.oldName, len(names), mp.old.PMID)
		}
		names = append([]string{mp.newName}, names[1:]...)
	}
	if mp.flags&mChangeType != 0 {
		d.Type = mp.new.Type
	}
	if mp.flags&mChangeInDom != 0 {
		d.InDom = mp.new.InDom
	}
	if mp.flags&mChangeSem != 0 {
		d.Sem = mp.new.Sem
	}
	if mp.flags&mChangeUnits != 0 {
		d.Units = mp.new.Units
	}
	c.Names = names
	return x.putRaw(&c)
}

func (x *rewriter) putInDom(mr *archive.MetaRecord) error {
	ir := *mr.InDom
	ir.Stamp = x.pending
	if ip := x.r.byInDom[ir.InDom]; ip != nil {
		if ip.duplicate && ip.new != ip.old {
			// INDOM -> DUPLICATE: the original first, as it is,
			// then the rewritten copy
			orig := ir
			if err := x.writeInDom(mr, &orig); err != nil {
				return err
			}
		}
		ir.InDom = ip.new
		insts := append([]int32(nil), ir.Insts...)
		names := append([]string(nil), ir.Names...)
		var deleted []bool
		if ir.Deleted != nil {
			deleted = append([]bool(nil), ir.Deleted...)
		}
		for i := range ip.insts {
			j := 0
			for ; j < len(insts); j++ {
				if insts[j] == ip.insts[i] {
					break
				}
			}
			if j == len(insts) {
				continue
			}
			switch f := ip.flags[i]; {
			case f&instDelete != 0:
				insts = append(insts[:j], insts[j+1:]...)
				names = append(names[:j], names[j+1:]...)
				if deleted != nil {
					deleted = append(deleted[:j], deleted[j+1:]...)
				}
			default:
				if f&instChangeInst != 0 {
					insts[j] = ip.newInst[i]
				}
				if f&instChangeName != 0 && (deleted == nil || !deleted[j]) {
					names[j] = ip.newName[i]
				}
			}
		}
		ir.Insts, ir.Names, ir.Deleted = insts, names, deleted
	}
	if !x.usedInDoms[ir.InDom] {
		// no metric of the output is defined over it
		return nil
	}
	return x.writeInDom(mr, &ir)
}

// writeInDom writes ir, an instance domain record (mr rewritten).
func (x *rewriter) writeInDom(mr *archive.MetaRecord, ir *archive.InDomRecord) error {
	if ir.Type == archive.MetaInDomDelta {
		c := *mr
		c.InDom = ir
		return x.putRaw(&c)
	}
	// a full record goes out as libpcp's writer puts it: in Version 3,
	// as a delta from the last state written when that is shorter
	if err := x.w.PutInDom(ir); err != nil {
		return x.writeErr(err)
	}
	return nil
}

func (x *rewriter) putLabel(mr *archive.MetaRecord) error {
	return x.r.rewriteLabels(mr.Label, x.pending, func(lr *archive.LabelRecord) error {
		c := *mr
		c.Label = lr
		return x.putRaw(&c)
	})
}

// putNewLabels writes the NEW label sets, each spec's as one record,
// stamped t (the output's start).
func (x *rewriter) putNewLabels(t pmapi.Timestamp) error {
	for _, lp := range x.r.labels {
		if lp.flags&lNew == 0 {
			continue
		}
		mr := archive.MetaRecord{Label: &archive.LabelRecord{Stamp: t, Type: lp.typ, Ident: lp.new, Sets: []archive.LabelSet{*lp.newSet}}}
		if err := x.putRaw(&mr); err != nil {
			return err
		}
	}
	return nil
}

func (x *rewriter) putText(mr *archive.MetaRecord) error {
	t := *mr.Text
	if !x.r.rewriteText(&t) {
		return nil
	}
	c := *mr
	c.Text = &t
	return x.putRaw(&c)
}

// putRecord writes rec rewritten, stamped t.
func (x *rewriter) putRecord(rec *archive.Record, t pmapi.Timestamp) error {
	touched := t != rec.Stamp
	// (with no metric whose values change, no value set is looked at)
	for i := 0; i < rec.NumPMID() && !touched && len(x.active) > 0; i++ {
		touched = x.active[rec.PMID(i)] != nil
	}
	if !touched {
		if err := x.w.PutRecord(rec); err != nil {
			return x.writeErr(err)
		}
		return nil
	}
	res := rec.Result()
	res.Timestamp = t
	kept := res.VSets[:0]
	for i := range res.VSets {
		vs := res.VSets[i]
		mp := x.active[vs.PMID]
		if mp == nil {
			kept = append(kept, vs)
			continue
		}
		if mp.flags&mDelete != 0 {
			continue
		}
		if err := x.rewriteVSet(&vs, mp); err != nil {
			return err
		}
		kept = append(kept, vs)
	}
	if len(kept) == 0 && !rec.IsMark() {
		if err := x.w.Skipped(t); err != nil {
			return x.writeErr(err)
		}
		return nil
	}
	res.VSets = kept
	if err := x.w.PutResult(res); err != nil {
		return x.writeErr(err)
	}
	return nil
}

// rewriteVSet applies a metric's changes to its values, in the real
// tool's order: the pick of one value (indom changes), instance
// renumbering and deletion, rescaling, then the type.
func (x *rewriter) rewriteVSet(vs *pmapi.ValueSet, mp *metricSpec) error {
	if mp.flags&mChangePMID != 0 {
		vs.PMID = mp.new.PMID
	}
	if vs.NumVal <= 0 {
		return nil
	}
	if mp.flags&mChangeInDom != 0 && mp.output != outAll {
		pick := x.pick(vs, mp)
		if pick >= 0 {
			v := vs.Values[pick]
			switch {
			case mp.new.InDom == pmapi.InDomNull:
				v.Inst = pmapi.InstNull
			case mp.old.InDom == pmapi.InDomNull:
				v.Inst = mp.oneInst
			}
			vs.Values = []pmapi.Value{v}
		} else {
			vs.Values = nil
		}
		vs.NumVal = int32(len(vs.Values))
	}
	if ip := mp.ip; ip != nil {
		for k := range ip.insts {
			if ip.flags[k]&instChangeInst != 0 {
				for j := range vs.Values {
					if vs.Values[j].Inst == ip.insts[k] {
						vs.Values[j].Inst = ip.newInst[k]
					}
				}
			}
			if ip.flags[k]&instDelete != 0 {
				for j := 0; j < len(vs.Values); j++ {
					if vs.Values[j].Inst == ip.insts[k] {
						vs.Values = append(vs.Values[:j], vs.Values[j+1:]...)
						break
					}
				}
			}
		}
		vs.NumVal = int32(len(vs.Values))
	}
	if mp.flags&mChangeUnits != 0 && mp.flags&mRescale != 0 {
		for j := range vs.Values {
			v := &vs.Values[j]
			a, err := extract(v, mp.old.Type)
			if err == nil {
				a, err = rescale(a, mp.old.Type, mp.old.Units, mp.new.Units)
			}
			if err != nil {
				return errorf("%s: Botch: %s (%s): scale conversion from %s to %s failed: %s\n", prog, mp.oldName, mp.old.PMID, mp.old.Units, mp.new.Units, pmapi.ErrStr(int32(archive.Code(err))))
			}
			vs.ValFmt = stuff(a, mp.old.Type, v)
		}
	}
	if mp.flags&mChangeType != 0 {
		for j := range vs.Values {
			v := &vs.Values[j]
			a, err := extract(v, mp.old.Type)
			if err == nil {
				a, err = convert(a, mp.old.Type, mp.new.Type)
			}
			if err != nil {
				return errorf("%s: Error: %s (%s): extracting value from type %s to %s: %s\n", prog, mp.oldName, mp.old.PMID, mp.old.Type, mp.new.Type, errText(err))
			}
			vs.ValFmt = stuff(a, mp.new.Type, v)
		}
	}
	return nil
}

func errText(err error) string {
	var e pmapi.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

// pick chooses the one value an OUTPUT clause keeps (-1: none).
func (x *rewriter) pick(vs *pmapi.ValueSet, mp *metricSpec) int {
	n := len(vs.Values)
	switch mp.output {
	case outFirst:
		return 0
	case outLast:
		return n - 1
	case outOne:
		for j := range vs.Values {
			if vs.Values[j].Inst == mp.oneInst {
				return j
			}
		}
		return -1
	}
	// MIN, MAX, SUM and AVG over the old type's values
	t := mp.old.Type
	vals := make([]atom, n)
	for j := range vs.Values {
		vals[j], _ = extract(&vs.Values[j], t)
	}
	less := func(a, b atom) bool {
		switch t {
		case pmapi.Type32, pmapi.Type64:
			return int64(a.u) < int64(b.u)
		case pmapi.TypeU32, pmapi.TypeU64:
			return a.u < b.u
		}
		return a.f < b.f
	}
	pick := 0
	acc := vals[0]
	for j := 1; j < n; j++ {
		switch mp.output {
		case outMin:
			if less(vals[j], vals[pick]) {
				pick = j
			}
		case outMax:
			if less(vals[pick], vals[j]) {
				pick = j
			}
		case outSum, outAvg:
			acc = addAtom(acc, vals[j], t)
		}
	}
	if mp.output == outSum || mp.output == outAvg {
		if mp.output == outAvg {
			acc = avgAtom(acc, n, t)
		}
		stuff(acc, t, &vs.Values[0])
		if t == pmapi.Type32 || t == pmapi.TypeU32 {
			vs.ValFmt = pmapi.ValFmtInsitu
		}
		return 0
	}
	return pick
}

func addAtom(a, b atom, t pmapi.Type) atom {
	switch t {
	case pmapi.Type32:
		return atom{u: uint64(int64(int32(a.u) + int32(b.u)))}
	case pmapi.TypeU32:
		return atom{u: uint64(uint32(a.u) + uint32(b.u))}
	case pmapi.TypeFloat:
		return atom{f: float64(float32(a.f) + float32(b.f))}
	case pmapi.TypeDouble:
		return atom{f: a.f + b.f}
	}
	return atom{u: a.u + b.u}
}

func avgAtom(a atom, n int, t pmapi.Type) atom {
	d := float64(n)
	switch t {
	case pmapi.Type32:
		return atom{u: uint64(int64(int32(0.5 + float64(int32(a.u))/d)))}
	case pmapi.TypeU32:
		return atom{u: uint64(uint32(0.5 + float64(uint32(a.u))/d))}
	case pmapi.Type64:
		return atom{u: uint64(int64(0.5 + float64(int64(a.u))/d))}
	case pmapi.TypeU64:
		return atom{u: uint64(0.5 + float64(a.u)/d)}
	case pmapi.TypeFloat:
		return atom{f: float64(float32(a.f) / float32(n))}
	}
	return atom{f: a.f / d}
}

// tempBase is a new base name beside the archive base, for -i.
func tempBase(base string) string {
	dir := filepath.Dir(archive.BaseName(base))
	f, err := os.CreateTemp(dir, ".pmlogrewrite-")
	if err != nil {
		return filepath.Join(dir, fmt.Sprintf(".pmlogrewrite-%d", os.Getpid()))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return name
}

// removeArchive removes every file of the archive base (the abandoned
// output).
func removeArchive(base string) {
	for _, suf := range []string{".meta", ".index"} {
		os.Remove(base + suf)
	}
	for v := 0; ; v++ {
		if os.Remove(fmt.Sprintf("%s.%d", base, v)) != nil {
			break
		}
	}
}

// readErr is the real tool's report of a data record it cannot read:
// for a damaged one, where in which volume (where libpcp's read leaves
// the file: archive.FailOffset) and, with -d, that the rest of the
// volume is left out.
func (x *rewriter) readErr(cur *archive.Cursor, err error) *Error {
	msg := fmt.Sprintf("%s: Error: __pmLogRead[log %s]: %s\n", prog, x.opt.Input, archive.ErrText(err))
	if errors.Is(err, pmapi.ErrLogRec) {
		vol, off := cur.Position()
		if size, serr := x.a.VolumeSize(vol); serr == nil {
			msg += fmt.Sprintf("%s: Error occurred at byte offset %d into a file of %d bytes.\n", prog, x.a.FailOffset(vol, off), size)
			if x.opt.Desperate {
				msg += "The last record, and the remainder of this file will not be processed.\n"
			}
		}
	}
	return &Error{Msg: msg}
}

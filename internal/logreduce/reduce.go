// Package logreduce is pmlogreduce: it writes a temporally reduced copy
// of a PCP archive, as PCP 6.0.3's pmlogreduce(1) does.
//
// What 6.0.3 does, which is less than its manual says (no averaging and
// no wrap counting: its scan has them as a to-do):
//
//   - The archive (or set of archives) is read by two contexts: one
//     interpolates every metric of the namespace at the window's start
//     and at each -t interval after it (libpcp's PM_MODE_INTERP), the
//     other reads the records themselves forwards. Aggregate and event
//     metrics are skipped with a warning, and a PMID with several names
//     is fetched once.
//   - Before each output record the record reader reads on up to its
//     time: it notes which instances of which metrics it saw, and copies
//     each <mark> it meets to the output at once, the first one past the
//     interval too (that one again at the next scan, which starts at the
//     first record past the last interval; so a <mark> right after an
//     interval's end is written twice, and ahead of the record of that
//     interval).
//   - The output record is the interpolated one, less the values of
//     instances not seen since the last output record (an instance's
//     first value is always kept), with the values of 32-bit counters
//     promoted to 64 bits. Value sets without values or with an error
//     stay. A record left with no value sets is not written.
//   - An instance domain is written (as a Version 3 delta where libpcp
//     would) with the first record that has values of a metric over it,
//     and again whenever its instances, as pmGetInDom gives them after
//     the fetch (at the next interpolation time), change in number or
//     order.
//   - The label is the input's (version, host, time zone; no zoneinfo),
//     stamped with the window's start. Index entries point in front of
//     the first record, of the first record of each volume, of a record
//     an instance domain was written for, and of the first record past
//     each 100000 bytes of the volume, and a closing one points at the
//     ends of the files.
//
// Every time is in microseconds, as 6.0.3 computes the window and the
// interval with struct timeval.
package logreduce

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// defaultInterval is -t's default, 10 minutes, in nanoseconds.
const defaultInterval = 600e9

// flushSize is the number of data bytes after which a record gets an
// index entry.
const flushSize = 100000

// Options are what pmlogreduce's command line sets.
type Options struct {
	Input, Output     string
	Start, End, Align *string       // -S, -T, -A as given (nil: not)
	Interval          int64         // -t, nanoseconds (a whole number of microseconds)
	Samples           int           // -s: records to write; -1 for no limit
	VolSamples        int           // -v: records per data volume; <= 0 for no limit
	HostZone          bool          // -z
	Zone              *pcptime.Zone // -Z's zone (nil: none)
	ZoneName          string        // -Z's argument
	Stdout, Stderr    io.Writer
}

// Error is a failure with the real tool's message (Msg, every line ended
// by a newline).
type Error struct {
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// metric is a metric of the fetch list.
type metric struct {
	pmid    pmapi.PMID
	name    string     // the name it was found under first
	desc    pmapi.Desc // the input's
	skip    bool       // aggregate or event: never written
	promote pmapi.Type // Type64 or TypeU64 for a 32-bit counter, else 0
	indom   *indomState
	insts   []instState // the instances seen, in order of first sighting
	index   instMap     // instance -> position in insts
}

// instState is what the scan knows of one instance of a metric.
type instState struct {
	inst int32
	init bool // never written yet
	seen bool // seen by the last scan
}

// indomState is the instance domain last written for the metrics over it.
type indomState struct {
	indom pmapi.InDom
	insts []int32
}

// reducer is one run.
type reducer struct {
	o       *Options
	zone    *pcptime.Zone
	ip      *replay.Context
	w       *archive.Writer
	metrics []*metric
	pmids   []pmapi.PMID // the fetch list: metrics' PMIDs, skipped ones too
	byPMID  map[pmapi.PMID]*metric

	slots   []instRef    // the scanner's slots
	sortBuf inDomSort    // sortInDom's
	out     pmapi.Result // the output record, reused
	arena   []byte       // the blocks of out's promoted values, reused
}

// Reduce runs pmlogreduce with o.
func Reduce(o *Options) error {
	r := &reducer{o: o, byPMID: map[pmapi.PMID]*metric{}}
	// both contexts behave as the PCP version of pcpkit's tools
	// (pcpconf.Version): 6.3.8's libpcp interpolates an instantaneous
	// value from the nearer record, not the one before
	ip, err := replay.Open(o.Input)
	if err != nil {
		return errorf("%s: Error: cannot open archive \"%s\" (ctx_a): %s\n", prog, o.Input, archive.ErrText(err))
	}
	defer ip.Close()
	r.ip = ip
	label := ip.Label()
	end, err := ip.End()
	if err != nil {
		return errorf("%s: Error: cannot get end of archive (%s): %s\n", prog, o.Input, archive.ErrText(err))
	}
	switch {
	case o.HostZone:
		r.zone = pcptime.LoadZone(label.TZ)
		fmt.Fprintf(o.Stdout, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", label.Hostname)
	case o.Zone != nil:
		r.zone = o.Zone
		fmt.Fprintf(o.Stdout, "Note: timezone set to \"TZ=%s\"\n\n", o.ZoneName)
	default:
		r.zone = pcptime.LocalZone()
	}
	// pmParseTimeWindow, with struct timevals.
	lo, hi := micro(label.Start), micro(end)
	start, winEnd := lo, hi
	if o.Start != nil || o.End != nil || o.Align != nil {
		w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.End, Align: o.Align}, lo, hi, r.zone)
		if perr != nil {
			return errorf("%s: Invalid time window specified: %s\n", prog, perr.Message())
		}
		start, winEnd = micro(w.Start), micro(w.End)
	}
	if err := ip.SetMode(replay.Interp, start, o.Interval); err != nil {
		return errorf("%s: pmSetModeHighRes(PM_MODE_INTERP ...) failed: %s\n", prog, archive.ErrText(err))
	}
	// Each result is written before the next fetch.
	ip.SetReuse(true)
	w, err := archive.Create(o.Output, archive.WriterOptions{
		Version:       label.Version,
		Hostname:      label.Hostname,
		TZ:            label.TZ,
		Start:         start,
		IndexByCaller: true,
		Buffered:      true,
		NoSync:        true,
		CarryStamps:   true,
	})
	if err != nil {
		return createError(o.Output, err)
	}
	r.w = w
	err = r.run(start, winEnd)
	if err == nil {
		err = w.Close()
	} else {
		w.Abandon()
	}
	var fatal *fatalError
	if errors.As(err, &fatal) {
		// exit(1) where it stands: the output stays, with the files
		// the real tool creates first.
		l := w.Label()
		for _, f := range []struct {
			suf string
			vol int32
		}{{".0", 0}, {".index", archive.VolIndex}} {
			if _, err := os.Lstat(o.Output + f.suf); err == nil {
				continue
			}
			l.Vol = f.vol
			os.WriteFile(o.Output+f.suf, archive.AppendLabel(nil, &l), 0o644)
		}
		return fatal.msg
	}
	if err != nil {
		// The real tool's cleanup: the first volume, the metadata and
		// the index are removed.
		var e *Error
		if !errors.As(err, &e) {
			e = errorf("%s: Error: %s\n", prog, archive.ErrText(err))
		}
		for _, suf := range []string{".0", ".meta", ".index"} {
			os.Remove(o.Output + suf)
		}
		return errorf("%sArchive \"%s\" not created.\n", e.Msg, o.Output)
	}
	return nil
}

// fatalError is an error after which the real tool exits at once,
// leaving its output as it is.
type fatalError struct {
	msg *Error
}

func (e *fatalError) Error() string { return e.msg.Msg }

func fatalf(format string, args ...any) error {
	return &fatalError{errorf(format, args...)}
}

// createError is __pmLogCreate's complaint about the output.
func createError(base string, err error) error {
	var ex *archive.ExistsError
	if errors.As(err, &ex) {
		return errorf("__pmLogNewFile: \"%s\" already exists, not over-written\n%s: Error: __pmLogCreate: File exists\n", ex.Path, prog)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return errorf("__pmLogNewFile: failed to create \"%s\": %s\n%s: Error: __pmLogCreate: %s\n", pe.Path, archive.ErrText(err), prog, archive.ErrText(err))
	}
	return errorf("%s: Error: __pmLogCreate: %s\n", prog, archive.ErrText(err))
}

// micro truncates t to microseconds, as a struct timeval holds it.
func micro(t pmapi.Timestamp) pmapi.Timestamp {
	t.Nsec -= t.Nsec % 1000
	return t
}

// run writes the metadata and the records.
func (r *reducer) run(start, winEnd pmapi.Timestamp) error {
	if err := r.describe(); err != nil {
		return err
	}
	raw, err := replay.Open(r.o.Input)
	if err != nil {
		return fatalf("%s: Error: cannot open archive \"%s\" (ctx_b): %s\n", prog, r.o.Input, archive.ErrText(err))
	}
	sc := newScanner(raw, r.metrics, r.byPMID)
	go sc.run(start, r.o.Interval)
	defer func() {
		sc.stop()
		raw.Close()
	}()
	current := start
	flushAt := int64(flushSize)
	written := 0
	for r.o.Samples < 0 || written < r.o.Samples {
		res, err := r.ip.Fetch(r.pmids)
		if errors.Is(err, pmapi.ErrEOL) {
			break
		}
		if err != nil {
			return fatalf("%s: Error: pmFetch failed: %s\n", prog, archive.ErrText(err))
		}
		if winEnd.Before(res.Timestamp) {
			break
		}
		metaBefore, _ := r.w.Offsets()
		needIndex := written == 0
		if err := r.scan(sc, res.Timestamp); err != nil {
			return err
		}
		out, err := r.rewrite(res)
		if err != nil {
			return err
		}
		if out == nil {
			continue
		}
		if r.o.VolSamples > 0 && written > 0 && written%r.o.VolSamples == 0 {
			if err := r.w.NewVolume(); err != nil {
				return err
			}
			r.newVolumeNote(res.Timestamp)
			needIndex = true
			flushAt = flushSize
		}
		current = out.Timestamp
		changed, err := r.putInDoms(out, current)
		if err != nil {
			return err
		}
		needIndex = needIndex || changed
		vol, dataBefore := r.w.Volume(), r.dataOff()
		if err := r.w.PutResult(out); err != nil {
			return err
		}
		written++
		dataAfter := r.dataOff()
		if dataAfter > flushAt {
			needIndex = true
		}
		if needIndex {
			e := archive.IndexEntry{Stamp: current, Vol: int32(vol), MetaOff: metaBefore, DataOff: dataBefore}
			if err := r.w.PutIndexEntry(e); err != nil {
				return err
			}
		}
		if dataAfter > flushAt {
			flushAt = dataAfter + flushSize
		}
	}
	meta, _ := r.w.Offsets()
	return r.w.PutIndexEntry(archive.IndexEntry{Stamp: current, Vol: int32(r.w.Volume()), MetaOff: meta, DataOff: r.dataOff()})
}

// dataOff is the size of the data volume being written.
func (r *reducer) dataOff() int64 {
	_, d := r.w.Offsets()
	return d
}

// newVolumeNote is the real tool's line on a new volume.
func (r *reducer) newVolumeNote(t pmapi.Timestamp) {
	b := fmt.Appendf(nil, "%s: New log volume %d, at ", prog, r.w.Volume())
	b = pcptime.AppendStamp(b, r.zone.Civil(t.Sec), int64(t.Nsec), 9)
	b = append(b, '\n')
	r.o.Stderr.Write(b)
}

// describe builds the fetch list from the namespace, in pmTraversePMNS's
// order, and writes each metric's descriptor (with all its names), as the
// real tool's dometric does.
func (r *reducer) describe() error {
	meta := r.ip.Meta()
	indoms := map[pmapi.InDom]*indomState{}
	for _, name := range meta.Traverse("") {
		pmid, ok := meta.Lookup(name)
		if !ok {
			return fatalf("%s: dometric: Error: cannot lookup pmID for metric \"%s\": %s\n", prog, name, pmapi.ErrNoPMNS.Error())
		}
		d, ok := meta.Desc(pmid)
		if !ok {
			return fatalf("%s: dometric: Error: cannot lookup pmDesc for metric \"%s\": %s\n", prog, name, pmapi.ErrPMIDLog.Error())
		}
		switch d.Type {
		case pmapi.TypeAggregate, pmapi.TypeAggregateStat, pmapi.TypeEvent, pmapi.TypeHighresEvent:
			fmt.Fprintf(r.o.Stderr, "%s: %s: Warning: skipping %s metric\n", prog, name, d.Type)
			if r.byPMID[pmid] == nil {
				r.byPMID[pmid] = &metric{pmid: pmid, name: name, desc: *d, skip: true}
			}
			continue
		}
		if r.byPMID[pmid] != nil {
			// another name of a PMID already in the list
			continue
		}
		m := &metric{pmid: pmid, name: name, desc: *d}
		out := *d
		if d.Sem == pmapi.SemCounter {
			switch d.Type {
			case pmapi.Type32:
				m.promote = pmapi.Type64
			case pmapi.TypeU32:
				m.promote = pmapi.TypeU64
			}
			if m.promote != 0 {
				out.Type = m.promote
			}
		}
		if err := r.w.PutDesc(out, meta.Names(pmid)); err != nil {
			return err
		}
		if d.InDom != pmapi.InDomNull {
			if indoms[d.InDom] == nil {
				indoms[d.InDom] = &indomState{indom: d.InDom}
			}
			m.indom = indoms[d.InDom]
		}
		r.byPMID[pmid] = m
		r.metrics = append(r.metrics, m)
		r.pmids = append(r.pmids, pmid)
	}
	return nil
}

// rewrite is the output record for the interpolated one, res: nil when
// it would have no value sets.
func (r *reducer) rewrite(res *pmapi.Result) (*pmapi.Result, error) {
	out := &r.out
	out.Timestamp = res.Timestamp
	vsets := out.VSets[:0]
	arena := r.arena[:0]
	defer func() { r.arena = arena }()
	for j := range res.VSets {
		in := &res.VSets[j]
		if len(vsets) < cap(vsets) {
			vsets = vsets[:len(vsets)+1]
		} else {
			vsets = append(vsets, pmapi.ValueSet{})
		}
		vs := &vsets[len(vsets)-1]
		vs.PMID, vs.NumVal, vs.ValFmt = in.PMID, in.NumVal, in.ValFmt
		vs.Values = vs.Values[:0]
		if in.NumVal <= 0 {
			continue
		}
		m := r.metrics[j]
		for _, v := range in.Values {
			i, ok := m.index.get(v.Inst)
			if !ok {
				return nil, fatalf("%s: rewrite: Arrgh: cannot find inst %d in value_t list for %s (%s)\n", prog, v.Inst, m.name, m.pmid)
			}
			st := &m.insts[i]
			if !st.seen && !st.init {
				continue
			}
			if m.promote != 0 {
				var x uint64
				if m.promote == pmapi.Type64 {
					x = uint64(int64(v.Insitu))
				} else {
					x = uint64(uint32(v.Insitu))
				}
				arena = binary.BigEndian.AppendUint64(arena, x)
				v = pmapi.Value{Inst: v.Inst, BlockType: m.promote, Block: arena[len(arena)-8 : len(arena) : len(arena)]}
				vs.ValFmt = pmapi.ValFmtDptr
			}
			vs.Values = append(vs.Values, v)
			st.init = false
		}
		vs.NumVal = int32(len(vs.Values))
		if vs.NumVal == 0 {
			vsets = vsets[:len(vsets)-1]
		}
	}
	out.VSets = vsets
	if len(vsets) == 0 {
		return nil, nil
	}
	return out, nil
}

// putInDoms writes the instance domains of the metrics with values in
// out whose instances (as pmGetInDom gives them now) differ from those
// last written, stamped t, as the real tool's doindom does. It reports
// whether it wrote any.
func (r *reducer) putInDoms(out *pmapi.Result, t pmapi.Timestamp) (bool, error) {
	changed := false
	typ := archive.MetaInDom
	if r.w.Version() == 2 {
		typ = archive.MetaInDomV2
	}
	for k := range out.VSets {
		vs := &out.VSets[k]
		if vs.NumVal <= 0 {
			continue
		}
		st := r.byPMID[vs.PMID].indom
		if st == nil {
			continue
		}
		insts, names, err := r.ip.InDom(st.indom)
		if err != nil {
			return false, errorf("%s: doindom: pmGetInDom (%s) failed: %s\n", prog, st.indom, archive.ErrText(err))
		}
		// libpcp keeps an archive's instance domains sorted by
		// instance.
		insts, names = sortInDom(insts, names, &r.sortBuf)
		if slices.Equal(insts, st.insts) {
			continue
		}
		if err := r.w.PutInDom(&archive.InDomRecord{Type: typ, Stamp: t, InDom: st.indom, Insts: insts, Names: names}); err != nil {
			return false, errorf("%s: Error: failed to add pmInDom: indom %s (for pmid %s): %s\n", prog, st.indom, vs.PMID, archive.ErrText(err))
		}
		st.insts = append(st.insts[:0], insts...)
		changed = true
	}
	return changed, nil
}

// inDomSort sorts an instance domain's instances, with their names.
type inDomSort struct {
	insts []int32
	names []string
}

func (s *inDomSort) Len() int           { return len(s.insts) }
func (s *inDomSort) Less(i, j int) bool { return s.insts[i] < s.insts[j] }
func (s *inDomSort) Swap(i, j int) {
	s.insts[i], s.insts[j] = s.insts[j], s.insts[i]
	s.names[i], s.names[j] = s.names[j], s.names[i]
}

// sortInDom returns insts and names sorted by instance: themselves when
// they are, else copies sorted in buf.
func sortInDom(insts []int32, names []string, buf *inDomSort) ([]int32, []string) {
	if slices.IsSorted(insts) {
		return insts, names
	}
	buf.insts = append(buf.insts[:0], insts...)
	buf.names = append(buf.names[:0], names...)
	sort.Stable(buf)
	return buf.insts, buf.names
}

package archive

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"

	"github.com/pcpkit/pcpkit/pmapi"
)

// WriterOptions configure a new archive.
type WriterOptions struct {
	Version  int             // archive format: 2 or 3 (0 means 3)
	Hostname string          // the host the metrics come from
	TZ       string          // $TZ of that host, e.g. "UTC" or "AEST-10"
	Zoneinfo string          // Version 3: zoneinfo name such as ":Etc/UTC"
	PID      int32           // writer's process id in the labels (0: os.Getpid())
	Start    pmapi.Timestamp // start of the archive, in every label
	Features uint32          // Version 3 label feature bits

	// SyncEveryRecord makes every record durable before the next one is
	// written: each write is followed by an fsync of its file. Without
	// it, files are fsynced at a volume switch and at Close.
	SyncEveryRecord bool

	// Buffered gathers records in memory and writes them in large
	// chunks, the metadata before the data and the data before the
	// index, at a volume switch, at Close, when a buffer fills, and on
	// Flush. It saves system calls but not crash safety: a process
	// killed in the middle of a chunk can leave a partial metadata
	// record, which makes the archive unreadable. By default every
	// record is written by one write(2) as it is put.
	Buffered bool

	// CoalesceData gathers data records, and the temporal index
	// entries that point at them, in memory and writes them in large
	// chunks (the data first, then the index entries), while every
	// metadata record is still written by its own write(2) as it is
	// put. So metadata reaches the operating system before any data
	// record that needs it, and an index entry only after the data it
	// points to. A writer killed at any moment leaves whole metadata
	// records; the data volume may end in a partial record, which
	// pcpkit and PCP's tools read as a truncated tail (pmdumplog
	// prints every record before it). It is the mode of a batch
	// writer such as pmlogextract: a few hundred write(2)s instead of
	// one per record. SyncEveryRecord overrides it.
	CoalesceData bool

	// Compress names a compression ("xz" or "zstd") applied to each
	// data volume once it is complete (at a volume switch, and at
	// Close for the last one) and to the metadata file at Close, as
	// PCP's pmlogger_daily compresses a finished archive: "x.0"
	// becomes "x.0.xz" (with xz -0's 256 KiB dictionary, in 10 MiB
	// blocks as pmlogger_daily writes them, which libpcp seeks in) or
	// "x.0.zst" (PCP 6.3.2 and later read it, 6.0.3 not). The index is
	// left plain, as PCP leaves it. A compressed file is written under
	// a temporary name, made durable and linked into place before the
	// plain file is removed, so a writer killed at any moment leaves
	// one readable copy (readers prefer the plain one when both are
	// there). "" writes plain files.
	Compress string

	// MaxVolumeSize is the largest data volume; a record that would
	// take a volume past it starts a new volume. 0 means the format's
	// limit: 2^31-1 bytes in Version 2 (its index offsets are 32-bit),
	// no limit in Version 3.
	MaxVolumeSize int64

	// FlushSize is the number of data bytes after which a new temporal
	// index entry is due (pmlogger's and pmlogextract's 100000 if 0).
	FlushSize int64

	// FullInDoms writes every instance domain of a Version 3 archive as
	// a full record, never as a delta. By default the Writer writes a
	// delta where PCP 6.0.3 does, including the cases libpcp's own
	// reader gets wrong (a delta after an empty instance domain, or
	// between instance lists out of ascending order; see deltaWanted).
	FullInDoms bool

	// IndexEpoch gives records stamped at or before the epoch index
	// entries too. The real writers never index them (and the Writer
	// does as they do by default); an archive whose first records are
	// at the epoch is then read from its first index entry, past them,
	// by libpcp. A copy that must keep them readable (pmlogcheck
	// --repair) sets it.
	IndexEpoch bool
	// Perm is the mode of the new files (0 means 0644, before umask).
	Perm fs.FileMode

	// IndexByCaller leaves the temporal index to the caller, as
	// pmlogrewrite keeps its input's index points: a data record gets
	// an entry only when IndexNext was called before it was put (not
	// for being first in its volume, nor for the bytes since the last
	// entry, nor after an instance domain), and Close writes a closing
	// entry only when the last record has none.
	IndexByCaller bool

	// NoSync leaves out the fsyncs of the files and of their directory
	// at volume switches and at Close, as PCP's batch tools do (the
	// real pmlogreduce never syncs): an interrupted writer's output is
	// not kept anyway. SyncEveryRecord overrides it.
	NoSync bool

	// CarryStamps accepts timestamps whose nanoseconds are exactly
	// 1000000000, as libpcp leaves them when it adds an interval to a
	// time without normalising an exact carry (pmlogreduce writes the
	// times of its interpolations so), and writes them as they are.
	CarryStamps bool

	// RawWrites makes the write(2) of each record, on Linux, with
	// syscall.RawSyscall: the goroutine keeps its P through the write
	// and the runtime is not told of the system call. A program that
	// spends its time parked with every P idle (pmlogger between
	// samples) so never wakes the runtime's sysmon thread, which an
	// ordinary write does each time. A write that blocks (a slow or
	// full file system) holds the P meanwhile. Elsewhere it is ignored.
	RawWrites bool
}

// Writer writes a new archive (Version 2 or 3) as pmlogger does: labels
// first, metadata before the data records that need it, temporal index
// entries after the data they point to, on pmlogger's policy (the first
// record, the first record of each volume, each record that follows an
// instance domain, each record that takes the volume more than FlushSize
// bytes past the last entry, and a closing entry). Each record is one
// write, so an archive whose writer dies at any moment (SIGKILL) holds
// only whole records (a record of several pages may be cut short by the
// kernel: readers stop in front of it), and reads up to the last one.
// With CoalesceData (a batch writer's mode) only the metadata records
// are written one by one; data records go out in large chunks, so the
// data volume may end in a partial record, which readers stop in front
// of.
// Files are created whole under a temporary name and linked into place,
// which fails if the name exists: an archive is never overwritten. A
// data volume is created with its first record, so no reader ever meets
// a volume without data (the real tools refuse those).
//
// The caller puts a metric's descriptor, and its instance domain, before
// the first result that has its values. A Writer is not safe for
// concurrent use.
type Writer struct {
	base    string
	opts    WriterOptions
	version int
	label   Label
	maxVol  int64
	flushSz int64

	meta, index, data *outFile
	vol               int

	nrec        int   // data records written (marks included)
	volRecs     int   // data records in the current volume
	metaMark    int64 // .meta offset before the metadata of the next record
	needIndex   bool  // an index entry is due with the next record
	callerIndex bool  // IndexByCaller: IndexNext was called
	flushAt     int64 // data offset past which an index entry is due
	lastStamp   pmapi.Timestamp
	lastVol     int
	lastStart   int64 // offset of the last record in its volume
	lastEnd     int64
	lastIndexed bool // the last record got an index entry
	hasData     bool // a data record (not a mark) was written
	endStamp    pmapi.Timestamp
	endSet      bool
	markStamp   pmapi.Timestamp // the latest <mark> put

	indoms map[pmapi.InDom]*indomState // as last written (Version 3 deltas)
	buf    []byte
	rawRec Record // PutRawRecord's decoding
	err    error  // sticky: after a failed write the Writer refuses more
	closed bool
}

type indomState struct {
	insts []int32
	names []string
}

// outFile is one file of the archive being written.
type outFile struct {
	f    *os.File
	fd   uintptr // f's descriptor, for RawWrites
	path string
	off  int64  // bytes written (or buffered) so far
	pend []byte // Buffered mode: bytes not yet written
	// synced is the offset up to which the kernel was asked to start
	// writing the file to the disk (earlyWriteback)
	synced int64
}

const writeBufSize = 256 << 10

// ErrWriterClosed is returned by a Writer's methods after Close.
var ErrWriterClosed = errors.New("archive: writer is closed")

// ErrVolumeFull reports a record larger than a whole data volume, or a
// Version 2 metadata file over 2 GiB.
var ErrVolumeFull = errors.New("archive: record does not fit the format's size limits")

// ExistsError is returned by Create when a file of the archive exists.
type ExistsError struct {
	Path string // the file that exists
}

func (e *ExistsError) Error() string { return fmt.Sprintf("%s: file exists, not overwritten", e.Path) }

// Is makes errors.Is(err, fs.ErrExist) hold.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }

// Create creates the archive base: base.meta with its label; base.0
// follows with the first record and base.index with its first entry (or
// both at Close). It fails with an *ExistsError if any data volume,
// metadata or index file of an archive of that name exists, compressed
// or not. A writer killed between creating a file under its temporary
// name and linking it leaves a hidden ".<name>.tmp-*" file behind.
func Create(base string, opts WriterOptions) (*Writer, error) {
	if opts.Version == 0 {
		opts.Version = 3
	}
	if opts.Version != 2 && opts.Version != 3 {
		return nil, fmt.Errorf("archive: unsupported archive version %d", opts.Version)
	}
	if opts.Version == 2 && (opts.Start.Sec < 0 || opts.Start.Sec > math.MaxInt32) {
		return nil, fmt.Errorf("archive: start time %d does not fit a version 2 label", opts.Start.Sec)
	}
	if _, err := compressSuffix(opts.Compress); err != nil {
		return nil, err
	}
	if opts.PID == 0 {
		opts.PID = int32(os.Getpid())
	}
	if opts.Perm == 0 {
		opts.Perm = 0o644
	}
	w := &Writer{
		base:    base,
		opts:    opts,
		version: opts.Version,
		maxVol:  opts.MaxVolumeSize,
		flushSz: opts.FlushSize,
		indoms:  map[pmapi.InDom]*indomState{},
	}
	if w.maxVol <= 0 {
		w.maxVol = math.MaxInt64
		if w.version == 2 {
			w.maxVol = math.MaxInt32
		}
	}
	if w.flushSz <= 0 {
		w.flushSz = 100000
	}
	w.flushAt = w.flushSz
	w.label = Label{
		Version:  w.version,
		PID:      opts.PID,
		Start:    opts.Start,
		Hostname: opts.Hostname,
		TZ:       opts.TZ,
		Zoneinfo: opts.Zoneinfo,
		Features: opts.Features,
	}
	if err := checkNoArchive(base); err != nil {
		return nil, err
	}
	// A data volume is created with its first record (appendData), and
	// the index with its first entry (putIndex): the real tools take a
	// volume without records, or an index without entries, for an empty
	// archive, while an archive without an index is fine.
	var err error
	if w.meta, err = w.createFile(base+".meta", VolMeta); err != nil {
		return nil, err
	}
	w.metaMark = w.meta.off
	w.syncDir(filepath.Dir(base))
	return w, nil
}

// checkNoArchive fails if any file of an archive called base exists.
func checkNoArchive(base string) error {
	dir, file := filepath.Split(base)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &os.PathError{Op: "create", Path: base + ".index", Err: syscall.ENOENT}
		}
		return err
	}
	// The files Create makes first, in its order, then any other.
	for _, suf := range []string{".index", ".meta", ".0"} {
		if _, err := os.Lstat(base + suf); err == nil {
			return &ExistsError{Path: base + suf}
		}
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, file+".") {
			continue
		}
		rest, _ := splitCompress(n[len(file)+1:])
		if rest == "meta" || rest == "index" {
			return &ExistsError{Path: filepath.Join(dir, n)}
		}
		if v, err := strconv.Atoi(rest); err == nil && v >= 0 && !strings.ContainsAny(rest, "+-") {
			return &ExistsError{Path: filepath.Join(dir, n)}
		}
	}
	return nil
}

// createFile creates path holding its label (and first record, if any):
// these are written to a new temporary file that is then linked to path
// (which fails if path exists), so path never exists without them.
func (w *Writer) createFile(path string, vol int, first ...byte) (*outFile, error) {
	nf, err := w.prepareFile(path, vol, first...)
	if err != nil {
		return nil, err
	}
	return w.commitFile(nf)
}

// newFile is a file written under its temporary name, not linked yet.
type newFile struct {
	f         *os.File
	tmp, path string
	content   []byte
}

// abort removes a prepared file.
func (nf *newFile) abort() {
	nf.f.Close()
	os.Remove(nf.tmp)
}

// prepareFile writes the label (and first record) of path to a new
// temporary file.
func (w *Writer) prepareFile(path string, vol int, first ...byte) (*newFile, error) {
	l := w.label
	l.Vol = int32(vol)
	lab := AppendLabel(nil, &l)
	lab = append(lab, first...)
	var rnd [6]byte
	rand.Read(rnd[:])
	dir, file := filepath.Split(path)
	tmp := filepath.Join(dir, "."+file+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, w.opts.Perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// A directory that refuses the temporary file refuses the
		// archive too; report it on the archive's own name.
		return nil, &os.PathError{Op: "create", Path: path, Err: unwrapPathErr(err)}
	}
	if _, err = f.Write(lab); err == nil && w.opts.SyncEveryRecord {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return &newFile{f: f, tmp: tmp, path: path, content: lab}, nil
}

// commitFile links a prepared file to its name.
func (w *Writer) commitFile(nf *newFile) (*outFile, error) {
	f, tmp, path, lab := nf.f, nf.tmp, nf.path, nf.content
	if err := os.Link(tmp, path); err != nil {
		os.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			f.Close()
			return nil, &ExistsError{Path: path}
		}
		// No hard links here (some file systems): fall back to an
		// exclusive create of the final name.
		f.Close()
		return w.createDirect(path, lab)
	}
	os.Remove(tmp)
	return &outFile{f: f, fd: f.Fd(), path: path, off: int64(len(lab))}, nil
}

func (w *Writer) createDirect(path string, lab []byte) (*outFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, w.opts.Perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, &ExistsError{Path: path}
		}
		return nil, err
	}
	if _, err := f.Write(lab); err != nil {
		f.Close()
		return nil, err
	}
	return &outFile{f: f, fd: f.Fd(), path: path, off: int64(len(lab))}, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// syncDir makes the directory entries of the Writer's new files durable
// (unless NoSync).
func (w *Writer) syncDir(dir string) {
	if !w.opts.NoSync || w.opts.SyncEveryRecord {
		syncDir(dir)
	}
}

// syncDir makes the directory entries of new files durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Version is the archive format version being written.
func (w *Writer) Version() int { return w.version }

// Label is the label of the archive (with the volume of the .meta file).
func (w *Writer) Label() Label { l := w.label; l.Vol = VolMeta; return l }

// Volume is the number of the data volume being written.
func (w *Writer) Volume() int { return w.vol }

// Offsets reports how many bytes the metadata file and the current data
// volume hold (including buffered bytes).
func (w *Writer) Offsets() (meta, data int64) { return w.meta.off, w.dataOff() }

// dataOff is the size of the current data volume; one not created yet
// will start with its label.
func (w *Writer) dataOff() int64 {
	if w.data == nil {
		return int64(w.label.Size())
	}
	return w.data.off
}

// appendData writes one data record to the current volume, creating the
// volume's file with it (label and record in one write) if it does not
// exist yet.
func (w *Writer) appendData(rec []byte) error {
	if w.data != nil {
		return w.write(w.data, rec)
	}
	// What the record needs must be on disk before it.
	if err := w.flushAll(); err != nil {
		return err
	}
	if w.opts.SyncEveryRecord {
		if err := w.meta.f.Sync(); err != nil {
			return w.fail(err)
		}
	}
	f, err := w.createFile(fmt.Sprintf("%s.%d", w.base, w.vol), w.vol, rec...)
	if err != nil {
		return w.fail(err)
	}
	w.syncDir(filepath.Dir(w.base))
	w.data = f
	return nil
}

func (w *Writer) check() error {
	if w.closed {
		return ErrWriterClosed
	}
	return w.err
}

// fail makes err sticky: a Writer that could not write a record must not
// write later ones after a hole.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// buffered reports whether records for f are gathered in memory.
func (w *Writer) buffered(f *outFile) bool {
	return w.opts.Buffered || (w.opts.CoalesceData && !w.opts.SyncEveryRecord && f != w.meta)
}

// write appends one whole record to f: one write(2) unless buffered.
func (w *Writer) write(f *outFile, rec []byte) error {
	if w.buffered(f) {
		if len(f.pend)+len(rec) > writeBufSize {
			if err := w.flushAll(); err != nil {
				return err
			}
		}
		if len(rec) > writeBufSize {
			if err := w.put(f, rec); err != nil {
				return w.fail(err)
			}
			if err := w.earlyWriteback(f, f.off+int64(len(rec))); err != nil {
				return err
			}
		} else {
			if f.pend == nil {
				f.pend = make([]byte, 0, writeBufSize)
			}
			f.pend = append(f.pend, rec...)
		}
		f.off += int64(len(rec))
		return nil
	}
	if err := w.put(f, rec); err != nil {
		return w.fail(err)
	}
	f.off += int64(len(rec))
	if w.opts.SyncEveryRecord {
		if err := f.f.Sync(); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// put writes b to f whole.
func (w *Writer) put(f *outFile, b []byte) error {
	if w.opts.RawWrites {
		return rawWrite(f.fd, f.path, b)
	}
	_, err := f.f.Write(b)
	return err
}

// flushAll writes out buffered bytes: metadata, then data, then index,
// so that what reaches the disk first never points at what is not there.
func (w *Writer) flushAll() error {
	for _, f := range []*outFile{w.meta, w.data, w.index} {
		if f == nil || len(f.pend) == 0 {
			continue
		}
		if err := w.put(f, f.pend); err != nil {
			return w.fail(err)
		}
		f.pend = f.pend[:0]
		if err := w.earlyWriteback(f, f.off); err != nil {
			return err
		}
	}
	return nil
}

// writebackChunk is how many bytes a batch writer lets gather in the
// page cache before it asks the kernel to start writing them out.
const writebackChunk = 8 << 20

// earlyWriteback starts the writing to the disk of what a batch writer
// (CoalesceData or Buffered, with the fsync at the end) has written to
// f up to end, once a chunk of it is there: the disk works while the
// writer goes on, and the fsync at Close or at a volume switch waits
// for the last chunk only, not for the whole file. Durability is the
// fsync's, unchanged; a failure here is reported as a write error
// would be.
func (w *Writer) earlyWriteback(f *outFile, end int64) error {
	if w.opts.NoSync || w.opts.SyncEveryRecord || end-f.synced < writebackChunk {
		return nil
	}
	if err := startWriteback(f.fd, f.path, f.synced, end-f.synced); err != nil {
		return w.fail(err)
	}
	f.synced = end
	return nil
}

// Flush writes out what a Buffered or CoalesceData writer holds.
func (w *Writer) Flush() error {
	if err := w.check(); err != nil {
		return err
	}
	return w.flushAll()
}

// Sync flushes and fsyncs every file of the archive.
func (w *Writer) Sync() error {
	if err := w.Flush(); err != nil {
		return err
	}
	return w.syncAll()
}

func (w *Writer) syncAll() error {
	if w.opts.NoSync && !w.opts.SyncEveryRecord {
		return nil
	}
	for _, f := range []*outFile{w.meta, w.data, w.index} {
		if f == nil {
			continue
		}
		if err := f.f.Sync(); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

func (w *Writer) putMeta(rec []byte) error {
	if w.version == 2 && w.meta.off+int64(len(rec)) > math.MaxInt32 {
		return fmt.Errorf("%w: %s would pass 2 GiB", ErrVolumeFull, w.meta.path)
	}
	return w.write(w.meta, rec)
}

// PutDesc writes the descriptor of a metric with its names.
func (w *Writer) PutDesc(d pmapi.Desc, names []string) error {
	if err := w.check(); err != nil {
		return err
	}
	w.buf = AppendDescRecord(w.buf[:0], d, names)
	return w.putMeta(w.buf)
}

// PutInDom writes an instance domain. A record of type MetaInDomDelta
// (Version 3) is written as it is: changes to the instance domain's
// last state. Any other record holds the full membership at r.Stamp; in
// Version 3 it is written as a delta from the last state written when
// the real pmlogger would do so (see deltaWanted), unless FullInDoms is
// set. The next data record gets a temporal index entry.
func (w *Writer) PutInDom(r *InDomRecord) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.version == 2 && (r.Stamp.Sec < 0 || r.Stamp.Sec > math.MaxInt32) {
		return encodeErr("time %d does not fit a version 2 archive", r.Stamp.Sec)
	}
	out := r
	prev := w.indoms[r.InDom]
	var next *indomState
	if r.Type == MetaInDomDelta {
		if w.version != 3 {
			return encodeErr("instance domain %s: delta records need a version 3 archive", r.InDom)
		}
		if prev == nil {
			return encodeErr("instance domain %s: delta before any full record", r.InDom)
		}
		next = applyDelta(prev, r)
	} else {
		next = &indomState{insts: append([]int32(nil), r.Insts...), names: append([]string(nil), r.Names...)}
		if w.version == 3 && !w.opts.FullInDoms && prev != nil {
			if d, ok := deltaWanted(prev, next); ok {
				d.Stamp, d.InDom = r.Stamp, r.InDom
				out = d
			}
		}
		if out == r && r.Type != MetaInDomV2 && r.Type != MetaInDom {
			c := *r
			c.Type = MetaInDom
			out = &c
		}
	}
	var err error
	if w.buf, err = AppendInDomRecord(w.buf[:0], w.version, out); err != nil {
		return err
	}
	if err := w.putMeta(w.buf); err != nil {
		return err
	}
	w.indoms[r.InDom] = next
	w.needIndex = true
	return nil
}

// applyDelta gives the state of an instance domain after delta r.
func applyDelta(prev *indomState, r *InDomRecord) *indomState {
	del := map[int32]bool{}
	for k, x := range r.Insts {
		if r.Deleted[k] {
			del[x] = true
		}
	}
	s := &indomState{}
	for k, x := range prev.insts {
		if !del[x] {
			s.insts = append(s.insts, x)
			s.names = append(s.names, prev.names[k])
		}
	}
	for k, x := range r.Insts {
		if !r.Deleted[k] {
			s.insts = append(s.insts, x)
			s.names = append(s.names, r.Names[k])
		}
	}
	return s
}

// deltaWanted decides, as PCP 6.0.3 does when it writes a Version 3
// archive (checked with pmlogextract -V 3 on crafted archives), whether
// an instance domain that changed from prev to cur is written as a
// delta, and builds it. The two lists are walked together in their
// stored order as if both were sorted by instance: an instance of prev
// below the current one of cur is deleted, one of cur below the current
// one of prev is added, what is left at the end of either list is
// deleted or added. The delta is used when it has at least one entry
// and no more entries than cur has instances, and no instance kept its
// number but changed its name (then the full record is written).
func deltaWanted(prev, cur *indomState) (*InDomRecord, bool) {
	d := &InDomRecord{Type: MetaInDomDelta}
	del := func(x int32) {
		d.Insts = append(d.Insts, x)
		d.Names = append(d.Names, "")
		d.Deleted = append(d.Deleted, true)
	}
	add := func(x int32, name string) {
		d.Insts = append(d.Insts, x)
		d.Names = append(d.Names, name)
		d.Deleted = append(d.Deleted, false)
	}
	i, j := 0, 0
	for i < len(prev.insts) && j < len(cur.insts) {
		switch p, c := prev.insts[i], cur.insts[j]; {
		case p == c:
			if prev.names[i] != cur.names[j] {
				return nil, false
			}
			i++
			j++
		case p < c:
			del(p)
			i++
		default:
			add(c, cur.names[j])
			j++
		}
	}
	for ; i < len(prev.insts); i++ {
		del(prev.insts[i])
	}
	for ; j < len(cur.insts); j++ {
		add(cur.insts[j], cur.names[j])
	}
	if n := len(d.Insts); n == 0 || n > len(cur.insts) {
		return nil, false
	}
	return d, true
}

// PutLabels writes a label record.
func (w *Writer) PutLabels(r *LabelRecord) error {
	if err := w.check(); err != nil {
		return err
	}
	var err error
	if w.buf, err = AppendLabelRecord(w.buf[:0], w.version, r); err != nil {
		return err
	}
	return w.putMeta(w.buf)
}

// IndexNext asks for a temporal index entry with the next data record
// (with IndexByCaller; otherwise the Writer's own policy decides).
func (w *Writer) IndexNext() { w.callerIndex = true }

// Skipped tells a Writer with IndexByCaller that a data record stamped t
// was read and left out (pmlogrewrite's record whose every metric was
// deleted): the closing index entry takes t's time and the end of the
// data, unless a later record gets an entry.
//
// If IndexNext was called, the record's index entry is written all the
// same (pointing at the end of the data), as pmlogrewrite writes it
// before it knows the record is left out.
func (w *Writer) Skipped(t pmapi.Timestamp) error {
	if err := w.check(); err != nil {
		return err
	}
	w.lastStamp, w.lastVol, w.lastStart, w.lastIndexed = t, w.vol, w.dataOff(), false
	if w.callerIndex {
		w.callerIndex = false
		if err := w.putIndex(IndexEntry{Stamp: t, Vol: int32(w.vol), MetaOff: w.metaMark, DataOff: w.dataOff()}); err != nil {
			return err
		}
		w.lastIndexed = true
	}
	w.metaMark = w.meta.off
	return nil
}

// PutIndexEntry writes e to the temporal index as it is, for a Writer
// with IndexByCaller whose caller keeps an index policy of its own
// (pmlogreduce's entries point in front of a record and the metadata
// put for it, and its closing entry at the ends of the files). The last
// record then counts as indexed: Close adds no closing entry.
func (w *Writer) PutIndexEntry(e IndexEntry) error {
	if err := w.check(); err != nil {
		return err
	}
	if err := w.checkStamp(e.Stamp); err != nil {
		return err
	}
	if err := w.putIndex(e); err != nil {
		return err
	}
	w.lastIndexed = true
	return nil
}

// PutRawMeta writes a metadata record given as its bytes on disk (both
// length words included, in the archive's version), such as
// MetaRecord.Raw or AppendMetaRecord's output, as it is: an instance
// domain record is not turned into a delta. It is checked as the reader
// checks it.
func (w *Writer) PutRawMeta(rec []byte) error {
	if err := w.check(); err != nil {
		return err
	}
	mr, err := DecodeMetaRecord("raw metadata record", rec, w.version)
	if err != nil {
		return err
	}
	if ir := mr.InDom; ir != nil {
		if ir.Type == MetaInDomDelta {
			prev := w.indoms[ir.InDom]
			if prev == nil {
				return encodeErr("instance domain %s: delta before any full record", ir.InDom)
			}
			w.indoms[ir.InDom] = applyDelta(prev, ir)
		} else {
			w.indoms[ir.InDom] = &indomState{insts: append([]int32(nil), ir.Insts...), names: append([]string(nil), ir.Names...)}
		}
	}
	if err := w.putMeta(rec); err != nil {
		return err
	}
	if mr.InDom != nil {
		w.needIndex = true
	}
	return nil
}

// PutText writes a help text record.
func (w *Writer) PutText(t *HelpText) error {
	if err := w.check(); err != nil {
		return err
	}
	w.buf = AppendTextRecord(w.buf[:0], t)
	return w.putMeta(w.buf)
}

// PutResult writes a data record holding r (a <mark> if it has no value
// sets).
func (w *Writer) PutResult(r *pmapi.Result) error {
	if err := w.check(); err != nil {
		return err
	}
	if err := w.checkStamp(r.Timestamp); err != nil {
		return err
	}
	var err error
	if w.buf, err = AppendResultRecord(w.buf[:0], w.version, r); err != nil {
		return err
	}
	return w.putData(w.buf, r.Timestamp)
}

// PutEncodedResult writes rec, a data record made by AppendResultRecord
// for this Writer's version (a copy, with other values of the same
// sizes, of one PutResult wrote), stamped t: rec's timestamp is set to t
// first. What is written is what PutResult would write for the Result
// rec encodes.
func (w *Writer) PutEncodedResult(rec []byte, t pmapi.Timestamp) error {
	if err := w.check(); err != nil {
		return err
	}
	if err := w.checkStamp(t); err != nil {
		return err
	}
	hdr := dataHeaderV2
	if w.version == 3 {
		hdr = dataHeaderV3
	}
	if len(rec) < hdr+4 || int(binary.BigEndian.Uint32(rec)) != len(rec) {
		return encodeErr("encoded data record framing is not whole")
	}
	if w.version == 3 {
		putStamp3(rec[4:], t)
	} else {
		putStamp2(rec[4:], t)
	}
	return w.putData(rec, t)
}

// PutMark writes a <mark> record at t, as pmlogger and pmlogextract
// write theirs: it gets no index entry and does not count as the last
// record for the closing entry (a Result with no value sets, as copied
// from another archive, is a data record like any other).
func (w *Writer) PutMark(t pmapi.Timestamp) error {
	if err := w.check(); err != nil {
		return err
	}
	if err := w.checkStamp(t); err != nil {
		return err
	}
	var err error
	if w.buf, err = AppendMarkRecord(w.buf[:0], w.version, t); err != nil {
		return err
	}
	if err := w.switchIfFull(len(w.buf)); err != nil {
		return err
	}
	if err := w.appendData(w.buf); err != nil {
		return err
	}
	w.nrec++
	w.volRecs++
	if w.markStamp.Before(t) {
		w.markStamp = t
	}
	return nil
}

// switchIfFull starts a new volume when a record of n bytes would take
// the current one past its limit.
func (w *Writer) switchIfFull(n int) error {
	lab := int64(w.label.Size())
	if int64(n) > w.maxVol-lab {
		return fmt.Errorf("%w: a %d byte record in %d byte volumes", ErrVolumeFull, n, w.maxVol)
	}
	if off := w.dataOff(); off > lab && off+int64(n) > w.maxVol {
		return w.NewVolume()
	}
	return nil
}

// PutRawRecord writes a data record given as its bytes on disk (both
// length words included, in the archive's version), such as
// Record.Raw() of an archive of the same version: the fast path of a
// copy. Its framing and contents are checked as the reader checks them.
func (w *Writer) PutRawRecord(raw []byte) error {
	if err := w.check(); err != nil {
		return err
	}
	if len(raw) < 8 || int(binary.BigEndian.Uint32(raw)) != len(raw) || int(binary.BigEndian.Uint32(raw[len(raw)-4:])) != len(raw) {
		return encodeErr("raw data record framing is not whole")
	}
	if err := w.rawRec.decode("raw record", raw, w.version, 0, 0, 0); err != nil {
		return err
	}
	err := w.putRecord(&w.rawRec)
	w.rawRec.raw = nil // the caller's bytes are not kept
	return err
}

// PutRecord writes a copy of r, a data record read from an archive (by
// a Cursor): the fastest path of a copy. A record of the Writer's
// version is copied as PutRawRecord copies it, without checking it
// again (the reader did). A Version 2 record going into a Version 3
// archive is converted as it is copied, without decoding its values,
// when its value blocks lie as PCP lays them out (PutResult's layout);
// any other record goes through PutResult(r.Result()). Either way the
// bytes written are those of PutResult(r.Result()).
func (w *Writer) PutRecord(r *Record) error {
	if err := w.check(); err != nil {
		return err
	}
	if len(r.raw) < 8 {
		return encodeErr("data record framing is not whole")
	}
	switch {
	case r.Version == w.version:
		return w.putRecord(r)
	case r.Version == 2 && w.version == 3:
		if err := w.checkStamp(r.Stamp); err != nil {
			return err
		}
		if rec, ok := convertV2(w.buf[:0], r); ok {
			w.buf = rec
			return w.putData(rec, r.Stamp)
		}
	}
	return w.PutResult(r.Result())
}

// RecordSize is how many bytes PutRecord(r) would write to the data
// volume now.
func (w *Writer) RecordSize(r *Record) int {
	switch {
	case r.Version == w.version:
		return len(r.raw)
	case r.Version == 2 && w.version == 3:
		if rec, ok := convertV2(w.buf[:0], r); ok {
			w.buf = rec
			return len(rec)
		}
	}
	return w.ResultSize(r.Result())
}

// ResultSize is how many bytes PutResult(r) would write to the data
// volume (0 for a result it refuses).
func (w *Writer) ResultSize(r *pmapi.Result) int {
	rec, err := AppendResultRecord(w.buf[:0], w.version, r)
	if err != nil {
		return 0
	}
	w.buf = rec
	return len(rec)
}

// convertV2 appends the Version 3 form of r, a Version 2 data record,
// when its value blocks follow its value sets in value order, each
// padded to 4 bytes, with nothing else: the layout PutResult writes (and
// libpcp's encoder). The value sets are copied with their block
// pointers moved one word (the Version 3 header is a word longer), the
// blocks with their pad bytes as PutResult writes them.
func convertV2(dst []byte, r *Record) ([]byte, bool) {
	raw := r.raw
	// The value sets end where the blocks must start.
	p := int64(dataHeaderV2)
	for i := range r.vsets {
		p += 8
		if vs := &r.vsets[i]; vs.NumVal > 0 {
			p += 4 + 8*int64(vs.NumVal)
		}
	}
	for i := range r.vsets {
		vs := &r.vsets[i]
		if vs.NumVal <= 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for j := 0; j < int(vs.NumVal); j++ {
			bp := r.blockPos(vs, j)
			if bp != p {
				return dst, false
			}
			p += int64(padded(int(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)))
		}
	}
	if p != int64(len(raw))-4 {
		return dst, false
	}
	dst, start := frameStart(dst)
	dst = appendStamp(dst, 3, r.Stamp)
	shift := len(dst) - start - (dataHeaderV2 - 4) // where raw's numpmid word goes, less its offset
	dst = append(dst, raw[dataHeaderV2-4:len(raw)-4]...)
	for i := range r.vsets {
		vs := &r.vsets[i]
		if vs.NumVal <= 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for j := 0; j < int(vs.NumVal); j++ {
			o := start + shift + int(vs.off) + 8*j + 4
			ptr := binary.BigEndian.Uint32(dst[o:])
			binary.BigEndian.PutUint32(dst[o:], ptr+1)
			bp := start + shift + int(dptrPos(ptr))
			n := int(binary.BigEndian.Uint32(dst[bp:]) & 0xffffff)
			for k := n; k%4 != 0; k++ {
				dst[bp+k] = padByte
			}
		}
	}
	return frameFinish(dst, start), true
}

func (w *Writer) putRecord(rec *Record) error {
	if err := w.checkStamp(rec.Stamp); err != nil {
		return err
	}
	// Pad bytes are written as PCP 6.0.3 writes them ('~'); old archives
	// have zeros there.
	raw := rec.raw
	fixed := false
	if !rec.oddBlocks {
		// no pad byte to look at (Index noted it)
		return w.putData(raw, rec.Stamp)
	}
	for i := range rec.vsets {
		vs := &rec.vsets[i]
		if vs.NumVal <= 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for j := 0; j < int(vs.NumVal); j++ {
			bp := rec.blockPos(vs, j)
			n := int64(binary.BigEndian.Uint32(raw[bp:]) & 0xffffff)
			for k := bp + n; (k-bp)%4 != 0 && k < int64(len(raw))-4; k++ {
				if raw[k] != padByte {
					if !fixed {
						w.buf = append(w.buf[:0], raw...)
						raw, fixed = w.buf, true
					}
					raw[k] = padByte
				}
			}
		}
	}
	return w.putData(raw, rec.Stamp)
}

func (w *Writer) checkStamp(t pmapi.Timestamp) error {
	if w.version == 2 && (t.Sec < 0 || t.Sec > math.MaxInt32) {
		return encodeErr("time %d does not fit a version 2 archive", t.Sec)
	}
	if t.Nsec < 0 || t.Nsec > 1e9 || t.Nsec == 1e9 && !w.opts.CarryStamps {
		return encodeErr("nanoseconds %d out of range", t.Nsec)
	}
	return nil
}

// putData writes one data record and, when due, its index entry.
func (w *Writer) putData(rec []byte, stamp pmapi.Timestamp) error {
	if err := w.switchIfFull(len(rec)); err != nil {
		return err
	}
	// The first record of a volume (pmlogextract: one written at the
	// end of the volume's label) gets an entry.
	if w.dataOff() == int64(w.label.Size()) {
		w.needIndex = true
	}
	metaBefore, dataBefore := w.metaMark, w.dataOff()
	e := IndexEntry{Stamp: stamp, Vol: int32(w.vol), MetaOff: metaBefore, DataOff: dataBefore}
	// An entry stamped at or before the epoch is never written: the
	// real writers compare the time with that of the last entry, which
	// starts at zero (checked with pmlogextract on archives starting at
	// the epoch, QA dyninsts and value-test).
	indexable := w.opts.IndexEpoch || (pmapi.Timestamp{}).Before(stamp) || w.opts.IndexByCaller
	indexed := false
	if w.data == nil && w.index == nil && indexable && !w.opts.SyncEveryRecord && (!w.opts.IndexByCaller || w.callerIndex) {
		// The archive's first record and its index entry: the data
		// volume and the index appear together.
		if err := w.createFirst(rec, e); err != nil {
			return err
		}
		indexed = true
	} else if err := w.appendData(rec); err != nil {
		return err
	}
	if w.data.off > w.flushAt {
		w.needIndex = true
	}
	if w.opts.IndexByCaller {
		w.needIndex, w.callerIndex = w.callerIndex, false
	}
	w.lastIndexed = false
	if w.needIndex && indexable {
		if !indexed {
			if err := w.putIndex(e); err != nil {
				return err
			}
		}
		w.flushAt = w.data.off + w.flushSz
		w.lastIndexed = true
	}
	w.needIndex = false
	w.metaMark = w.meta.off
	w.nrec++
	w.volRecs++
	w.lastStamp, w.lastVol, w.lastStart, w.lastEnd = stamp, w.vol, dataBefore, w.data.off
	w.hasData = true
	return nil
}

// createFirst creates the first data volume with rec, the archive's
// first record, and the index with e, its entry: both files are written
// under temporary names and linked one right after the other, the data
// first, so that a writer killed in between (a few microseconds) is the
// only way to leave a volume without an index (which readers take for
// an archive without a temporal index, as PCP's do).
func (w *Writer) createFirst(rec []byte, e IndexEntry) error {
	if w.version == 2 && (e.MetaOff > math.MaxInt32 || e.DataOff > math.MaxInt32) {
		return fmt.Errorf("%w: index offsets over 2 GiB", ErrVolumeFull)
	}
	// What the record needs must be out before it.
	if err := w.flushAll(); err != nil {
		return err
	}
	var entry [indexEntryV3]byte
	b := AppendIndexEntry(entry[:0], e, w.version)
	df, err := w.prepareFile(fmt.Sprintf("%s.%d", w.base, w.vol), w.vol, rec...)
	if err != nil {
		return w.fail(err)
	}
	xf, err := w.prepareFile(w.base+".index", VolIndex, b...)
	if err != nil {
		df.abort()
		return w.fail(err)
	}
	if w.data, err = w.commitFile(df); err != nil {
		xf.abort()
		return w.fail(err)
	}
	if w.index, err = w.commitFile(xf); err != nil {
		return w.fail(err)
	}
	w.syncDir(filepath.Dir(w.base))
	return nil
}

func (w *Writer) putIndex(e IndexEntry) error {
	if w.version == 2 && (e.MetaOff > math.MaxInt32 || e.DataOff > math.MaxInt32) {
		return fmt.Errorf("%w: index offsets over 2 GiB", ErrVolumeFull)
	}
	var entry [indexEntryV3]byte
	b := AppendIndexEntry(entry[:0], e, w.version)
	if w.index != nil {
		return w.write(w.index, b)
	}
	// The index appears with its first entry, after what it points to.
	if err := w.flushAll(); err != nil {
		return err
	}
	if w.opts.SyncEveryRecord {
		if err := w.syncAll(); err != nil {
			return err
		}
	}
	f, err := w.createFile(w.base+".index", VolIndex, b...)
	if err != nil {
		return w.fail(err)
	}
	w.syncDir(filepath.Dir(w.base))
	w.index = f
	return nil
}

// NewVolume ends the current data volume (made durable with fsync) and
// starts the next one; its first record gets an index entry. A volume
// that holds no record yet is kept (the real tools refuse a volume with
// no data: pmlogcheck says "contains no PCP data").
func (w *Writer) NewVolume() error {
	if err := w.check(); err != nil {
		return err
	}
	if w.volRecs == 0 {
		return nil
	}
	return w.nextVolume()
}

// SwitchVolume is NewVolume as pmlogger switches (pmlc's "new volume",
// SIGHUP): a volume that holds no record yet is ended too, its file
// holding just its label.
func (w *Writer) SwitchVolume() error {
	if err := w.check(); err != nil {
		return err
	}
	if w.data == nil {
		if err := w.flushAll(); err != nil {
			return err
		}
		f, err := w.createFile(fmt.Sprintf("%s.%d", w.base, w.vol), w.vol)
		if err != nil {
			return w.fail(err)
		}
		w.data = f
	}
	return w.nextVolume()
}

// nextVolume ends the current data volume, whose file exists, and
// starts the next one.
func (w *Writer) nextVolume() error {
	if err := w.flushAll(); err != nil {
		return err
	}
	if err := w.syncAll(); err != nil {
		return err
	}
	// The next volume's file appears with its first record.
	if err := w.data.f.Close(); err != nil {
		return w.fail(err)
	}
	done := w.data.path
	w.data, w.vol, w.volRecs = nil, w.vol+1, 0
	w.flushAt = w.flushSz
	if w.opts.Compress != "" {
		if err := compressFile(done, w.opts.Compress, w.opts.Perm); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

// SetEnd sets the time of the closing index entry, when it is later
// than the last record's: pmlogextract stamps it with the last record
// it read, written or not. Without SetEnd, a <mark> later than the last
// record sets it; with it, only t does (pmlogextract's closing entry of
// two inputs that end together is stamped with their last record, not
// with the <mark> after the first, 1 ms later).
func (w *Writer) SetEnd(t pmapi.Timestamp) { w.endStamp, w.endSet = t, true }

// Close writes the closing index entry (the last record's time and the
// metadata's end; the data offset is the last record's start, or the
// volume's end when that record already has an entry, as pmlogextract
// does), makes every file durable with fsync, and closes them.
func (w *Writer) Close() error {
	if w.closed {
		return ErrWriterClosed
	}
	err := w.err
	if err == nil && w.nrec == 0 && w.vol == 0 && w.data == nil {
		// An archive with no record at all still gets its files.
		if w.data, err = w.createFile(w.base+".0", 0); err == nil && w.index == nil {
			w.index, err = w.createFile(w.base+".index", VolIndex)
		}
	}
	if err == nil && w.nrec > 0 && !(w.opts.IndexByCaller && w.lastIndexed) {
		stamp := w.lastStamp
		if stamp.Before(w.endStamp) {
			stamp = w.endStamp
		}
		if !w.endSet && stamp.Before(w.markStamp) {
			stamp = w.markStamp
		}
		if !w.hasData {
			w.lastVol, w.lastStart = w.vol, int64(w.label.Size())
		}
		e := IndexEntry{Stamp: stamp, Vol: int32(w.lastVol), MetaOff: w.meta.off, DataOff: w.lastStart}
		if w.lastIndexed {
			e.DataOff = w.lastEnd
		}
		err = w.putIndex(e)
	}
	if err == nil {
		err = w.flushAll()
	}
	if err == nil {
		err = w.syncAll()
	}
	if cerr := w.closeFiles(); err == nil {
		err = cerr
	}
	// The last volume, then the metadata, compressed once complete.
	if err == nil && w.opts.Compress != "" {
		for _, f := range []*outFile{w.data, w.meta} {
			if f == nil {
				continue
			}
			if err = compressFile(f.path, w.opts.Compress, w.opts.Perm); err != nil {
				break
			}
		}
	}
	return err
}

// Abandon closes the files as they are, with what was written flushed but
// without the closing index entry, fsync or compression: what PCP 6.0.3's
// pmlogextract -d leaves after a fatal error.
func (w *Writer) Abandon() error {
	if w.closed {
		return ErrWriterClosed
	}
	err := w.err
	if err == nil {
		err = w.flushAll()
	}
	if cerr := w.closeFiles(); err == nil {
		err = cerr
	}
	return err
}

// closeFiles closes the writer's files, and reports the first error.
func (w *Writer) closeFiles() error {
	w.closed = true
	var err error
	for _, f := range []*outFile{w.meta, w.data, w.index} {
		if f == nil {
			continue
		}
		if cerr := f.f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

// compressSuffix is the file name suffix of a compression.
func compressSuffix(algo string) (string, error) {
	switch algo {
	case "":
		return "", nil
	case "xz":
		return ".xz", nil
	case "zstd":
		return ".zst", nil
	}
	return "", fmt.Errorf("archive: unknown compression %q (xz or zstd)", algo)
}

// compressFile replaces the complete file path by path.xz or path.zst:
// the compressed copy is written under a temporary name, fsynced and
// linked into place, then the plain file is removed. A writer killed
// at any moment leaves the plain file, or both (readers take the plain
// one), or the compressed one, and maybe a hidden temporary file.
func compressFile(path, algo string, perm fs.FileMode) (err error) {
	suf, err := compressSuffix(algo)
	if err != nil {
		return err
	}
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	var rnd [6]byte
	rand.Read(rnd[:])
	dir, file := filepath.Dir(path), filepath.Base(path)
	tmp := filepath.Join(dir, "."+file+suf+".tmp-"+hex.EncodeToString(rnd[:]))
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(out, 256<<10)
	var zw io.WriteCloser
	switch algo {
	case "xz":
		// As PCP's pmlogger_daily compresses (xz -0 --block-size=10MiB):
		// a 256 KiB dictionary, and blocks that libpcp can seek to.
		zw, err = xz.WriterConfig{DictCap: 256 << 10, BlockSize: 10 << 20, Matcher: lzma.HashTable4}.NewWriter(bw)
	case "zstd":
		zw, err = zstd.NewWriter(bw)
	}
	if err != nil {
		return err
	}
	if _, err = io.Copy(zw, in); err != nil {
		return err
	}
	if err = zw.Close(); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = out.Sync(); err != nil {
		return err
	}
	if err = out.Close(); err != nil {
		return err
	}
	if err = os.Link(tmp, path+suf); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &ExistsError{Path: path + suf}
		}
		// No hard links: an exclusive create is not possible by
		// rename, which would replace; refuse to clobber.
		if _, serr := os.Lstat(path + suf); serr == nil {
			return &ExistsError{Path: path + suf}
		}
		if err = os.Rename(tmp, path+suf); err != nil {
			return err
		}
	}
	os.Remove(tmp)
	syncDir(dir)
	if err = os.Remove(path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

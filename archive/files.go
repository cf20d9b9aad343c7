package archive

import (
	"bufio"
	"compress/bzip2"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/pcpkit/pcpkit/archive/internal/xz"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Compression suffixes recognised on any file of an archive, in the order
// PCP tries them when a plain file is missing. ".zst" is a pcpkit extra:
// PCP 6.0.3 does not read it (PCP 6.3.2 and later do).
var compressSuffixes = []string{".xz", ".lzma", ".bz2", ".bz", ".gz", ".Z", ".z", ".zst"}

// splitCompress returns name without a compression suffix, and the suffix.
func splitCompress(name string) (string, string) {
	for _, s := range compressSuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return name[:len(name)-len(s)], s
		}
	}
	return name, ""
}

// BaseName returns the archive base name for name, which may be the base
// name itself or any file of the archive (x.meta, x.index, x.0, x.0.xz, ...).
func BaseName(name string) string {
	n, _ := splitCompress(name)
	if b, ok := strings.CutSuffix(n, ".meta"); ok {
		return b
	}
	if b, ok := strings.CutSuffix(n, ".index"); ok {
		return b
	}
	if i := strings.LastIndexByte(n, '.'); i >= 0 && i < len(n)-1 {
		if _, err := strconv.Atoi(n[i+1:]); err == nil && !strings.ContainsAny(n[i+1:], "+-") {
			return n[:i]
		}
	}
	return n
}

// ControlName is the name libpcp keeps for an archive of base name base
// (BaseName): dirname(3) of it, a slash and basename(3) of it, so "A" is
// "./A", "d//A" and "d/A/" are "d/A", "/A" is "//A", and ".." stays. A second context
// opened with exactly that name shares the first one's archive control
// (and so the read position in its files).
func ControlName(base string) string {
	return cDirname(base) + "/" + cBasename(base)
}

// cDirname is dirname(3): the path up to its last component, without
// trailing slashes; "." when there is no slash, "/" for the root.
func cDirname(p string) string {
	p = strings.TrimRight(p, "/")
	if p == "" {
		return "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "."
	}
	if d := strings.TrimRight(p[:i], "/"); d != "" {
		return d
	}
	return "/"
}

// cBasename is basename(3): the last component, trailing slashes
// ignored.
func cBasename(p string) string {
	t := strings.TrimRight(p, "/")
	if t == "" {
		if p == "" {
			return "."
		}
		return "/"
	}
	return t[strings.LastIndexByte(t, '/')+1:]
}

// fileSet names the files that make up one archive.
type fileSet struct {
	base   string         // base name, with its directory
	meta   string         // path of the metadata file
	index  string         // path of the temporal index, "" if absent
	vols   map[int]string // data volume number -> path
	minVol int
	maxVol int
}

// findFiles resolves an archive name to its files by scanning the
// directory, as libpcp does.
func findFiles(name string) (*fileSet, error) {
	// A name that is itself a base name wins over stripping what looks
	// like a volume suffix ("19970807.09.54" is a base name).
	// That is filepath.Glob(name + ".meta*") with name's metacharacters
	// quoted; a name without any is looked for in the listing of its
	// directory, which the scan below takes again when it lists the
	// same directory (one read of the directory, not two).
	base := name
	var ents []os.DirEntry
	listed := "" // the directory ents lists
	if !strings.ContainsAny(name, `*?[\`) {
		d, f := filepath.Split(name)
		d = globDir(d)
		var err error
		if ents, err = os.ReadDir(d); err == nil {
			listed = d
		}
		if !slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), f+".meta") }) {
			base = BaseName(name)
		}
	} else if m, _ := filepath.Glob(globQuote(name) + ".meta*"); len(m) == 0 {
		base = BaseName(name)
	}
	// libpcp splits the name with dirname(3) and basename(3), so
	// trailing slashes are ignored ("A/" is archive A).
	dir, file := cDirname(base), cBasename(base)
	if listed == "" || listed != dir {
		var err error
		if ents, err = os.ReadDir(dir); err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
		}
	}
	fsn := &fileSet{base: base, vols: map[int]string{}, minVol: -1, maxVol: -1}
	found := false
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, file+".") {
			continue
		}
		rest, _ := splitCompress(n[len(file)+1:])
		path := filepath.Join(dir, n)
		switch {
		case rest == "meta":
			if fsn.meta == "" || !isCompressed(path) {
				fsn.meta = path
			}
			found = true
		case rest == "index":
			if fsn.index == "" || !isCompressed(path) {
				fsn.index = path
			}
			found = true
		default:
			v, err := strconv.Atoi(rest)
			if err != nil || v < 0 || strings.ContainsAny(rest, "+-") {
				continue
			}
			if old, ok := fsn.vols[v]; ok && !isCompressed(old) {
				continue
			}
			fsn.vols[v] = path
			found = true
			if fsn.minVol < 0 || v < fsn.minVol {
				fsn.minVol = v
			}
			if v > fsn.maxVol {
				fsn.maxVol = v
			}
		}
	}
	if !found {
		return nil, &os.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	if fsn.meta == "" || len(fsn.vols) == 0 {
		return nil, fmt.Errorf("%s: %w", base, pmapi.ErrLogFile)
	}
	return fsn, nil
}

// globDir is the directory filepath.Glob lists for a pattern whose
// filepath.Split directory part is d: "." for none, d without its
// trailing slash but for the root.
func globDir(d string) string {
	switch d {
	case "":
		return "."
	case "/":
		return d
	}
	return d[:len(d)-1]
}

// globQuote escapes the glob metacharacters in s.
func globQuote(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[\\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func isCompressed(path string) bool {
	_, s := splitCompress(path)
	return s != ""
}

// volumes returns the data volume numbers in ascending order.
func (f *fileSet) volumes() []int {
	v := make([]int, 0, len(f.vols))
	for n := range f.vols {
		v = append(v, n)
	}
	sort.Ints(v)
	return v
}

// OpenFile opens one file of an archive (a data volume, the .meta or the
// .index, compressed or not) for sequential reading from its first byte,
// decompressing it by its suffix as libpcp's __pmFopen does. It reads
// bytes only: the records are the caller's to frame.
func OpenFile(path string) (io.ReadCloser, error) { return openStream(path) }

// SplitCompressed returns name without its compression suffix (".xz",
// ".gz", ...), and the suffix ("" when there is none).
func SplitCompressed(name string) (string, string) { return splitCompress(name) }

// openStream opens path for sequential reading, decompressing by suffix.
func openStream(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	_, suf := splitCompress(path)
	var r io.Reader
	br := bufio.NewReaderSize(f, 64<<10)
	switch suf {
	case "":
		// Buffered: the .meta and .index decoders read small pieces.
		return &stackedCloser{Reader: br, closers: []io.Closer{f}}, nil
	case ".xz":
		r = xz.NewReader(br)
	case ".lzma":
		r, err = xz.NewLZMAReader(br)
	case ".bz2", ".bz":
		r = bzip2.NewReader(br)
	case ".gz", ".Z", ".z":
		var gz *gzip.Reader
		gz, err = gzip.NewReader(br)
		r = gz
	case ".zst":
		var zr *zstd.Decoder
		zr, err = zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if zr != nil {
			r = zr.IOReadCloser()
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cannot decompress: %w", path, err)
	}
	return &stackedCloser{Reader: r, closers: []io.Closer{f}}, nil
}

type stackedCloser struct {
	io.Reader
	closers []io.Closer
}

func (s *stackedCloser) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		c.Close()
	}
	var err error
	for _, c := range s.closers {
		if e := c.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// volumeData is the decompressed bytes of one file of an archive, read
// at random offsets.
type volumeData interface {
	// ReadAt reads len(b) bytes at off, as io.ReaderAt does; forward
	// tells the direction in which the caller moves through the data
	// (an xz file decodes the next blocks in that direction ahead).
	ReadAt(b []byte, off int64, forward bool) (int, error)
	// Size is the current size (a plain file may grow while a logger
	// writes it).
	Size() (int64, error)
	// ReadSize is how many bytes a window reads at a time: bytes read
	// beyond what a record needs cost a plain file little and an xz
	// file their decoding.
	ReadSize() int
	// Release drops memory held for reading (decoded blocks); the data
	// stays readable.
	Release()
	// Head is a reader of the data from its start, for the label: it
	// decodes no more than what is read from it.
	Head() io.Reader
	Close() error
}

// openData opens the file path of an archive for random access to its
// decompressed bytes: the file itself; for an xz file with blocks of a
// size that can be held, the blocks a read needs, found through the xz
// index (as libpcp reads the volumes pmlogger_daily compresses with
// --block-size); for any other compressed file, an unlinked temporary
// file holding its decompressed bytes (written in a stream, never held
// in memory). Each file is opened once.
func openData(path string) (volumeData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	_, suf := splitCompress(path)
	switch suf {
	case "":
		return plainFile{f}, nil
	case ".xz":
		if d, err := openXZ(f); err == nil {
			return d, nil
		}
		// No usable index, or a block too large to hold: as a stream.
	}
	f.Close()
	src, err := openStream(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tmp, err := os.CreateTemp("", "pcpkit-vol-*")
	if err != nil {
		return nil, err
	}
	os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("%s: cannot decompress: %w", path, err)
	}
	return plainFile{tmp}, nil
}

// plainFile is an uncompressed file (or a temporary file holding a
// compressed one's bytes).
type plainFile struct{ f *os.File }

func (p plainFile) ReadAt(b []byte, off int64, _ bool) (int, error) { return preadFull(p.f, b, off) }

func (p plainFile) Size() (int64, error) {
	st, err := p.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (plainFile) ReadSize() int { return windowSize }

func (p plainFile) Head() io.Reader { return io.NewSectionReader(p.f, 0, math.MaxInt64) }
func (plainFile) Release()          {}
func (p plainFile) Close() error    { return p.f.Close() }

// xzData is an xz file read by its blocks (xz.File). Release drops the
// decoded blocks: the next read takes up the index again.
type xzData struct {
	f        *os.File
	compSize int64
	size     int64
	readSize int
	x        *xz.File // nil after Release
}

func openXZ(f *os.File) (*xzData, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	d := &xzData{f: f, compSize: st.Size()}
	if err := d.open(); err != nil {
		return nil, err
	}
	d.size = d.x.Size()
	d.readSize = xzReadSize(d.x.Blocks())
	return d, nil
}

func (d *xzData) open() error {
	x, err := xz.NewFile(d.f, d.compSize, xz.Options{ReadaheadMin: xzReadaheadMin})
	if err != nil {
		return fmt.Errorf("%s: %w", d.f.Name(), err)
	}
	d.x = x
	return nil
}

func (d *xzData) ReadAt(b []byte, off int64, forward bool) (int, error) {
	if d.x == nil {
		if err := d.open(); err != nil {
			return 0, err
		}
	}
	s, err := d.x.Bytes(off, len(b), forward)
	n := copy(b, s)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", d.f.Name(), err)
	}
	return n, err
}

func (d *xzData) Size() (int64, error) { return d.size, nil }

func (d *xzData) ReadSize() int { return d.readSize }

// xzReadSize is the window size for an xz file of blocks bs: a plain
// file's, unless its blocks are smaller (xz --block-size), when a window
// ends within a few blocks of what is read: a window reaches at most
// xzReadBlocks blocks past the record it is read for, and never less
// than xzReadMin. Each block a window reaches is decoded: 256 KiB windows
// over 1 KiB blocks decoded 2.8 times the blocks the real pmval does for
// a 10-minute window (scripts/bench-read.py -v xz1k -c window; with
// these, and the xz cache of small blocks, 0.97 times).
func xzReadSize(bs []xz.Block) int {
	var largest int64
	for _, b := range bs {
		largest = max(largest, b.UncompressedSize)
	}
	return int(min(max(largest*xzReadBlocks, xzReadMin), windowSize))
}

// xzReadBlocks and xzReadMin bound an xz volume's window (xzReadSize).
const (
	xzReadBlocks = 4
	xzReadMin    = 4 << 10
)

// Head decodes the start of the first block as a stream: reading the
// label holds no block in memory.
func (d *xzData) Head() io.Reader {
	return xz.NewReader(io.NewSectionReader(d.f, 0, d.compSize))
}

func (d *xzData) Release() {
	if d.x != nil {
		d.x.Close()
		d.x = nil
	}
}

func (d *xzData) Close() error {
	d.Release()
	return d.f.Close()
}

// xzReadaheadMin is the smallest xz block decoded ahead on other
// goroutines (xz.Options.ReadaheadMin): pmlogger_daily's 10 MiB blocks
// are; 1 KiB ones (xz --block-size=1KiB) are decoded when read, as
// handing each to a goroutine cost more than decoding it
// (scripts/bench-read.py -v xz1k -c window: 6.7x the real pmval's wall
// time with readahead, GOMAXPROCS=2).
const xzReadaheadMin = 64 << 10

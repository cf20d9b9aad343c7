package archive

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Archive is an open PCP archive (Version 2 or 3): its label, metadata and
// temporal index, and access to its data volumes. Data volumes are opened
// when first needed. An Archive is not safe for concurrent use; open it
// once per goroutine.
type Archive struct {
	files  *fileSet
	label  *Label
	meta   *Meta
	index  []IndexEntry
	vols   map[int]*volume
	win    windows // for the cursors and frames
	endWin windows // for End, so that it does not disturb the cursors'

	endCached bool
	endSize   int64
	end       endPos
	endErr    error
}

// Open opens the archive named by name: a base name, or any of its files
// (x.meta, x.index, x.0, x.0.xz, ...). Errors carry the PCP error code the
// real tools report (os.ErrNotExist, pmapi.ErrLogFile, pmapi.ErrLabel,
// pmapi.ErrNoData, pmapi.ErrLogRec).
func Open(name string) (*Archive, error) {
	fs, err := findFiles(name)
	if err != nil {
		return nil, err
	}
	a := &Archive{files: fs, vols: map[int]*volume{}}
	// The first data volume's label comes first, as in libpcp.
	v, err := a.volume(fs.minVol)
	if err != nil {
		return nil, err
	}
	// A first volume with nothing after its label is "empty", as the
	// real tools report it (a later volume may be; vol3.2 is).
	if v.size <= v.lowest {
		a.Close()
		return nil, formatErr(v.path, v.lowest, 2, pmapi.ErrNoData, "no data records after the label")
	}
	if err := a.loadMeta(); err != nil {
		a.Close()
		return nil, err
	}
	if fs.index != "" {
		if err := a.loadIndex(); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// readLabel reads and checks the label at the start of stream r. It reads
// the length and magic words first, so that a file that is not an archive
// is reported as such, whatever its length.
func readLabel(path string, r io.Reader) (*Label, error) {
	buf := make([]byte, LabelSizeV3)
	n, err := io.ReadFull(r, buf[:8])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		// Shorter than the length and magic words: libpcp says
		// "Empty archive log file" (QA badlen-4's volume is "\n").
		return nil, formatErr(path, 0, 1, pmapi.ErrNoData, "file is empty (%d bytes)", n)
	}
	if err != nil {
		return nil, formatErr(path, 0, 1, pmapi.ErrLabel, "label record truncated at %d bytes", n)
	}
	if magic := binary.BigEndian.Uint32(buf[4:]); magic&0xffffff00 != Magic {
		return nil, formatErr(path, 4, 1, pmapi.ErrLabel, "bad magic number 0x%08x", magic)
	}
	size := LabelSizeV2
	if buf[7] == 3 {
		size = LabelSizeV3
	}
	if m, err := io.ReadFull(r, buf[8:size]); err != nil {
		return nil, formatErr(path, 0, 1, pmapi.ErrLabel, "label record truncated at %d bytes", 8+m)
	}
	return DecodeLabel(path, buf[:size])
}

func (a *Archive) loadMeta() error {
	r, err := openStream(a.files.meta)
	if err != nil {
		return err
	}
	defer r.Close()
	l, err := readLabel(a.files.meta, r)
	if err != nil {
		return err
	}
	if err := a.checkLabel(a.files.meta, l, VolMeta); err != nil {
		return err
	}
	a.meta, err = loadMeta(a.files.meta, r, int64(l.Size()), l.Version)
	return err
}

func (a *Archive) loadIndex() error {
	// A plain index is read whole, in one read, and its entries decoded
	// into a slice of their number (pminfo -f reads the index of a 108
	// MB archive, 36 KB, at every run); a compressed one as a stream.
	var r io.Reader
	size := -1
	if _, suf := splitCompress(a.files.index); suf == "" {
		b, err := os.ReadFile(a.files.index)
		if err != nil {
			return err
		}
		r, size = bytes.NewReader(b), len(b)
	} else {
		s, err := openStream(a.files.index)
		if err != nil {
			return err
		}
		defer s.Close()
		r = s
	}
	l, err := readLabel(a.files.index, r)
	if err != nil {
		return err
	}
	if err := a.checkLabel(a.files.index, l, VolIndex); err != nil {
		return err
	}
	// An index that holds its label and nothing more (not even part of
	// an entry) is an empty file to libpcp, which refuses the archive.
	empty := false
	if br, ok := r.(*bytes.Reader); ok {
		empty = br.Len() == 0
	} else {
		br := bufio.NewReader(r)
		_, err := br.Peek(1)
		empty, r = err == io.EOF, br
	}
	if empty {
		return formatErr(a.files.index, int64(l.Size()), 2, pmapi.ErrNoData, "no index entries after the label")
	}
	a.index, err = loadIndex(r, l.Version, max(size-l.Size(), 0))
	return err
}

// checkLabel checks that a file's label agrees with the archive's (the
// first data volume's): the same version, and for the .meta and .index
// files the same logger pid and host, as libpcp's __pmLogOpen checks
// (it does not compare the labels of later data volumes).
func (a *Archive) checkLabel(path string, l *Label, vol int) error {
	if a.label == nil {
		a.label = l
	} else if l.Version != a.label.Version || vol < 0 && (l.PID != a.label.PID || l.Hostname != a.label.Hostname) {
		return formatErr(path, 0, 1, pmapi.ErrLabel, "label (version %d, pid %d, host %q) does not agree with the archive's (version %d, pid %d, host %q)", l.Version, l.PID, l.Hostname, a.label.Version, a.label.PID, a.label.Hostname)
	}
	if int(l.Vol) != vol {
		return formatErr(path, 0, 1, pmapi.ErrLabel, "label volume %d, expected %d", l.Vol, vol)
	}
	return nil
}

// volume opens data volume n (once) and checks its label.
func (a *Archive) volume(n int) (*volume, error) {
	if v, ok := a.vols[n]; ok {
		return v, nil
	}
	path, ok := a.files.vols[n]
	if !ok {
		return nil, &os.PathError{Op: "open", Path: fmt.Sprintf("%s.%d", a.files.base, n), Err: os.ErrNotExist}
	}
	data, err := openData(path)
	if err != nil {
		return nil, err
	}
	v := &volume{num: n, path: path, data: data}
	l, err := readLabel(path, data.Head())
	if err == nil {
		err = a.checkLabel(path, l, n)
	}
	if err == nil {
		v.lowest = int64(l.Size())
		err = v.refreshSize()
	}
	if err != nil {
		data.Close()
		return nil, err
	}
	a.vols[n] = v
	return v, nil
}

// Close releases the archive's files.
func (a *Archive) Close() error {
	for _, v := range a.vols {
		v.data.Close()
	}
	a.vols = map[int]*volume{}
	return nil
}

// Frame returns the n bytes of the record at byte off of data volume vol
// (both length words included), as NextFrame gave them before, and
// reports false if they are not there or not a whole record. The bytes
// stay valid as NextFrame's do.
func (a *Archive) Frame(vol int, off, n int64) ([]byte, bool) {
	v, err := a.volume(vol)
	if err != nil || n < 8 || n > math.MaxInt32 {
		return nil, false
	}
	// A frame before the window used last is read with a window that
	// ends at it: frames read again go backwards (interpolation reads
	// a run of records again from its end), and the next is then in it.
	forward := true
	if w := &a.win[0]; w.v == v && off < w.off {
		forward = false
	}
	raw, err := a.win.bytes(v, off, int(n), forward)
	if err != nil || int64(binary.BigEndian.Uint32(raw)) != n || int64(binary.BigEndian.Uint32(raw[n-4:])) != n {
		return nil, false
	}
	return raw, true
}

// Release drops the memory the archive holds for reading (window
// buffers, decoded blocks of compressed volumes); its files stay open.
// Reading again takes it back. Records and frames handed out stay valid.
func (a *Archive) Release() {
	a.win.release()
	a.endWin.release()
	for _, v := range a.vols {
		v.data.Release()
	}
}

// Label is the archive's label (from its first data volume).
func (a *Archive) Label() *Label { return a.label }

// Version is the archive format version, 2 or 3.
func (a *Archive) Version() int { return a.label.Version }

// Meta is the archive's metadata.
func (a *Archive) Meta() *Meta { return a.meta }

// Index is the temporal index, nil if the archive has no .index file.
func (a *Archive) Index() []IndexEntry { return a.index }

// HasIndex reports whether the archive has a temporal index file.
func (a *Archive) HasIndex() bool { return a.files.index != "" }

// BaseName is the archive's base name (with its directory).
func (a *Archive) BaseName() string { return a.files.base }

// Volumes lists the data volume numbers present, ascending.
func (a *Archive) Volumes() []int { return a.files.volumes() }

// VolumePath is the file of data volume n, "" if it is missing.
func (a *Archive) VolumePath(n int) string { return a.files.vols[n] }

// MetaPath and IndexPath name the metadata and index files.
func (a *Archive) MetaPath() string  { return a.files.meta }
func (a *Archive) IndexPath() string { return a.files.index }

// VolumeSize returns the current size of data volume n.
func (a *Archive) VolumeSize(n int) (int64, error) {
	v, err := a.volume(n)
	if err != nil {
		return 0, err
	}
	if err := v.refreshSize(); err != nil {
		return 0, err
	}
	return v.size, nil
}

// KnownVolumeSize returns the size of data volume n as it was read last
// (when the volume was opened, or by VolumeSize since): no fstat. A
// volume only grows, so an offset within it is within the volume.
func (a *Archive) KnownVolumeSize(n int) (int64, error) {
	v, err := a.volume(n)
	if err != nil {
		return 0, err
	}
	return v.size, nil
}

// End returns the time of the last complete record of the archive (which
// may be a <mark>), as pmGetArchiveEnd computes it: the last volume is read
// backwards from its physical end; if its last record is damaged, the
// volume is scanned forwards from its last temporal index entry at or
// before its end (backing up over the record that entry ends first).
// Volumes that are empty, damaged without such an entry, or without a
// whole record after it, are passed over for earlier ones; damage in the
// record before the entry gives pmapi.ErrLogRec, as it does when no volume
// has an end.
func (a *Archive) End() (pmapi.Timestamp, error) {
	e, err := a.lastRecord()
	return e.stamp, err
}

// endPos is where the last complete record ends.
type endPos struct {
	stamp pmapi.Timestamp
	vol   int
	off   int64
}

// lastRecord finds the last complete record, caching the answer while the
// last volume's size is unchanged.
func (a *Archive) lastRecord() (endPos, error) {
	vols := a.files.volumes()
	last := vols[len(vols)-1]
	sz, err := a.VolumeSize(last)
	if err == nil && a.endCached && sz == a.endSize {
		return a.end, a.endErr
	}
	a.end, a.endErr = a.computeEnd(vols)
	a.endCached, a.endSize = true, sz
	return a.end, a.endErr
}

func (a *Archive) computeEnd(vols []int) (endPos, error) {
	var rec Record
	ws := &a.endWin
	noEnd := fmt.Errorf("%s: no complete data record: %w", a.files.base, pmapi.ErrLogRec)
	for i := len(vols) - 1; i >= 0; i-- {
		v, err := a.volume(vols[i])
		if err != nil {
			continue
		}
		if err := v.refreshSize(); err != nil || v.size <= v.lowest {
			continue // unreadable or empty: the volume before
		}
		raw, err := v.prev(ws, v.size)
		if err == nil && rec.decode(v.path, raw, a.Version(), v.num, v.size-int64(len(raw)), 0) == nil {
			return endPos{rec.Stamp, v.num, v.size}, nil
		}
		// A damaged tail (a truncated flush of a growing archive, say):
		// libpcp goes to the volume's last temporal index entry at or
		// before the end of the file, whatever its offset (an entry of
		// zeros points at the label), and chases the records forwards
		// from there, keeping the last whole one. No such entry: the
		// volume before.
		k := len(a.index) - 1
		for ; k >= 0; k-- {
			if e := a.index[k]; int(e.Vol) == v.num && e.DataOff <= v.size {
				break
			}
		}
		if k < 0 {
			continue
		}
		off := a.index[k].DataOff
		if off > v.lowest {
			// The entry may point at the end of the last record it
			// covers: back up over that one. Damage there is too much:
			// libpcp gives up.
			raw, err := v.prev(ws, off)
			if err != nil || rec.decode(v.path, raw, a.Version(), v.num, off-int64(len(raw)), 0) != nil {
				return endPos{}, noEnd
			}
			off -= int64(len(raw))
		}
		if end, found := a.chase(v, off); found {
			return end, nil
		}
	}
	return endPos{}, noEnd
}

// tailOf is where the last complete record of volume v ends: read
// backwards from the volume's end, or, behind a damaged tail, found by
// reading forwards from its label.
func (a *Archive) tailOf(v *volume) (endPos, bool) {
	var rec Record
	raw, err := v.prev(&a.endWin, v.size)
	if err == nil && rec.decode(v.path, raw, a.Version(), v.num, v.size-int64(len(raw)), 0) == nil {
		return endPos{rec.Stamp, v.num, v.size}, true
	}
	return a.chase(v, v.lowest)
}

// chase reads the records of volume v forwards from off as long as they
// are whole, and gives where the last one ends.
func (a *Archive) chase(v *volume, off int64) (end endPos, found bool) {
	var rec Record
	for {
		raw, err := v.next(&a.endWin, off, 0)
		if err != nil || rec.decode(v.path, raw, a.Version(), v.num, off, 0) != nil {
			return end, found
		}
		off += int64(len(raw))
		found, end = true, endPos{rec.Stamp, v.num, off}
	}
}

// FailOffset is the file offset of data volume vol that pmlogrewrite
// reports after libpcp failed to read forwards the record at byte off
// ("Error occurred at byte offset N", the lseek(2) position of the
// volume's stdio stream): the record's start when the volume ends inside
// the record (libpcp seeks back there); otherwise the end of the 4 KiB
// stdio block holding the last byte read (the length word, when it is
// less than the 8 bytes of the two length words; else the whole record,
// whose trailer disagrees or whose contents do not decode), or the end
// of the volume if that comes first.
func (a *Archive) FailOffset(vol int, off int64) int64 {
	const block = 4096 // glibc's buffer for a file of st_blksize 4096
	v, err := a.volume(vol)
	if err != nil {
		return off
	}
	read := v.size // not even a length word: read to the end
	if off+4 <= v.size {
		b, err := a.win.bytes(v, off, 4, true)
		if err != nil {
			return off
		}
		head := int64(binary.BigEndian.Uint32(b))
		switch {
		case head < 8 || head > math.MaxInt32:
			read = off + 4
		case off+head > v.size:
			return off
		default:
			read = off + head
		}
	}
	return min(v.size, (read+block-1)/block*block)
}

package archive

import (
	"encoding/binary"
	"io"

	"github.com/pcpkit/pcpkit/pmapi"
)

// volume is one open data volume: its decompressed bytes (volumeData)
// and the record framing over them (len | payload | len, lengths
// big-endian and counting the whole record), read through a pair of
// window buffers. It is the one place that reads data record bytes:
// the Cursor, Archive.End, and the raw frames the replay package reads
// (Cursor.NextFrame, Archive.Frame) all come through it.
type volume struct {
	num    int
	path   string // the volume's file, for error messages
	data   volumeData
	lowest int64 // end of the label: the first record offset
	size   int64 // the data's size when last looked at (a live volume grows)
}

// windows is a pair of buffers of volume bytes, shared by the volumes of
// an archive: the one used last, and the one before it (to which reading
// back a little returns). Memory stays at the two buffers whatever the
// archive's length and number of volumes.
type windows [2]window

// window is a buffer of a volume's bytes: b holds the bytes of v at off.
type window struct {
	v     *volume
	b     []byte // the bytes read, a prefix of buf
	buf   []byte
	off   int64
	fills int // reads into this window
}

// windowSize is the size of each window of an uncompressed volume
// (volumeData.ReadSize). Reading a volume in large
// pieces costs about what mapping it costs, and less than a read per
// record; 256 KiB rather than more keeps the buffer in the processor's
// cache between the copy and the scan of the records, and leaves fewer
// pages to fault in (1 MiB buffers cost a short replay 10% more).
const windowSize = 256 << 10

// firstWindow is the size of the first read of a reader's windows, each
// later read twice the one before up to windowSize: a tool that reads a
// record or two (pminfo -f fetches from the start of the archive) reads
// and faults in 32 KiB, not 256.
const firstWindow = 32 << 10

// fillSize is the size of the next read into ws: firstWindow, doubled
// for each read made, up to windowSize.
func (ws *windows) fillSize() int {
	fill := firstWindow
	for k := ws[0].fills + ws[1].fills; k > 0 && fill < windowSize; k-- {
		fill *= 2
	}
	return min(fill, windowSize)
}

// refreshSize re-reads the volume's size (a live archive grows).
func (v *volume) refreshSize() error {
	sz, err := v.data.Size()
	if err == nil {
		v.size = sz
	}
	return err
}

// bytes returns the n bytes of v at off, from a window or by reading a
// new window's worth that holds them (ahead of off when forward, behind
// its end otherwise) into the window used least recently. The slice
// stays valid until a read replaces its window: at the earliest, the
// second call after this one that finds its bytes in neither window
// (slices from windows that release dropped stay valid). It returns
// io.ErrUnexpectedEOF if the volume holds fewer bytes.
func (ws *windows) bytes(v *volume, off int64, n int, forward bool) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > v.size {
		return nil, io.ErrUnexpectedEOF
	}
	end := off + int64(n)
	for i := range ws {
		w := &ws[i]
		if w.v == v && off >= w.off && end <= w.off+int64(len(w.b)) {
			if i != 0 {
				ws[0], ws[1] = ws[1], ws[0]
			}
			s := off - ws[0].off
			return ws[0].b[s : s+int64(n) : s+int64(n)], nil
		}
	}
	// the growing fill, or less when the volume wants less (small xz blocks)
	length := int64(max(n, min(ws.fillSize(), v.data.ReadSize())))
	start := off
	if !forward {
		start = max(end-length, 0)
	}
	length = min(length, v.size-start)
	ws[0], ws[1] = ws[1], ws[0]
	w := &ws[0]
	if int64(cap(w.buf)) < length {
		// a window's worth, or the whole of a smaller volume
		w.buf = make([]byte, max(length, min(int64(v.data.ReadSize()), v.size)))
	}
	b := w.buf[:length]
	if m, err := v.data.ReadAt(b, start, forward); int64(m) < length {
		w.v, w.b, w.off = nil, nil, 0
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	w.v, w.b, w.off = v, b, start
	w.fills++
	s := off - start
	return b[s : s+int64(n) : s+int64(n)], nil
}

// release drops the buffers (the slices handed out keep theirs alive as
// long as they are used).
func (ws *windows) release() { *ws = windows{} }

// next reads the record starting at off through ws. It returns the whole record
// (both length words included). At the end of the volume, or fewer than
// the 4 bytes of a length word before it (libpcp's __pmLogRead takes a
// short header read at end of file for the end of the volume), it
// returns io.EOF; a partial or inconsistent record gives a FormatError
// wrapping pmapi.ErrLogRec (recno numbers it in messages, 0: unknown).
func (v *volume) next(ws *windows, off int64, recno int) ([]byte, error) {
	if off+4 > v.size {
		return nil, io.EOF
	}
	h, err := ws.bytes(v, off, 4, true)
	if err != nil {
		return nil, v.readErr(off, recno, err, "unexpected EOF in record header, %d bytes left", v.size-off)
	}
	n := int64(binary.BigEndian.Uint32(h))
	if n < 8 {
		return nil, formatErr(v.path, off, recno, pmapi.ErrLogRec, "record length %d is too small", n)
	}
	if off+n > v.size {
		return nil, formatErr(v.path, off, recno, pmapi.ErrLogRec, "unexpected EOF in record body, wanted %d, got %d bytes", n, v.size-off)
	}
	rec, err := ws.bytes(v, off, int(n), true)
	if err != nil {
		return nil, v.readErr(off, recno, err, "read failed")
	}
	if t := int64(binary.BigEndian.Uint32(rec[n-4:])); t != n {
		return nil, formatErr(v.path, off, recno, pmapi.ErrLogRec, "record trailer %d does not match header %d", t, n)
	}
	return rec, nil
}

// prev reads the record that ends at off (exclusive), for reading
// backwards, as next does. At the end of the label it returns io.EOF.
// Past the end of the volume (an index entry beyond a truncated one)
// it returns errPastEnd: libpcp's backward read there cannot read the
// trailer word whole and takes the short read for the end of the
// volume, as a forward read does.
func (v *volume) prev(ws *windows, off int64) ([]byte, error) {
	lowest := v.lowest
	if off <= lowest {
		return nil, io.EOF
	}
	if off > v.size {
		if err := v.refreshSize(); err != nil {
			return nil, v.readErr(off, 0, err, "cannot read the volume's size")
		}
		if off > v.size {
			return nil, errPastEnd
		}
	}
	if off-lowest < 8 {
		return nil, formatErr(v.path, lowest, 0, pmapi.ErrLogRec, "%d stray bytes before offset %d", off-lowest, off)
	}
	t, err := ws.bytes(v, off-4, 4, false)
	if err != nil {
		return nil, v.readErr(off-4, 0, err, "cannot read record trailer")
	}
	n := int64(binary.BigEndian.Uint32(t))
	if n < 8 || n > off-lowest {
		return nil, formatErr(v.path, off-4, 0, pmapi.ErrLogRec, "record trailer length %d does not fit before offset %d", n, off)
	}
	rec, err := ws.bytes(v, off-n, int(n), false)
	if err != nil {
		return nil, v.readErr(off-n, 0, err, "read failed")
	}
	if h := int64(binary.BigEndian.Uint32(rec)); h != n {
		return nil, formatErr(v.path, off-n, 0, pmapi.ErrLogRec, "record header %d does not match trailer %d", h, n)
	}
	return rec, nil
}

// readErr is the error for a failed read at off: a damaged record (a
// compressed volume's damaged stream included, whose error names the
// block).
func (v *volume) readErr(off int64, recno int, err error, format string, args ...any) error {
	return formatErr(v.path, off, recno, pmapi.ErrLogRec, format+": %v", append(args, err)...)
}

// afterBadNext is where libpcp's read position is left after it fails
// to read a record forwards from off: just after the header word when
// the length is below the 8 bytes of the two length words (negative
// included: libpcp's length is a signed int), at off when the record
// runs past the end of the volume (the short read seeks back), and
// otherwise after the record (a trailer word that does not match, a
// record that cannot be decoded). When the header word cannot be read
// it stays at off.
func (v *volume) afterBadNext(ws *windows, off int64) int64 {
	if off < 0 || off+4 > v.size {
		return off
	}
	h, err := ws.bytes(v, off, 4, true)
	if err != nil {
		return off
	}
	n := int64(int32(binary.BigEndian.Uint32(h)))
	switch {
	case n < 8:
		return off + 4
	case off+n > v.size:
		return off
	}
	return off + n
}

// afterBadPrev is where libpcp's read position is left after it fails to
// read a record backwards that ends at off: it takes the trailer word
// before off as the record's length, reads the header word that far
// back and, when the two differ, is left just after that header word,
// inside (or before) the damaged record, so that the next read backwards
// goes on from there. When the length reaches before the start of the
// volume, or the words cannot be read, it stays at off.
func (v *volume) afterBadPrev(ws *windows, off int64) int64 {
	if off < 4 {
		return off
	}
	t, err := ws.bytes(v, off-4, 4, false)
	if err != nil {
		return off
	}
	n := int64(binary.BigEndian.Uint32(t))
	start := off - n
	if start < 0 {
		return off
	}
	h, err := ws.bytes(v, start, 4, false)
	if err != nil {
		return off
	}
	if int64(binary.BigEndian.Uint32(h)) != n {
		return start + 4
	}
	return off
}

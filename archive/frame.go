package archive

import (
	"encoding/binary"
	"io"

	"github.com/pcpkit/pcpkit/pmapi"
)

// frameReader reads length-framed records (len | payload | len, lengths
// big-endian and counting the whole record) from a file opened for random
// access, forwards or backwards, through one reusable window buffer. It is
// the only place that reads archive record bytes from disk.
type frameReader struct {
	rf     *randomFile
	size   int64  // file size when the reader was (re)sized
	win    []byte // cached bytes of the file
	winOff int64  // file offset of win[0]
	buf    []byte // backing store for win
}

const windowSize = 256 << 10

func newFrameReader(rf *randomFile) (*frameReader, error) {
	sz, err := rf.size()
	if err != nil {
		return nil, err
	}
	return &frameReader{rf: rf, size: sz, buf: make([]byte, windowSize)}, nil
}

// refreshSize re-reads the file size (a live archive grows).
func (fr *frameReader) refreshSize() error {
	sz, err := fr.rf.size()
	if err == nil {
		fr.size = sz
	}
	return err
}

// bytes returns the n bytes at off, from the cache or by reading a new
// window. forward says which way the caller is moving, so the window is
// filled ahead of it. The slice is valid until the next call. It returns
// io.ErrUnexpectedEOF if the file holds fewer bytes.
func (fr *frameReader) bytes(off int64, n int, forward bool) ([]byte, error) {
	if off < 0 || n < 0 || off+int64(n) > fr.size {
		return nil, io.ErrUnexpectedEOF
	}
	if off >= fr.winOff && off+int64(n) <= fr.winOff+int64(len(fr.win)) {
		s := off - fr.winOff
		return fr.win[s : s+int64(n)], nil
	}
	want := n
	if want < windowSize {
		want = windowSize
	}
	if cap(fr.buf) < want {
		fr.buf = make([]byte, want)
	}
	start := off
	if !forward {
		start = off + int64(n) - int64(want)
		if start < 0 {
			start = 0
		}
	}
	end := start + int64(want)
	if end > fr.size {
		end = fr.size
	}
	b := fr.buf[:end-start]
	m, err := fr.rf.f.ReadAt(b, start)
	if m < len(b) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		fr.win = nil
		return nil, err
	}
	fr.win, fr.winOff = b, start
	s := off - start
	return fr.win[s : s+int64(n)], nil
}

// next reads the record starting at off. It returns the whole record
// (both length words included). At the exact end of the file it returns
// io.EOF; a partial or inconsistent record gives a FormatError wrapping
// pmapi.ErrLogRec.
func (fr *frameReader) next(off int64, recno int) ([]byte, error) {
	if off == fr.size {
		return nil, io.EOF
	}
	h, err := fr.bytes(off, 4, true)
	if err != nil {
		return nil, formatErr(fr.rf.path, off, recno, pmapi.ErrLogRec, "unexpected EOF in record header, %d bytes left", fr.size-off)
	}
	n := int64(binary.BigEndian.Uint32(h))
	if n < 8 {
		return nil, formatErr(fr.rf.path, off, recno, pmapi.ErrLogRec, "record length %d is too small", n)
	}
	if off+n > fr.size {
		return nil, formatErr(fr.rf.path, off, recno, pmapi.ErrLogRec, "unexpected EOF in record body, wanted %d, got %d bytes", n, fr.size-off)
	}
	rec, err := fr.bytes(off, int(n), true)
	if err != nil {
		return nil, formatErr(fr.rf.path, off, recno, pmapi.ErrLogRec, "read failed: %v", err)
	}
	if t := int64(binary.BigEndian.Uint32(rec[n-4:])); t != n {
		return nil, formatErr(fr.rf.path, off, recno, pmapi.ErrLogRec, "record trailer %d does not match header %d", t, n)
	}
	return rec, nil
}

// prev reads the record that ends at off (exclusive), for reading
// backwards; lowest is the offset below which no record may start (the
// end of the label). At lowest it returns io.EOF.
func (fr *frameReader) prev(off, lowest int64) ([]byte, error) {
	if off <= lowest {
		return nil, io.EOF
	}
	if off-lowest < 8 {
		return nil, formatErr(fr.rf.path, lowest, 0, pmapi.ErrLogRec, "%d stray bytes before offset %d", off-lowest, off)
	}
	t, err := fr.bytes(off-4, 4, false)
	if err != nil {
		return nil, formatErr(fr.rf.path, off-4, 0, pmapi.ErrLogRec, "cannot read record trailer: %v", err)
	}
	n := int64(binary.BigEndian.Uint32(t))
	if n < 8 || n > off-lowest {
		return nil, formatErr(fr.rf.path, off-4, 0, pmapi.ErrLogRec, "record trailer length %d does not fit before offset %d", n, off)
	}
	rec, err := fr.bytes(off-n, int(n), false)
	if err != nil {
		return nil, formatErr(fr.rf.path, off-n, 0, pmapi.ErrLogRec, "read failed: %v", err)
	}
	if h := int64(binary.BigEndian.Uint32(rec)); h != n {
		return nil, formatErr(fr.rf.path, off-n, 0, pmapi.ErrLogRec, "record header %d does not match trailer %d", h, n)
	}
	return rec, nil
}

package replay

import (
	"os"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
)

// mapper reads uncompressed data volumes through two large buffers, so
// that interpolation reads records in place, without a system call per
// record: the one used last, and the one before it (to which a collapse
// reads back). Memory stays at the two buffers whatever the archive's
// length.
type mapper struct {
	vols map[[2]int]*mappedVol // by archive and volume; nil: not readable so
	win  [2]window             // win[0] used last
}

type window struct {
	v   *mappedVol
	b   []byte // the bytes read, a prefix of buf
	buf []byte
	off int64 // file offset of b[0]
}

// mappedVol is an open data volume read through the buffers.
type mappedVol struct {
	f    *os.File
	size int64
}

// windowSize is the size of each buffer. Reading a volume in large
// pieces costs about what mapping it costs, and less than a read per
// record; 256 KiB rather than more keeps the buffers in the processor's
// cache between the copy and the scan of the records, and leaves fewer
// pages to fault in (1 MiB buffers cost a short replay 10% more).
const windowSize = 1 << 18

// volume returns data volume vol of archive ai (a), opened for reading
// through the buffers, or nil when it cannot be (compressed, missing,
// damaged label): the archive's Cursor then reads it.
func (m *mapper) volume(ai int, a *archive.Archive, vol int) *mappedVol {
	key := [2]int{ai, vol}
	if v, ok := m.vols[key]; ok {
		return v
	}
	if m.vols == nil {
		m.vols = map[[2]int]*mappedVol{}
	}
	m.vols[key] = nil
	path := a.VolumePath(vol)
	if path == "" || archive.BaseName(path)+"."+strconv.Itoa(vol) != path {
		return nil // compressed, or not named as expected
	}
	// Open the volume through the archive first: that checks its label.
	size, err := a.VolumeSize(vol)
	if err != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != size {
		f.Close()
		return nil
	}
	v := &mappedVol{f: f, size: size}
	m.vols[key] = v
	return v
}

// bytes returns the n bytes of v at off, reading a buffer's worth that
// holds them (ahead of off reading forwards, behind it reading
// backwards) if neither buffer does, or nil if they are not inside the
// volume or cannot be read. The slice stays valid until a read replaces
// its buffer: at the earliest, the second call after this one that finds
// its bytes in neither buffer.
func (m *mapper) bytes(v *mappedVol, off, n int64, forw bool) []byte {
	if off < 0 || n < 0 || off+n > v.size {
		return nil
	}
	for i := range m.win {
		w := &m.win[i]
		if w.v == v && off >= w.off && off+n <= w.off+int64(len(w.b)) {
			if i != 0 {
				m.win[0], m.win[1] = m.win[1], m.win[0]
			}
			s := off - m.win[0].off
			return m.win[0].b[s : s+n : s+n]
		}
	}
	length := int64(windowSize)
	if n > length {
		length = n
	}
	start := off
	if !forw {
		start = off + n - length
		if start < 0 {
			start = 0
		}
	}
	if start+length > v.size {
		length = v.size - start
	}
	m.win[0], m.win[1] = m.win[1], m.win[0]
	w := &m.win[0]
	if int64(cap(w.buf)) < length {
		// a buffer's worth, or the whole of a smaller volume
		w.buf = make([]byte, max(length, min(windowSize, v.size)))
	}
	b := w.buf[:length]
	if k, err := preadFull(v.f, b, start); int64(k) != length {
		_ = err
		*w = window{buf: w.buf}
		return nil
	}
	w.v, w.b, w.off = v, b, start
	s := off - start
	return b[s : s+n : s+n]
}

// close closes the volumes.
func (m *mapper) close() {
	for _, v := range m.vols {
		if v != nil {
			v.f.Close()
		}
	}
	m.vols = nil
	m.win = [2]window{}
}

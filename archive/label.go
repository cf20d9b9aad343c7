package archive

import (
	"bytes"
	"encoding/binary"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Magic is the archive magic number; the low byte holds the format version.
const Magic = 0x50052600

// Label sizes on disk, including the two length words.
const (
	LabelSizeV2 = 132
	LabelSizeV3 = 808
)

// Field sizes of the fixed-width strings in a label.
const (
	hostLenV2 = 64
	tzLenV2   = 40
	hostLenV3 = 256
	tzLenV3   = 256
	zoneLenV3 = 256
)

// Volume numbers that a label carries in the metadata and index files.
const (
	VolMeta  = -1
	VolIndex = -2
)

// Label is the record at the start of every file of an archive.
type Label struct {
	Version  int             // 2 or 3
	PID      int32           // process id of the logger
	Start    pmapi.Timestamp // start of the archive (µs precision in Version 2)
	Vol      int32           // volume number: N for data, VolMeta, VolIndex
	Hostname string          // host the metrics came from
	TZ       string          // $TZ of the collecting host
	Zoneinfo string          // Version 3: zoneinfo name such as ":Etc/UTC"
	Features uint32          // Version 3: feature bits
}

// Size is the label's size on disk for its version.
func (l *Label) Size() int {
	if l.Version == 3 {
		return LabelSizeV3
	}
	return LabelSizeV2
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// readStamp3 decodes a Version 3 on-disk timestamp: seconds as two
// big-endian 32-bit words, low word first (as PCP 6 writes them on
// little-endian hosts), then nanoseconds.
func readStamp3(b []byte) pmapi.Timestamp {
	lo := binary.BigEndian.Uint32(b)
	hi := binary.BigEndian.Uint32(b[4:])
	return pmapi.Timestamp{Sec: int64(uint64(hi)<<32 | uint64(lo)), Nsec: int32(binary.BigEndian.Uint32(b[8:]))}
}

func putStamp3(b []byte, t pmapi.Timestamp) {
	binary.BigEndian.PutUint32(b, uint32(uint64(t.Sec)))
	binary.BigEndian.PutUint32(b[4:], uint32(uint64(t.Sec)>>32))
	binary.BigEndian.PutUint32(b[8:], uint32(t.Nsec))
}

// readStamp2 decodes a Version 2 on-disk timestamp: 32-bit seconds and
// microseconds.
func readStamp2(b []byte) pmapi.Timestamp {
	return pmapi.Timestamp{Sec: int64(int32(binary.BigEndian.Uint32(b))), Nsec: int32(binary.BigEndian.Uint32(b[4:])) * 1000}
}

func putStamp2(b []byte, t pmapi.Timestamp) {
	binary.BigEndian.PutUint32(b, uint32(int32(t.Sec)))
	binary.BigEndian.PutUint32(b[4:], uint32(t.Nsec/1000))
}

// DecodeLabel decodes a label record from b, which must start at the
// record's first length word. It returns pmapi.ErrLabel (wrapped with the
// detail) for anything that is not a whole, valid Version 2 or 3 label.
func DecodeLabel(file string, b []byte) (*Label, error) {
	if len(b) < 8 {
		return nil, formatErr(file, 0, 1, pmapi.ErrLabel, "label record too short (%d bytes)", len(b))
	}
	n := binary.BigEndian.Uint32(b)
	magic := binary.BigEndian.Uint32(b[4:])
	if magic&0xffffff00 != Magic {
		return nil, formatErr(file, 4, 1, pmapi.ErrLabel, "bad magic number 0x%08x", magic)
	}
	l := &Label{Version: int(magic & 0xff)}
	switch l.Version {
	case 2, 3:
	default:
		return nil, formatErr(file, 4, 1, pmapi.ErrLabel, "unsupported archive version %d", l.Version)
	}
	size := l.Size()
	if int(n) != size {
		return nil, formatErr(file, 0, 1, pmapi.ErrLabel, "label length %d, expected %d for version %d", n, size, l.Version)
	}
	if len(b) < size {
		return nil, formatErr(file, 0, 1, pmapi.ErrLabel, "label record truncated: %d of %d bytes", len(b), size)
	}
	if t := binary.BigEndian.Uint32(b[size-4:]); t != n {
		return nil, formatErr(file, int64(size-4), 1, pmapi.ErrLabel, "label trailer %d does not match header %d", t, n)
	}
	l.PID = int32(binary.BigEndian.Uint32(b[8:]))
	if l.Version == 3 {
		l.Start = readStamp3(b[12:])
		l.Vol = int32(binary.BigEndian.Uint32(b[24:]))
		l.Features = binary.BigEndian.Uint32(b[28:])
		p := 36
		l.Hostname = cstring(b[p : p+hostLenV3])
		p += hostLenV3
		l.TZ = cstring(b[p : p+tzLenV3])
		p += tzLenV3
		l.Zoneinfo = cstring(b[p : p+zoneLenV3])
	} else {
		l.Start = readStamp2(b[12:])
		l.Vol = int32(binary.BigEndian.Uint32(b[20:]))
		l.Hostname = cstring(b[24 : 24+hostLenV2])
		l.TZ = cstring(b[24+hostLenV2 : 24+hostLenV2+tzLenV2])
	}
	return l, nil
}

// AppendLabel appends the on-disk form of l to dst. Strings longer than
// their fields are truncated, keeping a terminating NUL.
func AppendLabel(dst []byte, l *Label) []byte {
	size := l.Size()
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	b := dst[start:]
	binary.BigEndian.PutUint32(b, uint32(size))
	binary.BigEndian.PutUint32(b[4:], Magic|uint32(l.Version))
	binary.BigEndian.PutUint32(b[8:], uint32(l.PID))
	put := func(field []byte, s string) { copy(field[:len(field)-1], s) }
	if l.Version == 3 {
		putStamp3(b[12:], l.Start)
		binary.BigEndian.PutUint32(b[24:], uint32(l.Vol))
		binary.BigEndian.PutUint32(b[28:], l.Features)
		p := 36
		put(b[p:p+hostLenV3], l.Hostname)
		p += hostLenV3
		put(b[p:p+tzLenV3], l.TZ)
		p += tzLenV3
		put(b[p:p+zoneLenV3], l.Zoneinfo)
	} else {
		putStamp2(b[12:], l.Start)
		binary.BigEndian.PutUint32(b[20:], uint32(l.Vol))
		put(b[24:24+hostLenV2], l.Hostname)
		put(b[24+hostLenV2:24+hostLenV2+tzLenV2], l.TZ)
	}
	binary.BigEndian.PutUint32(b[size-4:], uint32(size))
	return dst
}

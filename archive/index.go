package archive

import (
	"encoding/binary"
	"io"

	"github.com/pcpkit/pcpkit/pmapi"
)

// IndexEntry is one temporal index entry: at Stamp, the metadata file
// ended at MetaOff and data volume Vol at DataOff.
type IndexEntry struct {
	Stamp   pmapi.Timestamp
	Vol     int32
	MetaOff int64
	DataOff int64
}

// Index entry sizes on disk.
const (
	indexEntryV2 = 20 // sec, usec, vol, meta, data (32-bit each)
	indexEntryV3 = 32 // sec (2 words), nsec, vol, meta (64), data (64)
)

// loadIndex reads every whole index entry from r (positioned after the
// label). A partial entry at the end is ignored, as libpcp does. n, when
// known, is how many bytes r holds: the entries are decoded into a slice
// of their number.
func loadIndex(r io.Reader, version, n int) ([]IndexEntry, error) {
	size := indexEntryV2
	if version == 3 {
		size = indexEntryV3
	}
	var out []IndexEntry
	if n >= size {
		out = make([]IndexEntry, 0, n/size)
	}
	// Read in chunks of whole entries and decode them from the chunk:
	// not a ReadFull per entry (an index holds thousands).
	buf := make([]byte, 256*size)
	for {
		n, err := io.ReadAtLeast(r, buf, size)
		for b := buf[:n-n%size]; len(b) > 0; b = b[size:] {
			out = append(out, DecodeIndexEntry(b, version))
		}
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return out, nil
			}
			return out, err
		}
		if n%size != 0 {
			// a partial entry: the rest of it comes in the next chunk
			k := copy(buf, buf[n-n%size:n])
			m, err := io.ReadFull(r, buf[k:size])
			if m+k == size {
				out = append(out, DecodeIndexEntry(buf, version))
			}
			if err != nil {
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					return out, nil
				}
				return out, err
			}
		}
	}
}

// DecodeIndexEntry decodes one on-disk index entry.
func DecodeIndexEntry(b []byte, version int) IndexEntry {
	if version == 3 {
		return IndexEntry{
			Stamp:   readStamp3(b),
			Vol:     int32(binary.BigEndian.Uint32(b[12:])),
			MetaOff: int64(binary.BigEndian.Uint64(b[16:])),
			DataOff: int64(binary.BigEndian.Uint64(b[24:])),
		}
	}
	return IndexEntry{
		Stamp: readStamp2(b),
		Vol:   int32(binary.BigEndian.Uint32(b[8:])),
		// unsigned, as libpcp reads them (a damaged offset with the top
		// bit set is far past the end, not before the label)
		MetaOff: int64(binary.BigEndian.Uint32(b[12:])),
		DataOff: int64(binary.BigEndian.Uint32(b[16:])),
	}
}

// AppendIndexEntry appends the on-disk form of e to dst.
func AppendIndexEntry(dst []byte, e IndexEntry, version int) []byte {
	if version == 3 {
		var b [indexEntryV3]byte
		putStamp3(b[:], e.Stamp)
		binary.BigEndian.PutUint32(b[12:], uint32(e.Vol))
		binary.BigEndian.PutUint64(b[16:], uint64(e.MetaOff))
		binary.BigEndian.PutUint64(b[24:], uint64(e.DataOff))
		return append(dst, b[:]...)
	}
	var b [indexEntryV2]byte
	putStamp2(b[:], e.Stamp)
	binary.BigEndian.PutUint32(b[8:], uint32(e.Vol))
	binary.BigEndian.PutUint32(b[12:], uint32(e.MetaOff))
	binary.BigEndian.PutUint32(b[16:], uint32(e.DataOff))
	return append(dst, b[:]...)
}

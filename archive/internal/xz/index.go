package xz

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// Block describes one block of an xz file, as its stream's index records it.
type Block struct {
	Offset             int64 // offset of the block header in the compressed file
	Size               int64 // bytes in the file: header, compressed data, padding and check
	UncompressedOffset int64 // offset of the block's first byte in the uncompressed data
	UncompressedSize   int64 // bytes the block decodes to
	Check              Check // the check type of the block's stream

	unpadded int64 // header + compressed data + check (the index's Unpadded Size)
}

// ReadIndex returns the blocks of the xz file r of size bytes, in file
// order, from its stream footers and indexes: every stream of a file of
// concatenated streams, with stream padding between or after them. It
// reads only the footers, indexes and stream headers. It validates what it
// reads (magic bytes, CRC32s, backward sizes, the index's sizes against the
// space the blocks take), so that a damaged file gives a *FormatError; its
// allocations are bounded by the number of index records that fit in the
// file.
func ReadIndex(r io.ReaderAt, size int64) ([]Block, error) {
	if size < streamHeaderSize+streamFooterSize {
		return nil, formatErr(0, -1, nil, "file too small to be xz (%d bytes)", size)
	}
	if size%4 != 0 {
		return nil, formatErr(size, -1, nil, "file size %d is not a multiple of four", size)
	}
	var streams [][]Block
	var buf [4096]byte
	pos := size
	for pos > 0 {
		// Stream padding: zero bytes in groups of four, after a stream.
		end := pos
		for pos > 0 {
			n := min(pos, int64(len(buf)))
			b := buf[:n]
			if _, err := r.ReadAt(b, pos-n); err != nil {
				return nil, err
			}
			i := len(b)
			for i >= 4 && binary.LittleEndian.Uint32(b[i-4:i]) == 0 {
				i -= 4
			}
			pos -= int64(len(b) - i)
			if i > 0 {
				break
			}
		}
		if pos == 0 && end > 0 {
			return nil, formatErr(0, -1, nil, "no stream before the stream padding")
		}
		blocks, start, err := readStream(r, pos, buf[:])
		if err != nil {
			return nil, err
		}
		streams = append(streams, blocks)
		pos = start
	}
	n := 0
	for _, blocks := range streams {
		n += len(blocks)
	}
	if len(streams) == 1 {
		out := streams[0]
		var uoff int64
		for i := range out {
			if uoff+out[i].UncompressedSize < uoff {
				return nil, formatErr(out[i].Offset, -1, nil, "uncompressed size overflows")
			}
			out[i].UncompressedOffset = uoff
			uoff += out[i].UncompressedSize
		}
		return out, nil
	}
	out := make([]Block, 0, n)
	var uoff int64
	for i := len(streams) - 1; i >= 0; i-- {
		for _, b := range streams[i] {
			if uoff+b.UncompressedSize < uoff {
				return nil, formatErr(b.Offset, -1, nil, "uncompressed size overflows")
			}
			b.UncompressedOffset = uoff
			uoff += b.UncompressedSize
			out = append(out, b)
		}
	}
	return out, nil
}

// readStream reads the stream that ends at end (its footer's last byte)
// and returns its blocks (without uncompressed offsets) and the offset of
// its stream header.
func readStream(r io.ReaderAt, end int64, buf []byte) ([]Block, int64, error) {
	if end < streamHeaderSize+streamFooterSize {
		return nil, 0, formatErr(0, -1, nil, "truncated stream before offset %d", end)
	}
	foot := buf[:streamFooterSize]
	footOff := end - streamFooterSize
	if _, err := r.ReadAt(foot, footOff); err != nil {
		return nil, 0, err
	}
	check, backward, err := parseStreamFooter(foot, footOff)
	if err != nil {
		return nil, 0, err
	}
	if !check.supported() {
		return nil, 0, formatErr(footOff, -1, ErrUnsupported, "check type %d is not supported", check)
	}
	idxOff := footOff - backward
	if idxOff < streamHeaderSize {
		return nil, 0, formatErr(footOff, -1, nil, "backward size %d exceeds the stream", backward)
	}
	ir := indexReader{r: r, off: idxOff, end: footOff, buf: buf}
	// The blocks lie between the stream header and the index.
	blocks, err := ir.read(check, idxOff-streamHeaderSize)
	if err != nil {
		return nil, 0, err
	}
	var area int64
	for _, b := range blocks {
		area += b.Size
	}
	start := idxOff - area - streamHeaderSize
	head := buf[:streamHeaderSize]
	if _, err := r.ReadAt(head, start); err != nil {
		return nil, 0, err
	}
	hc, err := parseStreamHeader(head, start)
	if err != nil {
		return nil, 0, err
	}
	if hc != check {
		return nil, 0, formatErr(start, -1, nil, "stream header and footer flags differ")
	}
	off := start + streamHeaderSize
	for i := range blocks {
		blocks[i].Offset = off
		off += blocks[i].Size
	}
	return blocks, start, nil
}

// indexReader reads an index (from off to end) through a small buffer,
// and computes the CRC32 of all its bytes but the last four.
type indexReader struct {
	r        io.ReaderAt
	off, end int64 // next byte to fetch, end of the index
	buf      []byte
	b        []byte // unread buffered bytes
	crc      uint32 // of the bytes before end-4 fetched so far
	n        int64  // bytes consumed
	err      error
}

func (ir *indexReader) byte() byte {
	if len(ir.b) == 0 {
		if ir.err != nil {
			return 0
		}
		n := min(int64(len(ir.buf)), ir.end-ir.off)
		if n <= 0 {
			ir.err = formatErr(ir.end, -1, nil, "index is longer than the backward size says")
			return 0
		}
		b := ir.buf[:n]
		if _, err := ir.r.ReadAt(b, ir.off); err != nil {
			ir.err = err
			return 0
		}
		// The CRC32 covers the index but its last four bytes (the CRC).
		if k := min(n, ir.end-4-ir.off); k > 0 {
			ir.crc = crc32.Update(ir.crc, crc32.IEEETable, b[:k])
		}
		ir.off += n
		ir.b = b
	}
	c := ir.b[0]
	ir.b = ir.b[1:]
	ir.n++
	return c
}

func (ir *indexReader) uvarint() uint64 {
	var tmp [9]byte
	for i := range tmp {
		tmp[i] = ir.byte()
		if tmp[i]&0x80 == 0 {
			v, n := uvarint(tmp[:i+1])
			if n == 0 && ir.err == nil {
				ir.err = formatErr(ir.off, -1, nil, "bad number in the index")
			}
			return v
		}
	}
	if ir.err == nil {
		ir.err = formatErr(ir.off, -1, nil, "bad number in the index")
	}
	return 0
}

// read decodes the index; room is the space before the index that the
// blocks may take.
func (ir *indexReader) read(check Check, room int64) ([]Block, error) {
	start := ir.off
	bad := func(msg string) error { return formatErr(start, -1, nil, "index: %s", msg) }
	if ir.byte() != 0 {
		if ir.err != nil {
			return nil, ir.err
		}
		return nil, bad("no index indicator")
	}
	count := ir.uvarint()
	if ir.err != nil {
		return nil, ir.err
	}
	// Each record takes at least two bytes of the index: a count the
	// index cannot hold allocates no more than the index could.
	blocks := make([]Block, 0, min(count, uint64(max(ir.end-ir.off, 0))/2))
	var area int64
	csize := int64(check.size())
	for i := uint64(0); i < count; i++ {
		unpadded := ir.uvarint()
		usize := ir.uvarint()
		if ir.err != nil {
			return nil, ir.err
		}
		// A block is a header (8 bytes at least), data (1 byte at least) and the check.
		if unpadded < uint64(9+csize) || unpadded > 1<<62 || usize > 1<<62 {
			return nil, bad("bad record sizes")
		}
		total := (int64(unpadded) + 3) &^ 3
		if total > room-area {
			return nil, bad("blocks larger than the stream")
		}
		area += total
		blocks = append(blocks, Block{Size: total, UncompressedSize: int64(usize), Check: check, unpadded: int64(unpadded)})
	}
	for ir.n%4 != 0 {
		if ir.byte() != 0 {
			if ir.err != nil {
				return nil, ir.err
			}
			return nil, bad("non-zero padding")
		}
	}
	crc := ir.crc
	var stored [4]byte
	for i := range stored {
		stored[i] = ir.byte()
	}
	if ir.err != nil {
		return nil, ir.err
	}
	if binary.LittleEndian.Uint32(stored[:]) != crc {
		return nil, formatErr(start, -1, ErrChecksum, "index CRC32 mismatch")
	}
	if ir.off != ir.end || len(ir.b) != 0 {
		return nil, bad("size differs from the backward size")
	}
	return blocks, nil
}

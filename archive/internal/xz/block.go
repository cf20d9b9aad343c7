package xz

import (
	"bytes"
	"sync/atomic"
)

// Decoder decodes whole blocks of an xz file, each into a flat buffer of
// the block's uncompressed size: the buffer is the LZMA2 dictionary (a
// block starts with a dictionary reset), so matches are copies inside one
// slice. A Decoder keeps its probability tables between blocks, so that
// decoding allocates nothing once dst is large enough. It is not safe for
// concurrent use; use one per goroutine.
type Decoder struct {
	lz2   lzma2
	check checker
	// cancel, when set, stops a decode between LZMA2 chunks (File's
	// readahead gives up blocks no longer wanted).
	cancel *atomic.Bool
}

// NewDecoder returns a block decoder.
func NewDecoder() *Decoder { return &Decoder{} }

// DecodeBlock decodes block b (number index in its file, for errors) from
// src, the b.Size bytes of the file at b.Offset, into dst[:b.UncompressedSize]
// (allocating a new slice when dst is too small: callers bound
// b.UncompressedSize first) and verifies the block's sizes and check. It
// returns the decoded bytes; errors are *FormatError naming the block.
func (d *Decoder) DecodeBlock(dst, src []byte, b Block, index int) ([]byte, error) {
	bad := func(err error, f string, args ...any) ([]byte, error) {
		return nil, formatErr(b.Offset, index, err, f, args...)
	}
	if int64(len(src)) != b.Size || b.Size < 12 {
		return bad(nil, "block is %d bytes, index says %d", len(src), b.Size)
	}
	if src[0] == 0 || int(src[0]+1)*4 > len(src) {
		return bad(nil, "bad block header size")
	}
	h, err := parseBlockHeader(src, b.Offset, index)
	if err != nil {
		return nil, err
	}
	csum := b.Check.size()
	comp := b.unpadded - int64(h.size) - int64(csum)
	if comp <= 0 || (h.compressed >= 0 && h.compressed != comp) {
		return bad(nil, "compressed size differs from the index")
	}
	if h.uncompressed >= 0 && h.uncompressed != b.UncompressedSize {
		return bad(nil, "uncompressed size differs from the index")
	}
	usize := int(b.UncompressedSize)
	if int64(usize) != b.UncompressedSize || usize < 0 {
		return bad(ErrTooLarge, "block too large")
	}
	out := dst[:0]
	if cap(out) < usize {
		out = make([]byte, usize)
	}
	out = out[:usize]
	data := src[h.size : int64(h.size)+comp]
	d.lz2.cancel = d.cancel
	n, err := d.lz2.decodeAll(data, out)
	if err != nil {
		return bad(nil, "%v", err)
	}
	if n != len(data) {
		return bad(nil, "LZMA2 data ends %d bytes before the compressed size", len(data)-n)
	}
	for _, c := range src[int64(h.size)+comp : len(src)-csum] {
		if c != 0 {
			return bad(nil, "non-zero block padding")
		}
	}
	d.check.reset(b.Check)
	d.check.write(out)
	if !bytes.Equal(d.check.sum(), src[len(src)-csum:]) {
		return bad(ErrChecksum, "%v mismatch", b.Check)
	}
	return out, nil
}

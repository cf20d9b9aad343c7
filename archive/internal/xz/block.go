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
	var p partial
	if err := p.start(d, dst, src, b, index); err != nil {
		return nil, err
	}
	if err := p.decode(len(p.out)); err != nil {
		return nil, err
	}
	return p.out, nil
}

// partial is a block being decoded a chunk at a time, as far as its
// reader needs (File decodes the block a read falls in only up to the end
// of the read). The check is verified when the block is complete.
type partial struct {
	d     *Decoder
	b     Block
	index int
	src   []byte // the block as in the file
	data  []byte // its LZMA2 data
	tail  []byte // the padding after the data
	out   []byte // the block's bytes, decoded up to at.pos
	at    lzma2Pos
	done  bool
}

// start checks block b's header and sizes and gets ready to decode it
// into dst[:b.UncompressedSize] with d (allocated when dst is too small).
// src must stay unchanged until the block is complete.
func (p *partial) start(d *Decoder, dst, src []byte, b Block, index int) error {
	*p = partial{d: d, b: b, index: index, src: src}
	if int64(len(src)) != b.Size || b.Size < 12 {
		return p.bad(nil, "block is %d bytes, index says %d", len(src), b.Size)
	}
	if src[0] == 0 || int(src[0]+1)*4 > len(src) {
		return p.bad(nil, "bad block header size")
	}
	h, err := parseBlockHeader(src, b.Offset, index)
	if err != nil {
		return err
	}
	csum := b.Check.size()
	comp := b.unpadded - int64(h.size) - int64(csum)
	if comp <= 0 || (h.compressed >= 0 && h.compressed != comp) {
		return p.bad(nil, "compressed size differs from the index")
	}
	if h.uncompressed >= 0 && h.uncompressed != b.UncompressedSize {
		return p.bad(nil, "uncompressed size differs from the index")
	}
	usize := int(b.UncompressedSize)
	if int64(usize) != b.UncompressedSize || usize < 0 {
		return p.bad(ErrTooLarge, "block too large")
	}
	out := dst[:0]
	if cap(out) < usize {
		out = make([]byte, usize)
	}
	p.out = out[:usize]
	p.data = src[h.size : int64(h.size)+comp]
	p.tail = src[int64(h.size)+comp : len(src)-csum]
	d.lz2.reset()
	d.lz2.cancel = d.cancel
	return nil
}

func (p *partial) bad(err error, f string, args ...any) error {
	return formatErr(p.b.Offset, p.index, err, f, args...)
}

// decode decodes on until at least need bytes of the block are there
// (all of them, checked, for need = the block's size).
func (p *partial) decode(need int) error {
	for !p.done && (p.at.pos < need || p.at.pos == len(p.out)) {
		if !p.at.end {
			if err := p.d.lz2.decodeChunk(p.data, p.out, &p.at); err != nil {
				return p.bad(nil, "%v", err)
			}
			continue
		}
		if p.at.ip != len(p.data) {
			return p.bad(nil, "LZMA2 data ends %d bytes before the compressed size", len(p.data)-p.at.ip)
		}
		for _, c := range p.tail {
			if c != 0 {
				return p.bad(nil, "non-zero block padding")
			}
		}
		d := p.d
		d.check.reset(p.b.Check)
		d.check.write(p.out)
		if !bytes.Equal(d.check.sum(), p.src[len(p.src)-p.b.Check.size():]) {
			return p.bad(ErrChecksum, "%v mismatch", p.b.Check)
		}
		p.done = true
	}
	return nil
}

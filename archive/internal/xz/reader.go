package xz

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// Reader decompresses an xz file (all its concatenated streams, with
// stream padding) or a legacy .lzma file sequentially from an io.Reader.
// It needs no index, so it reads blocks of any size: each block's LZMA2
// dictionary is a circular buffer of the size the block's header gives,
// capped by the block's uncompressed size when the header has it, and
// grown only as the data fills it, so that a small block (or file) with a
// large dictionary property allocates little. The buffer is reused from
// block to block. Checks, sizes and indexes are verified; errors are
// *FormatError (sticky).
type Reader struct {
	in    input
	err   error
	state int
	alone bool  // .lzma
	left  int64 // .lzma: bytes still to decode, -1 if unknown (end marker)

	w     window
	lz2   lzma2
	check checker

	streamCheck Check
	blockNum    int   // blocks before the current one, in the file
	blockOff    int64 // offset of the current block's header
	hdr         blockHeader
	compRead    int64 // bytes of the current block read after its header
	produced    int64 // bytes decoded in the current block

	chunk chunkHeader
	crem  int    // uncompressed bytes of the current chunk still to decode
	cin   []byte // the current LZMA chunk's compressed bytes
	cip   int

	// What the blocks of the current stream were, to verify its index.
	records    uint64
	sumUnpad   uint64
	sumUncomp  uint64
	recordsCRC uint32
}

const (
	sStreamHeader = iota
	sBlockStart
	sChunkHeader
	sChunkData
	sPadding
	sAlone
	sDone
)

// NewReader returns a Reader of the xz data r.
func NewReader(r io.Reader) *Reader {
	x := &Reader{}
	x.Reset(r)
	return x
}

// Reset makes x read the xz data r, keeping its buffers.
func (x *Reader) Reset(r io.Reader) {
	x.in.reset(r)
	x.err, x.state, x.alone, x.blockNum = nil, sStreamHeader, false, 0
}

// NewLZMAReader returns a Reader of the legacy .lzma (LZMA-alone) data r:
// a 13-byte header (properties, dictionary size, uncompressed size or all
// ones for "unknown, ended by the end marker") and one LZMA stream.
func NewLZMAReader(r io.Reader) (*Reader, error) {
	x := &Reader{}
	x.Reset(r)
	x.alone = true
	if err := x.in.fill(13); err != nil {
		return nil, formatErr(0, -1, nil, "truncated .lzma header")
	}
	h := x.in.take(13)
	p := h[0]
	if p >= 9*5*5 {
		return nil, formatErr(0, -1, nil, "bad .lzma properties")
	}
	dict := int64(binary.LittleEndian.Uint32(h[1:5]))
	x.left = int64(binary.LittleEndian.Uint64(h[5:13]))
	if x.left < -1 || x.left > 1<<62 {
		return nil, formatErr(5, -1, nil, "bad .lzma uncompressed size")
	}
	if x.left >= 0 {
		dict = min(dict, x.left)
	}
	x.lz2.lz.setProps(uint(p%9), uint(p/9%5), uint(p/45))
	x.lz2.lz.resetState()
	x.w.reset(dict)
	if err := x.in.fill(5); err != nil {
		return nil, formatErr(13, -1, nil, "truncated .lzma data")
	}
	ip, err := x.lz2.lz.initRC(x.in.buf[x.in.i:x.in.n], 0)
	if err != nil {
		return nil, formatErr(13, -1, nil, "%v", err)
	}
	x.in.take(ip)
	x.state = sAlone
	return x, nil
}

// Read reads decompressed bytes.
func (x *Reader) Read(p []byte) (int, error) {
	for {
		if x.w.rpos < x.w.pos {
			n := copy(p, x.w.buf[x.w.rpos:x.w.pos])
			x.w.rpos += n
			return n, nil
		}
		if x.err != nil {
			return 0, x.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		x.err = x.step()
	}
}

func (x *Reader) fail(block bool, f string, args ...any) error {
	if x.in.err != nil {
		return x.in.err
	}
	b := -1
	off := x.in.off
	if block {
		b, off = x.blockNum, x.blockOff
	}
	return formatErr(off, b, nil, f, args...)
}

// step does the next piece of work: a header, or some output.
func (x *Reader) step() error {
	switch x.state {
	case sStreamHeader:
		off := x.in.off
		if err := x.in.fill(streamHeaderSize); err != nil {
			return x.fail(false, "truncated stream header")
		}
		c, err := parseStreamHeader(x.in.take(streamHeaderSize), off)
		if err != nil {
			return err
		}
		x.streamCheck = c
		x.records, x.sumUnpad, x.sumUncomp, x.recordsCRC = 0, 0, 0, 0
		x.state = sBlockStart
	case sBlockStart:
		if err := x.in.fill(1); err != nil {
			return x.fail(false, "truncated stream")
		}
		if x.in.buf[x.in.i] == 0 {
			if err := x.readIndex(); err != nil {
				return err
			}
			x.state = sPadding
			return nil
		}
		x.blockOff = x.in.off
		size := (int(x.in.buf[x.in.i]) + 1) * 4
		if err := x.in.fill(size); err != nil {
			return x.fail(true, "truncated block header")
		}
		h, err := parseBlockHeader(x.in.take(size), x.blockOff, x.blockNum)
		if err != nil {
			return err
		}
		x.hdr = h
		dict := h.dictSize
		if h.uncompressed >= 0 {
			dict = min(dict, h.uncompressed)
		}
		x.w.reset(dict)
		x.lz2.reset()
		x.check.reset(x.streamCheck)
		x.compRead, x.produced = 0, 0
		x.state = sChunkHeader
	case sChunkHeader:
		if err := x.in.fill(1); err != nil {
			return x.fail(true, "truncated LZMA2 data")
		}
		n := chunkHeaderLen(x.in.buf[x.in.i])
		if n == 0 {
			return x.fail(true, "bad LZMA2 control byte")
		}
		if err := x.in.fill(n); err != nil {
			return x.fail(true, "truncated LZMA2 chunk header")
		}
		c := parseChunkHeader(x.in.take(n))
		x.compRead += int64(n)
		if c.end() {
			return x.endBlock()
		}
		if x.hdr.uncompressed >= 0 && int64(c.usize) > x.hdr.uncompressed-x.produced {
			return x.fail(true, "LZMA2 data longer than the block header says")
		}
		var err error
		if c.uncompressed() {
			_, err = x.lz2.startChunk(c, nil, 0)
		} else {
			if e := x.in.fill(c.csize); e != nil {
				return x.fail(true, "truncated LZMA2 chunk")
			}
			x.cin = x.in.buf[x.in.i : x.in.i+c.csize]
			x.cip, err = x.lz2.startChunk(c, x.cin, 0)
		}
		if err != nil {
			return x.fail(true, "%v", err)
		}
		if c.dictReset() {
			x.w.pos, x.w.rpos, x.w.wrapped = 0, 0, false
		}
		x.chunk, x.crem = c, c.usize
		x.state = sChunkData
	case sChunkData:
		return x.chunkData()
	case sPadding:
		// Stream padding (groups of four zero bytes), then another
		// stream or the end.
		if err := x.in.fill(1); err != nil {
			if x.in.err != nil {
				return x.in.err
			}
			x.state = sDone
			return io.EOF
		}
		if x.in.buf[x.in.i] != 0 {
			x.state = sStreamHeader
			return nil
		}
		if err := x.in.fill(4); err != nil || !bytes.Equal(x.in.buf[x.in.i:x.in.i+4], []byte{0, 0, 0, 0}) {
			return x.fail(false, "bad stream padding")
		}
		x.in.take(4)
	case sAlone:
		return x.aloneData()
	case sDone:
		return io.EOF
	}
	return nil
}

// chunkData decodes (or copies) some of the current chunk into the window.
func (x *Reader) chunkData() error {
	w := &x.w
	w.makeRoom()
	start := w.pos
	limit := min(len(w.buf), w.pos+x.crem)
	if x.chunk.uncompressed() {
		n := limit - w.pos
		if err := x.in.fill(min(n, len(x.in.buf))); err != nil {
			return x.fail(true, "truncated uncompressed LZMA2 chunk")
		}
		n = min(n, x.in.n-x.in.i)
		w.pos += copy(w.buf[w.pos:w.pos+n], x.in.take(n))
		x.compRead += int64(n)
	} else {
		ip, pos, err := x.lz2.lz.decode(x.cin, x.cip, w.buf, w.pos, limit, w.wrapped)
		if err != nil {
			return x.fail(true, "%v", err)
		}
		if x.lz2.lz.end {
			return x.fail(true, "end marker in LZMA2 data")
		}
		x.cip, w.pos = ip, pos
		if x.cip > len(x.cin) {
			return x.fail(true, "LZMA chunk does not end at its compressed size")
		}
	}
	n := w.pos - start
	x.check.write(w.buf[start:w.pos])
	x.crem -= n
	x.produced += int64(n)
	if x.crem > 0 {
		return nil
	}
	if !x.chunk.uncompressed() {
		cip, ok := x.lz2.lz.finishRC(x.cin, x.cip)
		if x.lz2.lz.pending != 0 || !ok || cip != len(x.cin) {
			return x.fail(true, "LZMA chunk does not end at its compressed size")
		}
		x.in.take(len(x.cin))
		x.compRead += int64(len(x.cin))
		x.cin = nil
	}
	x.state = sChunkHeader
	return nil
}

// endBlock checks the end of a block: sizes, padding and check.
func (x *Reader) endBlock() error {
	h := &x.hdr
	if h.compressed >= 0 && h.compressed != x.compRead {
		return x.fail(true, "compressed size differs from the block header")
	}
	if h.uncompressed >= 0 && h.uncompressed != x.produced {
		return x.fail(true, "uncompressed size differs from the block header")
	}
	for pad := (4 - x.compRead%4) % 4; pad > 0; pad-- {
		if x.in.fill(1) != nil || x.in.take(1)[0] != 0 {
			return x.fail(true, "bad block padding")
		}
	}
	cs := x.streamCheck.size()
	if err := x.in.fill(cs); err != nil {
		return x.fail(true, "truncated block check")
	}
	if !bytes.Equal(x.in.take(cs), x.check.sum()) {
		return formatErr(x.blockOff, x.blockNum, ErrChecksum, "%v mismatch", x.streamCheck)
	}
	unpadded := uint64(h.size) + uint64(x.compRead) + uint64(cs)
	x.records++
	x.sumUnpad += unpadded
	x.sumUncomp += uint64(x.produced)
	var rec [20]byte
	b := appendUvarint(appendUvarint(rec[:0], unpadded), uint64(x.produced))
	x.recordsCRC = crc32.Update(x.recordsCRC, crc32.IEEETable, b)
	x.blockNum++
	x.state = sBlockStart
	return nil
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// readIndex reads the index and the stream footer and compares them with
// the blocks read.
func (x *Reader) readIndex() error {
	start := x.in.off
	var crc, recCRC uint32
	var n int64
	bad := func(msg string) error { return formatErr(start, -1, nil, "index: %s", msg) }
	get := func() (byte, bool) {
		if x.in.fill(1) != nil {
			return 0, false
		}
		b := x.in.take(1)
		crc = crc32.Update(crc, crc32.IEEETable, b)
		n++
		return b[0], true
	}
	num := func() (uint64, bool) {
		var tmp [9]byte
		for i := range tmp {
			c, ok := get()
			if !ok {
				return 0, false
			}
			tmp[i] = c
			if c&0x80 == 0 {
				v, k := uvarint(tmp[:i+1])
				return v, k > 0
			}
		}
		return 0, false
	}
	get() // the indicator
	count, ok := num()
	if !ok || count != x.records {
		return bad("record count differs from the blocks")
	}
	var sumU, sumC uint64
	for i := uint64(0); i < count; i++ {
		u, ok1 := num()
		c, ok2 := num()
		if !ok1 || !ok2 {
			return bad("bad record")
		}
		var rec [20]byte
		recCRC = crc32.Update(recCRC, crc32.IEEETable, appendUvarint(appendUvarint(rec[:0], u), c))
		sumU += u
		sumC += c
	}
	if sumU != x.sumUnpad || sumC != x.sumUncomp || recCRC != x.recordsCRC {
		return bad("records differ from the blocks")
	}
	for n%4 != 0 {
		if c, ok := get(); !ok || c != 0 {
			return bad("bad padding")
		}
	}
	want := crc
	if x.in.fill(4) != nil || binary.LittleEndian.Uint32(x.in.take(4)) != want {
		return formatErr(start, -1, ErrChecksum, "index CRC32 mismatch")
	}
	n += 4
	off := x.in.off
	if x.in.fill(streamFooterSize) != nil {
		return x.fail(false, "truncated stream footer")
	}
	c, backward, err := parseStreamFooter(x.in.take(streamFooterSize), off)
	if err != nil {
		return err
	}
	if c != x.streamCheck {
		return formatErr(off, -1, nil, "stream header and footer flags differ")
	}
	if backward != n {
		return formatErr(off, -1, nil, "backward size differs from the index size")
	}
	return nil
}

// aloneData decodes some of a .lzma stream. The input buffer holds at
// least maxSymbolIn bytes per symbol decoded, except at the end of the
// input, where an overrun means truncated data.
func (x *Reader) aloneData() error {
	w := &x.w
	lz := &x.lz2.lz
	if x.left == 0 || lz.end {
		x.state = sDone
		return io.EOF
	}
	w.makeRoom()
	// As much as the buffer holds; a short read is the end.
	if err := x.in.fill(len(x.in.buf)); err != nil && x.in.err != nil {
		return err
	}
	avail := x.in.n - x.in.i
	limit := len(w.buf)
	if x.left > 0 {
		limit = int(min(int64(limit), int64(w.pos)+x.left))
	}
	if !x.in.eof {
		limit = min(limit, w.pos+max(avail/maxSymbolIn, 1))
	}
	start := w.pos
	in := x.in.buf[x.in.i:x.in.n]
	ip, pos, err := lz.decode(in, 0, w.buf, w.pos, limit, w.wrapped)
	if err != nil {
		return formatErr(x.in.off, -1, nil, "%v", err)
	}
	if ip > len(in) {
		return formatErr(x.in.off, -1, nil, "truncated .lzma data")
	}
	x.in.take(ip)
	w.pos = pos
	if x.left > 0 {
		x.left -= int64(pos - start)
	}
	if lz.end && x.left > 0 {
		return formatErr(x.in.off, -1, nil, "end marker before the uncompressed size")
	}
	return nil
}

// window is the circular dictionary of the Reader. buf grows (up to max
// bytes, a multiple of 16 so that position bits stay right when it wraps)
// as the data fills it; bytes buf[rpos:pos] are decoded but not yet read.
type window struct {
	buf       []byte
	max       int
	pos, rpos int
	wrapped   bool
}

// reset starts a new dictionary of dict bytes (at least 4096, as LZMA
// decoders do, rounded up to a multiple of 16).
func (w *window) reset(dict int64) {
	dict = max(dict, 4096)
	dict = min(dict, 1<<32)
	w.max = int((dict + 15) &^ 15)
	w.buf = w.buf[:min(cap(w.buf), w.max)]
	w.pos, w.rpos, w.wrapped = 0, 0, false
}

// makeRoom makes room after pos when the window is full (all read), by
// growing it or wrapping.
func (w *window) makeRoom() {
	if w.pos < len(w.buf) {
		w.rpos = w.pos
		return
	}
	if len(w.buf) < w.max {
		// Double the window, but past 8 MiB take the whole dictionary:
		// the garbage of the copies stays below 16 MiB.
		n := max(2*len(w.buf), 64<<10)
		if n > 8<<20 {
			n = w.max
		}
		n = min(n, w.max)
		if cap(w.buf) >= n {
			w.buf = w.buf[:n]
		} else {
			b := make([]byte, n)
			copy(b, w.buf)
			w.buf = b
		}
	} else {
		w.pos, w.wrapped = 0, true
	}
	w.rpos = w.pos
}

// input buffers the compressed bytes.
type input struct {
	r    io.Reader
	buf  []byte
	i, n int   // buffered bytes: buf[i:n]
	off  int64 // offset of buf[i] in the compressed data
	eof  bool
	err  error
}

func (in *input) reset(r io.Reader) {
	if in.buf == nil {
		in.buf = make([]byte, 256<<10)
	}
	in.r, in.i, in.n, in.off, in.eof, in.err = r, 0, 0, 0, false, nil
}

// fill makes at least k bytes (k <= len(buf)) available, or fails with
// io.ErrUnexpectedEOF or the read error.
func (in *input) fill(k int) error {
	if in.n-in.i >= k {
		return nil
	}
	if in.i > 0 {
		in.n = copy(in.buf, in.buf[in.i:in.n])
		in.i = 0
	}
	for in.n < k && !in.eof {
		m, err := in.r.Read(in.buf[in.n:])
		in.n += m
		if err == io.EOF {
			in.eof = true
		} else if err != nil {
			in.err = err
			return err
		}
		if m == 0 && err == nil {
			continue
		}
	}
	if in.n < k {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// take consumes k available bytes.
func (in *input) take(k int) []byte {
	b := in.buf[in.i : in.i+k]
	in.i += k
	in.off += int64(k)
	return b
}

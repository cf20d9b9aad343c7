package xz

import "sync/atomic"

// LZMA2 is a sequence of chunks, each starting with a control byte:
//
//	0x00              end of the LZMA2 data
//	0x01              uncompressed chunk, dictionary reset
//	0x02              uncompressed chunk, no reset
//	0x03-0x7f         invalid
//	0x80-0xff         LZMA chunk; bits 5-6: 0 nothing reset, 1 state reset,
//	                  2 state reset and new properties, 3 state reset, new
//	                  properties and dictionary reset; bits 0-4: bits 16-20
//	                  of the uncompressed size minus one
//
// An uncompressed chunk continues with its size minus one (2 bytes, big
// endian) and the data. An LZMA chunk continues with the low 16 bits of
// its uncompressed size minus one, its compressed size minus one (2 bytes
// each, big endian), the properties byte ((pb*5+lp)*9+lc) when bit 6 is
// set, and the compressed data: a range-coded LZMA stream of its own,
// without end marker, decoding to exactly the uncompressed size.

// chunkHeader is a decoded LZMA2 chunk header.
type chunkHeader struct {
	control byte
	usize   int // uncompressed size (1..2 MiB)
	csize   int // compressed size of an LZMA chunk (1..64 KiB)
	props   byte
}

func (c chunkHeader) end() bool          { return c.control == 0 }
func (c chunkHeader) uncompressed() bool { return c.control < 0x80 }
func (c chunkHeader) dictReset() bool    { return c.control == 1 || c.control >= 0xe0 }

// chunkHeaderLen is the size of the chunk header that starts with control,
// 0 if control is invalid.
func chunkHeaderLen(control byte) int {
	switch {
	case control == 0:
		return 1
	case control <= 2:
		return 3
	case control < 0x80:
		return 0
	case control >= 0xc0:
		return 6
	}
	return 5
}

// parseChunkHeader decodes a chunk header from b, which holds at least
// chunkHeaderLen(b[0]) bytes.
func parseChunkHeader(b []byte) chunkHeader {
	c := chunkHeader{control: b[0]}
	switch chunkHeaderLen(b[0]) {
	case 3:
		c.usize = (int(b[1])<<8 | int(b[2])) + 1
	case 5, 6:
		c.usize = (int(b[0]&0x1f)<<16 | int(b[1])<<8 | int(b[2])) + 1
		c.csize = (int(b[3])<<8 | int(b[4])) + 1
		if b[0] >= 0xc0 {
			c.props = b[5]
		}
	}
	return c
}

// lzma2 is the state of an LZMA2 decoder around its LZMA decoder: the
// resets the stream still owes (the first chunk must reset the
// dictionary; the first LZMA chunk after it must set the properties).
type lzma2 struct {
	lz            lzmaDec
	needDictReset bool
	needProps     bool
	cancel        *atomic.Bool // decodeChunk stops when it is set
}

func (s *lzma2) reset() { s.needDictReset, s.needProps = true, true }

// startChunk applies the resets of chunk c (its header checked against
// what the stream owes) and starts the range decoder of an LZMA chunk on
// in[ip:]. It returns ip after the range coder's first five bytes.
func (s *lzma2) startChunk(c chunkHeader, in []byte, ip int) (int, error) {
	if c.dictReset() {
		s.needProps, s.needDictReset = true, false
	} else if s.needDictReset {
		return ip, corruptError("LZMA2 data does not start with a dictionary reset")
	}
	if c.uncompressed() {
		return ip, nil
	}
	switch (c.control >> 5) & 3 {
	case 2, 3:
		p := c.props
		if p >= 9*5*5 {
			return ip, corruptError("bad LZMA properties")
		}
		lc, lp, pb := uint(p%9), uint(p/9%5), uint(p/45)
		if lc+lp > 4 {
			return ip, corruptError("LZMA2 properties with lc+lp > 4")
		}
		s.lz.setProps(lc, lp, pb)
		s.needProps = false
		s.lz.resetState()
	case 1:
		if s.needProps {
			return ip, corruptError("LZMA2 chunk without the properties it needs")
		}
		s.lz.resetState()
	default:
		if s.needProps {
			return ip, corruptError("LZMA2 chunk without the properties it needs")
		}
	}
	return s.lz.initRC(in, ip)
}

// lzma2Pos is where an LZMA2 decode stands between chunks: the input
// used (ip), the output made (pos) and where the dictionary last started
// (base).
type lzma2Pos struct {
	ip, pos, base int
	end           bool // the end byte was read
}

// decodeChunk decodes the next chunk of the LZMA2 data in into out (the
// whole block: it is the dictionary), from at, which it moves on: a
// caller resets s, then calls it until at.end is set, and may stop
// between chunks and come back with the same at (and the same lzma2,
// whose state the chunks share). After the end byte the data must have
// filled out exactly.
func (s *lzma2) decodeChunk(in, out []byte, at *lzma2Pos) error {
	if s.cancel != nil && s.cancel.Load() {
		return corruptError("canceled")
	}
	ip, pos := at.ip, at.pos
	if ip >= len(in) {
		return corruptError("truncated LZMA2 data")
	}
	n := chunkHeaderLen(in[ip])
	if n == 0 {
		return corruptError("bad LZMA2 control byte")
	}
	if len(in)-ip < n {
		return corruptError("truncated LZMA2 chunk header")
	}
	c := parseChunkHeader(in[ip:])
	ip += n
	if c.end() {
		if pos != len(out) {
			return corruptError("LZMA2 data shorter than the block's uncompressed size")
		}
		at.ip, at.end = ip, true
		return nil
	}
	if c.usize > len(out)-pos {
		return corruptError("LZMA2 data longer than the block's uncompressed size")
	}
	if c.dictReset() {
		at.base = pos
	}
	if c.uncompressed() {
		if _, err := s.startChunk(c, in, ip); err != nil {
			return err
		}
		if len(in)-ip < c.usize {
			return corruptError("truncated uncompressed LZMA2 chunk")
		}
		at.pos = pos + copy(out[pos:pos+c.usize], in[ip:ip+c.usize])
		at.ip = ip + c.usize
		return nil
	}
	if len(in)-ip < c.csize {
		return corruptError("truncated LZMA2 chunk")
	}
	chunk := in[ip : ip+c.csize]
	cp, err := s.startChunk(c, chunk, 0)
	if err != nil {
		return err
	}
	base := at.base
	cp, p, err := s.lz.decode(chunk, cp, out[base:], pos-base, pos-base+c.usize, false)
	if err != nil {
		return err
	}
	if s.lz.end || s.lz.pending != 0 || p != pos-base+c.usize {
		return corruptError("LZMA chunk does not end at its uncompressed size")
	}
	cp, ok := s.lz.finishRC(chunk, cp)
	if !ok || cp != len(chunk) {
		return corruptError("LZMA chunk does not end at its compressed size")
	}
	at.ip, at.pos = ip+c.csize, base+p
	return nil
}

package xz

// The LZMA decoder: a range decoder over a byte slice and the LZMA symbol
// decoder (literals, matches, repeated matches), writing into a dictionary
// window. Written from the LZMA specification (the "LZMA SDK" description
// of the algorithm, lzma-specification.txt) and the xz file format.
//
// The window is a byte slice buf with a write position pos. A block of an
// xz file starts with a dictionary reset, so when a whole block is decoded
// at once, buf is the block's output and never wraps: match copies are
// copies inside one slice (the fast path). The streaming Reader uses the
// same decoder with buf as a circular dictionary: when pos reaches
// len(buf) the caller wraps it to 0 and sets wrapped.

import "sync"

const (
	numStates     = 12
	posBitsMax    = 4
	rcTop         = 1 << 24
	bitModelTotal = 1 << 11
	moveBits      = 5
	probInit      = bitModelTotal / 2
	endPosModel   = 14     // first distance slot with direct bits
	fullDistances = 1 << 7 // distances below this use the special probabilities
	alignBits     = 4      // low bits of long distances, coded in reverse
	literalCoders = 0x300  // probabilities per literal coder
	matchMinLen   = 2      // shortest match
	maxSymbolIn   = 64     // bytes of input one symbol can consume, at most (48)
	lcMax, lpMax  = 8, 4   // LZMA1 limits (LZMA2: lc+lp <= 4)
	pbMax         = 4      // both
	endMarkerDist = 1<<32 - 1
)

// lenProbs are the probabilities of a match-length decoder.
type lenProbs struct {
	choice  uint16
	choice2 uint16
	low     [1 << posBitsMax][8]uint16
	mid     [1 << posBitsMax][8]uint16
	high    [256]uint16
}

// lzmaDec is the state of the LZMA decoder.
type lzmaDec struct {
	rng, code  uint32
	state      uint32
	rep0, rep1 uint32
	rep2, rep3 uint32
	pending    int  // bytes of the last match still to copy (decoding stopped at the limit)
	end        bool // the end marker was decoded
	lc, lp, pb uint
	probs               // all but the literal probabilities
	literal    []uint16 // literalCoders << (lc+lp), and 0x100 more
}

// probs are the fixed-size probability arrays. Some are sized to a power
// of two larger than needed so that masked indexes need no bounds checks.
type probs struct {
	isMatch    [256]uint16 // [state<<4 | posState], 12<<4 used
	isRep      [16]uint16
	isRepG0    [16]uint16
	isRepG1    [16]uint16
	isRepG2    [16]uint16
	isRep0Long [256]uint16
	posSlot    [4][64]uint16
	posSpecial [fullDistances]uint16 // 114 used
	align      [1 << alignBits]uint16
	lenDec     lenProbs
	repLenDec  lenProbs
}

// initProbs and initLiteral hold the initial probabilities, copied on
// each reset (a block of 1 KiB resets them all: a copy is much faster
// than a loop). initOnce fills them, on the first reset rather than at
// start-up (every tool links the decoder; most runs read no xz volume).
var (
	initProbs   probs
	initLiteral [literalCoders<<4 + 0x100]uint16
	initOnce    sync.Once
)

func fillInit() {
	fill := func(p []uint16) {
		for i := range p {
			p[i] = probInit
		}
	}
	p := &initProbs
	fill(p.isMatch[:])
	fill(p.isRep[:])
	fill(p.isRepG0[:])
	fill(p.isRepG1[:])
	fill(p.isRepG2[:])
	fill(p.isRep0Long[:])
	for i := range p.posSlot {
		fill(p.posSlot[i][:])
	}
	fill(p.posSpecial[:])
	fill(p.align[:])
	for _, l := range []*lenProbs{&p.lenDec, &p.repLenDec} {
		l.choice, l.choice2 = probInit, probInit
		for i := range l.low {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
	fill(initLiteral[:])
}

// setProps sets lc, lp and pb (checked by the caller) and sizes the
// literal probabilities; it does not reset them.
func (d *lzmaDec) setProps(lc, lp, pb uint) {
	d.lc, d.lp, d.pb = lc, lp, pb
	// 0x100 more, so that the last coder can be seen as a [0x400]uint16.
	n := literalCoders<<(lc+lp) + 0x100
	if cap(d.literal) < n {
		d.literal = make([]uint16, n)
	}
	d.literal = d.literal[:n]
}

// resetState resets the probabilities, the state and the distances (an
// LZMA2 state reset, or the start of an LZMA stream).
func (d *lzmaDec) resetState() {
	initOnce.Do(fillInit)
	d.probs = initProbs
	for lit := d.literal; len(lit) > 0; {
		lit = lit[copy(lit, initLiteral[:]):]
	}
	d.state, d.rep0, d.rep1, d.rep2, d.rep3 = 0, 0, 0, 0, 0
	d.pending, d.end = 0, false
}

// initRC starts the range decoder on in[ip:] (five bytes: a zero and the
// first code) and returns the position after them.
func (d *lzmaDec) initRC(in []byte, ip int) (int, error) {
	if len(in)-ip < 5 {
		return ip, corruptError("truncated range coder start")
	}
	if in[ip] != 0 {
		return ip, corruptError("range coder start byte is not zero")
	}
	d.code = uint32(in[ip+1])<<24 | uint32(in[ip+2])<<16 | uint32(in[ip+3])<<8 | uint32(in[ip+4])
	d.rng = 0xffffffff
	if d.code == d.rng {
		return ip, corruptError("bad range coder start")
	}
	return ip + 5, nil
}

// finishRC normalises once more after the last symbol and reports whether
// the range decoder ended cleanly (its code is zero).
func (d *lzmaDec) finishRC(in []byte, ip int) (int, bool) {
	if d.rng < rcTop {
		var b byte
		if uint(ip) < uint(len(in)) {
			b = in[ip]
		}
		ip++
		d.code = d.code<<8 | uint32(b)
	}
	return ip, d.code == 0
}

// rcBit decodes one bit with the probability *p (normalisation done).
func rcBit(p *uint16, rng, code uint32) (uint32, uint32, uint32) {
	v := uint32(*p)
	bound := (rng >> 11) * v
	if code < bound {
		*p = uint16(v + (bitModelTotal-v)>>moveBits)
		return bound, code, 0
	}
	*p = uint16(v - v>>moveBits)
	return rng - bound, code - bound, 1
}

// decodeLiteral decodes the eight bits of a literal (a bit tree with the
// probabilities probs[1:0x100]).
//
// Here and in decodeMatchedLiteral and bitTree, whose bits are hard to
// predict, each bit is decoded without a branch (rcBitCmov). On the PCP
// benchmark volume that took the decoder from 1.16 s to 0.72 s of CPU.
func decodeLiteral(probs *[0x400]uint16, in []byte, ip int, rng, code uint32) (int, uint32, uint32, uint32) {
	sym := uint32(1)
	for sym < 0x100 {
		ip, rng, code = rcNorm(in, ip, rng, code)
		p := &probs[sym&0xff]
		var b uint32
		rng, code, b = rcBitCmov(p, rng, code)
		sym = sym<<1 | b
	}
	return ip, rng, code, sym & 0xff
}

// decodeMatchedLiteral decodes a literal after a match: while its bits
// equal those of match (the byte at distance rep0), the probabilities
// probs[0x100:0x300] depend on the match byte's next bit.
func decodeMatchedLiteral(probs *[0x400]uint16, match uint32, in []byte, ip int, rng, code uint32) (int, uint32, uint32, uint32) {
	sym := uint32(1)
	offs := uint32(0x100)
	for sym < 0x100 {
		ip, rng, code = rcNorm(in, ip, rng, code)
		match <<= 1
		bit := match & offs
		p := &probs[(offs+bit+sym)&0x3ff]
		var b uint32
		rng, code, b = rcBitCmov(p, rng, code)
		sym = sym<<1 | b
		offs &= ^(bit ^ (0 - b))
	}
	return ip, rng, code, sym & 0xff
}

// rcBitCmov is rcBit without a branch: both outcomes are computed and
// the compiler picks one with conditional moves. It is faster where the
// bit is hard to predict: in literals and bit trees.
func rcBitCmov(p *uint16, rng, code uint32) (uint32, uint32, uint32) {
	v := uint32(*p)
	bound := (rng >> 11) * v
	var b uint32
	if code >= bound {
		b = 1
	}
	m := 0 - b
	*p = uint16(v - (v>>moveBits)&m + ((bitModelTotal-v)>>moveBits)&^m)
	return bound ^ (bound^(rng-bound))&m, code - bound&m, b
}

// rcNorm refills the range decoder from in when its range is small. Past
// the end of in it reads zeros and still advances ip, so that the caller
// sees the overrun (ip > len(in)) without a bounds panic.
func rcNorm(in []byte, ip int, rng, code uint32) (int, uint32, uint32) {
	if rng < rcTop {
		var b byte
		if uint(ip) < uint(len(in)) {
			b = in[ip]
		}
		return ip + 1, rng << 8, code<<8 | uint32(b)
	}
	return ip, rng, code
}

// decodeLen decodes a match length (0..271, before adding matchMinLen).
func decodeLen(l *lenProbs, posState int, in []byte, ip int, rng, code uint32) (int, uint32, uint32, int) {
	var b uint32
	ip, rng, code = rcNorm(in, ip, rng, code)
	rng, code, b = rcBit(&l.choice, rng, code)
	if b == 0 {
		ip, rng, code, b = bitTree(l.low[posState&15][:], 3, in, ip, rng, code)
		return ip, rng, code, int(b)
	}
	ip, rng, code = rcNorm(in, ip, rng, code)
	rng, code, b = rcBit(&l.choice2, rng, code)
	if b == 0 {
		ip, rng, code, b = bitTree(l.mid[posState&15][:], 3, in, ip, rng, code)
		return ip, rng, code, 8 + int(b)
	}
	ip, rng, code, b = bitTree(l.high[:], 8, in, ip, rng, code)
	return ip, rng, code, 16 + int(b)
}

// bitTree decodes an n-bit number, most significant bit first, with the
// probabilities probs[1:1<<n] of a binary tree.
func bitTree(probs []uint16, n uint, in []byte, ip int, rng, code uint32) (int, uint32, uint32, uint32) {
	sym := uint32(1)
	for sym < 1<<n {
		ip, rng, code = rcNorm(in, ip, rng, code)
		p := &probs[sym]
		var b uint32
		rng, code, b = rcBitCmov(p, rng, code)
		sym = sym<<1 | b
	}
	return ip, rng, code, sym - 1<<n
}

// decode decodes symbols from in[ip:] into buf from pos until pos reaches
// limit (<= len(buf)) or the end marker is found (d.end). A match that
// crosses limit is cut there; its rest is copied first by the next call
// (d.pending). wrapped says that buf is a circular dictionary that has
// been filled once, so that distances may reach back past position 0. It
// returns the new input and output positions; the caller checks ip against
// the end of the input (an overrun reads zeros, see rcNorm).
func (d *lzmaDec) decode(in []byte, ip int, buf []byte, pos, limit int, wrapped bool) (int, int, error) {
	if limit > len(buf) || pos > limit {
		return ip, pos, corruptError("bad decode limit")
	}
	phys := len(buf) // the window's size, for wrapping
	buf = buf[:limit]
	if d.pending > 0 {
		n := min(d.pending, limit-pos)
		pos = copyMatch(buf[:phys], pos, int(d.rep0)+1, n)
		d.pending -= n
	}
	rng, code := d.rng, d.code
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep0, d.rep1, d.rep2, d.rep3
	pbMask := 1<<d.pb - 1
	lpMask := 1<<d.lp - 1
	lc := d.lc
	lit := d.literal
	var err error
	var b uint32
	for pos < limit {
		posState := pos & pbMask
		ip, rng, code = rcNorm(in, ip, rng, code)
		rng, code, b = rcBit(&d.isMatch[(state<<4|uint32(posState))&255], rng, code)
		if b == 0 {
			// Literal.
			var prev uint32
			if pos > 0 {
				prev = uint32(buf[pos-1])
			} else if wrapped {
				prev = uint32(buf[:phys][phys-1])
			}
			off := literalCoders * (((pos & lpMask) << lc) + int(prev>>(8-lc)))
			probs := (*[0x400]uint16)(lit[off : off+0x400])
			var sym uint32
			if state < 7 {
				ip, rng, code, sym = decodeLiteral(probs, in, ip, rng, code)
			} else {
				src := pos - int(rep0) - 1
				if src < 0 {
					src += phys
				}
				ip, rng, code, sym = decodeMatchedLiteral(probs, uint32(buf[:phys][src]), in, ip, rng, code)
			}
			buf[pos] = byte(sym)
			pos++
			switch {
			case state < 4:
				state = 0
			case state < 10:
				state -= 3
			default:
				state -= 6
			}
			continue
		}
		var length int
		ip, rng, code = rcNorm(in, ip, rng, code)
		rng, code, b = rcBit(&d.isRep[state&15], rng, code)
		if b == 0 {
			// A match with a new distance.
			ip, rng, code, length = decodeLen(&d.lenDec, posState, in, ip, rng, code)
			if state < 7 {
				state = 7
			} else {
				state = 10
			}
			lenState := min(length, 3)
			var slot uint32
			ip, rng, code, slot = bitTree(d.posSlot[lenState&3][:], 6, in, ip, rng, code)
			dist := slot
			if slot >= 4 {
				direct := slot>>1 - 1
				dist = (2 | slot&1) << direct
				if slot < endPosModel {
					// Reverse bit tree in posSpecial[dist-slot:].
					sp := d.posSpecial[(dist-slot)&127:]
					m := uint32(1)
					for i := uint32(0); i < direct; i++ {
						ip, rng, code = rcNorm(in, ip, rng, code)
						rng, code, b = rcBit(&sp[m&127], rng, code)
						m = m<<1 | b
						dist |= b << i
					}
				} else {
					for i := direct - alignBits; i > 0; i-- {
						ip, rng, code = rcNorm(in, ip, rng, code)
						rng >>= 1
						code -= rng
						t := 0 - (code >> 31)
						code += rng & t
						dist += (t + 1) << (i - 1 + alignBits)
					}
					m := uint32(1)
					for i := uint32(0); i < alignBits; i++ {
						ip, rng, code = rcNorm(in, ip, rng, code)
						rng, code, b = rcBit(&d.align[m&15], rng, code)
						m = m<<1 | b
						dist |= b << i
					}
					if dist == endMarkerDist {
						d.end = true
						break
					}
				}
			}
			rep3, rep2, rep1, rep0 = rep2, rep1, rep0, dist
		} else {
			ip, rng, code = rcNorm(in, ip, rng, code)
			rng, code, b = rcBit(&d.isRepG0[state&15], rng, code)
			if b == 0 {
				ip, rng, code = rcNorm(in, ip, rng, code)
				rng, code, b = rcBit(&d.isRep0Long[(state<<4|uint32(posState))&255], rng, code)
				if b == 0 {
					// Short rep: one byte at distance rep0.
					if int(rep0) >= pos && (!wrapped || int(rep0) >= phys) {
						err = corruptError("distance beyond the dictionary")
						break
					}
					src := pos - int(rep0) - 1
					if src < 0 {
						src += phys
					}
					buf[pos] = buf[:phys][src]
					pos++
					if state < 7 {
						state = 9
					} else {
						state = 11
					}
					continue
				}
			} else {
				var dist uint32
				ip, rng, code = rcNorm(in, ip, rng, code)
				rng, code, b = rcBit(&d.isRepG1[state&15], rng, code)
				if b == 0 {
					dist = rep1
				} else {
					ip, rng, code = rcNorm(in, ip, rng, code)
					rng, code, b = rcBit(&d.isRepG2[state&15], rng, code)
					if b == 0 {
						dist = rep2
					} else {
						dist = rep3
						rep3 = rep2
					}
					rep2 = rep1
				}
				rep1 = rep0
				rep0 = dist
			}
			ip, rng, code, length = decodeLen(&d.repLenDec, posState, in, ip, rng, code)
			if state < 7 {
				state = 8
			} else {
				state = 11
			}
		}
		if int(rep0) >= pos && (!wrapped || int(rep0) >= phys) {
			err = corruptError("distance beyond the dictionary")
			break
		}
		length += matchMinLen
		n := min(length, limit-pos)
		pos = copyMatch(buf[:phys], pos, int(rep0)+1, n)
		d.pending = length - n
	}
	d.rng, d.code = rng, code
	d.state = state
	d.rep0, d.rep1, d.rep2, d.rep3 = rep0, rep1, rep2, rep3
	return ip, pos, err
}

// copyMatch copies n bytes from dist bytes back to buf[pos:] (n <= the
// room left, dist checked by the caller) and returns the new position.
// In a circular window the source may start before position 0 and wrap
// to the end of buf.
func copyMatch(buf []byte, pos, dist, n int) int {
	src := pos - dist
	if src >= 0 {
		if dist >= n {
			copy(buf[pos:pos+n], buf[src:src+n])
			return pos + n
		}
		// Overlapping: the copy repeats the last dist bytes.
		end := pos + n
		for pos < end {
			k := copy(buf[pos:end], buf[src:pos])
			pos += k
		}
		return end
	}
	src += len(buf)
	for i := 0; i < n; i++ {
		buf[pos] = buf[src]
		pos++
		src++
		if src == len(buf) {
			src = 0
		}
	}
	return pos
}

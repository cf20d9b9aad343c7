package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"strconv"
	"sync"
)

// These constants are part of the .xz wire format (The .xz File Format,
// version 1.1.0) and must not be changed.
const (
	streamHeaderSize = 12 // magic (6), stream flags (2), CRC32 (4)
	streamFooterSize = 12 // CRC32 (4), backward size (4), stream flags (2), magic (2)

	filterLZMA2 = 0x21 // the only filter decoded; delta (0x03) and the BCJ filters (0x04-0x0b) are refused
	maxDictBits = 40   // LZMA2 dictionary-size property: 0..40
)

var (
	headerMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	footerMagic = []byte{'Y', 'Z'}
)

// Check is the type of integrity check of a stream (the low four bits of
// its stream flags).
type Check uint8

// The check types that are verified. Other check IDs are refused with
// ErrUnsupported.
const (
	CheckNone   Check = 0x00
	CheckCRC32  Check = 0x01
	CheckCRC64  Check = 0x04
	CheckSHA256 Check = 0x0a
)

func (c Check) String() string {
	switch c {
	case CheckNone:
		return "None"
	case CheckCRC32:
		return "CRC32"
	case CheckCRC64:
		return "CRC64"
	case CheckSHA256:
		return "SHA-256"
	}
	return "Unknown-" + strconv.Itoa(int(c))
}

// size is the number of check bytes after each block. The format fixes it
// for every ID (0, 4, 8, 16, 32, 64 by groups of three), so a decoder can
// skip checks it cannot verify; this one refuses them instead.
func (c Check) size() int {
	if c == 0 {
		return 0
	}
	return 4 << ((c - 1) / 3)
}

func (c Check) supported() bool {
	return c == CheckNone || c == CheckCRC32 || c == CheckCRC64 || c == CheckSHA256
}

// crc64Table is made when a block first needs it, not at start-up.
var crc64Table = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// checker computes a block's check; its sum is compared with the stored one.
type checker struct {
	c      Check
	crc32  uint32
	crc64  uint64
	table  *crc64.Table // crc64Table(), for CheckCRC64
	sha    hash.Hash
	sumBuf [sha256.Size]byte
}

func (k *checker) reset(c Check) {
	k.c, k.crc32, k.crc64 = c, 0, 0
	if c == CheckCRC64 && k.table == nil {
		k.table = crc64Table()
	}
	if c == CheckSHA256 {
		if k.sha == nil {
			k.sha = sha256.New()
		}
		k.sha.Reset()
	}
}

func (k *checker) write(p []byte) {
	switch k.c {
	case CheckCRC32:
		k.crc32 = crc32.Update(k.crc32, crc32.IEEETable, p)
	case CheckCRC64:
		k.crc64 = crc64.Update(k.crc64, k.table, p)
	case CheckSHA256:
		k.sha.Write(p)
	}
}

// sum returns the check as stored in the file (little-endian CRCs).
func (k *checker) sum() []byte {
	b := k.sumBuf[:0]
	switch k.c {
	case CheckCRC32:
		b = binary.LittleEndian.AppendUint32(b, k.crc32)
	case CheckCRC64:
		b = binary.LittleEndian.AppendUint64(b, k.crc64)
	case CheckSHA256:
		b = k.sha.Sum(b)
	}
	return b
}

// streamFlags decodes the two stream-flag bytes (the first must be zero,
// and the high four bits of the second).
func streamFlags(b []byte) (Check, bool) {
	if b[0] != 0 || b[1]&0xf0 != 0 {
		return 0, false
	}
	return Check(b[1]), true
}

// parseStreamHeader checks a 12-byte stream header and returns its check type.
func parseStreamHeader(b []byte, off int64) (Check, error) {
	if !bytes.Equal(b[:6], headerMagic) {
		return 0, formatErr(off, -1, nil, "not an xz stream header (bad magic)")
	}
	if crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		return 0, formatErr(off, -1, ErrChecksum, "stream header CRC32 mismatch")
	}
	c, ok := streamFlags(b[6:8])
	if !ok {
		return 0, formatErr(off, -1, ErrUnsupported, "stream header has reserved flags set")
	}
	if !c.supported() {
		return 0, formatErr(off, -1, ErrUnsupported, "check type %d is not supported", c)
	}
	return c, nil
}

// parseStreamFooter checks a 12-byte stream footer and returns the stream's
// check type and the size of its index in bytes.
func parseStreamFooter(b []byte, off int64) (Check, int64, error) {
	if !bytes.Equal(b[10:12], footerMagic) {
		return 0, 0, formatErr(off, -1, nil, "not an xz stream footer (bad magic)")
	}
	if crc32.ChecksumIEEE(b[4:10]) != binary.LittleEndian.Uint32(b[0:4]) {
		return 0, 0, formatErr(off, -1, ErrChecksum, "stream footer CRC32 mismatch")
	}
	c, ok := streamFlags(b[8:10])
	if !ok {
		return 0, 0, formatErr(off, -1, ErrUnsupported, "stream footer has reserved flags set")
	}
	backward := (int64(binary.LittleEndian.Uint32(b[4:8])) + 1) * 4
	return c, backward, nil
}

// uvarint decodes a multibyte integer of the .xz format (7 bits a byte,
// least significant first, at most 9 bytes, no superfluous zero byte).
// n is 0 when b does not hold a valid one.
func uvarint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0
			}
			return v, i + 1
		}
	}
	return 0, 0
}

// blockHeader is what a block header says.
type blockHeader struct {
	size         int   // header size in bytes (8..1024)
	compressed   int64 // compressed size, -1 if absent
	uncompressed int64 // uncompressed size, -1 if absent
	dictSize     int64 // from the LZMA2 filter's property
}

// parseBlockHeader decodes a whole block header (b holds at least its size,
// (b[0]+1)*4 bytes). off is its offset in the file, for errors.
func parseBlockHeader(b []byte, off int64, block int) (blockHeader, error) {
	h := blockHeader{size: (int(b[0]) + 1) * 4, compressed: -1, uncompressed: -1}
	bad := func(f string, args ...any) (blockHeader, error) {
		return blockHeader{}, formatErr(off, block, nil, "block header: "+f, args...)
	}
	if b[0] == 0 {
		return bad("index indicator where a block was expected")
	}
	if len(b) < h.size {
		return bad("truncated")
	}
	b = b[:h.size]
	if crc32.ChecksumIEEE(b[:h.size-4]) != binary.LittleEndian.Uint32(b[h.size-4:]) {
		return blockHeader{}, formatErr(off, block, ErrChecksum, "block header CRC32 mismatch")
	}
	flags := b[1]
	if flags&0x3c != 0 {
		return blockHeader{}, formatErr(off, block, ErrUnsupported, "block header has reserved flags set")
	}
	p := 2
	end := h.size - 4
	field := func() (uint64, bool) {
		v, n := uvarint(b[p:end])
		p += n
		return v, n > 0
	}
	if flags&0x40 != 0 {
		v, ok := field()
		if !ok || v == 0 || v > 1<<62 {
			return bad("bad compressed size")
		}
		h.compressed = int64(v)
	}
	if flags&0x80 != 0 {
		v, ok := field()
		if !ok || v > 1<<62 {
			return bad("bad uncompressed size")
		}
		h.uncompressed = int64(v)
	}
	nfilters := int(flags&3) + 1
	for i := 0; i < nfilters; i++ {
		id, ok := field()
		if !ok {
			return bad("bad filter ID")
		}
		psize, ok := field()
		if !ok || psize > uint64(end-p) {
			return bad("bad filter properties size")
		}
		props := b[p : p+int(psize)]
		p += int(psize)
		if id != filterLZMA2 {
			return blockHeader{}, formatErr(off, block, ErrUnsupported, "filter 0x%x is not supported (only LZMA2)", id)
		}
		if i != nfilters-1 {
			return bad("LZMA2 is not the last filter")
		}
		if len(props) != 1 || props[0] > maxDictBits {
			return bad("bad LZMA2 properties")
		}
		h.dictSize = lzma2DictSize(props[0])
	}
	for _, c := range b[p:end] {
		if c != 0 {
			return bad("non-zero header padding")
		}
	}
	return h, nil
}

// lzma2DictSize decodes the LZMA2 dictionary-size property (0..40).
func lzma2DictSize(p byte) int64 {
	if p == 40 {
		return 1<<32 - 1
	}
	return int64(2|p&1) << (p/2 + 11)
}

// Package xz decodes xz files (and legacy .lzma files) in pure Go, with
// random access through the xz block index.
//
// PCP hosts compress archive volumes older than a day with
// "xz -0 --block-size=10MiB": one stream of independent 10 MiB blocks,
// each with a CRC64, and an index at the end giving every block's
// compressed and uncompressed size. File uses that index to decode only
// the blocks a read needs, keeps the last two, and decodes the next ones
// ahead in parallel while reads are sequential. Reader decodes any xz or
// .lzma data sequentially, as a stream, with a dictionary sized by the
// data.
//
// # The .xz format (The .xz File Format, version 1.1.0)
//
//	file:   stream, then zero or more (stream padding, stream); padding is
//	        groups of four zero bytes, also allowed after the last stream
//	stream: header | block ... | index | footer
//	header: magic FD 37 7A 58 5A 00 | flags (2: 0x00, check type) | CRC32 (4)
//	block:  block header | compressed data | padding to 4 | check (0, 4, 8 or 32 bytes)
//	block header: size ((b+1)*4) | flags | [compressed size] | [uncompressed size]
//	        | filter flags (ID, property size, properties) ... | zero padding | CRC32
//	index:  0x00 | record count | (unpadded size, uncompressed size) ... | zero padding | CRC32
//	footer: CRC32 | backward size ((b+1)*4 = the index's size) | flags | "YZ"
//
// Numbers in block headers and indexes are multibyte integers (7 bits a
// byte, least significant first). The unpadded size of a block is its
// header, compressed data and check, without the padding.
//
// Only the LZMA2 filter is decoded (PCP never uses the delta or BCJ
// filters: they give ErrUnsupported), and the checks None, CRC32, CRC64
// and SHA-256, which are verified. The LZMA2 chunk format is described in
// lzma2.go, the LZMA decoder in lzma.go.
//
// # Use
//
//	f, err := xz.NewFile(osFile, size, xz.Options{})
//	if errors.Is(err, xz.ErrTooLarge) {
//		// a block larger than Options.MaxBlock: read it as a stream
//		r := xz.NewReader(io.NewSectionReader(osFile, 0, size))
//		...
//	}
//	defer f.Close()
//	b, err := f.Bytes(off, n, true) // a view, valid until the next call
//
// Errors for damaged data are *FormatError, naming the block and its
// offset in the compressed file.
package xz

package xz

import (
	"errors"
	"fmt"
)

// FormatError reports damaged or unsupported xz (or .lzma) data. It names
// the byte offset in the compressed file of the structure at fault and,
// for damage inside a block, the block's number.
type FormatError struct {
	Offset int64  // byte offset in the compressed file (of the block, header, index or footer at fault); -1 if unknown
	Block  int    // 0-based block number in the file, -1 if the damage is not inside a block
	Msg    string // what is wrong, in words
	Err    error  // ErrCorrupt, ErrChecksum, ErrUnsupported, ErrTooLarge, or the read error
}

func (e *FormatError) Error() string {
	where := ""
	switch {
	case e.Block >= 0 && e.Offset >= 0:
		where = fmt.Sprintf("block %d at offset %d: ", e.Block, e.Offset)
	case e.Offset >= 0:
		where = fmt.Sprintf("offset %d: ", e.Offset)
	}
	return "xz: " + where + e.Msg
}

// Unwrap gives the sentinel error (ErrCorrupt, ErrChecksum, ErrUnsupported,
// ErrTooLarge) or the read error, so that errors.Is works.
func (e *FormatError) Unwrap() error { return e.Err }

var (
	// ErrCorrupt means damaged data: bad magic, sizes that do not add up,
	// an LZMA2 stream that does not decode, and the like.
	ErrCorrupt = errors.New("xz: corrupt data")
	// ErrChecksum means that a CRC32, CRC64 or SHA-256 check did not match.
	ErrChecksum = errors.New("xz: check mismatch")
	// ErrUnsupported means a valid but unsupported feature: a filter other
	// than LZMA2, or an unknown check type.
	ErrUnsupported = errors.New("xz: unsupported feature")
	// ErrTooLarge means a block larger than Options.MaxBlock: NewFile
	// refuses the file, which can still be read with NewReader.
	ErrTooLarge = errors.New("xz: block too large for random access")
)

// corruptError is the error of the LZMA and LZMA2 decoders; the callers
// wrap it in a FormatError naming the block.
type corruptError string

func (e corruptError) Error() string { return string(e) }

// formatErr makes a *FormatError; a nil err means ErrCorrupt.
func formatErr(off int64, block int, err error, format string, args ...any) *FormatError {
	if err == nil {
		err = ErrCorrupt
	}
	return &FormatError{Offset: off, Block: block, Msg: fmt.Sprintf(format, args...), Err: err}
}

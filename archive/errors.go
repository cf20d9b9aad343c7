package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/pmapi"
)

// FormatError reports damage found while decoding an archive file. It names
// the file, the byte offset of the record, and (when known) the record's
// ordinal in that file, and wraps the PCP error code the real tools report
// for the same damage (usually pmapi.ErrLogRec or pmapi.ErrLabel), so that
// errors.Is(err, pmapi.ErrLogRec) holds.
type FormatError struct {
	File   string      // path of the damaged file
	Offset int64       // byte offset of the record (or field) at fault
	Record int         // 1-based record number in the file, 0 if unknown
	Code   pmapi.Error // the PCP error the real tools report
	Detail string      // what is wrong, in words
}

func (e *FormatError) Error() string {
	rec := ""
	if e.Record > 0 {
		rec = fmt.Sprintf(" record %d", e.Record)
	}
	return fmt.Sprintf("%s[offset %d%s]: %s: %s", e.File, e.Offset, rec, e.Detail, e.Code.Error())
}

// Unwrap gives the PCP error code, so errors.Is matches pmapi errors.
func (e *FormatError) Unwrap() error { return e.Code }

// Code returns the PCP error code carried by err: a pmapi.Error found by
// errors.As, or 0 if there is none.
func Code(err error) pmapi.Error {
	var pe pmapi.Error
	if errors.As(err, &pe) {
		return pe
	}
	return 0
}

func formatErr(file string, off int64, rec int, code pmapi.Error, format string, args ...any) error {
	return &FormatError{File: file, Offset: off, Record: rec, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// ErrText renders err as the real tools print an error: a PCP error's
// text (pmErrStr), a system error's strerror text (also when wrapped in
// an *os.PathError), otherwise the error's own text with its first
// letter capitalised.
func ErrText(err error) string {
	if c := Code(err); c != 0 {
		return c.Error()
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return pmapi.ErrStr(-int32(errno))
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pmapi.ErrStr(-int32(syscall.ENOENT))
	case errors.Is(err, fs.ErrExist):
		return pmapi.ErrStr(-int32(syscall.EEXIST))
	case errors.Is(err, fs.ErrPermission):
		return pmapi.ErrStr(-int32(syscall.EACCES))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if len(s) > 0 {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

//go:build !linux

package archive

import (
	"io"
	"os"
	"syscall"
)

// rawWrite is an ordinary write(2) elsewhere than on Linux
// (WriterOptions.RawWrites).
func rawWrite(fd uintptr, name string, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(int(fd), b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		if n == 0 {
			return &os.PathError{Op: "write", Path: name, Err: io.ErrShortWrite}
		}
		b = b[n:]
	}
	return nil
}

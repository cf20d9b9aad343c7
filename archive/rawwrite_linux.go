package archive

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// rawWrite writes b to the descriptor fd of the file name with write(2)
// made by syscall.RawSyscall (WriterOptions.RawWrites), retrying short
// writes and EINTR. The error is an *os.PathError naming the file, as
// os.File.Write's would be.
func rawWrite(fd uintptr, name string, b []byte) error {
	for len(b) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return &os.PathError{Op: "write", Path: name, Err: e}
		case n == 0:
			return &os.PathError{Op: "write", Path: name, Err: io.ErrShortWrite}
		}
		b = b[n:]
	}
	return nil
}

//go:build linux && (amd64 || arm64)

package archive

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// preadFull reads len(b) bytes of f at off, as f.ReadAt does, but by raw
// pread(2) calls: the Go scheduler is not told of them, so that a read
// of a window's worth from the page cache (a hundred microseconds or
// so) does not make the runtime hand the processor to another thread in
// the meantime, which costs more than the read. Reads of regular files
// do not block for long, and are not interrupted by signals.
func preadFull(f *os.File, b []byte, off int64) (int, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return f.ReadAt(b, off)
	}
	n := 0
	var rerr error
	cerr := sc.Read(func(fd uintptr) bool {
		for n < len(b) {
			r, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, fd,
				uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n), uintptr(off+int64(n)), 0, 0)
			switch {
			case e == syscall.EINTR:
				continue
			case e != 0:
				rerr = &os.PathError{Op: "read", Path: f.Name(), Err: e}
				return true
			case r == 0:
				rerr = io.EOF
				return true
			}
			n += int(r)
		}
		return true
	})
	if rerr == nil {
		rerr = cerr
	}
	return n, rerr
}

package archive

import (
	"os"
	"syscall"
)

// startWriteback asks the kernel to start writing the bytes [off,
// off+n) of the file name (descriptor fd) to the disk now, without
// waiting for them (sync_file_range(2) with SYNC_FILE_RANGE_WRITE): the
// fsync that follows has less left to do. A file that cannot do it
// (ENOSYS, EOPNOTSUPP, ESPIPE) is left to the fsync; any other failure
// is an error naming the file.
func startWriteback(fd uintptr, name string, off, n int64) error {
	for {
		err := syscall.SyncFileRange(int(fd), off, n, syncFileRangeWrite)
		switch err {
		case nil, syscall.ENOSYS, syscall.EOPNOTSUPP, syscall.ESPIPE:
			return nil
		case syscall.EINTR:
			continue
		}
		return &os.PathError{Op: "sync_file_range", Path: name, Err: err}
	}
}

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE of <linux/fs.h> (the
// syscall package does not name it).
const syncFileRangeWrite = 2

//go:build !(linux && (amd64 || arm64))

package archive

import "os"

// preadFull reads len(b) bytes of f at off (f.ReadAt).
func preadFull(f *os.File, b []byte, off int64) (int, error) { return f.ReadAt(b, off) }

package xz

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// benchFile returns an xz file for the benchmarks: name "gen-*" is made
// here from the test inputs with the real xz; "b-v3*" is the benchmark
// archive volume in /tmp/bench when it is there (skipped otherwise), with
// its own blocks or recompressed with the given xz options.
func benchFile(b *testing.B, name string) []byte {
	b.Helper()
	switch name {
	case "gen-10MiB", "gen-1KiB":
		in := testInputs(b)
		var data []byte
		for len(data) < 8<<20 {
			data = append(data, in["volumes"]...)
			data = append(data, in["text"][:len(data)%(100<<10)]...)
		}
		bs := "10MiB"
		if name == "gen-1KiB" {
			bs = "1KiB"
		}
		return xzCompress(b, data, "-0", "--block-size="+bs)
	case "b-v3":
		comp, err := os.ReadFile("/tmp/bench/xz/b-v3.0.xz")
		if err != nil {
			b.Skip("no /tmp/bench/xz/b-v3.0.xz")
		}
		return comp
	case "b-v3-1KiB":
		raw, err := os.ReadFile("/tmp/bench/b-v3.0")
		if err != nil {
			b.Skip("no /tmp/bench/b-v3.0")
		}
		return xzCompress(b, raw[:16<<20], "-0", "--block-size=1KiB")
	}
	b.Fatalf("no benchmark file %q", name)
	return nil
}

var benchNames = []string{"gen-10MiB", "gen-1KiB", "b-v3", "b-v3-1KiB"}

// BenchmarkDecodeBlock decodes every block of a file with one Decoder, on
// one goroutine (MB/s of uncompressed data; 0 allocations), and reports
// the thread's CPU time per decode of the file:
//
//	go test -run '^$' -bench 'DecodeBlock/b-v3$' -benchtime 5x ./archive/internal/xz
func BenchmarkDecodeBlock(b *testing.B) {
	for _, name := range benchNames {
		b.Run(name, func(b *testing.B) {
			comp := benchFile(b, name)
			blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
			if err != nil {
				b.Fatal(err)
			}
			var size, maxBlock int64
			for _, bl := range blocks {
				size += bl.UncompressedSize
				maxBlock = max(maxBlock, bl.UncompressedSize)
			}
			d := NewDecoder()
			buf := make([]byte, maxBlock)
			b.SetBytes(size)
			b.ReportAllocs()
			// Thread CPU time: a busy machine moves it much less than
			// the wall time.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			for b.Loop() {
				start := threadCPU()
				for i, bl := range blocks {
					if _, err := d.DecodeBlock(buf, comp[bl.Offset:bl.Offset+bl.Size], bl, i); err != nil {
						b.Fatal(err)
					}
				}
				cpu += threadCPU() - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "thread-cpu-ns/op")
		})
	}
}

// BenchmarkFileScan reads a whole file forwards through File.Bytes in 64
// KiB pieces, with the default readahead (GOMAXPROCS) and without.
func BenchmarkFileScan(b *testing.B) {
	for _, name := range benchNames {
		for _, ra := range []struct {
			name string
			n    int
		}{{"readahead", 0}, {"noreadahead", -1}} {
			b.Run(name+"/"+ra.name, func(b *testing.B) {
				comp := benchFile(b, name)
				b.ReportAllocs()
				for b.Loop() {
					f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: ra.n})
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(f.Size())
					for off := int64(0); off < f.Size(); off += 64 << 10 {
						if _, err := f.Bytes(off, 64<<10, true); err != nil && err != io.EOF {
							b.Fatal(err)
						}
					}
					f.Close()
				}
			})
		}
	}
}

// BenchmarkReader decodes a whole file with the streaming Reader.
func BenchmarkReader(b *testing.B) {
	for _, name := range []string{"gen-10MiB", "b-v3"} {
		b.Run(name, func(b *testing.B) {
			comp := benchFile(b, name)
			r := NewReader(nil)
			buf := make([]byte, 64<<10)
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(bytes.NewReader(comp))
				n, err := io.CopyBuffer(io.Discard, onlyReader{r}, buf)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(n)
			}
		})
	}
}

type onlyReader struct{ io.Reader }

// threadCPU is the CPU time of the calling thread (Linux; 0 elsewhere).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

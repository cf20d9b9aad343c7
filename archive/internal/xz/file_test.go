package xz

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// readRange reads [off, off+n) through Bytes or ReadAt and compares it
// with want.
func readRange(t *testing.T, f *File, want []byte, off int64, n int, forward, useBytes bool) {
	t.Helper()
	var got []byte
	var err error
	if useBytes {
		got, err = f.Bytes(off, n, forward)
	} else {
		got = make([]byte, n)
		var k int
		k, err = f.ReadAt(got, off)
		got = got[:k]
	}
	end := min(off+int64(n), int64(len(want)))
	exp := want[min(off, end):end]
	if end-off < int64(n) {
		if err != io.EOF {
			t.Fatalf("read %d at %d past the end: err %v, want io.EOF", n, off, err)
		}
	} else if err != nil {
		t.Fatalf("read %d at %d: %v", n, off, err)
	}
	if !bytes.Equal(got, exp) {
		t.Fatalf("read %d at %d (forward %v, Bytes %v): bytes differ", n, off, forward, useBytes)
	}
}

// TestRandomAccess compares random reads, sequential scans forwards and
// backwards, with readahead on and off and GOMAXPROCS 1 and 2, with the
// data.
func TestRandomAccess(t *testing.T) {
	in := testInputs(t)
	data := append(append(bytes.Clone(in["volumes"]), in["text"]...), in["repetitive"]...)
	comp := xzCompress(t, data, "-0", "--block-size=7KiB")
	r := rand.New(rand.NewPCG(3, 4))
	for _, procs := range []int{1, 2} {
		for _, ra := range []int{-1, 0, 1, 3} {
			old := runtime.GOMAXPROCS(procs)
			f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: ra})
			if err != nil {
				t.Fatal(err)
			}
			size := int64(len(data))
			// Forwards, in steps of various sizes, across block boundaries.
			for off := int64(0); off < size; {
				n := 1 + r.IntN(3000)
				readRange(t, f, data, off, n, true, r.IntN(2) == 0)
				off += int64(n)
			}
			// Backwards.
			for end := size; end > 0; {
				n := int64(1 + r.IntN(3000))
				off := max(end-n, 0)
				readRange(t, f, data, off, int(end-off), false, r.IntN(2) == 0)
				end = off
			}
			// Random, some past the end.
			for i := 0; i < 300; i++ {
				off := r.Int64N(size + 100)
				readRange(t, f, data, off, r.IntN(20000), r.IntN(2) == 0, r.IntN(2) == 0)
			}
			f.Close()
			runtime.GOMAXPROCS(old)
		}
	}
}

// TestNoGoroutineLeak checks that Close stops the readahead goroutines,
// also when blocks are still decoding ahead.
func TestNoGoroutineLeak(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["zeros"], "-0", "--block-size=64KiB")
	before := runtime.NumGoroutine()
	for i := 0; i < 10; i++ {
		f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 4})
		if err != nil {
			t.Fatal(err)
		}
		for off := int64(0); off < 300<<10; off += 10 << 10 {
			if _, err := f.Bytes(off, 100, true); err != nil {
				t.Fatal(err)
			}
		}
		if len(f.queue) == 0 {
			t.Fatal("no readahead while reading forwards")
		}
		f.Close()
		if _, err := f.ReadAt(make([]byte, 1), 0); err == nil {
			t.Fatal("ReadAt after Close: no error")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

// TestReadaheadMemory checks that a long sequential scan keeps a bounded
// number of buffers, and that scanning a file of 1 KiB blocks allocates
// nothing per block.
func TestReadaheadMemory(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["text"], "-0", "--block-size=1KiB")
	for _, ra := range []int{-1, 2} {
		f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: ra})
		if err != nil {
			t.Fatal(err)
		}
		scan := func() {
			for off := int64(0); off < f.Size(); off += 1000 {
				if _, err := f.Bytes(off, 1000, true); err != nil && err != io.EOF {
					t.Fatal(err)
				}
			}
		}
		scan()
		allocs := testing.AllocsPerRun(3, scan)
		if blocks := len(f.Blocks()); allocs > 2 {
			t.Errorf("readahead %d: %v allocations per scan of %d blocks", ra, allocs, blocks)
		}
		if n := len(f.free) + len(f.queue) + len(f.dropped) + 2; n > max(ra, 0)+3 {
			t.Errorf("readahead %d: %d buffers", ra, n)
		}
		f.Close()
	}
}

func TestSequentialDecodeAllocs(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["text"], "-0", "--block-size=1KiB")
	blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder()
	buf := make([]byte, 1024)
	allocs := testing.AllocsPerRun(3, func() {
		for i, b := range blocks {
			if _, err := d.DecodeBlock(buf, comp[b.Offset:b.Offset+b.Size], b, i); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations decoding %d blocks", allocs, len(blocks))
	}
}

// TestReadIndexAllocs checks that reading an index allocates about log(n)
// times (the growing block list), not per record or byte.
func TestReadIndexAllocs(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["text"], "-0", "--block-size=1KiB")
	var n int
	allocs := testing.AllocsPerRun(3, func() {
		blocks, err := ReadIndex(bytes.NewReader(comp), int64(len(comp)))
		if err != nil {
			t.Fatal(err)
		}
		n = len(blocks)
	})
	if allocs > 30 {
		t.Fatalf("ReadIndex of %d blocks: %v allocations", n, allocs)
	}
}

// TestCacheAndDirection checks that the last two blocks are kept (reading
// back a little decodes nothing), and that readahead follows the
// direction of the reads.
func TestCacheAndDirection(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["text"], "-0", "--block-size=8KiB")
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func(block int, forward bool) {
		t.Helper()
		if _, err := f.Bytes(int64(block)*8192+100, 10, forward); err != nil {
			t.Fatal(err)
		}
	}
	read(3, true)
	read(4, true)
	read(3, false)
	read(4, true)
	read(3, false)
	if n := f.decodes.Load(); n != 2 {
		t.Fatalf("%d blocks decoded for reads in blocks 3 and 4, want 2", n)
	}
	read(10, true)
	read(3, true) // the block read before 10
	if n := f.decodes.Load(); n != 3 {
		t.Fatalf("%d blocks decoded after reading block 10 and again 3, want 3", n)
	}
	f.Close()

	f, err = NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	read(10, false)
	read(9, false)
	if len(f.queue) != 2 || f.queue[0].idx != 8 || f.queue[1].idx != 7 {
		t.Fatalf("reading backwards from block 10: queue %v, want blocks 8 and 7", f.queue)
	}
	read(8, false)
	read(2, false)
	if len(f.queue) != 0 {
		t.Fatalf("after a jump: queue %v, want empty", f.queue)
	}
	f.Close()

	// The way an archive is opened and scanned: the label in block 0,
	// the end of the last block, then block 0 again (cached) and on.
	f, err = NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read(0, true)
	read(len(f.Blocks())-1, false)
	read(0, true)
	read(1, true)
	if len(f.queue) != 2 || f.queue[0].idx != 2 || f.queue[1].idx != 3 {
		t.Fatalf("reading blocks 0, last, 0, 1: queue %v, want blocks 2 and 3", f.queue)
	}
}

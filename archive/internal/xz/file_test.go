package xz

import (
	"bytes"
	"errors"
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

	// The way an archive is opened and scanned: its end (in the last
	// block, read backwards: no readahead), then forwards from block 0
	// (8 KiB blocks are decoded whole: readahead from block 1 on;
	// TestScanAfterJump has large blocks).
	f, err = NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read(len(f.Blocks())-1, false)
	if len(f.queue) != 0 {
		t.Fatalf("reading the last block backwards: queue %v, want empty", f.queue)
	}
	read(0, true)
	if len(f.queue) != 0 {
		t.Fatalf("reading the start of block 0 after the last: queue %v, want empty", f.queue)
	}
	read(1, true)
	if len(f.queue) != 2 || f.queue[0].idx != 2 || f.queue[1].idx != 3 {
		t.Fatalf("reading blocks last, 0, 1: queue %v, want blocks 2 and 3", f.queue)
	}
	f.Close()

	// A jump forwards to a block read whole starts the readahead at once.
	f, err = NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Bytes(5*8192, 8192, true); err != nil {
		t.Fatal(err)
	}
	if len(f.queue) != 2 || f.queue[0].idx != 6 || f.queue[1].idx != 7 {
		t.Fatalf("reading block 5 whole: queue %v, want blocks 6 and 7", f.queue)
	}
}

// TestPartialBlock checks that a read decodes a block only as far as it
// needs (a chunk of LZMA2 data at a time), that later reads take the
// decoding on and get the right bytes, and that the block's check is
// still verified when the block is complete.
func TestPartialBlock(t *testing.T) {
	in := testInputs(t)
	// random data: LZMA2 chunks end at 64 KiB compressed, so the block
	// holds some 50 of them
	data := append(append(bytes.Clone(in["random"]), in["text"]...), in["random"]...)
	data = append(data, in["random"]...)
	comp := xzCompress(t, data, "-0", "--block-size=8MiB")
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Blocks()) != 1 {
		t.Fatalf("%d blocks, want 1", len(f.Blocks()))
	}
	decodedTo := func() int {
		if c := f.cache[0]; c.idx == 0 && c.part != nil {
			return c.part.at.pos
		}
		return -1
	}
	readRange(t, f, data, 0, 808, true, false)
	if n := decodedTo(); n < 808 || n >= len(data)/4 {
		t.Fatalf("after a read of 808 bytes: block decoded up to %d of %d bytes", n, len(data))
	}
	readRange(t, f, data, 100, 1000, true, true)
	mid := int64(len(data) / 2)
	readRange(t, f, data, mid, 5000, true, false)
	if n := decodedTo(); n < int(mid)+5000 || n >= len(data) {
		t.Fatalf("after a read in the middle: block decoded up to %d of %d bytes", n, len(data))
	}
	readRange(t, f, data, mid-300000, 10, true, true) // already decoded
	readRange(t, f, data, int64(len(data))-10, 10, true, false)
	if c := f.cache[0]; c.idx != 0 || c.part != nil || len(c.data) != len(data) {
		t.Fatalf("after the last bytes: cache block %d, in part %v", c.idx, c.part != nil)
	}
	readRange(t, f, data, 0, len(data), true, true)
	if n := f.decodes.Load(); n != 1 {
		t.Fatalf("%d decodes of the block, want 1", n)
	}
	f.Close()

	// A bad check (CRC64, the last 8 bytes before the index) is found
	// when the block is complete.
	bad := bytes.Clone(comp)
	blocks, err := ReadIndex(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	b := blocks[0]
	bad[b.Offset+b.Size-1] ^= 0xff
	f, err = NewFile(bytes.NewReader(bad), int64(len(bad)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	readRange(t, f, data, 0, 808, true, false)
	if _, err := f.ReadAt(make([]byte, 10), int64(len(data))-10); !errors.Is(err, ErrChecksum) {
		t.Fatalf("reading the end of a block with a bad check: %v, want ErrChecksum", err)
	}
	// the block is given up: reading it again starts afresh, and fails
	// again at its end
	readRange(t, f, data, 0, 808, true, true)
	if _, err := f.Bytes(0, len(data), true); !errors.Is(err, ErrChecksum) {
		t.Fatalf("reading a block with a bad check: %v, want ErrChecksum", err)
	}
}

// TestPartialBlocksCached checks that blocks decoded in part are cached
// as complete ones are: reading back and forth between two blocks, each
// read in part, decodes each once and goes on where it stopped.
func TestPartialBlocksCached(t *testing.T) {
	in := testInputs(t)
	data := append(append(bytes.Clone(in["random"]), in["text"]...), in["random"]...)
	comp := xzCompress(t, data, "-0", "--block-size=256KiB")
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Blocks()) < 3 {
		t.Fatalf("%d blocks, want 3 or more", len(f.Blocks()))
	}
	const bs = 256 << 10
	for k := int64(0); k < 8; k++ {
		readRange(t, f, data, k*10000, 100, true, k%2 == 0)
		readRange(t, f, data, bs+k*10000, 100, true, k%2 == 1)
	}
	if n := f.decodes.Load(); n != 2 {
		t.Fatalf("%d decodes for reads in blocks 0 and 1, want 2", n)
	}
	for k := range f.cache {
		if c := f.cache[k]; c.part == nil || c.part.at.pos >= bs/2 {
			t.Fatalf("cache[%d] (block %d): not in part, or decoded too far", k, c.idx)
		}
	}
	// A third block evicts the one used before last; its decode state is
	// reused.
	readRange(t, f, data, 2*bs, 100, true, true)
	readRange(t, f, data, 0, 100, true, true)
	if n := f.decodes.Load(); n != 4 {
		t.Fatalf("%d decodes after reading blocks 2 and 0 again, want 4", n)
	}
	readRange(t, f, data, 0, len(data), true, true)
}

// TestScanAfterJump checks when readahead starts after reads forwards
// jump to a block decoded in part: not for a look at its start (pminfo
// reading an archive's first records), once the reads have gone on for a
// quarter of the block (a scan).
func TestScanAfterJump(t *testing.T) {
	in := testInputs(t)
	var data []byte
	for range 4 {
		data = append(data, in["random"]...)
	}
	data = append(data, in["text"]...)
	comp := xzCompress(t, data, "-0", "--block-size=256KiB")
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Blocks()) != 4 {
		t.Fatalf("%d blocks, want 4", len(f.Blocks()))
	}
	readRange(t, f, data, int64(len(data))-100, 100, false, true) // the end
	readRange(t, f, data, 100, 10, true, true)
	readRange(t, f, data, 60000, 500, true, true)
	if len(f.queue) != 0 {
		t.Fatalf("after reads up to %d bytes into block 0: queue %v, want empty", 60500, f.queue)
	}
	if c := f.cache[0]; c.idx != 0 || c.part == nil {
		t.Fatalf("block 0 not decoded in part")
	}
	readRange(t, f, data, 70000, 500, true, true)
	if len(f.queue) != 2 || f.queue[0].idx != 1 || f.queue[1].idx != 2 {
		t.Fatalf("after reads up to %d bytes into block 0: queue %v, want blocks 1 and 2", 70500, f.queue)
	}
	for off := int64(70500); off < int64(len(data)); off += 5000 {
		readRange(t, f, data, off, 5000, true, true)
	}
	if n := f.decodes.Load(); n != 5 {
		t.Fatalf("%d decodes, want 5 (the last block twice)", n)
	}
}

// TestReadaheadMin checks that blocks smaller than Options.ReadaheadMin
// are not decoded ahead: sequential reads leave the queue empty and
// every block is decoded once, when read.
func TestReadaheadMin(t *testing.T) {
	in := testInputs(t)
	comp := xzCompress(t, in["text"], "-0", "--block-size=8KiB")
	for _, tc := range []struct {
		min       int64
		wantQueue bool
	}{{0, true}, {8192, true}, {8193, false}} {
		f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: 2, ReadaheadMin: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < 4; b++ {
			got, err := f.Bytes(int64(b)*8192+100, 10, true)
			if err != nil {
				t.Fatal(err)
			}
			if want := in["text"][b*8192+100 : b*8192+110]; !bytes.Equal(got, want) {
				t.Fatalf("ReadaheadMin %d, block %d: %q, want %q", tc.min, b, got, want)
			}
		}
		if queued := len(f.queue) > 0; queued != tc.wantQueue {
			t.Errorf("ReadaheadMin %d: blocks queued %v, want %v (queue %v)", tc.min, queued, tc.wantQueue, f.queue)
		}
		f.Close()
	}
}

// TestSmallBlocksCached checks that a file of small blocks keeps the
// blocks read last up to cacheBytes, and decodes them whole: a reader that
// steps back a few records (interpolation does) decodes no block twice.
func TestSmallBlocksCached(t *testing.T) {
	in := testInputs(t)
	data := in["text"]
	comp := xzCompress(t, data, "-0", "--block-size=1KiB")
	f, err := NewFile(bytes.NewReader(comp), int64(len(comp)), Options{Readahead: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Blocks()) < 100 {
		t.Fatalf("%d blocks, want 100 or more", len(f.Blocks()))
	}
	if got, want := len(f.cache), cacheBytes/1024; got != want {
		t.Fatalf("cache of %d blocks, want %d", got, want)
	}
	// Forwards over 60 blocks, 100 bytes at a time, stepping back 3 KiB
	// after each KiB; then backwards over them.
	for off := int64(0); off < 60<<10; off += 1 << 10 {
		readRange(t, f, data, off, 100, true, true)
		readRange(t, f, data, max(off-3<<10, 0), 100, false, true)
	}
	for off := int64(60 << 10); off > 0; off -= 1 << 10 {
		readRange(t, f, data, off-100, 100, false, true)
	}
	if n := f.decodes.Load(); n != 60 {
		t.Fatalf("%d decodes for reads in 60 blocks, want 60", n)
	}
	for k, c := range f.cache {
		if c.part != nil {
			t.Fatalf("cache[%d] (block %d) in part, want whole", k, c.idx)
		}
	}
}

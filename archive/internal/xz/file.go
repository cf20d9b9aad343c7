package xz

import (
	"errors"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// Options tune a File.
type Options struct {
	// Readahead is the number of blocks decoded ahead, in parallel
	// goroutines, while reads move sequentially (forwards or backwards).
	// 0 means runtime.GOMAXPROCS(0); a negative value turns readahead off.
	Readahead int
	// ReadaheadMin is the smallest uncompressed block size decoded ahead:
	// a smaller block is decoded when read, in the caller's goroutine,
	// since handing it to another goroutine costs more than decoding it
	// (with 1 KiB blocks readahead made a short read of an archive 4 times
	// slower). 0: every block.
	ReadaheadMin int64
	// MaxBlock bounds the uncompressed size of a block that a File holds
	// whole; NewFile refuses a file with a larger block (ErrTooLarge).
	// 0 means DefaultMaxBlock.
	MaxBlock int64
}

// DefaultMaxBlock is the default Options.MaxBlock.
const DefaultMaxBlock = 64 << 20

// File gives random access to the uncompressed bytes of an xz file. A read
// decodes only the blocks that hold its range (found through the index),
// and of a block of 64 KiB or more decoded in the caller's goroutine only
// as far as the read needs (a chunk of the LZMA2 data at a time, the rest
// when a later read needs it: reading an archive's label and first
// records does not decode a whole 10 MiB block; a block's check is
// verified when it is complete). It keeps the blocks read last (complete
// or in part): two, or as many as fit in 256 KiB when blocks are smaller.
// When reads move from block to block in one direction, or reads by Bytes
// forwards go on for a quarter of a block they jumped to (an archive's
// scan from its start, after a look at its end), it decodes the next
// blocks in that direction ahead in up to Options.Readahead goroutines.
// Its memory is about (Readahead + 2) times the largest block's
// uncompressed size, or 256 KiB, whichever is more, whatever the file's
// length.
//
// ReadAt may be called from several goroutines (the calls are serialised);
// a slice returned by Bytes is valid until the next call of any method.
// Close stops the goroutines.
type File struct {
	mu        sync.Mutex
	r         io.ReaderAt
	blocks    []Block
	size      int64
	bufSize   int // the largest block's uncompressed size: every buffer has this capacity
	readahead int
	raMin     int64 // Options.ReadaheadMin

	dec  *Decoder // for the blocks decoded by the caller's goroutine
	comp []byte

	cache    []decoded // [0] the block used last, [1] the one before, ...
	free     [][]byte
	spare    []*inPart // for blocks decoded in part, for reuse
	queue    []*job    // blocks decoding ahead, in the order they will be wanted
	dropped  []*job    // jobs no longer wanted, still running
	idle     []*job    // finished jobs, for reuse
	last     int       // block used last (cached or not), -1 at first
	dir      int       // direction of the last step: +1, -1 or 0
	forward  bool      // the reader of block last said it reads forwards,
	scanFrom int64     // and its first read there ended here

	decodes atomic.Int64 // blocks decoded, for the tests

	jobs    chan *job
	wg      sync.WaitGroup
	started bool
	closed  bool
	scratch []byte
}

// decoded is a cached block: complete, or decoded in part (as far as
// reads have needed: a chunk of LZMA2 data at a time) when part is set.
type decoded struct {
	idx  int     // -1 when empty
	data []byte  // the block (its buffer, when in part)
	part *inPart // the decode to take on, nil when the block is complete
}

// inPart is a block decoded in part, with the compressed bytes and the
// decoder (whose LZMA state its chunks share) it keeps until it is
// complete.
type inPart struct {
	partial
	dec  *Decoder
	comp []byte
}

// job is one block decoded ahead by a worker goroutine. The worker owns
// the job until it sends on done (a buffered channel, so that jobs are
// reused).
type job struct {
	cancel atomic.Bool // set when the block is no longer wanted
	idx    int
	buf    []byte // the buffer given to the worker
	data   []byte // the decoded block (in buf), nil on error
	err    error
	done   chan struct{}
}

// NewFile opens the xz file r of size bytes for random access. It reads
// the index (ReadIndex) and nothing else. The ReaderAt must allow
// concurrent ReadAt calls (an *os.File does) when readahead is on.
func NewFile(r io.ReaderAt, size int64, opts Options) (*File, error) {
	blocks, err := ReadIndex(r, size)
	if err != nil {
		return nil, err
	}
	maxBlock := opts.MaxBlock
	if maxBlock <= 0 {
		maxBlock = DefaultMaxBlock
	}
	f := &File{r: r, blocks: blocks, last: -1, dec: NewDecoder()}
	for i, b := range blocks {
		if b.UncompressedSize > maxBlock {
			return nil, formatErr(b.Offset, i, ErrTooLarge, "block of %d bytes exceeds the limit of %d", b.UncompressedSize, maxBlock)
		}
		f.bufSize = max(f.bufSize, int(b.UncompressedSize))
	}
	if n := len(blocks); n > 0 {
		f.size = blocks[n-1].UncompressedOffset + blocks[n-1].UncompressedSize
	}
	f.readahead = opts.Readahead
	f.raMin = opts.ReadaheadMin
	if f.readahead == 0 {
		f.readahead = runtime.GOMAXPROCS(0)
	}
	f.readahead = max(f.readahead, 0)
	f.cache = make([]decoded, max(2, cacheBytes/max(f.bufSize, 1)))
	for k := range f.cache {
		f.cache[k].idx = -1
	}
	return f, nil
}

// Size returns the uncompressed size.
func (f *File) Size() int64 { return f.size }

// Blocks returns the blocks of the file (the caller must not change them).
func (f *File) Blocks() []Block { return f.blocks }

// ReadAt reads len(p) uncompressed bytes at off (io.ReaderAt semantics:
// fewer only at the end, with io.EOF).
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < 0 {
		return 0, errors.New("xz: negative offset")
	}
	if f.closed {
		return 0, os.ErrClosed
	}
	n := 0
	for n < len(p) {
		if off >= f.size {
			return n, io.EOF
		}
		i := f.find(off)
		bo := f.blocks[i].UncompressedOffset
		data, err := f.block(i, 0, off-bo+int64(len(p)-n))
		if err != nil {
			return n, err
		}
		k := copy(p[n:], data[off-bo:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// Bytes returns the n uncompressed bytes at off, or fewer with io.EOF at
// the end. The slice is a view into a decoded block when the range lies
// in one block, else a copy in a scratch buffer; it is valid until the
// next call. forward tells the direction the caller reads in (the one in
// which blocks are decoded ahead: after a jump, once reads forwards have
// gone on for a quarter of the block, or a read backwards moves on to the
// block before).
func (f *File) Bytes(off int64, n int, forward bool) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < 0 || n < 0 {
		return nil, errors.New("xz: negative offset or length")
	}
	if f.closed {
		return nil, os.ErrClosed
	}
	hint := -1
	if forward {
		hint = 1
	}
	var err error
	if int64(n) > f.size-off {
		n = int(max(f.size-off, 0))
		err = io.EOF
	}
	if n == 0 {
		return nil, err
	}
	i := f.find(off)
	b := &f.blocks[i]
	if off+int64(n) <= b.UncompressedOffset+b.UncompressedSize {
		data, e := f.block(i, hint, off+int64(n)-b.UncompressedOffset)
		if e != nil {
			return nil, e
		}
		start := off - b.UncompressedOffset
		return data[start : start+int64(n)], err
	}
	// The range spans blocks: copy it piece by piece, in the caller's
	// direction so that the readahead follows.
	if cap(f.scratch) < n {
		f.scratch = make([]byte, n)
	}
	s := f.scratch[:n]
	end := off + int64(n)
	j := f.find(end - 1)
	first, last, step := i, j, 1
	if !forward {
		first, last, step = j, i, -1
	}
	for k := first; ; k += step {
		bo := f.blocks[k].UncompressedOffset
		data, e := f.block(k, hint, min(end, bo+f.blocks[k].UncompressedSize)-bo)
		if e != nil {
			return nil, e
		}
		lo, hi := max(off, bo), min(end, bo+int64(len(data)))
		copy(s[lo-off:hi-off], data[lo-bo:hi-bo])
		if k == last {
			break
		}
	}
	return s, err
}

// find returns the block holding uncompressed offset off (0 <= off < size).
func (f *File) find(off int64) int {
	return sort.Search(len(f.blocks), func(i int) bool {
		b := &f.blocks[i]
		return b.UncompressedOffset+b.UncompressedSize > off
	})
}

// scanPart: a reader that jumps to a block and reads on forwards in it
// for 1/scanPart of the block is taken to be scanning (readahead starts);
// one that reads less, to be looking (the label and the first records,
// a short window of time).
const scanPart = 4

// block returns block i decoded at least up to need bytes from its start
// (the whole block when need covers it): from the cache, from the
// readahead queue, or decoded now, in part when need is short of the
// block's end. It then starts decoding ahead when the reads move in one
// direction; hint is the caller's direction (+1, -1, or 0 for none).
func (f *File) block(i, hint int, need int64) ([]byte, error) {
	if c := &f.cache[0]; c.idx == i { // the common case: the same block again
		if c.part == nil {
			return c.data, nil
		}
		return f.decodeMore(need)
	}
	f.reap()
	switch {
	case f.last >= 0 && i == f.last+1:
		f.dir = 1
	case f.last >= 0 && i == f.last-1:
		f.dir = -1
	case hint > 0 && need >= f.blocks[i].UncompressedSize:
		// A jump, by a reader that reads forwards to the block's end:
		// most likely a scan (a jump backwards is most often a look at
		// the end).
		f.dir = 1
	default:
		f.dir = 0
	}
	if hint != 0 && f.dir != 0 && hint != f.dir {
		f.dir = 0
	}
	f.forward, f.scanFrom = hint > 0, need
	f.last = i
	if k := f.cached(i); k > 0 {
		c := f.cache[k]
		copy(f.cache[1:k+1], f.cache[:k])
		f.cache[0] = c
		if c.part != nil {
			return f.decodeMore(need)
		}
		return c.data, nil
	}
	var data []byte
	if len(f.queue) > 0 && f.queue[0].idx == i {
		j := f.queue[0]
		f.queue = f.queue[:copy(f.queue, f.queue[1:])]
		<-j.done
		f.idle = append(f.idle, j)
		if j.err != nil {
			f.free = append(f.free, j.buf)
			return nil, j.err
		}
		f.evict()
		data = j.data
	} else {
		f.dropQueue()
		f.evict()
		// Start the next blocks before decoding this one here.
		f.schedule()
		if need < f.blocks[i].UncompressedSize && f.blocks[i].UncompressedSize >= partMin {
			if err := f.startPart(i); err != nil {
				return nil, err
			}
			return f.decodeMore(need)
		}
		buf := f.getBuf()
		var err error
		data, err = f.decode(f.dec, &f.comp, buf, i)
		if err != nil {
			f.free = append(f.free, buf)
			return nil, err
		}
	}
	f.cache[0] = decoded{idx: i, data: data}
	f.schedule()
	return data, nil
}

// startPart starts decoding block i in part into the front of the cache
// (which evict has emptied).
func (f *File) startPart(i int) error {
	f.decodes.Add(1)
	var p *inPart
	if n := len(f.spare); n > 0 {
		p = f.spare[n-1]
		f.spare = f.spare[:n-1]
	} else {
		p = &inPart{dec: NewDecoder()}
	}
	b := f.blocks[i]
	if cap(p.comp) < int(b.Size) {
		p.comp = make([]byte, b.Size)
	}
	src := p.comp[:b.Size]
	buf := f.getBuf()
	err := f.readBlock(src, i)
	if err == nil {
		err = p.start(p.dec, buf[:0], src, b, i)
	}
	if err != nil {
		f.free = append(f.free, buf)
		f.spare = append(f.spare, p)
		return err
	}
	f.cache[0] = decoded{idx: i, data: buf, part: p}
	return nil
}

// decodeMore decodes the block at the front of the cache, decoded in
// part, on until need bytes of it are there, and returns them; a block
// that becomes complete stays in the cache without its decode state.
func (f *File) decodeMore(need int64) ([]byte, error) {
	c := &f.cache[0]
	p := c.part
	if err := p.decode(int(min(need, int64(len(p.out))))); err != nil {
		// The block is given up: reading it again starts afresh.
		f.free = append(f.free, c.data)
		f.spare = append(f.spare, p)
		*c = decoded{idx: -1}
		return nil, err
	}
	if f.dir == 0 && f.forward && need-f.scanFrom >= int64(len(p.out)/scanPart) {
		// A forward reader that went on this far is scanning.
		f.dir = 1
		f.schedule()
	}
	if !p.done {
		return p.out[:p.at.pos], nil
	}
	c.data, c.part = p.out, nil
	f.spare = append(f.spare, p)
	return c.data, nil
}

// cacheBytes is the uncompressed bytes the cache holds at most, in
// blocks, when blocks are small; at least two blocks are held whatever
// their size. With small blocks (xz --block-size=1KiB) a reader that
// steps back a few records, as interpolation does, finds their blocks
// here rather than decoding them again.
const cacheBytes = 256 << 10

// partMin is the smallest block decoded in part: a smaller one is decoded
// whole when first read (the decode state a block in part keeps would
// cost more than the rest of its decoding).
const partMin = 64 << 10

// cached returns the index in the cache of block i, or -1.
func (f *File) cached(i int) int {
	for k := range f.cache {
		if f.cache[k].idx == i {
			return k
		}
	}
	return -1
}

// evict moves the least recently used cached block to the free list and
// makes room at the front of the cache.
func (f *File) evict() {
	n := len(f.cache)
	if c := f.cache[n-1]; c.idx >= 0 {
		f.free = append(f.free, c.data)
		if c.part != nil {
			f.spare = append(f.spare, c.part)
		}
	}
	copy(f.cache[1:], f.cache[:n-1])
	f.cache[0] = decoded{idx: -1}
}

func (f *File) getBuf() []byte {
	if n := len(f.free); n > 0 {
		b := f.free[n-1]
		f.free = f.free[:n-1]
		return b
	}
	return make([]byte, f.bufSize)
}

// decode reads and decodes block i into buf with dec.
func (f *File) decode(dec *Decoder, comp *[]byte, buf []byte, i int) ([]byte, error) {
	f.decodes.Add(1)
	b := f.blocks[i]
	if cap(*comp) < int(b.Size) {
		*comp = make([]byte, b.Size)
	}
	src := (*comp)[:b.Size]
	if err := f.readBlock(src, i); err != nil {
		return nil, err
	}
	return dec.DecodeBlock(buf[:0], src, b, i)
}

// readBlock reads the compressed bytes of block i into src (its size).
func (f *File) readBlock(src []byte, i int) error {
	b := f.blocks[i]
	if n, err := f.r.ReadAt(src, b.Offset); n < len(src) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return formatErr(b.Offset, i, err, "cannot read block: %v", err)
	}
	return nil
}

// schedule keeps up to readahead blocks decoding ahead in the current
// direction.
func (f *File) schedule() {
	if f.dir == 0 || f.readahead <= 0 {
		return
	}
	next := f.last + f.dir
	if n := len(f.queue); n > 0 {
		next = f.queue[n-1].idx + f.dir
	}
	for len(f.queue)+len(f.dropped) < f.readahead && next >= 0 && next < len(f.blocks) {
		if f.blocks[next].UncompressedSize < f.raMin {
			break
		}
		if f.cached(next) >= 0 {
			next += f.dir
			continue
		}
		f.start()
		var j *job
		if n := len(f.idle); n > 0 {
			j = f.idle[n-1]
			f.idle = f.idle[:n-1]
		} else {
			j = &job{done: make(chan struct{}, 1)}
		}
		j.idx, j.buf, j.data, j.err = next, f.getBuf(), nil, nil
		j.cancel.Store(false)
		f.queue = append(f.queue, j)
		f.jobs <- j
		next += f.dir
	}
}

// start starts the worker goroutines, once.
func (f *File) start() {
	if f.started {
		return
	}
	f.started = true
	f.jobs = make(chan *job, f.readahead)
	for w := 0; w < f.readahead; w++ {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			dec := NewDecoder()
			var comp []byte
			for j := range f.jobs {
				dec.cancel = &j.cancel
				j.data, j.err = f.decode(dec, &comp, j.buf, j.idx)
				dec.cancel = nil
				j.done <- struct{}{}
			}
		}()
	}
}

// dropQueue gives up the blocks decoding ahead (the reads jumped): their
// buffers return to the free list when their workers finish (reap).
func (f *File) dropQueue() {
	for _, j := range f.queue {
		j.cancel.Store(true)
	}
	f.dropped = append(f.dropped, f.queue...)
	f.queue = f.queue[:0]
}

// reap collects the buffers of dropped jobs that have finished.
func (f *File) reap() {
	k := 0
	for _, j := range f.dropped {
		select {
		case <-j.done:
			f.free = append(f.free, j.buf)
			f.idle = append(f.idle, j)
		default:
			f.dropped[k] = j
			k++
		}
	}
	f.dropped = f.dropped[:k]
}

// Close stops the readahead goroutines (they give up the blocks they are
// decoding at the next LZMA2 chunk) and releases the buffers. It does not close the ReaderAt.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.dropQueue() // the workers give up the blocks they have not finished
	if f.started {
		close(f.jobs)
		f.wg.Wait()
	}
	f.queue, f.dropped, f.free, f.scratch, f.comp = nil, nil, nil, nil, nil
	f.spare = nil
	for k := range f.cache {
		f.cache[k] = decoded{idx: -1}
	}
	return nil
}

package sampler

import (
	"io"
	"maps"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Each calls fn for every sample, in order, with the sample's values in
// r.Metrics' Vals: what calling Next until it reports the end does, fn
// after each sample, and the same samples, values and errors.
//
// With workers above 1 the window is cut into chunks of samples that
// that many goroutines replay at once, each chunk with a Sampler of its
// own opened as r was, starting one sample before the chunk (so that its
// first sample has rates) and going one past it. A chunk's samples are
// handed to fn as they come while it is the first chunk not yet done;
// the next one is taken only if what its Sampler holds after its first
// sample is what the sweep holds there (the sample past the chunk
// before): the values, the fetch the next rates are computed from, and
// the fetchgroup's instance caches, the state pmrep's samples carry from
// one to the next beyond the interpolation's own (which depends only on
// the archive and the time asked for). Otherwise, and after a chunk that
// meets an error, the Sampler of the chunk before goes on through it, as
// the sweep does. So the result is Next's, in less time on as many
// cores, with memory for at most chunkValues values a chunk (and a copy
// of the metadata for each chunk's Sampler: archives with more than
// maxParallelMeta of it are replayed on one goroutine).
//
// r must be fresh from Open (Next not called); Each leaves it so (it
// only sets its Metrics' Vals).
func (r *Sampler) Each(workers int, fn func(ts pmapi.Timestamp) error) error {
	cols := 0
	for _, m := range r.Metrics {
		cols += len(m.Vals)
	}
	total := r.left
	if total < 0 {
		total = r.estimate()
	}
	per := ChunkSamples
	if per <= 0 {
		// a chunk for each worker, as memory allows (every chunk
		// costs a start: the first fetch reads back and on for the
		// bounds of every instance)
		per = max(minChunk, min((total+workers-1)/max(1, workers), chunkValues/max(1, cols)))
	}
	if workers <= 1 || r.started || total <= per+1 || r.metaBytes() > maxParallelMeta {
		return r.each(fn)
	}
	p := &parallel{r: r, per: per, total: r.left, cols: cols, blockRows: max(1, min(per, blockValues/max(1, cols))), done: make(chan struct{})}
	// the blocks of half a chunk, kept to be filled again
	p.spare = make(chan *block, p.per/p.blockRows/2+2)
	return p.run(workers, fn)
}

// maxParallelMeta is the most metadata (bytes of .meta files, a
// compressed one counted as eight times its size) for which Each
// replays in parallel: every chunk's Sampler holds the metadata of its
// own, and an archive with much of it (processes' instance domains) is
// replayed on one goroutine rather than hold several copies.
const maxParallelMeta = 32 << 20

// metaBytes is about how many bytes the metadata of r's archives has.
func (r *Sampler) metaBytes() int64 {
	var n int64
	set := r.c.Set()
	for i := 0; i < set.Len(); i++ {
		p := set.Archive(i).MetaPath()
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if strings.HasSuffix(p, ".xz") {
			n += 8 * fi.Size()
		} else {
			n += fi.Size()
		}
	}
	return n
}

// estimate is about how many samples r has up to the end of the archive.
func (r *Sampler) estimate() int {
	end, err := r.c.End()
	if err != nil {
		return 0
	}
	span := float64(end.Sec-r.origin.Sec)*1e9 + float64(end.Nsec-r.origin.Nsec)
	return int(math.Min(span/float64(r.delta)+1, math.MaxInt32))
}

// each is Each on one goroutine: Next until the end.
func (r *Sampler) each(fn func(ts pmapi.Timestamp) error) error {
	for {
		ts, ok, err := r.Next()
		if err != nil || !ok {
			return err
		}
		if err := fn(ts); err != nil {
			return err
		}
	}
}

// ChunkSamples, when above 0, is the number of samples in a chunk of
// Each. By default there is a chunk for each worker, of at most
// chunkValues values, and at least minChunk samples. (Tests make chunks
// of a few samples, to cut an archive's replay at many places.)
var ChunkSamples = 0

const (
	chunkValues = 1 << 20 // 16 MB of values waiting
	minChunk    = 16
	blockValues = 1 << 14 // values a worker hands on at once
)

// parallel is Each's state: chunks handed to workers in order, taken
// back in order.
type parallel struct {
	r         *Sampler
	per       int // samples in a chunk
	total     int // samples in all; -1: until the end of the archive
	cols      int // values in a sample
	blockRows int // samples in a block
	done      chan struct{}
	spare     chan *block // blocks handed to fn, to fill again
}

// newBlock is an empty block, one handed to fn before if there is one.
func (p *parallel) newBlock() *block {
	select {
	case b := <-p.spare:
		b.times, b.vals, b.strs = b.times[:0], b.vals[:0], b.strs[:0]
		return b
	default:
		return &block{times: make([]pmapi.Timestamp, 0, p.blockRows), vals: make([]cval, 0, p.blockRows*p.cols)}
	}
}

// reuse keeps b, handed to fn, to be filled again.
func (p *parallel) reuse(b *block) {
	clear(b.strs)
	select {
	case p.spare <- b:
	default:
	}
}

// cval is a Value without pointers: the bits of the field its Kind
// names (of a string: its place in the block's strs).
type cval struct {
	bits uint64
	kind Kind
	ok   bool
}

// block is samples a chunk's worker hands on.
type block struct {
	times []pmapi.Timestamp
	vals  []cval // len(times) rows of every column's value
	strs  []string
}

func (b *block) add(ts pmapi.Timestamp, ms []*Metric) {
	b.times = append(b.times, ts)
	for _, m := range ms {
		for i := range m.Vals {
			v := &m.Vals[i]
			c := cval{kind: v.Kind, ok: v.OK}
			switch v.Kind {
			case KindDouble:
				c.bits = math.Float64bits(v.F)
			case KindSigned:
				c.bits = uint64(v.I)
			case KindUnsigned:
				c.bits = v.U
			case KindString:
				c.bits = uint64(len(b.strs))
				b.strs = append(b.strs, v.S)
			}
			b.vals = append(b.vals, c)
		}
	}
}

// row sets the Vals of ms to the i-th sample of b.
func (b *block) row(i int, ms []*Metric, cols int) {
	k := i * cols
	for _, m := range ms {
		for j := range m.Vals {
			c := &b.vals[k]
			k++
			v := Value{OK: c.ok, Kind: c.kind}
			switch c.kind {
			case KindDouble:
				v.F = math.Float64frombits(c.bits)
			case KindSigned:
				v.I = int64(c.bits)
			case KindUnsigned:
				v.U = c.bits
			case KindString:
				v.S = b.strs[c.bits]
			}
			m.Vals[j] = v
		}
	}
}

// chunk is the samples of one chunk, as its Sampler replays them.
type chunk struct {
	n      int           // which chunk: samples n*per to (n+1)*per-1
	s      *Sampler      // its Sampler (nil: none)
	blocks chan *block   // its samples; closed when it is done
	ready  chan struct{} // closed when first is known
	stop   atomic.Bool   // set: stop replaying
	// first is the state after the chunk's first sample (nil: none).
	first *state
	// When blocks is closed: the samples ended after them (the
	// archive, -s, -T) or failed; next is the state after the sample
	// past the chunk (the next chunk's first), with its end and error:
	// what the sweep has there; more is whether it was replayed.
	end, more        bool
	err              error
	next             *state
	nextEnd          bool
	nextErr          error
	openErr, leadErr bool // the Sampler could not be opened, or its lead-in failed
	sent             int  // samples replayed
	swept            bool // replayed by the Sampler of the chunk before (resume)
}

// state is what a Sampler carries from one sample to the next.
type state struct {
	ts     pmapi.Timestamp
	fg     []Value // every column's fetchgroup value
	vals   []Value // every column's value
	res    *pmapi.Result
	indoms map[pmapi.InDom]indomCache
}

func (r *Sampler) snapshot(ts pmapi.Timestamp) *state {
	st := &state{ts: ts, res: copyResult(r.prev), indoms: make(map[pmapi.InDom]indomCache, len(r.indoms))}
	for _, m := range r.Metrics {
		st.fg = append(st.fg, m.fg...)
		st.vals = append(st.vals, m.Vals...)
	}
	for k, c := range r.indoms {
		st.indoms[k] = indomCache{refreshed: c.refreshed, insts: maps.Clone(c.insts)}
	}
	return st
}

func (a *state) equal(b *state) bool {
	if a == nil || b == nil || a.ts != b.ts || !sameValues(a.fg, b.fg) || !sameValues(a.vals, b.vals) || !a.res.Equal(b.res) || len(a.indoms) != len(b.indoms) {
		return false
	}
	for k, c := range a.indoms {
		d, ok := b.indoms[k]
		if !ok || c.refreshed != d.refreshed || !maps.Equal(c.insts, d.insts) {
			return false
		}
	}
	return true
}

func sameValues(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.OK != y.OK || x.Kind != y.Kind || math.Float64bits(x.F) != math.Float64bits(y.F) || x.I != y.I || x.U != y.U || x.S != y.S {
			return false
		}
	}
	return true
}

func copyResult(res *pmapi.Result) *pmapi.Result {
	if res == nil {
		return nil
	}
	c := &pmapi.Result{Timestamp: res.Timestamp, VSets: make([]pmapi.ValueSet, len(res.VSets))}
	for i, vs := range res.VSets {
		vs.Values = append([]pmapi.Value(nil), vs.Values...)
		for j := range vs.Values {
			if b := vs.Values[j].Block; b != nil {
				vs.Values[j].Block = append([]byte{}, b...)
			}
		}
		c.VSets[i] = vs
	}
	return c
}

// open is a Sampler as r was opened (its warnings not printed again),
// at sample first of r's window, with left samples to go.
func (p *parallel) open(first, left int) (*Sampler, bool) {
	o := *p.r.o
	o.Stderr = io.Discard
	s, err := Open(&o)
	if err != nil {
		return nil, false
	}
	if !sameShape(s, p.r) {
		s.Close()
		return nil, false
	}
	// the origin as the sweep's fetches advance it, one by one (libpcp's
	// additions leave 1e9 nanoseconds as they are)
	for range first {
		s.origin = interp.AddDelta(s.origin, s.delta)
	}
	s.left = left
	return s, true
}

func sameShape(a, b *Sampler) bool {
	if len(a.Metrics) != len(b.Metrics) {
		return false
	}
	for k, m := range a.Metrics {
		if m.PMID != b.Metrics[k].PMID || len(m.Vals) != len(b.Metrics[k].Vals) || len(m.fg) != len(b.Metrics[k].fg) {
			return false
		}
	}
	return true
}

// newChunk is chunk n, to be replayed.
func (p *parallel) newChunk(n int) *chunk {
	return &chunk{n: n, blocks: make(chan *block, p.per/p.blockRows+2), ready: make(chan struct{})}
}

// replay replays chunk c with a Sampler of its own, one sample before
// it to one after it.
func (p *parallel) replay(c *chunk) {
	defer close(c.blocks)
	lead, first := 0, c.n*p.per
	if c.n > 0 {
		lead = 1
	}
	left := lead + p.per + 1
	if p.total >= 0 {
		left = min(left, p.total-first+lead)
	}
	s, ok := p.open(first-lead, left)
	if !ok {
		c.openErr = true
		close(c.ready)
		return
	}
	c.s = s
	if lead > 0 {
		if _, ok, err := s.Next(); err != nil || !ok {
			c.leadErr = true
			close(c.ready)
			return
		}
	}
	p.samples(c, nil, 0)
}

// samples goes on replaying c with c.s, up to the chunk's end and one
// sample past it, handing the samples on in blocks (fn nil) or to fn,
// all but the first skip of them.
func (p *parallel) samples(c *chunk, emit func(ts pmapi.Timestamp, s *Sampler) error, skip int) error {
	s := c.s
	var b *block
	readied := c.first != nil
	defer func() {
		if !readied {
			close(c.ready)
		}
	}()
	flush := func() {
		if b != nil && len(b.times) > 0 {
			c.blocks <- b
		}
		b = nil
	}
	for c.sent < p.per {
		if c.stop.Load() {
			flush()
			c.end = true
			return nil
		}
		ts, ok, err := s.Next()
		if err != nil || !ok {
			flush()
			c.err, c.end = err, !ok
			return nil
		}
		c.sent++
		if c.first == nil {
			c.first = s.snapshot(ts)
			readied = true
			close(c.ready)
		}
		if emit != nil {
			if c.sent > skip {
				if err := emit(ts, s); err != nil {
					return err
				}
			}
			continue
		}
		if b == nil {
			b = p.newBlock()
		}
		b.add(ts, s.Metrics)
		if len(b.times) == p.blockRows {
			flush()
		}
	}
	flush()
	if p.total >= 0 && (c.n+1)*p.per >= p.total {
		return nil // the last chunk
	}
	ts, ok, err := s.Next()
	c.more = true
	c.nextErr, c.nextEnd = err, err == nil && !ok
	if err == nil && ok {
		c.next = s.snapshot(ts)
	}
	return nil
}

// run replays the chunks on workers goroutines and hands their samples
// to fn in order.
func (p *parallel) run(workers int, fn func(ts pmapi.Timestamp) error) error {
	// chunks handed out and not yet taken: workers+1 at most
	queue := make(chan *chunk, workers)
	jobs := make(chan *chunk)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				p.replay(c)
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(queue)
		for n := 0; p.total < 0 || n*p.per < p.total; n++ {
			c := p.newChunk(n)
			select {
			case queue <- c:
			case <-p.done:
				return
			}
			select {
			case jobs <- c:
			case <-p.done:
				close(c.ready)
				close(c.blocks)
				return
			}
		}
	}()
	var prev *chunk
	defer func() {
		close(p.done)
		for c := range queue {
			p.discard(c)
		}
		wg.Wait()
		if prev != nil {
			prev.close()
		}
	}()
	emit := func(b *block) error {
		for i, ts := range b.times {
			b.row(i, p.r.Metrics, p.cols)
			if err := fn(ts); err != nil {
				return err
			}
		}
		p.reuse(b)
		return nil
	}
	for c := range queue {
		if prev == nil {
			// the first chunk: the sweep
			<-c.ready
			if c.openErr {
				p.discard(c)
				return p.r.each(fn)
			}
		} else {
			// what the sweep has at c's first sample: prev's next
			switch {
			case prev.nextErr != nil:
				p.discard(c)
				return prev.nextErr
			case prev.nextEnd || !prev.more:
				p.discard(c)
				return nil
			}
			<-c.ready
			if c.openErr || c.leadErr || !prev.next.equal(c.first) {
				p.discard(c)
				var err error
				if c, err = p.resume(prev, 0, fn); err != nil {
					return err
				}
			}
		}
		for b := range c.blocks {
			if err := emit(b); err != nil {
				p.discard(c)
				return err
			}
		}
		if c.err != nil && prev != nil && !c.swept {
			// an error in a chunk of its own: as the sweep meets it,
			// or not (the samples given already left out)
			sent := c.sent
			p.discard(c)
			var err error
			if c, err = p.resume(prev, sent, fn); err != nil {
				return err
			}
		}
		if prev != nil {
			prev.close()
		}
		prev = c
		if c.err != nil || c.end {
			return c.err
		}
	}
	return nil
}

// discard stops c's worker and closes its Sampler.
func (p *parallel) discard(c *chunk) {
	c.stop.Store(true)
	for range c.blocks {
	}
	c.close()
}

func (c *chunk) close() {
	if c.s != nil {
		c.s.Close()
		c.s = nil
	}
}

// resume replays the chunk after prev as the sweep does, handing its
// samples but the first skip to fn: prev's Sampler goes on from the
// sample past prev (which it has).
func (p *parallel) resume(prev *chunk, skip int, fn func(ts pmapi.Timestamp) error) (*chunk, error) {
	resumes.Add(1)
	c := &chunk{n: prev.n + 1, s: prev.s, first: prev.next, sent: 1, swept: true, blocks: make(chan *block), ready: make(chan struct{})}
	close(c.blocks)
	prev.s = nil
	emit := func(ts pmapi.Timestamp, s *Sampler) error {
		for k, m := range s.Metrics {
			copy(p.r.Metrics[k].Vals, m.Vals)
		}
		return fn(ts)
	}
	if skip == 0 {
		copyState(p.r, prev.next)
		if err := fn(prev.next.ts); err != nil {
			return nil, err
		}
	}
	left := p.per + 1
	if p.total >= 0 {
		left = min(left, p.total-c.n*p.per)
	}
	c.s.left = left - 1
	return c, p.samples(c, emit, skip)
}

// resumes counts the chunks resumed (for the tests: how often a start
// differed from the sweep).
var resumes atomic.Int64

// copyState sets the Vals of r's metrics to those of st.
func copyState(r *Sampler, st *state) {
	k := 0
	for _, m := range r.Metrics {
		k += copy(m.Vals, st.vals[k:])
	}
}

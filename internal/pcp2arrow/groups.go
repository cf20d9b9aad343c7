package pcp2arrow

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// groupValues is how many values (rows times columns) a row group holds
// at most before it is written: what bounds the memory of a writer (two
// row groups: one filling, one being written).
var groupValues = 1 << 20

// pageBuffer is more than a numeric column's values in a row group (at
// most groupValues of 8 bytes; long texts may still take more pages).
// parquet-go fills its buffers as values come, not to this size.
const pageBuffer = 16 << 20

// rowStore is the memory of a row group as a layout fills it, row by
// row (cellRows, longRows).
type rowStore interface {
	// write writes columns [lo, hi) of the rows held with their writers
	// (cws[k] is column k's) and encodes and compresses them into pages.
	// Two goroutines call it at once, on columns apart.
	write(cws []*parquet.ColumnWriter, lo, hi int) error
	// reset empties it for the next row group.
	reset()
}

// groups writes a Parquet file of flat columns a row group at a time:
// the layouts fill the rows of cur (a row store of type S), calling
// endRow after each. A full row group is encoded, compressed and written
// by a goroutine of its own while the next one fills, so that reading
// the archive and writing the file share the machine's cores.
type groups[S rowStore] struct {
	pw       *parquet.GenericWriter[any]
	rg       *parquet.ConcurrentRowGroupWriter
	newStore func(rows int) S // the memory of a row group of rows
	cur      S                // the row group filling
	spare    S                // the memory of the one written before
	hasSpare bool             // whether spare is made
	rows     int              // rows in cur
	perGroup int              // rows a row group holds
	done     chan error       // the row group being written (nil: none)
	err      error            // the first error: nothing is written after it
}

// newGroups is a writer of schema (flat columns) on out: zstd-compressed
// columns, at zstd's fastest level. (With the columns' encodings, see
// columnType, the default level saved only 2.5 to 4% of the files' size
// of b-v3's exports, for 5 to 8% more time; with PLAIN values it had
// saved 7 to 14%.) newStore makes the memory of a row group of the rows
// given.
func newGroups[S rowStore](out io.Writer, schema *parquet.Schema, newStore func(rows int) S, opts ...parquet.WriterOption) *groups[S] {
	opts = append([]parquet.WriterOption{
		schema,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.CreatedBy("pcpkit pcp2arrow", "", ""),
		// A column's values in a row group are one page, however they
		// are handed over (the row stores hand them a chunk at a time;
		// parquet-go's default would cut a page at every 256 KiB, and
		// the smaller pages compress worse: 4.6% larger raw long files).
		parquet.PageBufferSize(pageBuffer),
	}, opts...)
	pw := parquet.NewGenericWriter[any](out, opts...)
	n := len(schema.Fields())
	g := &groups[S]{pw: pw, perGroup: max(1, groupValues/n), newStore: newStore}
	g.cur = newStore(g.perGroup)
	return g
}

// endRow ends a row whose values are in cur, and starts writing the row
// group when it is full. The error is that of writing an earlier group.
func (g *groups[S]) endRow() error {
	if g.rows++; g.rows < g.perGroup {
		return nil
	}
	return g.flush(false)
}

// flush waits for the row group being written, then starts writing the
// one filling (the last one: no more rows come).
func (g *groups[S]) flush(last bool) error {
	if err := g.wait(); err != nil {
		return err
	}
	if g.rows == 0 || g.err != nil {
		return nil
	}
	full := g.cur
	switch {
	case g.hasSpare:
		g.cur, g.hasSpare = g.spare, false
		g.cur.reset()
	case !last:
		// the first row group is written: the second's memory
		g.cur = g.newStore(g.perGroup)
	}
	g.rows = 0
	if g.rg == nil {
		g.rg = g.pw.BeginRowGroup()
	}
	done := make(chan error, 1)
	g.done = done
	go func() {
		done <- g.write(full)
	}()
	return nil
}

// write writes a row group and commits it to the file (in the order of
// flushes: one is written at a time). It runs in its own goroutine;
// full is its alone until it returns, when it becomes spare. The
// columns are encoded and compressed on two goroutines (each half of
// them), so that the last row group, written when nothing else is left
// to do, takes both cores; Commit then only copies the pages.
func (g *groups[S]) write(full S) error {
	cws := g.rg.ColumnWriters()
	half := len(cws) / 2
	other := make(chan error, 1)
	go func() { other <- full.write(cws, half, len(cws)) }()
	err := full.write(cws, 0, half)
	if oerr := <-other; err == nil {
		err = oerr
	}
	if err != nil {
		return err
	}
	_, err = g.rg.Commit()
	g.spare, g.hasSpare = full, true
	return err
}

// wait waits for the row group being written, if any.
func (g *groups[S]) wait() error {
	if g.done != nil {
		if err := <-g.done; err != nil && g.err == nil {
			g.err = fmt.Errorf("pcp2arrow: %v\n", err)
		}
		g.done = nil
	}
	return g.err
}

// close writes the last row group and the file's footer.
func (g *groups[S]) close() error {
	err := g.flush(true)
	if werr := g.wait(); err == nil {
		err = werr
	}
	if cerr := g.pw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pcp2arrow: %v\n", cerr)
	}
	return err
}

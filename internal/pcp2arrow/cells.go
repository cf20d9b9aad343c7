package pcp2arrow

import (
	"math"

	"github.com/parquet-go/parquet-go"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// cellRows is the wide layout's row store: the cells of a row side by
// side (row r's column k at r*width+k), 8 bytes each, the way a sample
// fills them. A slice of parquet.Value a column made as many streams of
// stores as there are columns, of 24 bytes a cell, and those stores
// missed the caches: a fifth of a raw export's time. The values are made
// as they are written, a few columns at a time (write).
type cellRows struct {
	kinds []parquet.Kind    // by column: the Parquet kind of its values
	width int               // columns
	rows  int               // rows held
	bits  []uint64          // the cells: a value's bits, a string's index in strs
	null  []bool            // the cells without a value (column 0 never)
	strs  []string          // the string values
	bufs  [][]parquet.Value // by column: the values write makes
}

// newCellRows makes row stores of columns of kinds: column 0 a
// required timestamp (nanoseconds), the others optional.
func newCellRows(kinds []parquet.Kind) func(rows int) *cellRows {
	return func(rows int) *cellRows {
		w := len(kinds)
		s := &cellRows{kinds: kinds, width: w, bits: make([]uint64, rows*w), null: make([]bool, rows*w)}
		s.bufs = make([][]parquet.Value, w)
		slab := make([]parquet.Value, w*cellChunk)
		for k := range s.bufs {
			s.bufs[k] = slab[k*cellChunk : k*cellChunk : (k+1)*cellChunk]
		}
		return s
	}
}

// next returns the cells of the next row (a full store panics: groups
// writes it when it is).
func (s *cellRows) next() (bits []uint64, null []bool) {
	off := s.rows * s.width
	s.rows++
	return s.bits[off : off+s.width : off+s.width], s.null[off : off+s.width : off+s.width]
}

// cell is the bits of v (which has a value) in a column of PCP type t.
func (s *cellRows) cell(t pmapi.Type, v *sampler.Value) uint64 {
	switch t {
	case pmapi.Type32:
		return uint64(uint32(int32(v.I)))
	case pmapi.TypeU32:
		return uint64(uint32(v.U))
	case pmapi.Type64:
		return uint64(v.I)
	case pmapi.TypeU64:
		return v.U
	case pmapi.TypeFloat:
		return uint64(math.Float32bits(float32(v.F)))
	case pmapi.TypeString:
		s.strs = append(s.strs, v.S)
		return uint64(len(s.strs) - 1)
	}
	return math.Float64bits(v.F)
}

func (s *cellRows) reset() {
	s.rows = 0
	clear(s.strs) // (the strings are let go)
	s.strs = s.strs[:0]
}

// cellChunk is how many rows write makes values of at a time: it reads
// them in order, and their values (cellChunk of 24 bytes a column) stay
// in the caches until they are written. (Reading a few columns at a
// time down the rows missed the caches at every row.)
const cellChunk = 64

func (s *cellRows) write(cws []*parquet.ColumnWriter, lo, hi int) error {
	bufs := s.bufs[lo:hi] // (the other writer's are columns apart)
	for r0 := 0; r0 < s.rows; r0 += cellChunk {
		r1 := min(r0+cellChunk, s.rows)
		for r := r0; r < r1; r++ {
			off := r * s.width
			for k := lo; k < hi; k++ {
				bufs[k-lo] = append(bufs[k-lo], s.value(k, off+k))
			}
		}
		for k := lo; k < hi; k++ {
			if _, err := cws[k].WriteRowValues(bufs[k-lo]); err != nil {
				return err
			}
			bufs[k-lo] = bufs[k-lo][:0]
		}
	}
	for k := lo; k < hi; k++ {
		if err := cws[k].Flush(); err != nil {
			return err
		}
	}
	return nil
}

// value is cell i (of column k) as a Parquet value of its column.
func (s *cellRows) value(k, i int) parquet.Value {
	var v parquet.Value
	if s.null[i] {
		v = parquet.NullValue()
	} else {
		b := s.bits[i]
		switch s.kinds[k] {
		case parquet.Int32:
			v = parquet.Int32Value(int32(uint32(b)))
		case parquet.Int64:
			v = parquet.Int64Value(int64(b))
		case parquet.Float:
			v = parquet.FloatValue(math.Float32frombits(uint32(b)))
		case parquet.ByteArray:
			v = parquet.ByteArrayValue([]byte(s.strs[b]))
		default:
			v = parquet.DoubleValue(math.Float64frombits(b))
		}
		if k > 0 {
			v.SetDefinitionLevel(1)
		}
	}
	v.SetColumnIndex(k)
	return v
}

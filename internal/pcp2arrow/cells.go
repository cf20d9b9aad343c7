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
// as they are written, a chunk of rows at a time (write).
type cellRows struct {
	kinds []parquet.Kind // by column: the Parquet kind of its values
	width int            // columns
	rows  int            // rows held
	bits  []uint64       // the cells: a value's bits, a string's index in strs
	null  []bool         // the cells without a value (column 0 never)
	strs  []string       // the string values
}

// newCellRows makes row stores of columns of kinds: column 0 a
// required timestamp (nanoseconds), the others optional.
func newCellRows(kinds []parquet.Kind) func(rows int) *cellRows {
	return func(rows int) *cellRows {
		w := len(kinds)
		return &cellRows{kinds: kinds, width: w, bits: make([]uint64, rows*w), null: make([]bool, rows*w)}
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

// cellChunk is how many rows write makes values of at a time. A chunk's
// cells (cellChunk rows of the columns written) stay in the caches while
// its columns are made one after the other, each into the same small
// buffer. (Going down a whole row group column by column missed the
// caches at every row; making a chunk's rows in order into a buffer per
// column missed them at every store.)
const cellChunk = 64

func (s *cellRows) write(cws []*parquet.ColumnWriter, lo, hi int) error {
	buf := make([]parquet.Value, cellChunk)
	for r0 := 0; r0 < s.rows; r0 += cellChunk {
		n := min(cellChunk, s.rows-r0)
		for k := lo; k < hi; k++ {
			s.values(buf[:n], k, r0)
			if _, err := cws[k].WriteRowValues(buf[:n]); err != nil {
				return err
			}
		}
	}
	for k := lo; k < hi; k++ {
		if err := cws[k].Flush(); err != nil {
			return err
		}
	}
	return nil
}

// values sets vals to the Parquet values of column k's cells of rows r0
// on.
func (s *cellRows) values(vals []parquet.Value, k, r0 int) {
	i, w := r0*s.width+k, s.width
	switch s.kinds[k] {
	case parquet.Int32:
		for j := range vals {
			vals[j] = parquet.Int32Value(int32(uint32(s.bits[i])))
			i += w
		}
	case parquet.Int64:
		for j := range vals {
			vals[j] = parquet.Int64Value(int64(s.bits[i]))
			i += w
		}
	case parquet.Float:
		for j := range vals {
			vals[j] = parquet.FloatValue(math.Float32frombits(uint32(s.bits[i])))
			i += w
		}
	case parquet.ByteArray:
		for j := range vals {
			if !s.null[i] {
				vals[j] = parquet.ByteArrayValue([]byte(s.strs[s.bits[i]]))
			}
			i += w
		}
	default:
		for j := range vals {
			vals[j] = parquet.DoubleValue(math.Float64frombits(s.bits[i]))
			i += w
		}
	}
	// the levels: column 0 is required, the others optional
	i = r0*s.width + k
	for j := range vals {
		v := &vals[j]
		if k > 0 {
			if s.null[i] {
				*v = parquet.NullValue()
			} else {
				v.SetDefinitionLevel(1)
			}
		}
		v.SetColumnIndex(k)
		i += w
	}
}

package pcp2arrow

import (
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// longColumns are the long layout's columns, in order (without host in a
// dataset, where the directories name it).
var longColumns = []string{"timestamp", "host", "metric", "instance", "value"}

// long writes samples as one row per value: timestamp, host (but in a
// dataset), metric, instance (null for a singular metric), the value as
// a double and, with --labels, the labels (JSON: see labeler).
// String values have no row (they are no double).
type long struct {
	g       *groups[*longRows]
	metrics []*sampler.Metric
	labels  *labeler  // nil: no labels column
	insts   [][]int32 // by metric, then column: the instance's text (longTexts.insts), -1 for none
}

// longTexts are the texts of a long file's rows, which its rows
// (longRows) give by their index.
type longTexts struct {
	host   []byte   // nil: no host column
	names  [][]byte // the metrics'
	insts  [][]byte // the instances'
	labels bool     // whether there is a labels column
}

// longRows is the long layout's row store: each column a slice of
// numbers (the time, the value, the indexes of the metric's and the
// instance's texts), the texts' values made only as the row group is
// written, a chunk of rows at a time: a row's five or six parquet.Values
// held as it came cost a tenth of a raw export's time, and five times
// the memory.
type longRows struct {
	t      *longTexts
	ts     []int64            // the times (nanoseconds)
	metric []int32            // the metrics (index in t.names)
	inst   []int32            // the instances (index in t.insts; -1: none)
	value  []float64          // the values
	labels [][]byte           // the labels (nil: null), with a labels column
	buf    [2][]parquet.Value // write's values, one for each writer
}

func newLongRows(t *longTexts) func(rows int) *longRows {
	return func(rows int) *longRows {
		s := &longRows{
			t:      t,
			ts:     make([]int64, 0, rows),
			metric: make([]int32, 0, rows),
			inst:   make([]int32, 0, rows),
			value:  make([]float64, 0, rows),
		}
		if t.labels {
			s.labels = make([][]byte, 0, rows)
		}
		for i := range s.buf {
			s.buf[i] = make([]parquet.Value, longChunk)
		}
		return s
	}
}

// longChunk is how many rows of a column write makes values of at once.
const longChunk = 1024

func (s *longRows) reset() {
	s.ts, s.metric, s.inst, s.value = s.ts[:0], s.metric[:0], s.inst[:0], s.value[:0]
	if s.labels != nil {
		clear(s.labels) // (the texts are let go)
		s.labels = s.labels[:0]
	}
}

func (s *longRows) write(cws []*parquet.ColumnWriter, lo, hi int) error {
	buf := s.buf[0]
	if lo > 0 {
		buf = s.buf[1] // (the other writer's is buf[0])
	}
	c := 1 // the metric's column
	if s.t.host != nil {
		c = 2
	}
	for k := lo; k < hi; k++ {
		for r0 := 0; r0 < len(s.ts); r0 += longChunk {
			vals := buf[:min(longChunk, len(s.ts)-r0)]
			switch k {
			case 0:
				for j := range vals {
					vals[j] = parquet.Int64Value(s.ts[r0+j])
				}
			case c - 1: // the host (without one, c-1 is 0: the case above)
				for j := range vals {
					vals[j] = parquet.ByteArrayValue(s.t.host)
				}
			case c:
				for j := range vals {
					vals[j] = parquet.ByteArrayValue(s.t.names[s.metric[r0+j]])
				}
			case c + 1:
				for j := range vals {
					if i := s.inst[r0+j]; i < 0 {
						vals[j] = parquet.NullValue()
					} else {
						vals[j] = parquet.ByteArrayValue(s.t.insts[i])
						vals[j].SetDefinitionLevel(1)
					}
				}
			case c + 2:
				for j := range vals {
					vals[j] = parquet.DoubleValue(s.value[r0+j])
				}
			case c + 3:
				for j := range vals {
					if b := s.labels[r0+j]; b == nil {
						vals[j] = parquet.NullValue()
					} else {
						vals[j] = parquet.ByteArrayValue(b)
						vals[j].SetDefinitionLevel(1)
					}
				}
			}
			for j := range vals {
				vals[j].SetColumnIndex(k)
			}
			if _, err := cws[k].WriteRowValues(vals); err != nil {
				return err
			}
		}
		if err := cws[k].Flush(); err != nil {
			return err
		}
	}
	return nil
}

// newLong is a long writer on out; withHost says whether it has the host
// column, labels (nil: none) gives the labels column.
func newLong(metrics []*sampler.Metric, host string, withHost bool, labels *labeler, out io.Writer) *long {
	// the texts repeat: dictionary-encoded (each page holds the indexes
	// of the dictionary's texts, the only ones compressed)
	dict := func(n parquet.Node) parquet.Node { return parquet.Encoded(n, &parquet.RLEDictionary) }
	g := parquet.Group{
		"timestamp": timestampColumn(),
		"metric":    dict(parquet.String()),
		"instance":  parquet.Optional(dict(parquet.String())),
		"value":     columnType(pmapi.TypeDouble),
	}
	order := []string{"timestamp", "metric", "instance", "value"}
	if withHost {
		g["host"] = dict(parquet.String())
		order = longColumns
	}
	if labels != nil {
		g["labels"] = parquet.Optional(dict(parquet.JSON()))
		order = append(order[:len(order):len(order)], "labels")
	}
	schema := parquet.NewSchema("pcp2arrow", orderedGroup{Group: g, order: order})
	// No bounds (page statistics, column index) for the metric,
	// instance and labels texts: every row group holds every metric,
	// so a reader could prune none by them, and computing them was 6%
	// of a long export's time. The timestamps', values' and hosts' are
	// kept (a file's one host: what a query over many files skips
	// files by).
	var opts []parquet.WriterOption
	for _, c := range []string{"metric", "instance", "labels"} {
		opts = append(opts, parquet.SkipPageBounds(c), parquet.SkipPageStatistics(c))
	}
	t := &longTexts{labels: labels != nil}
	if withHost {
		t.host = []byte(host)
	}
	w := &long{metrics: metrics, labels: labels}
	for _, m := range metrics {
		t.names = append(t.names, []byte(m.Name))
		insts := make([]int32, len(m.Cols))
		for i, col := range m.Cols {
			insts[i] = -1
			if m.Desc.InDom != pmapi.InDomNull {
				insts[i] = int32(len(t.insts))
				t.insts = append(t.insts, []byte(col.Name))
			}
		}
		w.insts = append(w.insts, insts)
	}
	w.g = newGroups(out, schema, newLongRows(t), opts...)
	return w
}

// add writes a row for each value of the sample at ts.
func (w *long) add(ts pmapi.Timestamp) error {
	t := ts.Sec*1e9 + int64(ts.Nsec)
	if w.labels != nil {
		w.labels.at(ts)
	}
	for k, m := range w.metrics {
		insts := w.insts[k]
		for i := range m.Vals {
			x, ok := double(&m.Vals[i])
			if !ok {
				continue
			}
			s := w.g.cur
			s.ts = append(s.ts, t)
			s.metric = append(s.metric, int32(k))
			s.inst = append(s.inst, insts[i])
			s.value = append(s.value, x)
			if w.labels != nil {
				s.labels = append(s.labels, w.labels.labels[k][i])
			}
			if err := w.g.endRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// double is a value as a double; false for none, and for a string.
func double(v *sampler.Value) (float64, bool) {
	if !v.OK {
		return 0, false
	}
	switch v.Kind {
	case sampler.KindSigned:
		return float64(v.I), true
	case sampler.KindUnsigned:
		return float64(v.U), true
	case sampler.KindDouble:
		return v.F, true
	}
	return 0, false
}

// close writes the last row group and the file's footer.
func (w *long) close() error { return w.g.close() }

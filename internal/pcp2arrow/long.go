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
	g       *groups[valueColumns]
	metrics []*sampler.Metric
	host    []byte            // nil: no host column
	names   []parquet.Value   // by metric, the metric column's values
	insts   [][]parquet.Value // by metric, then column, the instance column's
	labels  *labeler          // nil: no labels column
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
	w := &long{g: newGroups(out, schema, newValueColumns(len(order)), opts...), metrics: metrics, labels: labels}
	if withHost {
		w.host = []byte(host)
	}
	c := 1 // the metric's column
	if withHost {
		c = 2
	}
	for _, m := range metrics {
		w.names = append(w.names, parquet.ByteArrayValue([]byte(m.Name)).Level(0, 0, c))
		insts := make([]parquet.Value, len(m.Cols))
		for i, col := range m.Cols {
			insts[i] = parquet.NullValue().Level(0, 0, c+1)
			if m.Desc.InDom != pmapi.InDomNull {
				insts[i] = parquet.ByteArrayValue([]byte(col.Name)).Level(0, 1, c+1)
			}
		}
		w.insts = append(w.insts, insts)
	}
	return w
}

// add writes a row for each value of the sample at ts.
func (w *long) add(ts pmapi.Timestamp) error {
	t := parquet.Int64Value(ts.Sec*1e9+int64(ts.Nsec)).Level(0, 0, 0)
	c := 1 // the metric's column
	var host parquet.Value
	if w.host != nil {
		host = parquet.ByteArrayValue(w.host).Level(0, 0, 1)
		c = 2
	}
	if w.labels != nil {
		w.labels.at(ts)
	}
	for k, m := range w.metrics {
		name, insts := w.names[k], w.insts[k]
		for i := range m.Vals {
			x, ok := double(&m.Vals[i])
			if !ok {
				continue
			}
			cols := w.g.cur
			cols[0] = append(cols[0], t)
			if w.host != nil {
				cols[1] = append(cols[1], host)
			}
			cols[c] = append(cols[c], name)
			cols[c+1] = append(cols[c+1], insts[i])
			vc := append(cols[c+2], parquet.DoubleValue(x))
			vc[len(vc)-1].SetColumnIndex(c + 2) // (no copy, as Level makes)
			cols[c+2] = vc
			if w.labels != nil {
				l := parquet.NullValue().Level(0, 0, c+3)
				if b := w.labels.labels[k][i]; b != nil {
					l = parquet.ByteArrayValue(b).Level(0, 1, c+3)
				}
				cols[c+3] = append(cols[c+3], l)
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

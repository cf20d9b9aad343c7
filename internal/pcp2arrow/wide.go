package pcp2arrow

import (
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// orderedGroup is a Parquet group whose fields are in the order given
// (parquet.Group orders them by name).
type orderedGroup struct {
	parquet.Group
	order []string
}

// Fields are the group's fields in g.order.
func (g orderedGroup) Fields() []parquet.Field {
	byName := map[string]parquet.Field{}
	for _, f := range g.Group.Fields() {
		byName[f.Name()] = f
	}
	out := make([]parquet.Field, len(g.order))
	for i, n := range g.order {
		out[i] = byName[n]
	}
	return out
}

// wide writes samples as rows: a timestamp, then a column per metric
// instance.
type wide struct {
	g       *groups
	metrics []*sampler.Metric
}

// columnType is the Parquet type of a metric's values of PCP type t.
func columnType(t pmapi.Type) parquet.Node {
	switch t {
	case pmapi.Type32:
		return parquet.Int(32)
	case pmapi.TypeU32:
		return parquet.Uint(32)
	case pmapi.Type64:
		return parquet.Int(64)
	case pmapi.TypeU64:
		return parquet.Uint(64)
	case pmapi.TypeFloat:
		return parquet.Leaf(parquet.FloatType)
	case pmapi.TypeString:
		return parquet.String()
	}
	return parquet.Leaf(parquet.DoubleType)
}

// wideNames are the wide layout's column names: "timestamp", then
// "metric" for a singular metric and "metric[instance]" for each
// instance. A name met before (two instances of one name) gets "#" and
// the instance's number, and a column met before (-i naming an instance
// twice) "#" and the number of its repetition (2, 3, ...).
func wideNames(metrics []*sampler.Metric) ([]string, error) {
	names := []string{"timestamp"}
	seen := map[string]bool{"timestamp": true}
	for _, m := range metrics {
		for _, c := range m.Cols {
			n := m.Name
			if m.Desc.InDom != pmapi.InDomNull {
				n += "[" + c.Name + "]"
				if seen[n] {
					n += "#" + strconv.Itoa(int(c.Inst))
				}
				for k, base := 2, n; seen[n]; k++ {
					n = base + "#" + strconv.Itoa(k)
				}
			}
			if seen[n] {
				return nil, fmt.Errorf("pcp2arrow: two columns named %q\n", n)
			}
			seen[n] = true
			names = append(names, n)
		}
	}
	return names, nil
}

func newWide(metrics []*sampler.Metric, out io.Writer) (*wide, error) {
	names, err := wideNames(metrics)
	if err != nil {
		return nil, err
	}
	g := parquet.Group{names[0]: parquet.Timestamp(parquet.Nanosecond)}
	k := 1
	for _, m := range metrics {
		for range m.Cols {
			g[names[k]] = parquet.Optional(columnType(m.OType))
			k++
		}
	}
	schema := parquet.NewSchema("pcp2arrow", orderedGroup{Group: g, order: names})
	return &wide{g: newGroups(out, schema), metrics: metrics}, nil
}

// add writes the sample at ts (the values in w.metrics) as a row.
func (w *wide) add(ts pmapi.Timestamp) error {
	cols := w.g.cols
	cols[0] = append(cols[0], parquet.Int64Value(ts.Sec*1e9+int64(ts.Nsec)).Level(0, 0, 0))
	k := 1
	for _, m := range w.metrics {
		for i := range m.Vals {
			v := &m.Vals[i]
			c := append(cols[k], cell(m.OType, v))
			// the levels set in place (Value.Level copies the value
			// twice: 12% of a raw export's time)
			p := &c[len(c)-1]
			if v.OK {
				p.SetDefinitionLevel(1)
			}
			p.SetColumnIndex(k)
			cols[k] = c
			k++
		}
	}
	return w.g.endRow()
}

// cell is v as a value of type t (null where v has none), without its
// levels.
func cell(t pmapi.Type, v *sampler.Value) parquet.Value {
	if !v.OK {
		return parquet.NullValue()
	}
	var p parquet.Value
	switch t {
	case pmapi.Type32:
		p = parquet.Int32Value(int32(v.I))
	case pmapi.TypeU32:
		p = parquet.Int32Value(int32(uint32(v.U)))
	case pmapi.Type64:
		p = parquet.Int64Value(v.I)
	case pmapi.TypeU64:
		p = parquet.Int64Value(int64(v.U))
	case pmapi.TypeFloat:
		p = parquet.FloatValue(float32(v.F))
	case pmapi.TypeString:
		p = parquet.ByteArrayValue([]byte(v.S))
	default:
		p = parquet.DoubleValue(v.F)
	}
	return p
}

// close writes the last row group and the file's footer.
func (w *wide) close() error { return w.g.close() }

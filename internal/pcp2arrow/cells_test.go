package pcp2arrow

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/pmapi"
)

// TestCellRows writes rows of every kind of cell the wide layout holds
// (a timestamp, 32- and 64-bit integers, floats, doubles, strings), with
// nulls in runs and alone, through groups and a cellRows store, in row
// groups of several chunks and a partial last chunk (and a last row
// group shorter than the others), and reads them back with parquet-go:
// every cell is the one written.
func TestCellRows(t *testing.T) {
	saved := groupValues
	defer func() { groupValues = saved }()
	nodes := []parquet.Node{timestampColumn(), columnType(pmapi.TypeU32), columnType(pmapi.Type64), columnType(pmapi.TypeFloat), columnType(pmapi.TypeDouble), columnType(pmapi.TypeString)}
	names := []string{"timestamp", "u32", "i64", "float", "double", "string"}
	var kinds []parquet.Kind
	for _, n := range nodes {
		kinds = append(kinds, n.Type().Kind())
	}
	for _, c := range []struct{ perGroup, rows int }{{1, 3}, {63, 130}, {64, 128}, {200, 1000}, {1000, 999}} {
		groupValues = c.perGroup * len(kinds)
		g := parquet.Group{}
		for i, n := range names {
			g[n] = parquet.Optional(nodes[i])
			if i == 0 {
				g[n] = nodes[i]
			}
		}
		schema := parquet.NewSchema("pcp2arrow", orderedGroup{Group: g, order: names})
		var out bytes.Buffer
		w := newGroups(&out, schema, newCellRows(kinds))
		var want [][]any
		for r := range c.rows {
			bits, null := w.cur.next()
			row := make([]any, len(kinds))
			bits[0], row[0] = uint64(int64(r)*1e9+7), int64(r)*1e9+7
			for k := 1; k < len(kinds); k++ {
				if null[k] = (r+k)%7 == 0 || r/50%3 == 1 && k == 2; null[k] {
					continue
				}
				switch k {
				case 1:
					row[k] = uint32(math.MaxUint32 - r)
					bits[k] = uint64(row[k].(uint32))
				case 2:
					row[k] = -int64(r) << 40
					bits[k] = uint64(row[k].(int64))
				case 3:
					row[k] = float32(r) / 3
					bits[k] = uint64(math.Float32bits(row[k].(float32)))
				case 4:
					row[k] = float64(r) * math.Pi
					bits[k] = math.Float64bits(row[k].(float64))
				case 5:
					row[k] = fmt.Sprint("s", r)
					w.cur.strs = append(w.cur.strs, row[k].(string))
					bits[k] = uint64(len(w.cur.strs) - 1)
				}
			}
			want = append(want, row)
			if err := w.endRow(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.close(); err != nil {
			t.Fatal(err)
		}
		got := readCells(t, out.Bytes(), len(kinds))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d rows a group, %d rows: read back (-written +read):\n%s", c.perGroup, c.rows, diff)
		}
	}
}

// readCells reads a file of width columns back as its rows (the cells
// as Go values of their kind, nil for null).
func readCells(t *testing.T, file []byte, width int) [][]any {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	r := parquet.NewGenericReader[any](pf)
	defer r.Close()
	var rows [][]any
	buf := make([]parquet.Row, 100)
	for {
		n, err := r.ReadRows(buf)
		for _, pr := range buf[:n] {
			row := make([]any, width)
			for _, v := range pr {
				k := v.Column()
				switch {
				case v.IsNull():
				case v.Kind() == parquet.Int32:
					row[k] = v.Uint32() // (the tests' are unsigned)
				case v.Kind() == parquet.Int64:
					row[k] = v.Int64()
				case v.Kind() == parquet.Float:
					row[k] = v.Float()
				case v.Kind() == parquet.Double:
					row[k] = v.Double()
				default:
					row[k] = string(v.ByteArray())
				}
			}
			rows = append(rows, row)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

// BenchmarkCellRows writes row groups of 400 double columns (a value in
// nine cells of ten) through groups and cellRows to io.Discard: the
// wide layout's writing, without the archive's reading.
//
//	go test -run '^$' -bench CellRows ./internal/pcp2arrow
func BenchmarkCellRows(b *testing.B) {
	const width, rows = 401, 1 << 14
	names := []string{"timestamp"}
	g := parquet.Group{"timestamp": timestampColumn()}
	kinds := []parquet.Kind{parquet.Int64}
	for k := 1; k < width; k++ {
		n := fmt.Sprint("m", k)
		names = append(names, n)
		g[n] = parquet.Optional(columnType(pmapi.TypeDouble))
		kinds = append(kinds, parquet.Double)
	}
	schema := parquet.NewSchema("pcp2arrow", orderedGroup{Group: g, order: names})
	b.ReportAllocs()
	b.SetBytes(rows * width * 8)
	for i := 0; i < b.N; i++ {
		w := newGroups(io.Discard, schema, newCellRows(kinds))
		for r := range rows {
			bits, null := w.cur.next()
			bits[0] = uint64(r) * 1e9
			for k := 1; k < width; k++ {
				null[k] = (r+k)%10 == 0
				bits[k] = math.Float64bits(float64(r*k) / 7)
			}
			if err := w.endRow(); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongRows writes long rows, with and without the host and labels
// columns, null instances and labels among them, through groups and a
// longRows store, in row groups of several chunks and partial ones, and
// reads them back with parquet-go: every cell is the one written.
func TestLongRows(t *testing.T) {
	saved := groupValues
	defer func() { groupValues = saved }()
	for _, c := range []struct {
		host, labels bool
		perGroup     int
		rows         int
	}{{false, false, 5000, 4097}, {true, false, 3000, 7000}, {true, true, 1024, 2048}, {false, true, 1, 3}} {
		sm := []*sampler.Metric{
			{Name: "a.singular", Desc: pmapi.Desc{InDom: pmapi.InDomNull}, Cols: []sampler.Column{{Inst: pmapi.InstNull}}},
			{Name: "b.indom", Desc: pmapi.Desc{InDom: 1}, Cols: []sampler.Column{{Inst: 1, Name: "one"}, {Inst: 2, Name: "two"}}},
		}
		var lab *labeler
		if c.labels {
			lab = &labeler{labels: [][][]byte{{nil}, {[]byte(`{"x":1}`), nil}}}
		}
		width := 4
		if c.host {
			width++
		}
		if c.labels {
			width++
		}
		groupValues = c.perGroup * width
		var out bytes.Buffer
		w := newLong(sm, "h", c.host, lab, &out)
		var want [][]any
		for r := range c.rows {
			k := r % 3 // metric 0, then metric 1's two columns
			m, i := min(k, 1), max(k-1, 0)
			s := w.g.cur
			s.ts = append(s.ts, int64(r)*1e6)
			s.metric = append(s.metric, int32(m))
			s.inst = append(s.inst, w.insts[m][i])
			s.value = append(s.value, float64(r)/3)
			row := []any{int64(r) * 1e6}
			if c.host {
				row = append(row, "h")
			}
			row = append(row, sm[m].Name)
			if m == 0 {
				row = append(row, nil)
			} else {
				row = append(row, sm[1].Cols[i].Name)
			}
			row = append(row, float64(r)/3)
			if c.labels {
				b := lab.labels[m][i]
				s.labels = append(s.labels, b)
				if b == nil {
					row = append(row, nil)
				} else {
					row = append(row, string(b))
				}
			}
			want = append(want, row)
			if err := w.g.endRow(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.close(); err != nil {
			t.Fatal(err)
		}
		got := readCells(t, out.Bytes(), width)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v: read back (-written +read):\n%s", c, diff)
		}
	}
}

package pcp2arrow

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/pcpkit/pcpkit/internal/pmreplay"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
)

// readParquet reads file with parquet-go's reader into a table as
// DuckDB's wideQuery gives it (the first column, the timestamp, as
// nanoseconds), and returns its number of row groups.
func readParquet(t *testing.T, file string) (table, int) {
	t.Helper()
	pf := openParquet(t, file)
	var tb table
	var signed []bool
	for _, c := range pf.Schema().Fields() {
		tb.Columns = append(tb.Columns, c.Name())
		typ, s := "VARCHAR", true
		var lv format.LogicalTypeValue
		if lt := c.Type().LogicalType(); lt != nil {
			lv = lt.Value
		}
		it, isInt := lv.(*format.IntType)
		switch {
		case isTimestamp(lv):
			typ = "BIGINT"
		case isInt:
			s = it.IsSigned
			typ = map[[2]bool]string{{true, true}: "INTEGER", {true, false}: "UINTEGER", {false, true}: "BIGINT", {false, false}: "UBIGINT"}[[2]bool{it.BitWidth == 32, s}]
		case c.Type().Kind() == parquet.Float:
			typ = "FLOAT"
		case c.Type().Kind() == parquet.Double:
			typ = "DOUBLE"
		}
		tb.Types = append(tb.Types, typ)
		signed = append(signed, s)
	}
	r := parquet.NewGenericReader[any](pf)
	defer r.Close()
	buf := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			out := make([]any, len(row))
			for _, v := range row {
				k := v.Column()
				switch {
				case v.IsNull():
				case v.Kind() == parquet.Int32 && signed[k]:
					out[k] = json.Number(strconv.FormatInt(int64(v.Int32()), 10))
				case v.Kind() == parquet.Int32:
					out[k] = json.Number(strconv.FormatUint(uint64(v.Uint32()), 10))
				case v.Kind() == parquet.Int64 && signed[k]:
					out[k] = strconv.FormatInt(v.Int64(), 10)
				case v.Kind() == parquet.Int64:
					out[k] = strconv.FormatUint(v.Uint64(), 10)
				case v.Kind() == parquet.Float:
					out[k] = floatJSON(float64(v.Float()))
				case v.Kind() == parquet.Double:
					out[k] = floatJSON(v.Double())
				default:
					out[k] = string(v.ByteArray())
				}
			}
			tb.Rows = append(tb.Rows, out)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return tb, len(pf.RowGroups())
}

// floatJSON is x as DuckDB's JSON gives it.
func floatJSON(x float64) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
}

func isTimestamp(v format.LogicalTypeValue) bool {
	_, ok := v.(*format.TimestampType)
	return ok
}

// TestWideAsPmreplay compares the wide layout, read back by parquet-go,
// with pmreplay's CSV (the same engine, proven equal to pmrep's by
// internal/pmreplay's interop tests) on the committed archives, every
// metric, every cell; it needs neither PCP nor DuckDB. The row groups
// are made small, so that a file has many: rows are written as samples
// arrive.
func TestWideAsPmreplay(t *testing.T) {
	saved := groupValues
	groupValues = 500
	defer func() { groupValues = saved }()
	root := testenv.RepoRoot(t)
	for _, name := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		a := filepath.Join(root, "testdata", "archives", name)
		names, _ := reportable(t, a)
		for _, opts := range [][]string{{"-t", "0.5"}, {"-t", "2", "-r"}, {"-t", "1", "-S", "+2", "-T", "+9"}} {
			args := append(append([]string{"-a", a}, opts...), names...)
			testenv.Setenv(t)
			var csv, errb bytes.Buffer
			if rc := pmreplay.Main(append([]string{"-P", "9"}, args...), &csv, &errb); rc != 0 {
				t.Fatalf("pmreplay %v: exit %d: %s", args, rc, errb.String())
			}
			tb, groups := readParquet(t, runExport(t, args...))
			if diffs := compareWide(tb, csv.String(), pcptime.LoadZone("UTC"), 9, 10); len(diffs) > 0 {
				t.Errorf("%s %v: differs from pmreplay:\n%v", name, opts, diffs)
			}
			if min := len(tb.Rows) * len(tb.Columns) / 500; groups < min {
				t.Errorf("%s %v: %d row groups for %d rows of %d columns", name, opts, groups, len(tb.Rows), len(tb.Columns))
			}
		}
	}
}

// failAfter is an io.Writer whose write that goes past n bytes fails,
// once: the writes after it succeed, so an error the writer loses is not
// found again by a later write.
type failAfter struct {
	n      int
	failed bool
}

var errFull = errors.New("no space left on device")

func (w *failAfter) Write(p []byte) (int, error) {
	if !w.failed && len(p) > w.n {
		w.failed = true
		return w.n, errFull
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteErrors: an output that fails, at its start, between row
// groups (written by a goroutine of their own) or at the footer, fails
// the export with its error, in both layouts.
func TestWriteErrors(t *testing.T) {
	saved := groupValues
	groupValues = 500
	defer func() { groupValues = saved }()
	a := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	names, _ := reportable(t, a)
	testenv.Setenv(t)
	for _, layout := range []string{"wide", "long"} {
		var all bytes.Buffer
		args := append([]string{"-a", a, "-t", "1", "--layout", layout, "-o", "-"}, names...)
		if rc := Main(args, &all, io.Discard); rc != 0 {
			t.Fatalf("%s: exit %d", layout, rc)
		}
		for _, n := range []int{0, 100, all.Len() / 2, all.Len() - 10} {
			var errb bytes.Buffer
			rc := Main(args, &failAfter{n: n}, &errb)
			if rc == 0 || !strings.Contains(errb.String(), errFull.Error()) {
				t.Errorf("%s, output failing after %d of %d bytes: exit %d, stderr %q", layout, n, all.Len(), rc, errb.String())
			}
		}
	}
}

// TestLongStatistics: a long file keeps the bounds of its timestamps,
// values and hosts (what a reader prunes row groups by), not of its
// metric, instance and labels texts: every row group holds every metric,
// so their bounds would prune nothing, and computing them was 6% of a
// long export's time.
func TestLongStatistics(t *testing.T) {
	a := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	names, _ := reportable(t, a)
	file := runExport(t, append([]string{"--layout=long", "--labels", "-a", a, "-t", "1"}, names...)...)
	md := openParquet(t, file).Metadata()
	if len(md.RowGroups) == 0 {
		t.Fatal("no row groups")
	}
	for _, rg := range md.RowGroups {
		for _, c := range rg.Columns {
			name := strings.Join(c.MetaData.PathInSchema, ".")
			s := c.MetaData.Statistics
			has := len(s.MinValue) > 0 || len(s.MaxValue) > 0
			if want := name == "timestamp" || name == "value" || name == "host"; has != want {
				t.Errorf("column %s: bounds %v, want %v (%+v)", name, has, want, s)
			}
		}
	}
}

// openParquet opens file with parquet-go's reader (closed when the test
// ends).
func openParquet(t *testing.T, file string) *parquet.File {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// TestColumnEncodings: integers and timestamps are written
// DELTA_BINARY_PACKED, floating point values BYTE_STREAM_SPLIT, texts
// as before (wide: PLAIN; long: dictionary), in both layouts, raw and
// rate-converted; what DuckDB and parquet-go read back of them the
// interop and readback tests compare.
func TestColumnEncodings(t *testing.T) {
	a := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	names, _ := reportable(t, a)
	for _, opts := range [][]string{{"-r"}, {}, {"--layout=long"}, {"--layout=long", "-r"}} {
		file := runExport(t, append(append([]string{"-a", a, "-t", "1"}, opts...), names...)...)
		pf := openParquet(t, file)
		kinds := map[parquet.Kind]int{}
		for _, rg := range pf.Metadata().RowGroups {
			for k, c := range rg.Columns {
				kind := pf.Schema().Fields()[k].Type().Kind()
				kinds[kind]++
				var want format.Encoding
				switch kind {
				case parquet.Int32, parquet.Int64:
					want = format.DeltaBinaryPacked
				case parquet.Float, parquet.Double:
					want = format.ByteStreamSplit
				default:
					continue
				}
				if !slices.Contains(c.MetaData.Encoding, want) || slices.Contains(c.MetaData.Encoding, format.Plain) {
					t.Errorf("%v: column %s (%v): encodings %v, want %v", opts, strings.Join(c.MetaData.PathInSchema, "."), kind, c.MetaData.Encoding, want)
				}
			}
		}
		if kinds[parquet.Int64] == 0 || kinds[parquet.Double]+kinds[parquet.Float] == 0 {
			t.Errorf("%v: columns of kinds %v: want integers and floating point", opts, kinds)
		}
	}
}

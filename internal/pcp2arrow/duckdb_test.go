package pcp2arrow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pcptime"
)

// duckDir is where .ci/run installs DuckDB's Node.js client
// (`npm install --prefix DIR @duckdb/node-api`); PCPKIT_DUCKDB overrides
// it.
const duckDir = "/tmp/pcpkit-duckdb"

// table is a query's result as DuckDB gives it: column names, DuckDB
// types and rows (numbers as json.Number; BIGINT, UBIGINT, NaN and the
// infinities as strings).
type table struct {
	Columns []string
	Types   []string
	Rows    [][]any
}

// duckDB returns a function running SQL with DuckDB (testdata/duckdb.cjs
// under Node.js), the independent reader the tests read pcp2arrow's
// Parquet with. It skips t when node or the client is not installed,
// unless PCP_INTEROP=1 (which .ci/run sets after installing them).
func duckDB(t *testing.T) func(sql string) table {
	t.Helper()
	dir := os.Getenv("PCPKIT_DUCKDB")
	if dir == "" {
		dir = duckDir
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json"))
	}
	if err != nil {
		msg := "DuckDB's Node.js client is not installed (npm install --prefix " + dir + " @duckdb/node-api; PCPKIT_DUCKDB names another directory): " + err.Error()
		if testenv.Interop() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "duckdb.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	return func(sql string) table {
		t.Helper()
		cmd := exec.Command(node, script, sql)
		cmd.Env = append(os.Environ(), "PCPKIT_DUCKDB="+dir)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("duckdb %q: %v: %s", sql, err, errb.String())
		}
		dec := json.NewDecoder(&out)
		dec.UseNumber()
		var tb table
		if err := dec.Decode(&tb); err != nil {
			t.Fatalf("duckdb %q: %v", sql, err)
		}
		return tb
	}
}

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// wideQuery is the query that reads a wide file whole: the timestamp as
// nanoseconds since the epoch, then every column.
func wideQuery(file string) string {
	return `SELECT epoch_ns("timestamp")::VARCHAR AS ts, * EXCLUDE ("timestamp") FROM read_parquet(` + sqlString(file) + `)`
}

// csvName is the CSV header's name of a wide column: pmrep's
// "metric-instance" for "metric[instance]", with pmrep's replacements.
func csvName(col string) string {
	if i := strings.LastIndex(col, "]#"); i >= 0 {
		col = col[:i+1] // a repeated name's "#N"
	}
	if i := strings.IndexByte(col, '['); i >= 0 && strings.HasSuffix(col, "]") {
		col = col[:i] + "-" + col[i+1:len(col)-1]
	}
	return strings.NewReplacer(",", " ", "\n", " ", "\"", " ").Replace(col)
}

// pmrepString is a string value as pmrep's CSV prints it (delimiter ",").
func pmrepString(s string) string {
	return `"` + strings.NewReplacer(",", "_", "\n", " ", "\"", " ").Replace(s) + `"`
}

// sameNumber reports whether the value v (from DuckDB) is the number
// pmrep printed as field with prec digits after the decimal point: equal
// for integers, within a relative 1e-6 (or pmrep's rounding to prec
// digits) for the others.
func sameNumber(typ string, v any, field string, prec int) bool {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return false
	}
	switch typ {
	case "INTEGER", "UINTEGER", "BIGINT", "UBIGINT":
		return s == field
	}
	got, err1 := strconv.ParseFloat(s, 64)
	want, err2 := strconv.ParseFloat(field, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return want == got
	}
	d := math.Abs(got - want)
	return d <= 1e-6*math.Max(math.Abs(got), math.Abs(want)) || d <= 0.5*math.Pow(10, -float64(prec))*(1+1e-9)
}

// compareWide compares DuckDB's reading of a wide file (tb, from
// wideQuery) with pmrep's CSV (prec digits): the same columns in the same
// order, one row per CSV line, the same second, and in each cell null
// where pmrep printed nothing, else the same value. It returns the
// differences, at most max of them.
func compareWide(tb table, csv string, zone *pcptime.Zone, prec, max int) []string {
	var diffs []string
	add := func(f string, args ...any) bool {
		diffs = append(diffs, fmt.Sprintf(f, args...))
		return len(diffs) >= max
	}
	lines := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	if len(lines) == 0 || len(tb.Columns) == 0 {
		return []string{"no header or no columns"}
	}
	header := splitCSV(lines[0])
	if len(header) != len(tb.Columns) {
		return []string{fmt.Sprintf("%d CSV columns, %d Parquet columns", len(header), len(tb.Columns))}
	}
	for k := 1; k < len(header); k++ {
		if want := `"` + csvName(tb.Columns[k]) + `"`; header[k] != want {
			add("column %d: CSV %s, Parquet %q", k, header[k], tb.Columns[k])
		}
	}
	if len(lines)-1 != len(tb.Rows) {
		return append(diffs, fmt.Sprintf("%d CSV rows, %d Parquet rows", len(lines)-1, len(tb.Rows)))
	}
	for i, row := range tb.Rows {
		fields := splitCSV(lines[i+1])
		if len(fields) != len(row) {
			if add("row %d: %d CSV fields, %d Parquet", i, len(fields), len(row)) {
				return diffs
			}
			continue
		}
		ns, _ := strconv.ParseInt(row[0].(string), 10, 64)
		c := zone.Civil(ns / 1e9)
		if got := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", c.Year, c.Month, c.Day, c.Hour, c.Minute, c.Second); got != fields[0] {
			if add("row %d: time %s, Parquet %s", i, fields[0], got) {
				return diffs
			}
		}
		for k := 1; k < len(row); k++ {
			f, v := fields[k], row[k]
			var ok bool
			switch {
			case f == "" || v == nil:
				ok = f == "" && v == nil
			case tb.Types[k] == "VARCHAR":
				s, _ := v.(string)
				ok = pmrepString(s) == f
			default:
				// pmrep prints a float or a double with its digits
				// (or inf, -inf, NaN), an integer without
				ok = sameNumber(tb.Types[k], v, f, prec) && (prec == 0 || strings.ContainsAny(f, ".iN") == strings.Contains("FLOAT DOUBLE", tb.Types[k]))
			}
			if !ok && add("row %d (%s) %s: pmrep %q, Parquet %v", i, fields[0], tb.Columns[k], f, v) {
				return diffs
			}
		}
	}
	return diffs
}

// splitCSV splits a line of pmrep's CSV at its commas (its strings have
// none: pmrep replaces them).
func splitCSV(line string) []string { return strings.Split(line, ",") }

// longQuery is the query that reads a long file whole, in its order: the
// timestamp as nanoseconds since the epoch, then the other columns.
func longQuery(file string) string {
	return `SELECT epoch_ns("timestamp")::VARCHAR AS ts, * EXCLUDE ("timestamp") FROM read_parquet(` + sqlString(file) + `)`
}

// compareLong compares DuckDB's reading of a long file (tb, from
// longQuery) with pmrep's CSV (prec digits, times in zone): a row for
// each numeric field pmrep printed, in the CSV's order (line by line,
// column by column), with that field's time, column (metric, instance),
// value, and host. It returns the differences, at most max of them.
func compareLong(tb table, csv, host string, zone *pcptime.Zone, prec, max int) []string {
	var diffs []string
	add := func(f string, args ...any) bool {
		diffs = append(diffs, fmt.Sprintf(f, args...))
		return len(diffs) >= max
	}
	if want := []string{"ts", "host", "metric", "instance", "value"}; strings.Join(tb.Columns, ",") != strings.Join(want, ",") {
		return []string{fmt.Sprintf("columns %q, want %q", tb.Columns, want)}
	}
	lines := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	header := splitCSV(lines[0])
	r := 0
	for _, line := range lines[1:] {
		fields := splitCSV(line)
		for k := 1; k < len(fields); k++ {
			f := fields[k]
			if f == "" || strings.HasPrefix(f, `"`) {
				continue // no value, or a string: no row
			}
			if r >= len(tb.Rows) {
				return append(diffs, fmt.Sprintf("%d Parquet rows, more numeric fields in the CSV", len(tb.Rows)))
			}
			row := tb.Rows[r]
			r++
			ns, _ := strconv.ParseInt(row[0].(string), 10, 64)
			c := zone.Civil(ns / 1e9)
			t := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", c.Year, c.Month, c.Day, c.Hour, c.Minute, c.Second)
			col, _ := row[2].(string)
			if inst, ok := row[3].(string); ok {
				col += "[" + inst + "]"
			}
			if t != fields[0] || `"`+csvName(col)+`"` != header[k] || row[1] != host || !sameNumber("DOUBLE", row[4], f, prec) {
				if add("row %d: Parquet %v, pmrep %s %s %s (host %s)", r-1, row, fields[0], header[k], f, host) {
					return diffs
				}
			}
		}
	}
	if r != len(tb.Rows) {
		diffs = append(diffs, fmt.Sprintf("%d Parquet rows, %d numeric fields in the CSV", len(tb.Rows), r))
	}
	return diffs
}

package pcp2arrow

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/each"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/replay"
)

// agg is count, min, max and sum of a metric's values on a host.
type agg struct {
	n             int
	min, max, sum float64
}

func (a *agg) add(x float64) {
	if a.n == 0 || x < a.min {
		a.min = x
	}
	if a.n == 0 || x > a.max {
		a.max = x
	}
	a.n++
	a.sum += x
}

// fleetArchives are the candidates of the fleet test: the shared QA and
// made archives (not in subdirectories) of at most 600 KB, not compressed
// (pmrep is slow on the others; the wide layout's test has them), but
// those whose values pmrep and pcpkit may differ on (see
// internal/pmreplay's interop tests).
func fleetArchives(t *testing.T) []string {
	skip := map[string]bool{"binning": true, "pcp-pidstat": true, "wrap": true}
	var out []string
	for _, set := range []string{"pcp-qa-archives", "pcp-made-archives"} {
		dir := testenv.SharedDir(t, set)
		for _, n := range testenv.Archives(t, dir) {
			if skip[n] || strings.HasSuffix(n, "-zst") || strings.Contains(n, "/") {
				continue
			}
			files, _ := filepath.Glob(filepath.Join(dir, n+".*"))
			size := int64(0)
			for _, f := range files {
				if st, err := os.Stat(f); err == nil {
					size += st.Size()
				}
				if strings.HasSuffix(f, ".xz") {
					size += 1 << 30
				}
			}
			if size <= 600<<10 {
				out = append(out, filepath.Join(dir, n))
			}
		}
	}
	return out
}

// TestInteropDatasetDuckDB is the fleet test: pcp2arrow --each
// --layout=long -o DIR over shared archives, in two shards (--shard 0/2,
// 1/2, into one DIR), then one DuckDB query over the Hive-partitioned
// dataset (per host and metric: count, min, max, avg) equals the same
// numbers computed from the real `pmrep -a ARCH -o csv` of each archive;
// and every file's samples are on its directory's date.
func TestInteropDatasetDuckDB(t *testing.T) {
	pmrep, duck := interop(t)
	all := fleetArchives(t)
	opts := []string{"-t", "30"}
	want := map[[2]string]*agg{}
	var used []string
	for _, a := range all {
		if len(used) == 60 {
			break
		}
		n := filepath.Base(a)
		names, _ := reportable(t, a)
		if len(names) == 0 {
			continue
		}
		c, err := replay.Open(a)
		if err != nil {
			continue
		}
		host := c.Label().Hostname
		c.Close()
		args := append(append([]string{pmrep, "-a", a, "-o", "csv", "-P", "9"}, opts...), append(names, "event.flags", "event.missed")...)
		wout, _, wrc := testenv.RunCommand(t, "", testenv.RealEnv(), "/usr/bin/python3", args...)
		if wrc != 0 {
			continue // pmrep cannot report this one whole
		}
		used = append(used, a)
		lines := strings.Split(strings.TrimSuffix(string(wout), "\n"), "\n")
		header := splitCSV(lines[0])
		for _, l := range lines[1:] {
			fields := splitCSV(l)
			for k := 1; k < len(fields); k++ {
				if fields[k] == "" || strings.HasPrefix(fields[k], `"`) {
					continue
				}
				x, err := strconv.ParseFloat(fields[k], 64)
				if err != nil {
					t.Fatalf("%s: field %q", n, fields[k])
				}
				metric, _, _ := strings.Cut(strings.Trim(header[k], `"`), "-")
				key := [2]string{host, metric}
				if want[key] == nil {
					want[key] = &agg{}
				}
				want[key].add(x)
			}
		}
	}
	if len(used) < 50 {
		t.Fatalf("only %d archives pmrep reports whole", len(used))
	}
	out := t.TempDir()
	testenv.Setenv(t)
	// parts are the dataset's part files' names, and how many files
	parts := func() (map[string]bool, int) {
		names, files := map[string]bool{}, 0
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names[d.Name()] = true
				files++
			}
			return nil
		})
		return names, files
	}
	var shard0 map[string]bool
	for _, shard := range []string{"0/2", "1/2"} {
		var o, e bytes.Buffer
		args := append([]string{"--each", "--layout=long", "--shard", shard, "-o", out}, opts...)
		for _, a := range used {
			args = append(args, "-a", a)
		}
		if rc := Main(args, &o, &e); rc != 0 {
			t.Fatalf("pcp2arrow %s: exit %d: %s", strings.Join(args, " "), rc, e.String())
		}
		if shard0 == nil {
			shard0, _ = parts()
		}
	}
	// shard 0 wrote the archives of shard 0, and only those
	for _, a := range used {
		if in, want := shard0["part-"+partID(a)+".parquet"], each.Shard(a, 2) == 0; in != want {
			t.Errorf("%s in shard 0: %v, FNV-1a says %v", a, in, want)
		}
	}
	glob := sqlString(filepath.Join(out, "**", "*.parquet"))
	tb := duck(`SELECT host, metric, count(*)::VARCHAR, min(value), max(value), avg(value) FROM read_parquet(` + glob +
		`, hive_partitioning = true, hive_types = {'host': VARCHAR, 'date': DATE}) GROUP BY ALL ORDER BY ALL`)
	var keys [][2]string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	if len(tb.Rows) != len(keys) {
		t.Errorf("%d (host, metric) groups in the dataset, %d in pmrep's outputs", len(tb.Rows), len(keys))
	}
	for i := 0; i < len(tb.Rows) && i < len(keys); i++ {
		r, k := tb.Rows[i], keys[i]
		w := want[k]
		got := fmt.Sprint(r[0], " ", r[1], " ", r[2])
		if exp := fmt.Sprint(k[0], " ", k[1], " ", w.n); got != exp ||
			!sameNumber("DOUBLE", r[3], strconv.FormatFloat(w.min, 'f', -1, 64), 9) ||
			!sameNumber("DOUBLE", r[4], strconv.FormatFloat(w.max, 'f', -1, 64), 9) ||
			!sameAvg(r[5], w.sum/float64(w.n)) {
			t.Errorf("dataset %v, pmrep: %s min %v max %v avg %v", r, exp, w.min, w.max, w.sum/float64(w.n))
		}
	}
	// each file's samples on its date, each archive in one part
	tb = duck(`SELECT count(*)::VARCHAR FROM read_parquet(` + glob + `, hive_partitioning = true, hive_types = {'host': VARCHAR, 'date': DATE}) WHERE date <> CAST(timezone('UTC', "timestamp") AS DATE)`)
	if len(tb.Rows) != 1 || tb.Rows[0][0] != "0" {
		t.Errorf("rows off their date partition: %v", tb.Rows)
	}
	got, files := parts()
	if len(got) != len(used) || files <= len(got) {
		t.Errorf("%d parts in %d files for %d archives (some span days)", len(got), files, len(used))
	}
	t.Logf("%d archives, %d (host, metric) groups, %d files", len(used), len(keys), files)
}

// sameAvg reports whether DuckDB's average v is want, within a relative
// 1e-6 (or pmrep's rounding to 9 digits).
func sameAvg(v any, want float64) bool {
	return sameNumber("DOUBLE", v, strconv.FormatFloat(want, 'g', -1, 64), 9) || math.IsNaN(want)
}

package pmval

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/metricspec"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// TestReverseMatchesLibrary checks pmval --reverse against the replay
// library: with -r (values, not rates) and --json, every line must be
// the interpolation of a replay.Context in Interp mode with the negative
// delta, from the end of the archive (or -O), as pmval sets it (the origin
// in microseconds, the delta in milliseconds), down to the start of the
// window (or -s samples). The library's reverse replay is itself compared
// with libpcp's by replay's TestOracleReverse.
func TestReverseMatchesLibrary(t *testing.T) {
	n := 0
	for _, a := range jsonArchives(t) {
		c, err := replay.Open(a)
		if err != nil {
			t.Fatal(err)
		}
		end, err := c.End()
		if err != nil {
			t.Fatal(err)
		}
		start := c.Start()
		c.Close()
		for _, m := range numericMetrics(t, a, 10) {
			for _, step := range []struct {
				arg string
				ms  int64
			}{{"1", 1000}, {"0.25", 250}, {"7", 7000}} {
				args := []string{"-a", a, "-t", step.arg, "-r", "--reverse", "--json", m}
				out, errs, rc := runMain(t, args...)
				if rc != 0 {
					t.Fatalf("pmval %v: exit %d: %s", args, rc, errs)
				}
				_, lines := jsonLines(t, out)
				want := libraryReverse(t, a, m, end, start, step.ms)
				if len(lines) != len(want) {
					t.Fatalf("pmval %v: %d lines, the library %d", args, len(lines), len(want))
				}
				for i, l := range lines {
					got := normJSON(struct {
						Sec    int64
						Nsec   int32
						Values any
					}{l.Sec, l.Nsec, l.Values})
					if got != want[i] {
						t.Fatalf("pmval %v line %d:\n%s\nthe library:\n%s", args, i+1, got, want[i])
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d lines compared", n)
	}
	t.Logf("%d lines compared", n)
}

// libraryReverse is what pmval --reverse -r --json should print for
// metric m of archive a, made with the library directly: each line as
// JSON of its time and values.
func libraryReverse(t *testing.T, a, m string, from, to pmapi.Timestamp, ms int64) []string {
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pmid, _ := c.Meta().Lookup(m)
	d, _ := c.Meta().Desc(pmid)
	tl := &tool{o: &options{}, desc: *d, c: c}
	tl.initInstances(&metricspec.Spec{Metric: m})
	origin := from
	origin.Nsec -= origin.Nsec % 1000
	if err := c.SetMode(replay.Interp, origin, -ms*1e6); err != nil {
		t.Fatal(err)
	}
	samples := int(int32(toInt((realTime(from)-realTime(to))/(float64(ms)/1000)))) + 1
	var out []string
	for i := 0; i < samples; i++ {
		res, err := c.Fetch([]pmapi.PMID{pmid})
		if errors.Is(err, pmapi.ErrEOL) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if realTime(res.Timestamp) < realTime(to) {
			break
		}
		vs := &res.VSets[0]
		// in instance order, as getvals leaves them
		sort.SliceStable(vs.Values, func(i, j int) bool { return vs.Values[i].Inst < vs.Values[j].Inst })
		var vals []jsonValue
		if vs.NumVal > 0 {
			vals = tl.jsonColumns(vs, func(j int) jsonValue {
				if j < 0 {
					return missing
				}
				return tl.jsonValue(&vs.Values[j], j)
			})
		}
		b := normJSON(struct {
			Sec    int64
			Nsec   int32
			Values any
		}{res.Timestamp.Sec, res.Timestamp.Nsec, vals})
		out = append(out, b)
	}
	return out
}

// normJSON is v as JSON in one form: through a generic decoding (numbers
// kept as written), with null values and empty texts dropped.
func normJSON(v any) string {
	b, _ := json.Marshal(v)
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var g any
	dec.Decode(&g)
	var clean func(any) any
	clean = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if v == nil || v == "" {
					delete(x, k)
				} else {
					x[k] = clean(v)
				}
			}
		case []any:
			for i := range x {
				x[i] = clean(x[i])
			}
		}
		return x
	}
	b, _ = json.Marshal(clean(g))
	return string(b)
}

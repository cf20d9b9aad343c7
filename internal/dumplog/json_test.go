package dumplog

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestJSON checks --json on synth3: one valid document per record, marks
// flagged, values typed, and metric selection applied.
func TestJSON(t *testing.T) {
	dir := testenv.SharedDir(t, "pcp-made-archives")
	out, errs, rc := run(t, dir, []string{"--json", "synth3"})
	if rc != 0 || errs != "" {
		t.Fatalf("rc %d, stderr %q", rc, errs)
	}
	var recs []jsonRecord
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r jsonRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", len(recs)+1, err, sc.Text())
		}
		recs = append(recs, r)
	}
	// The real pmdumplog synth3 prints 9 records, one of them the <mark> at
	// 22:13:26.001.
	if len(recs) != 9 {
		t.Fatalf("%d records, want 9", len(recs))
	}
	marks := 0
	for _, r := range recs {
		if r.Mark {
			marks++
			if r.Timestamp != "2023-11-14T22:13:26.001000000Z" || len(r.Metrics) != 0 {
				t.Errorf("mark record %+v", r)
			}
		}
	}
	if marks != 1 {
		t.Errorf("%d marks, want 1", marks)
	}
	first := recs[0]
	if first.Sec != 1700000000 || len(first.Metrics) != 7 {
		t.Fatalf("first record %+v", first)
	}
	got := map[string]any{}
	for _, m := range first.Metrics {
		got[m.Name] = m.Value
	}
	want := map[string]any{
		"synth.ctr32": 100.0, "synth.ctrms": 1000.0, "synth.inst": 10.0, "synth.disc": 5.0,
		"synth.str": "a", "synth.multi": 1.5, "synth.once": 42.0,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("first record values (-want +got):\n%s", d)
	}

	out, _, rc = run(t, dir, []string{"--json", "synth3", "synth.multi"})
	if rc != 0 {
		t.Fatalf("rc %d", rc)
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r jsonRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Mark {
			t.Errorf("line %d: mark shown without -M", i+1)
		}
		for _, m := range r.Metrics {
			if m.Name != "synth.multi" || m.Inst == nil || m.InstName == "" {
				t.Errorf("line %d: unexpected value %+v", i+1, m)
			}
		}
	}
}

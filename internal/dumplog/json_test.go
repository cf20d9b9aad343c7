package dumplog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
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
		if len(m.Values) != 1 {
			t.Errorf("first record: %s has %d values, want 1", m.Name, len(m.Values))
			continue
		}
		got[m.Name] = m.Values[0].Value
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
			if m.Name != "synth.multi" || len(m.Values) == 0 {
				t.Errorf("line %d: unexpected value set %+v", i+1, m)
			}
			for _, v := range m.Values {
				if v.Inst == nil || v.InstName == "" {
					t.Errorf("line %d: %s: value without its instance %+v", i+1, m.Name, v)
				}
			}
		}
	}
}

// TestJSONSections checks --json's sections against the text of the same
// options, on every archive of testdata/archives: -l's label, -d's
// descriptors (the text's order, names, type, semantics and units), -i's
// instance domain states, and the records of -m, every value carrying
// its metric's type, semantics and units.
func TestJSONSections(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	archives := testenv.Archives(t, dir)
	if len(archives) == 0 {
		t.Fatal("no archives in testdata/archives")
	}
	descRE := regexp.MustCompile(`(?m)^PMID: (\S+) \((.*)\)\n    Data Type: [^\n]*?(?:  InDom: (\S+) .*\n    Semantics: (\S+)  Units: (.*))?$`)
	for _, a := range archives {
		t.Run(a, func(t *testing.T) {
			text, _, rc := run(t, dir, []string{"-l", "-d", "-i", "-m", a})
			if rc != 0 {
				t.Fatalf("text: rc %d", rc)
			}
			out, errs, rc := run(t, dir, []string{"--json", "-l", "-d", "-i", "-m", a})
			if rc != 0 || errs != "" {
				t.Fatalf("rc %d, stderr %q", rc, errs)
			}
			type desc struct{ names, indom, sem, units string }
			var wantDescs []desc
			byPMID := map[string]desc{}
			for _, m := range descRE.FindAllStringSubmatch(text, -1) {
				in := m[3]
				if in == "PM_INDOM_NULL" || in == "" {
					in = ""
				}
				d := desc{m[2], in, m[4], m[5]}
				wantDescs = append(wantDescs, d)
				byPMID[m[1]] = d
			}
			var gotDescs []desc
			var labels, indoms, records, values int
			for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				var doc map[string]json.RawMessage
				if err := json.Unmarshal([]byte(line), &doc); err != nil {
					t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
				}
				switch {
				case doc["label"] != nil:
					labels++
					var l struct {
						Host       string `json:"host"`
						Version    int    `json:"format_version"`
						Start, End string
					}
					json.Unmarshal(doc["label"], &l)
					if !strings.Contains(text, fmt.Sprintf("Log Label (Log Format Version %d)\nPerformance metrics from host %s\n", l.Version, l.Host)) ||
						!strings.HasSuffix(l.Start, "Z") || !strings.HasSuffix(l.End, "Z") {
						t.Errorf("label %s", doc["label"])
					}
				case doc["desc"] != nil:
					var d struct {
						PMID      string   `json:"pmid"`
						Names     []string `json:"names"`
						InDom     string   `json:"indom"`
						Semantics string   `json:"semantics"`
						Units     string   `json:"units"`
					}
					json.Unmarshal(doc["desc"], &d)
					gotDescs = append(gotDescs, desc{strings.Join(d.Names, " or "), d.InDom, d.Semantics, d.Units})
				case doc["indom"] != nil:
					indoms++
				default:
					records++
					var r jsonRecord
					if err := json.Unmarshal([]byte(line), &r); err != nil || r.Timestamp == "" {
						t.Fatalf("record line %d: %v\n%s", i+1, err, line)
					}
					for _, m := range r.Metrics {
						values += len(m.Values)
						d, ok := byPMID[m.PMID]
						if !ok || m.Semantics != d.sem || m.Units != d.units || m.Type == "" || (len(m.Values) == 0) == (m.Error == "") {
							t.Errorf("line %d: value set %+v, descriptor %+v", i+1, m, d)
						}
						for _, v := range m.Values {
							if (v.Inst == nil) != (d.indom == "") {
								t.Errorf("line %d: %s: instance %v, descriptor's instance domain %q", i+1, m.PMID, v.Inst, d.indom)
							}
						}
					}
				}
			}
			if d := cmp.Diff(wantDescs, gotDescs, cmp.AllowUnexported(desc{})); d != "" {
				t.Errorf("descriptors differ from the text's (-text +json):\n%s", d)
			}
			if want := strings.Count(text, " instances\n"); indoms != want {
				t.Errorf("%d instance domain states, the text has %d", indoms, want)
			}
			// each record's first line starts with its time at column 0
			recText := strings.SplitN(text, "\n\n", 4)[3]
			if want := len(regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d+ `).FindAllString(recText, -1)); labels != 1 || records != want || values == 0 {
				t.Errorf("%d labels, %d records (text %d), %d values", labels, records, want, values)
			}
			// a value is a line of the text's records ending in "value X"
			// (or an event record array's count), at a value set's or an
			// instance's indentation (an event record's parameters are
			// indented further: the array is one string in JSON)
			if want := len(regexp.MustCompile(`(?m)^(?:    \S|        inst \[).*(?:\): |\] )(?:value |No event records|\d+ (?:\(and \d+ missed\) )?event records?$)`).FindAllString(recText, -1)); values != want {
				t.Errorf("%d values, the text has %d", values, want)
			}
		})
	}
}

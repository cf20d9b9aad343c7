package pminfo

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestJSONMatchesText checks --json against the text report of the same
// archive: one valid JSON object per line, one per metric of the
// traversal in the same order, with the PMID of -m, the descriptor of -d,
// the one-line help of -t and, for each value -f prints, the same value
// (numbers as numbers, strings as strings), or the error the text gives.
func TestJSONMatchesText(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	derived := "../pminfo.derived"
	for _, a := range testenv.Archives(t, dir) {
		for _, extra := range [][]string{nil, {"-c", derived}} {
			args := append([]string{"-a", a}, extra...)
			out, errs, rc := run(t, dir, append(args, "--json"))
			if rc != 0 {
				t.Fatalf("%s --json: rc %d, stderr %q", a, rc, errs)
			}
			names, _, _ := run(t, dir, args)
			text, _, _ := run(t, dir, append(args, "-dfmt"))
			checkJSON(t, a, out, strings.Fields(names), text)
		}
	}
}

type jsonLine struct {
	Name      string            `json:"name"`
	PMID      string            `json:"pmid"`
	Type      string            `json:"type"`
	InDom     string            `json:"indom"`
	Semantics string            `json:"semantics"`
	Units     *string           `json:"units"`
	OneLine   string            `json:"oneline"`
	Labels    map[string]any    `json:"labels"`
	Error     string            `json:"error"`
	Timestamp string            `json:"timestamp"`
	Values    []json.RawMessage `json:"values"`
}

var textMetric = regexp.MustCompile(`(?m)^(\S+) PMID: (\S+)(?: \[(.*)\])?`)

func checkJSON(t *testing.T, archive, out string, names []string, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("%s: %d JSON lines for %d metrics", archive, len(lines), len(names))
	}
	// the text report, one block per metric
	blocks := map[string]string{}
	for _, b := range strings.Split(text, "\n\n") {
		if m := textMetric.FindStringSubmatch(b); m != nil {
			blocks[m[1]] = b
		}
	}
	for i, l := range lines {
		var j jsonLine
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("%s: line %d is not JSON: %v: %s", archive, i+1, err, l)
		}
		if j.Name != names[i] {
			t.Errorf("%s: line %d is %s, the text report's metric %d is %s", archive, i+1, j.Name, i+1, names[i])
			continue
		}
		b, ok := blocks[j.Name]
		if !ok {
			// no descriptor or no values: the error is the text's
			if j.Error == "" || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(j.Name)+`: pm[A-Za-z]+: `+regexp.QuoteMeta(j.Error)+`$`).MatchString(text) {
				t.Errorf("%s: %s: no text block, JSON error %q", archive, j.Name, j.Error)
			}
			continue
		}
		m := textMetric.FindStringSubmatch(b)
		if j.PMID != m[2] || j.OneLine != m[3] {
			t.Errorf("%s: %s: JSON pmid %s oneline %q, text %s %q", archive, j.Name, j.PMID, j.OneLine, m[2], m[3])
		}
		indom := j.InDom
		if indom == "" {
			indom = "PM_INDOM_NULL"
		}
		if !strings.Contains(b, "InDom: "+indom+" ") || !strings.Contains(b, "Semantics: "+j.Semantics+" ") || j.Units == nil || !strings.Contains(b, "Units: "+*j.Units+"\n") {
			t.Errorf("%s: %s: JSON descriptor %s %s not the text's:\n%s", archive, j.Name, j.InDom, j.Semantics, b)
		}
		var values []string
		for _, l := range strings.Split(b, "\n") {
			if _, v, ok := strings.Cut(l, " value "); ok && strings.HasPrefix(l, "    ") {
				values = append(values, v)
			}
		}
		if len(j.Values) != len(values) {
			t.Errorf("%s: %s: %d JSON values, %d in the text", archive, j.Name, len(j.Values), len(values))
			continue
		}
		for k, v := range j.Values {
			var jv struct{ Value json.RawMessage }
			if err := json.Unmarshal(v, &jv); err != nil {
				t.Errorf("%s: %s: value %s: %v", archive, j.Name, v, err)
				continue
			}
			want := values[k]
			got := string(jv.Value)
			if strings.HasPrefix(got, `"`) {
				var s string
				json.Unmarshal(jv.Value, &s)
				got = s
				if j.Type == "STRING" {
					got = `"` + s + `"`
				}
			}
			if got != want {
				t.Errorf("%s: %s: JSON value %s, text %s", archive, j.Name, jv.Value, want)
			}
		}
		if strings.Contains(b, "value ") && j.Timestamp == "" {
			t.Errorf("%s: %s: values without a timestamp", archive, j.Name)
		}
	}
}

// TestScanDotted checks the reading of PMID and instance domain operands
// as sscanf("%u.%u.%u") reads them.
func TestScanDotted(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want []uint32
	}{
		{"60.2.0", []uint32{60, 2, 0}},
		{"60.2", []uint32{60, 2}},
		{"60", []uint32{60}},
		{"60.2x", []uint32{60, 2}},
		{"60.2.0.1", []uint32{60, 2, 0}},
		{"1. 2", []uint32{1, 2}},
		{"1.-2", []uint32{1, 4294967294}},
		{"1.+2.3", []uint32{1, 2, 3}},
		{"1..2", []uint32{1}},
		{"99999999999999999999.1", []uint32{4294967295, 1}},
		{"4294967297.1", []uint32{1, 1}},
	} {
		got, n := scanDotted(tc.s, 3)
		if n != len(got) || !slices.Equal(got, tc.want) {
			t.Errorf("scanDotted(%q) = %v, %d; want %v", tc.s, got, n, tc.want)
		}
	}
}

package pmval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// jsonArchives are the archives the --json and --reverse tests use: the
// committed ones, and the shared ones when they are there.
func jsonArchives(t *testing.T) []string {
	root := testenv.RepoRoot(t)
	as := []string{
		filepath.Join(root, "testdata", "archives", "pmcd-v3"),
		filepath.Join(root, "testdata", "archives", "sample-v3"),
	}
	for _, a := range []string{"synth3", "basic3", "vol3", "sighup3"} {
		as = append(as, filepath.Join(root, "..", "shared", "pcp-made-archives", a))
	}
	var out []string
	for _, a := range as {
		if c, err := replay.Open(a); err == nil {
			c.Close()
			out = append(out, a)
		}
	}
	return out
}

// numericMetrics are up to max metrics of a with numeric types, the
// counters first.
func numericMetrics(t *testing.T, a string, max int) []string {
	c, err := replay.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ctr, other []string
	for _, d := range c.Meta().Descs {
		switch d.Type {
		case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
		default:
			continue
		}
		names := c.Meta().Names(d.PMID)
		if len(names) == 0 {
			continue
		}
		if d.Sem == pmapi.SemCounter {
			ctr = append(ctr, names[0])
		} else {
			other = append(other, names[0])
		}
	}
	all := append(ctr, other...)
	if len(all) > max {
		// the counters, and the others spread over the list
		all = append(ctr[:min(len(ctr), max/2)], other[:min(len(other), max-min(len(ctr), max/2))]...)
	}
	return all
}

func runMain(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := Main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// jsonLines decodes --json output, checking that every line is one JSON
// document.
func jsonLines(t *testing.T, out string) (jsonHeader, []jsonSampleIn) {
	t.Helper()
	var h jsonHeader
	var ss []jsonSampleIn
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %s", i+1, l)
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.UseNumber()
		var err error
		if i == 0 {
			err = dec.Decode(&h)
		} else {
			var s jsonSampleIn
			err = dec.Decode(&s)
			ss = append(ss, s)
		}
		if err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
	}
	return h, ss
}

type jsonSampleIn struct {
	Timestamp string `json:"timestamp"`
	Sec       int64  `json:"sec"`
	Nsec      int32  `json:"nsec"`
	NoValues  bool   `json:"novalues"`
	Mark      bool   `json:"mark"`
	Values    []struct {
		Inst     *int32 `json:"inst"`
		InstName string `json:"instname"`
		Value    any    `json:"value"`
		Text     string `json:"text"`
	} `json:"values"`
}

// textSamples are the sample lines of pmval's text report: the lines
// after the header that start with a time (hh:mm:ss.mmm).
func textSamples(out string) [][]string {
	var ss [][]string
	for _, l := range strings.Split(out, "\n") {
		// the time takes 12 columns; a wide value may follow at once
		if len(l) < 12 || l[2] != ':' || l[5] != ':' || l[8] != '.' {
			continue
		}
		n := 12
		if strings.HasPrefix(l[9:], "1000") {
			n = 13 // an unnormalised time: 1e9 nanoseconds
		}
		ss = append(ss, append([]string{l[:n]}, strings.Fields(l[n:])...))
	}
	return ss
}

// TestJSONMatchesText runs pmval with and without --json (rates, -r,
// --reverse, a window) on the test archives and checks that every line
// of the JSON is a JSON document, that there is one per sample line of
// the text, and that the values are the text's: the same times, "No
// values available" where the text says so, null where it shows "?" or
// "!", and numbers that the text shows rounded.
func TestJSONMatchesText(t *testing.T) {
	t.Setenv("TZ", "UTC")
	n := 0
	for _, a := range jsonArchives(t) {
		for _, m := range numericMetrics(t, a, 8) {
			for _, opts := range [][]string{{"-t", "2"}, {"-t", "1.5", "-r"}, {"-t", "3", "--reverse"}, {"-t", "0.5", "-r", "--reverse", "-s", "7"}} {
				args := append(append([]string{"-a", a}, opts...), m)
				text, terr, trc := runMain(t, args...)
				js, jerr, jrc := runMain(t, append([]string{"--json"}, args...)...)
				if trc != jrc || terr != jerr {
					t.Fatalf("pmval %v: exit %d, stderr %q; with --json exit %d, stderr %q", args, trc, terr, jrc, jerr)
				}
				if trc != 0 {
					continue
				}
				h, ss := jsonLines(t, js)
				if h.Metric != m || h.Reverse != strings.Contains(strings.Join(opts, " "), "--reverse") {
					t.Errorf("pmval --json %v: header %+v", args, h)
				}
				tl := textSamples(text)
				if len(tl) != len(ss) {
					t.Fatalf("pmval %v: %d sample lines, --json %d\n%s\n%s", args, len(tl), len(ss), text, js)
				}
				for i, s := range ss {
					f := tl[i]
					// pmval prints sec and nsec as they are, 1e9 ns
					// included (".1000")
					clock := time.Unix(s.Sec, 0).UTC().Format("15:04:05") + fmt.Sprintf(".%03d", s.Nsec/1e6)
					if clock != f[0] || time.Unix(s.Sec, int64(s.Nsec)).UTC().Format("2006-01-02T15:04:05.000000000Z") != s.Timestamp {
						t.Fatalf("pmval %v line %d: time %s, --json %s", args, i+1, f[0], s.Timestamp)
					}
					vals := f[1:]
					if s.NoValues {
						if strings.Join(vals, " ") != "No values available" {
							t.Fatalf("pmval %v line %d: %v, --json has no values", args, i+1, f)
						}
						continue
					}
					if len(vals) != len(s.Values) {
						t.Fatalf("pmval %v line %d: %v, --json %+v", args, i+1, f, s.Values)
					}
					for k, v := range s.Values {
						if v.Value == nil {
							if vals[k] != v.Text {
								t.Fatalf("pmval %v line %d column %d: %q, --json null %q", args, i+1, k, vals[k], v.Text)
							}
							continue
						}
						want, err1 := strconv.ParseFloat(vals[k], 64)
						got, err2 := v.Value.(json.Number).Float64()
						if err1 != nil || err2 != nil || !close(want, got) {
							t.Fatalf("pmval %v line %d column %d: %q, --json %v", args, i+1, k, vals[k], v.Value)
						}
						n++
					}
				}
			}
		}
	}
	// testdata's two archives give about 270 values; with ../shared
	// beside the clone its four archives add a few hundred more.
	want := 200
	if len(jsonArchives(t)) > 2 {
		want = 500
	}
	if n < want {
		t.Errorf("only %d values compared (want %d)", n, want)
	}
	t.Logf("%d values compared", n)
}

// close reports whether the text's rounded number (about four
// significant digits, or -f's) is the JSON's.
func close(text, exact float64) bool {
	if text == exact {
		return true
	}
	d := math.Abs(text - exact)
	return d <= 5e-4*math.Abs(exact) || d <= 5e-4
}

package logsummary

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// machineModes are the option sets whose --json and --csv output is
// checked against the text, with the precision the text prints.
var machineModes = []struct {
	args string
	prec int
}{
	{"", 3}, {"-a", 3}, {"-a -i -I", 3}, {"-x -y", 3}, {"-b", 3}, {"-s", 3}, {"-s -y -m -M", 3},
	{"-a -B 3", 3}, {"-p 6 -bmMy -i -I", 6}, {"-S +2 -T +5 -a", 3}, {"-l -a -S +1", 3},
	{"-p 0 -a", 0}, {"-p -1 -y -m", 6}, {"-x -B 2 -y", 3}, {"-a -T -3 -i", 3}, {"-p 9 -a -B 2 -I", 9},
	{"-v -a", 3},
}

// machineArchive is an archive (or list) to check, in a directory, with
// metric arguments.
type machineArchive struct {
	dir, name string
	metrics   []string
}

// machineArchives are the archives of testdata/archives and, when
// ../shared is there, a choice of the shared ones: counters, marks,
// discrete metrics, a window longer than a day, damaged archives, lists.
func machineArchives(t *testing.T) []machineArchive {
	local := testenv.ArchivesDir(t)
	out := []machineArchive{
		{local, "pmcd-v3", nil}, {local, "pmcd-v2", nil}, {local, "sample-v3", nil},
		{local, "pmcd-v3,sample-v3", nil}, {local, "pmcd-v3", []string{"kernel", "hinv.ncpu", "no.such"}},
	}
	root := filepath.Join(testenv.RepoRoot(t), "..", "shared")
	made, qa := filepath.Join(root, "pcp-made-archives"), filepath.Join(root, "pcp-qa-archives")
	if _, err := os.Stat(made); err == nil {
		for _, a := range []string{"synth3", "synth2", "sample3", "day3", "basic3", "killed3", "star3", "vol3", "basic3,derived3"} {
			out = append(out, machineArchive{made, a, nil})
		}
		out = append(out, machineArchive{made, "synth3", []string{"synth.multi[beta]", `synth.multi["alpha","beta"]`, "synth.once[x]", "synth"}})
	}
	if _, err := os.Stat(qa); err == nil {
		for _, a := range []string{"count-mark", "wrap", "ok-foo", "gap", "changeinst", "buggy_archive", "20101004-trunc", "binning", "multi"} {
			out = append(out, machineArchive{qa, a, nil})
		}
	}
	return out
}

// textLines are the summary lines of a -f text output (the lines with a
// tab), split at the tabs.
func textLines(out string) [][]string {
	var lines [][]string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "\t") {
			lines = append(lines, strings.Split(l, "\t"))
		}
	}
	return lines
}

// flatRow is a --json or --csv row as strings: numbers as written (JSON's
// and CSV's are the same shortest form), null as "", bins flattened to
// binN_le and binN_count.
type flatRow map[string]string

// jsonDoc decodes one --json object.
func jsonDoc(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, b)
	}
	if dec.More() {
		t.Fatalf("--json output holds more than one value:\n%s", b)
	}
	return d
}

func flatString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case json.Number:
		return x.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// jsonRows flattens the rows of a --json object.
func jsonRows(t *testing.T, d map[string]any) []flatRow {
	t.Helper()
	ms, ok := d["metrics"].([]any)
	if !ok {
		if d["metrics"] != nil {
			t.Fatalf("metrics is not an array: %v", d["metrics"])
		}
		return nil
	}
	var rows []flatRow
	for _, m := range ms {
		obj := m.(map[string]any)
		r := flatRow{}
		for k, v := range obj {
			if k == "bins" {
				bins, _ := v.([]any)
				for j, b := range bins {
					bo := b.(map[string]any)
					r[fmt.Sprintf("bin%d_le", j+1)] = flatString(bo["le"])
					r[fmt.Sprintf("bin%d_count", j+1)] = flatString(bo["count"])
				}
				continue
			}
			r[k] = flatString(v)
		}
		rows = append(rows, r)
	}
	return rows
}

// csvRows parses a --csv output: its header and rows.
func csvRows(t *testing.T, out string) ([]string, []flatRow) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("--csv output is not CSV: %v\n%s", err, out)
	}
	if len(recs) == 0 {
		t.Fatalf("--csv output has no header")
	}
	var rows []flatRow
	for _, rec := range recs[1:] {
		r := flatRow{}
		for i, h := range recs[0] {
			r[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return recs[0], rows
}

// fixed renders a full-precision number as the text does.
func fixed(t *testing.T, s string, prec int) string {
	t.Helper()
	switch s {
	case "inf", "-inf", "nan", "-nan":
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	if prec < 0 {
		prec = 6
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// stampText renders an RFC 3339 time as the text does in UTC: the time of
// day, or with the date in quotes when the text has it.
func stampText(t *testing.T, s string, long bool) string {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("not an RFC 3339 time: %q", s)
	}
	tm = tm.UTC()
	if long {
		return "'" + tm.Format("Mon Jan _2 15:04:05.000 2006") + "'"
	}
	return tm.Format("15:04:05.000")
}

// checkRows compares rows of --json or --csv with the text's lines: the
// same metric instances in the same order, the same numbers at the text's
// precision, the same flags and units.
func checkRows(t *testing.T, what string, lines [][]string, cols []string, rows []flatRow, prec int) {
	t.Helper()
	if len(lines) != len(rows) {
		t.Fatalf("%s: %d rows, the text has %d lines", what, len(rows), len(lines))
	}
	for i, l := range lines {
		r := rows[i]
		name := l[0]
		short := strings.HasPrefix(name, "*")
		name = strings.TrimPrefix(name, "*")
		bad := func(format string, a ...any) {
			t.Errorf("%s: row %d (%s): %s\n  text: %q\n  row:  %v", what, i, strings.Join(l[:2], " "), fmt.Sprintf(format, a...), l, r)
		}
		if r["metric"] != name || r["short_span"] != strconv.FormatBool(short) {
			bad("metric %q short_span %s", r["metric"], r["short_span"])
		}
		switch inst := l[1]; {
		case inst == "":
			if r["inst"] != "" || r["instname"] != "" {
				bad("inst %q instname %q for a singular metric", r["inst"], r["instname"])
			}
		case strings.HasPrefix(inst, `["`):
			if want := inst[2 : len(inst)-2]; r["instname"] != want || r["inst"] == "" {
				bad("instname %q, want %q", r["instname"], want)
			}
		default:
			if want := strings.Trim(inst, "[]"); r["inst"] != want || r["instname"] != "" {
				bad("inst %q, want %q", r["inst"], want)
			}
		}
		if len(l) == 3 && l[2] == "- insufficient archive data." {
			if r["insufficient"] != "true" {
				bad("not insufficient")
			}
			for _, c := range cols {
				if r[c] != "" {
					bad("%s = %q in an insufficient row", c, r[c])
				}
			}
			continue
		}
		if r["insufficient"] != "false" {
			bad("insufficient %q", r["insufficient"])
		}
		if len(l) != 2+len(cols)+1 {
			bad("the text has %d fields for %d columns", len(l), len(cols))
			continue
		}
		for k, c := range cols {
			got, want := r[c], l[2+k]
			switch {
			case c == "count" || strings.HasSuffix(c, "_count"):
			case strings.HasSuffix(c, "_time"):
				got = stampText(t, got, strings.HasPrefix(want, "'"))
			case strings.HasSuffix(c, "_le"):
				if got == "" {
					got = "[]"
				} else {
					got = "[<=" + fixed(t, got, prec) + "]"
				}
			default:
				got = fixed(t, got, prec)
			}
			if got != want {
				bad("%s %q (%s), the text %q", c, r[c], got, want)
			}
		}
		if r["units"] != l[len(l)-1] {
			bad("units %q, the text %q", r["units"], l[len(l)-1])
		}
	}
}

// TestMachineMatchesText runs --json and --csv next to the text (with -f)
// in every machineMode on every machineArchive, parses them, and checks
// that they carry the text's numbers, rows, messages and exit status.
func TestMachineMatchesText(t *testing.T) {
	for _, a := range machineArchives(t) {
		for _, m := range machineModes {
			args := append(strings.Fields(m.args), a.name)
			args = append(args, a.metrics...)
			t.Run(a.name+"/"+m.args+"/"+strings.Join(a.metrics, " "), func(t *testing.T) {
				text, terr, trc := run(t, a.dir, append([]string{"-f"}, args...))
				jout, jerr, jrc := run(t, a.dir, append([]string{"--json"}, args...))
				cout, cerr, crc := run(t, a.dir, append([]string{"--csv"}, args...))
				if jerr != terr || cerr != terr {
					t.Errorf("stderr differs:\ntext:\n%s\n--json:\n%s\n--csv:\n%s", terr, jerr, cerr)
				}
				if jrc != trc || crc != trc {
					t.Errorf("exit status: text %d, --json %d, --csv %d", trc, jrc, crc)
				}
				d := jsonDoc(t, []byte(jout))
				if d["archive"] != a.name {
					t.Errorf("archive %q", d["archive"])
				}
				if st := flatString(d["status"]); st != strconv.Itoa(trc) {
					t.Errorf("status %s, exit status %d", st, trc)
				}
				var msgs []string
				for _, m := range d["messages"].([]any) {
					msgs = append(msgs, m.(string))
				}
				var want []string
				for _, l := range strings.Split(terr, "\n") {
					if strings.TrimSpace(l) != "" {
						want = append(want, l)
					}
				}
				if !slices.Equal(msgs, want) {
					t.Errorf("messages %q, stderr %q", msgs, want)
				}
				header, crows := csvRows(t, cout)
				cols := header[7 : len(header)-1]
				lines := textLines(text)
				checkRows(t, "--csv", lines, cols, crows, m.prec)
				jrows := jsonRows(t, d)
				for i, r := range jrows {
					if r["insufficient"] == "true" {
						// "bins": null
						for _, h := range header {
							if _, ok := r[h]; !ok && strings.HasPrefix(h, "bin") {
								r[h] = ""
							}
						}
					}
					if len(r) != len(header)-1 {
						t.Errorf("--json row %d has fields %v, the CSV header %v", i, r, header)
						break
					}
				}
				checkRows(t, "--json", lines, cols, jrows, m.prec)
			})
		}
	}
}

// TestMachineLabel checks the archive fields of --json against -l.
func TestMachineLabel(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, args := range [][]string{{"pmcd-v3"}, {"-S", "+3", "-T", "+10", "pmcd-v2"}, {"sample-v3,pmcd-v3"}} {
		text, _, _ := run(t, dir, append([]string{"-l"}, args...))
		jout, _, _ := run(t, dir, append([]string{"--json"}, args...))
		d := jsonDoc(t, []byte(jout))
		lines := strings.Split(text, "\n")
		if want := "Performance metrics from host " + d["host"].(string); lines[1] != want {
			t.Errorf("%v: host %q, text %q", args, d["host"], lines[1])
		}
		if want := "Log Label (Log Format Version " + flatString(d["format_version"]) + ")"; lines[0] != want {
			t.Errorf("%v: format_version %v, text %q", args, d["format_version"], lines[0])
		}
		for i, k := range []string{"start", "end"} {
			got := "  " + []string{"commencing ", "ending     "}[i] + strings.Trim(stampText(t, d[k].(string), true), "'")
			if got != lines[2+i] {
				t.Errorf("%v: %s %q, text %q", args, k, got, lines[2+i])
			}
		}
	}
}

// TestMachineErrors checks the --json object of an archive that cannot be
// summarised, and that --csv prints only its header then.
func TestMachineErrors(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	jout, jerr, rc := run(t, dir, []string{"--json", "nosuch"})
	if rc != 1 || jerr != "pmlogsummary: Cannot open archive \"nosuch\": No such file or directory\n" {
		t.Errorf("exit %d, stderr %q", rc, jerr)
	}
	want := `{"archive":"nosuch","status":1,"messages":["pmlogsummary: Cannot open archive \"nosuch\": No such file or directory"]}` + "\n"
	if jout != want {
		t.Errorf("--json:\n%s\nwant\n%s", jout, want)
	}
	cout, _, rc := run(t, dir, []string{"--csv", "-a", "nosuch"})
	if rc != 1 || cout != "archive,metric,pmid,inst,instname,short_span,insufficient,stochastic_average,time_average,minimum,maximum,count,units\n" {
		t.Errorf("--csv: exit %d\n%s", rc, cout)
	}
	jout, _, rc = run(t, dir, []string{"--json", "-S", "@bogus", "pmcd-v3"})
	d := jsonDoc(t, []byte(jout))
	if rc != 1 || d["metrics"] != nil || d["host"] == nil || len(d["messages"].([]any)) != 3 {
		t.Errorf("invalid window: exit %d, %s", rc, jout)
	}
}

// TestOptionErrors checks pcpkit's options and their combinations.
func TestOptionErrors(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"-j", "2", "pmcd-v3"}, "pmlogsummary: -j requires --each\n"},
		{[]string{"--shard", "0/2", "pmcd-v3"}, "pmlogsummary: --shard requires --each\n"},
		{[]string{"--each", "-j", "0", "pmcd-v3"}, "pmlogsummary: -j requires a positive numeric argument\n"},
		{[]string{"--each", "--shard=2/2", "pmcd-v3"}, "pmlogsummary: --shard requires K/N with 0 <= K < N, not \"2/2\"\n"},
		{[]string{"--each", "--shard", "x", "pmcd-v3"}, "pmlogsummary: --shard requires K/N with 0 <= K < N, not \"x\"\n"},
		{[]string{"--json", "--csv", "pmcd-v3"}, "pmlogsummary: at most one of --json and --csv allowed\n"},
		{[]string{"--merge", "--each", "x"}, "pmlogsummary: at most one of --merge and --each allowed\n"},
		{[]string{"--json", "-B", "70000", "pmcd-v3"}, "pmlogsummary: -B with --json or --csv allows at most 65536 bins\n"},
		{[]string{"--json=1", "pmcd-v3"}, "pmlogsummary: option '--json' doesn't allow an argument\n" + usage},
		{[]string{"--js", "pmcd-v3"}, "pmlogsummary: unrecognized option '--js'\n" + usage},
		{[]string{"--each"}, "Error: no archive specified\n\n" + usage},
	} {
		out, errs, rc := run(t, dir, c.args)
		if rc != 1 || out != "" || errs != c.err {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", c.args, rc, out, errs, c.err)
		}
	}
}

// TestMachineNoTextEffects checks that the options that only shape the
// text (-f, -F, -H, -p, -l, -Z, -z) change nothing in --json except where
// -l moves the reader as it does the text's numbers.
func TestMachineNoTextEffects(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	base, _, _ := run(t, dir, []string{"--json", "-a", "pmcd-v3"})
	for _, extra := range [][]string{{"-f"}, {"-F", "-H"}, {"-p", "7"}, {"-Z", "EST5EDT"}, {"-z"}, {"-l"}} {
		out, _, _ := run(t, dir, append(append([]string{"--json"}, extra...), "-a", "pmcd-v3"))
		if out != base {
			t.Errorf("--json %v -a differs from --json -a:\n%s\n%s", extra, out, base)
		}
	}
}

func TestAppendNum(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-2.5, "-2.5"}, {1e-7, "1e-7"}, {1.5e-10, "1.5e-10"}, {1e21, "1e+21"},
		{123456789012345680000, "123456789012345680000"}, {0.000001, "0.000001"}, {math.Inf(1), `"inf"`},
		{math.Inf(-1), `"-inf"`}, {math.NaN(), `"nan"`}, {math.Copysign(math.NaN(), -1), `"-nan"`},
	} {
		got := string(appendNum(nil, c.f, true))
		if got != c.want {
			t.Errorf("appendNum(%v) = %s, want %s", c.f, got, c.want)
		}
		if !strings.HasPrefix(got, `"`) {
			want, _ := json.Marshal(c.f)
			if got != string(want) {
				t.Errorf("appendNum(%v) = %s, encoding/json %s", c.f, got, want)
			}
		}
	}
}

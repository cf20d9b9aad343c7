package loggerconf

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

func parseString(t testing.TB, src string) (*Config, error) {
	t.Helper()
	return Parse(strings.NewReader(src), "t.conf", Options{IncludeDirs: []string{}})
}

func TestParseForms(t *testing.T) {
	sec := time.Second
	cases := []struct {
		in   string
		want []Statement // Line, Mandatory, State, Once, Default, Interval, Delta, metric names
	}{
		{"log mandatory on 1 sec kernel.all.load\n", []Statement{{Line: 1, Mandatory: true, State: On, Interval: sec, Delta: sec}}},
		{"mandatory on 2 secs x\n", []Statement{{Line: 1, Mandatory: true, State: On, Interval: 2 * sec, Delta: 2 * sec}}},
		{"log advisory on every 5 seconds x\n", []Statement{{Line: 1, State: On, Interval: 5 * sec, Delta: 5 * sec}}},
		{"on 100 msec x\n", []Statement{{Line: 1, State: On, Interval: 100 * time.Millisecond, Delta: 100 * time.Millisecond}}},
		{"on 100 msecs x\n", []Statement{{Line: 1, State: On, Interval: 100 * time.Millisecond, Delta: 100 * time.Millisecond}}},
		{"on 7 millisecond x\n", []Statement{{Line: 1, State: On, Interval: 7 * time.Millisecond, Delta: 7 * time.Millisecond}}},
		{"on 7 milliseconds x\n", []Statement{{Line: 1, State: On, Interval: 7 * time.Millisecond, Delta: 7 * time.Millisecond}}},
		{"on 1 second x\n", []Statement{{Line: 1, State: On, Interval: sec, Delta: sec}}},
		{"on 3 min x\n", []Statement{{Line: 1, State: On, Interval: 3 * time.Minute, Delta: 3 * time.Minute}}},
		{"on 3 mins x\n", []Statement{{Line: 1, State: On, Interval: 3 * time.Minute, Delta: 3 * time.Minute}}},
		{"on 3 minute x\n", []Statement{{Line: 1, State: On, Interval: 3 * time.Minute, Delta: 3 * time.Minute}}},
		{"on 3 minutes x\n", []Statement{{Line: 1, State: On, Interval: 3 * time.Minute, Delta: 3 * time.Minute}}},
		{"on 2 hour x\n", []Statement{{Line: 1, State: On, Interval: 2 * time.Hour, Delta: 2 * time.Hour}}},
		{"on 2 hours x\n", []Statement{{Line: 1, State: On, Interval: 2 * time.Hour, Delta: 2 * time.Hour}}},
		{"log mandatory on once x\n", []Statement{{Line: 1, Mandatory: true, State: On, Once: true}}},
		{"log mandatory on 0 sec x\n", []Statement{{Line: 1, Mandatory: true, State: On, Once: true}}},
		{"log mandatory on default x\n", []Statement{{Line: 1, Mandatory: true, State: On, Default: true, Delta: time.Minute}}},
		{"log mandatory off x\n", []Statement{{Line: 1, Mandatory: true, State: Off}}},
		{"log mandatory maybe x\n", []Statement{{Line: 1, Mandatory: true, State: Maybe}}},
		{"log advisory off x\n", []Statement{{Line: 1, State: Off}}},
		{"off x\n", []Statement{{Line: 1, State: Off}}},
		{"\n\n  log on once x\n", []Statement{{Line: 3, State: On, Once: true}}},
		{"", nil},
		{"# only\n#comments\n", nil},
		{"log on 268435455 msec x\n", []Statement{{Line: 1, State: On, Interval: 268435455 * time.Millisecond, Delta: 268435455 * time.Millisecond}}},
	}
	for _, c := range cases {
		cfg, err := parseString(t, c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		var got []Statement
		for _, st := range cfg.Statements {
			st.Metrics = nil
			got = append(got, st)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestParseMetrics(t *testing.T) {
	cfg, err := parseString(t, "log on 1 sec {\n a.b [ \"1 minute\" 5, word , \"x\\\\y\" ]\n c.d, e\n f\n}\nlog on once g [7]\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []MetricSpec{
		{Line: 2, Name: "a.b", NameLine: 2, File: "t.conf", Instances: []InstSpec{{Name: "1 minute"}, {Name: "5", ID: 5, IsID: true}, {Name: "word"}, {Name: `x\\y`}}},
		{Line: 3, Name: "c.d", NameLine: 3, File: "t.conf"},
		{Line: 4, Name: "e", NameLine: 3, File: "t.conf"},
		{Line: 5, Name: "f", NameLine: 4, File: "t.conf"},
	}
	if got := cfg.Statements[0].Metrics; !reflect.DeepEqual(got, want) {
		t.Errorf("metrics:\n got %+v\nwant %+v", got, want)
	}
	if got := cfg.Statements[1].Metrics; len(got) != 1 || got[0].Line != 6 || got[0].Instances[0] != (InstSpec{Name: "7", ID: 7, IsID: true}) {
		t.Errorf("second statement: %+v", got)
	}
	if got := cfg.ListNames; !reflect.DeepEqual(got, []string{"a.b", "c.d", "e", "f"}) {
		t.Errorf("ListNames = %q", got)
	}
}

func TestParseKeywordsInBraces(t *testing.T) {
	cfg, err := parseString(t, "log on 1 sec { on off log every sec access }\n")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range cfg.Statements[0].Metrics {
		names = append(names, m.Name)
	}
	if want := []string{"on", "off", "log", "every", "sec", "access"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}

func TestParseAccess(t *testing.T) {
	cfg, err := parseString(t, "log on once { x }\n[access]\nallow localhost, 192.168.*, *, local:*, unix:*, foo-bar.com, ::1 : all;\n"+
		"disallow 10.0.0.1 : all except enquire, advisory;\nallow fe80::* : mandatory, enquire;\n")
	if err != nil {
		t.Fatal(err)
	}
	want := &Access{Rules: []AccessRule{
		{Line: 3, Allow: true, Hosts: []string{"localhost", "192.168.*", "*", "local:*", "unix:*", "foo-bar.com", "::1"}, Ops: []string{"all"}, HostLines: []int{3, 3, 3, 3, 3, 3, 3}},
		{Line: 4, Hosts: []string{"10.0.0.1"}, Ops: []string{"all", "enquire", "advisory"}, Except: true, HostLines: []int{4}},
		{Line: 5, Allow: true, Hosts: []string{"fe80::*"}, Ops: []string{"mandatory", "enquire"}, HostLines: []int{5}},
	}}
	if !reflect.DeepEqual(cfg.Access, want) {
		t.Errorf("access:\n got %+v\nwant %+v", cfg.Access, want)
	}
}

// TestParseErrors: every message checked against pmlogger 6.0.3 -C.
func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"log mandatory on 1.5 sec x\n", "[line 1] Unexpected character '.'"},
		{"log mandatory on -1 sec x\n", "[line 1] Unexpected character '-'"},
		{"log mandatory on 1 x\n", "[line 1] syntax error"},
		{"log mandatory on 5 { x }\n", "[line 1] syntax error"},
		{"log on 99999999999999999999 msec x\n", "[line 1] Logging delta (9223372036854775807 msec) cannot be bigger than 268435455 msec"},
		{"log on 9223372036854775807 sec x\n", "[line 1] Logging delta (-1000 msec) must be positive"},
		{"log on 100 hour x\n", "[line 1] Logging delta (360000000 msec) cannot be bigger than 268435455 msec"},
		{"log on 268435456 msec x\n", "[line 1] Logging delta (268435456 msec) cannot be bigger than 268435455 msec"},
		{"log on\n100\nhour\nx\n", "[line 3] Logging delta (360000000 msec) cannot be bigger than 268435455 msec"},
		{"log on 1 sec x @\n", "[line 1] Unexpected character '@'"},
		{"log on 1 sec {\n x\n", "[line 3] syntax error"},
		{"log on 1 sec { x }\n}\n", "[line 2] syntax error"},
		{"log on 1 sec { }\n", "[line 1] syntax error"},
		{"log\n", "[line 2] syntax error"},
		{"log mandatory\n", "[line 2] syntax error"},
		{"log advisory maybe x\n", "[line 1] syntax error"},
		{"log mandatory on x\n", "[line 1] syntax error"},
		{"record on 1 sec x\n", "[line 1] syntax error"},
		{"log on every once x\n", "[line 1] syntax error"},
		{"log on 1 sec x [ \"\" ]\n", "[line 1] Unexpected character '\"'"},
		{"log on 1 sec x [ \"1 minute ]\n", "[line 1] Unexpected character '\"'"},
		{"log on 1 sec x [ ]\n", "[line 1] syntax error"},
		{"log on 1 sec x [ 1, ]\n", "[line 1] syntax error"},
		{"log on 1 sec x [ on ]\n", "[line 1] syntax error"},
		{"log on 1 sec x\n[access]\nallow * : all;\n", "[line 2] syntax error"},
		{"log on 1 sec { x }\n[access]\n", "[line 3] syntax error"},
		{"[access]\nallow * : all;\nlog on 1 sec x\n", "[line 3] syntax error"},
		{"[access]\nallow * : all\n", "[line 3] syntax error"},
		{"[access]\nallow * : everything;\n", "[line 2] syntax error"},
		{"log on 1 sec { , x }\n", "[line 1] syntax error"},
		{"log on 1 sec { 42 }\n", "[line 1] syntax error"},
		{"log on 1 sec \"x\"\n", "[line 1] syntax error"},
		{"log on 1 sec { x-y }\n", "[line 1] syntax error"},
		{"log on 1 sec\n\n\n", "[line 4] syntax error"},
		{"log on 1 sec %FOO\n", "[line 1] Unexpected character '%'"},
		{"# 40 \"other.conf\"\nlog on 1 sec @\n", "[line 40] Unexpected character '@'"},
		{"log on 1 sec x\r\n\r\n@", "[line 3] Unexpected character '@'"},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(c.in), "t.conf", Options{IncludeDirs: []string{}, NoPreprocess: true})
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
			continue
		}
		file := "t.conf"
		if strings.HasPrefix(c.in, "# 40") {
			file = "other.conf"
		}
		want := "Specification error in configuration file (" + file + ")\n" + c.want
		if pe.Error() != want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, pe.Error(), want)
		}
	}
}

func TestCheckFake(t *testing.T) {
	cases := []struct {
		in   string
		want string
		rc   int
	}{
		{"log mandatory on 1 sec { no.such.metric disk.dev.read [\"nodisk\"] }\n",
			"Warning [t.conf, line 1]\nProblem with lookup for metric \"no.such.metric\" ... logging not activated\nReason: Unknown metric name\n" +
				"Warning [t.conf, line 1]\nInstance \"nodisk\" is not defined for the metric \"disk.dev.read\"\nConfig parsed\n", 0},
		{"log on 1 sec no.such\n\n\n", "Warning [t.conf, line 4]\nProblem with lookup for metric \"no.such\" ... logging not activated\nReason: Unknown metric name\nConfig parsed\n", 0},
		{"log on 1 sec { no.such }\n", "cache_bind(): pmLookupName(1, ...): Unknown metric name\nWarning [t.conf, line 1]\nProblem with lookup for metric \"no.such\" ... logging not activated\nReason: Unknown metric name\nConfig parsed\n", 0},
		{"log on 1 sec { kernel.all }\n", "Config parsed\n", 0},
		{"log on 1 sec { no.such 1 }\n", "cache_bind(): pmLookupName(1, ...): Unknown metric name\nWarning [t.conf, line 1]\nProblem with lookup for metric \"no.such\" ... logging not activated\nReason: Unknown metric name\n" +
			"Specification error in configuration file (t.conf)\n[line 1] syntax error\n", 1},
		{"log on 1 sec { no.such . }\n", "cache_bind(): pmLookupName(1, ...): Unknown metric name\nSpecification error in configuration file (t.conf)\n[line 1] Unexpected character '.'\n", 1},
		{"log mandatory on 1 sec kernel.all.load [1 \"1 minute\" 99]\nlog mandatory on 1 sec hinv.ncpu [1]\n",
			"Warning [t.conf, line 1]\nInstance \"99\" is not defined for the metric \"kernel.all.load\"\nWarning [t.conf, line 2]\nInstance \"1\" is not defined for the metric \"hinv.ncpu\"\nConfig parsed\n", 0},
		{"log mandatory on 1 sec kernel.all.load\nlog advisory on 2 sec kernel.all.load [1 \"5 minute\"]\n",
			"Warning [t.conf, line 2]\nIncompatible request for metric \"kernel.all.load\" and instance \"(null)\"\nRequest for (advisory) ON conflicts with current (mandatory) ON state\n" +
				"Warning [t.conf, line 2]\nIncompatible request for metric \"kernel.all.load\" and instance \"5 minute\"\nRequest for (advisory) ON conflicts with current (mandatory) ON state\nConfig parsed\n", 0},
		{"log mandatory off kernel.all.load [\"1 minute\"]\nlog advisory off kernel.all.load [\"1 minute\" 15]\n",
			"Warning [t.conf, line 2]\nIncompatible request for metric \"kernel.all.load\" and instance \"1 minute\"\nRequest for (advisory) OFF conflicts with current (mandatory) OFF state\nConfig parsed\n", 0},
		{"log mandatory on 1 sec kernel.all\nlog advisory on 2 sec kernel.all\n",
			"Warning [t.conf, line 3]\nIncompatible request for metric \"kernel.all.load\"\nWarning [t.conf, line 3]\nIncompatible request for metric \"kernel.all.intr\"\n" +
				"Warning [t.conf, line 3]\nIncompatible request for metric \"kernel.all.cpu.user\"\nWarning [t.conf, line 3]\nIncompatible request for metric \"kernel.all.cpu.sys\"\nConfig parsed\n", 0},
		{"[access]\nallow *, bad.host : all;\n", "[DATE] pmlogger(PID) Error: __pmGetAddrInfo(bad.host), Unknown host\nerror was on line 2\n", 1},
		{"[access]\nallow localhost : all;\nallow bad.host : all\n", "Specification error in configuration file (t.conf)\n[line 4] syntax error\n", 1},
		{"[access]\nallow bad.host : all;\nallow localhost : all\n", "[DATE] pmlogger(PID) Error: __pmGetAddrInfo(bad.host), Unknown host\nerror was on line 2\n", 1},
		{"[access]\nallow localhost : all;\nlog\n", "Specification error in configuration file (t.conf)\n[line 3] syntax error\n", 1},
		{"%include \"nofile\"\nlog on 1 sec hinv.ncpu\n", "pmcpp: t.conf[1]: %include \"nofile\"\npmcpp: Error: Cannot open file for %include\nConfig parsed\n", 0},
	}
	resolve := func(h string) ([]net.IP, error) {
		if !strings.Contains(h, "bad") {
			return []net.IP{net.IPv4(127, 0, 0, 1)}, nil
		}
		return nil, errors.New("unknown")
	}
	for _, c := range cases {
		var b bytes.Buffer
		rc, cfg, res, err := Check(&b, []byte(c.in), "t.conf", fakeNS(), CheckOptions{NotifyPrefix: "[DATE] pmlogger(PID) ", ResolveHost: resolve})
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want || rc != c.rc {
			t.Errorf("%q:\n got (exit %d) %q\nwant (exit %d) %q", c.in, rc, b.String(), c.rc, c.want)
		}
		if (rc == 0) != (cfg != nil && res != nil) {
			t.Errorf("%q: exit %d with cfg %v res %v", c.in, rc, cfg != nil, res != nil)
		}
	}
}

// groupString renders groups compactly: "M1000:60.2.0[1,5] 60.0.32 | ..."
func groupString(gs []*Group) string {
	var parts []string
	for _, g := range gs {
		var b strings.Builder
		if g.Mandatory {
			b.WriteString("M")
		} else {
			b.WriteString("A")
		}
		switch g.State {
		case Off:
			b.WriteString("off")
		case Maybe:
			b.WriteString("maybe")
		}
		b.WriteString(strings.TrimSuffix(g.Delta.String(), "0s"))
		b.WriteString(":")
		for _, m := range g.Metrics {
			b.WriteString(" " + m.PMID.String())
			if m.Instances != nil {
				var s []string
				for _, in := range m.Instances {
					s = append(s, pmapi.PMID(in).String()[len("0.0."):])
				}
				b.WriteString("[" + strings.Join(s, ",") + "]")
			}
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, " | ")
}

// TestResolveGroups: the scenarios were recorded with the real pmlogger
// (pmlogger -T 2500msec, then pmdumplog): which groups log which
// instances.
func TestResolveGroups(t *testing.T) {
	cases := []struct{ in, want string }{
		// instance lists for one metric in one group merge
		{"log mandatory on 1 sec kernel.all.load [1]\nlog mandatory on 1 sec kernel.all.load [5]\nlog mandatory on 1 sec hinv.ncpu\n",
			"M1s: 60.2.0[1,5] 60.0.32"},
		// a repeated instance is dropped, not the request
		{"log mandatory on 1 sec kernel.all.load [1]\nlog mandatory on 1 sec kernel.all.load [1 5]\n", "M1s: 60.2.0[1,5]"},
		// one metric at two intervals: both groups log it
		{"log mandatory on 1 sec hinv.ncpu\nlog mandatory on 2 sec hinv.ncpu\n", "M1s: 60.0.32 | M2s: 60.0.32"},
		// "mandatory off" after "on" for all instances does not stop it
		{"log mandatory on 1 sec hinv.ncpu\nlog mandatory off hinv.ncpu\n", "M1s: 60.0.32 | Moff: 60.0.32"},
		// ... but it takes listed instances away
		{"log mandatory on 1 sec kernel.all.load [1 5]\nlog mandatory off kernel.all.load [1]\n", "M1s: 60.2.0[5] | Moff: 60.2.0[1]"},
		{"log mandatory on 1 sec kernel.all.load [1]\nlog mandatory off kernel.all.load [1]\n", "Moff: 60.2.0[1]"},
		{"log advisory on 1 sec hinv.ncpu\nlog mandatory on 2 sec hinv.ncpu\n", "A1s: 60.0.32 | M2s: 60.0.32"},
		// PMIDs descending
		{"log mandatory on 1 sec { hinv.ncpu mem.physmem kernel.all.load kernel.all.intr disk.dev.read }\n",
			"M1s: 60.2.0 60.1.9 60.0.32 60.0.12 60.0.4"},
		// a group emptied by an override leaves the task list; the
		// same interval later makes a new group at the end
		{"log mandatory on 1 sec kernel.all.load [1]\nlog mandatory on 1 sec kernel.all.load [1]\nlog mandatory on 2 sec kernel.all.load [1 5]\n" +
			"log mandatory on 1 sec kernel.all.load\nlog mandatory on 3 sec hinv.ncpu\n", "M2s: 60.2.0[1,5] | M1s: 60.2.0 | M3s: 60.0.32"},
		{"log mandatory on once hinv.ncpu\nlog on default hinv.ndisk\n", "M: 60.0.32 | A1m: 60.0.33"},
		{"log mandatory maybe hinv.ncpu\n", "Mmaybe: 60.0.32"},
	}
	for _, c := range cases {
		cfg, err := parseString(t, c.in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Resolve(cfg, fakeNS())
		if err != nil {
			t.Fatal(err)
		}
		if got := groupString(res.Groups); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestLoggedGroups(t *testing.T) {
	cfg, err := parseString(t, "log mandatory on 1 sec hinv.ncpu\nlog mandatory off hinv.ndisk\nlog mandatory maybe mem.physmem\nlog on once kernel.all.load\n")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(cfg, fakeNS())
	if err != nil {
		t.Fatal(err)
	}
	gs := res.LoggedGroups()
	if len(gs) != 2 || gs[0].Delta != time.Second || !gs[1].Once {
		t.Errorf("logged groups: %s", groupString(gs))
	}
}

func TestStatementString(t *testing.T) {
	cfg, err := parseString(t, "log mandatory on 2 sec { a [1 \"x y\"] b }\nlog on default c\nlog mandatory maybe d\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`log mandatory on 2000 msec { a [1 "x y"] b }`,
		`log advisory on default { c }`,
		`log mandatory maybe { d }`,
	}
	for i, st := range cfg.Statements {
		if st.String() != want[i] {
			t.Errorf("String() = %q, want %q", st.String(), want[i])
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"log mandatory on 1 sec { kernel.all.load [\"1 minute\" 5] hinv.ncpu }\n",
		"[access]\nallow * : all except enquire;\n",
		"%define X 1\n%ifdef X\nlog on %X sec x\n%else\n%endif\n",
		"# 3 \"f\"\nlog on 1.5 sec\n",
		"log on 99999999999999999999 hour x\n",
		"log on 1 sec { %{X} }\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "%include") || strings.Contains(s, "%shell") {
			t.Skip()
		}
		cfg, err := Parse(strings.NewReader(s), "f.conf", Options{IncludeDirs: []string{}})
		if cfg == nil {
			t.Fatalf("nil config (err %v)", err)
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if pe.Msg == "" || pe.File == "" && !strings.Contains(s, "# ") {
				t.Fatalf("error without a message or file: %+v", pe)
			}
			if pe.Line < 1 && !strings.Contains(s, "# ") {
				t.Fatalf("error without a line: %+v", pe)
			}
		}
		if _, err := Resolve(cfg, fakeNS()); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
	})
}

func TestNotifyPrefix(t *testing.T) {
	tm := time.Date(2026, 11, 1, 9, 5, 4, 0, time.UTC)
	if got, want := NotifyPrefix(tm, 42), "[Sun Nov  1 09:05:04] pmlogger(42) "; got != want {
		t.Errorf("NotifyPrefix = %q, want %q", got, want)
	}
	if !notifyRE.MatchString(NotifyPrefix(tm, 42)) {
		t.Errorf("interop pattern does not match %q", NotifyPrefix(tm, 42))
	}
}

func TestConfigPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in-var.conf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := ConfigPath("in-var.conf", dir); !ok || p != dir+"/in-var.conf" {
		t.Errorf("ConfigPath = %q %v", p, ok)
	}
	if p, ok := ConfigPath("no-such.conf", dir); ok || p != "no-such.conf" {
		t.Errorf("ConfigPath = %q %v", p, ok)
	}
	self := filepath.Join("testdata", "configs", "good-basic.conf")
	if p, ok := ConfigPath(self, dir); !ok || p != self {
		t.Errorf("ConfigPath = %q %v", p, ok)
	}
}

// TestResolveBatches: a non-leaf name costs one traversal and one name
// lookup, not one per leaf.
func TestResolveBatches(t *testing.T) {
	cfg, err := parseString(t, "log on 1 sec kernel.all\nlog on 2 sec kernel.all\n")
	if err != nil {
		t.Fatal(err)
	}
	ns := fakeNS()
	res, err := Resolve(cfg, ns)
	if err != nil {
		t.Fatal(err)
	}
	// 2 traversals + 1 lookup + 4 descriptors
	if ns.calls != 7 {
		t.Errorf("%d namespace calls, want 7", ns.calls)
	}
	if got := groupString(res.Groups); got != "A1s: 60.2.0 60.0.22 60.0.20 60.0.12 | A2s: 60.2.0 60.0.22 60.0.20 60.0.12" {
		t.Errorf("groups %s", got)
	}
}

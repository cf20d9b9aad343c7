package metricspec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expected messages are what the real pmlogsummary and pmval (6.0.3,
// via pmParseMetricSpec) print for these arguments; the interop suites of
// internal/logsummary and internal/pmval compare many more live.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *Spec
		msg  string
	}{
		{in: "kernel.all.load", want: &Spec{Metric: "kernel.all.load"}},
		{in: "  kernel.all.load  ", want: &Spec{Metric: "kernel.all.load"}},
		{in: `kernel.all.load[1,"5 minute"]`, want: &Spec{Metric: "kernel.all.load", Insts: []string{"1", "5 minute"}}},
		{in: "kernel.all.load[]", want: &Spec{Metric: "kernel.all.load", Insts: []string{}}},
		{in: "myhost:kernel.all.load", want: &Spec{Metric: "kernel.all.load", Host: "myhost"}},
		{in: "/tmp/arch/disk.dev.read[sda sdb]", want: &Spec{Metric: "disk.dev.read", Archive: "/tmp/arch", Insts: []string{"sda", "sdb"}}},
		{in: `a\ b`, want: &Spec{Metric: "a b"}},
		{in: `m["a\"b"]`, want: &Spec{Metric: "m", Insts: []string{`a"b`}}},
		{in: ":m", msg: ":m\n^ -- host name expected\n"},
		{in: "/m", msg: "/m\n^ -- archive name expected\n"},
		{in: "", msg: "\n^ -- performance metric name expected\n"},
		{in: "[x]", msg: "[x]\n^ -- performance metric name expected\n"},
		{in: "m,n", msg: "m,n\n ^ -- unexpected character in metric name\n"},
		{in: "m[a", msg: "m[a\n   ^ -- closing ] expected\n"},
		{in: `m["a]`, msg: "m[\"a]\n     ^ -- closing \" and ] expected\n"},
		{in: "m[a] x", msg: "m[a] x\n     ^ -- unexpected extra characters\n"},
	} {
		got, msg := Parse(c.in)
		if msg != c.msg {
			t.Errorf("Parse(%q) message:\n%s\nwant:\n%s", c.in, msg, c.msg)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", c.in, d)
		}
	}
}

// FuzzParse: no panics, and a failure always comes with a message.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a.b[1,2]", `x:y["q\"r" s]`, "/a/b/c", "m[", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, msg := Parse(s)
		if (sp == nil) == (msg == "") {
			t.Fatalf("Parse(%q) = %v, %q: want exactly one of spec and message", s, sp, msg)
		}
	})
}

package sampler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitInstances: -i arguments split as pmconfig's parse_instances
// splits them (the forms of pmrep(1)'s examples among them).
func TestSplitInstances(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want []string
	}{
		{"1 minute", []string{"1 minute"}},
		{"1 minute,5 minute", []string{"1 minute", "5 minute"}},
		{"'1 minute','5 minute'", []string{"1 minute", "5 minute"}},
		{`"a,b",c`, []string{"a,b", "c"}},
		{`'x"`, []string{"x"}},
		{"1 minute|5 minute", []string{"1 minute|5 minute"}},
	} {
		if got := SplitInstances(c.arg); !cmp.Equal(got, c.want) {
			t.Errorf("SplitInstances(%q) = %q, want %q", c.arg, got, c.want)
		}
	}
}

// TestProcBasename: pmconfig's get_proc_basename.
func TestProcBasename(t *testing.T) {
	for in, want := range map[string]string{
		"(kworker/0:0H)": "kworker/0:0H",
		"/sbin/init":     "init",
		"-bash":          "bash",
		"sshd:":          "sshd",
		"/usr/bin/":      "",
	} {
		if got := procBasename(in); got != want {
			t.Errorf("procBasename(%q) = %q, want %q", in, got, want)
		}
	}
}

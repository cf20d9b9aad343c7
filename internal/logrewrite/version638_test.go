package logrewrite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestNames638: PCP 6.3.8's report names a metric with several names by
// the last, then the others in brackets (TestInterop638Rewrite:
// "Metrics: sample.seconds [sample.dupnames.two.seconds]").
func TestNames638(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a", "b"}, "b [a]"},
		{[]string{"sample.dupnames.two.seconds", "sample.seconds"}, "sample.seconds [sample.dupnames.two.seconds]"},
		{[]string{"a", "b", "c"}, "c [b a]"},
	} {
		if got := names638(c.names); got != c.want {
			t.Errorf("names638(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestCheck638 is what the real pmlogrewrite 6.3.8 printed (and
// TestInterop638CommandLine compares live): -C with the input archive
// alone, the report's 6.3.8 title and names; 6.0.3 wants the output
// archive.
func TestCheck638(t *testing.T) {
	conf, _ := filepath.Abs("testdata/configs/samplestar.conf")
	in := testArchive(t, "sample-v3")
	testenv.Setenv(t, "PCPKIT_PCP_VERSION=6.3.8")
	out, errs, rc := runMain("-C", "-c", conf, in)
	if rc != 0 || errs != "" {
		t.Fatalf("6.3.8 -C: exit %d: %s", rc, errs)
	}
	for _, want := range []string{"PCP Archive Rewrite Specifications Summary\n", "\nMetrics: sample.seconds [sample.dupnames.two.seconds] (29.0.2)\n", "\nMetric: sample.wrap.ulong (29.0.58)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("6.3.8 -C report lacks %q:\n%s", want, out)
		}
	}
	_, errs, rc = runMain("-?")
	if rc != 1 || !strings.Contains(errs, "output-archive is required unless -C or -i is specified\n") {
		t.Errorf("6.3.8 usage: exit %d:\n%s", rc, errs)
	}
	testenv.Setenv(t, "PCPKIT_PCP_VERSION=6.0.3")
	out, errs, rc = runMain("-C", "-c", conf, in)
	if rc != 1 || out != "" || !strings.Contains(errs, "output-archive is required unless -i is specified\n") {
		t.Errorf("6.0.3 -C without an output: exit %d, stdout %q:\n%s", rc, out, errs)
	}
	out, _, _ = runMain("-C", "-c", conf, in, filepath.Join(t.TempDir(), "out"))
	if !strings.HasPrefix(out, "PCP Archive Log Rewrite Specifications Summary\n") || !strings.Contains(out, "\nMetric: sample.dupnames.two.seconds (29.0.2)\n") {
		t.Errorf("6.0.3 -C report:\n%s", out)
	}
}

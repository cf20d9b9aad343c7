package pmrepconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/sampler"
)

// TestCompact: command-line metricspecs as pmconfig's
// parse_metric_spec_instances reads them (pmrep(1)'s examples among them).
func TestCompact(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		want *sampler.Spec
	}{
		{"kernel.all.load", "kernel.all.load", nil},
		{"kernel.all.sysfork,forks,,,,8", "kernel.all.sysfork", &sampler.Spec{Label: "forks", Width: "8"}},
		{"kernel.all.load,,'1 minute','5 minute'", "kernel.all.load", &sampler.Spec{Instances: []string{"1 minute", "5 minute"}}},
		{"kernel.all.load,,1 minute|5 minute", "kernel.all.load", &sampler.Spec{Instances: []string{"1 minute|5 minute"}}},
		{"mem.slabinfo.slabs.total_size,,'kmalloc-4k|xfs_inode',MB", "mem.slabinfo.slabs.total_size", &sampler.Spec{Instances: []string{"kmalloc-4k|xfs_inode"}, Unit: "MB"}},
		{"disk.dev.read,,,,raw", "disk.dev.read", &sampler.Spec{Type: "raw"}},
	} {
		name, sp := Compact(c.in)
		if name != c.name || !cmp.Equal(sp, c.want) {
			t.Errorf("Compact(%q) = %q, %+v; want %q, %+v", c.in, name, sp, c.name, c.want)
		}
	}
}

// TestMetrics: a configuration's sections as pmrep reads them: comments,
// continuation lines, verbose metricspecs and their formulas, options
// left out of metricsets, the files' errors with pmrep's messages.
func TestMetrics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("a.conf", `# comment
[options]
interval = 2
samples: 3

[set]
; comment
rank = 2
x.y.z = lbl,,,
    raw
id = my.metric
id.formula = "a.b + 1"
id.instances = one
`)
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	isOpt := func(k string) bool { return k == "interval" || k == "samples" || k == "rank" }
	opts, err := c.Options([]string{":set"}, isOpt)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Option{{"interval", "2"}, {"samples", "3"}, {"rank", "2"}}; !cmp.Equal(opts, want) {
		t.Errorf("Options = %v, want %v", opts, want)
	}
	names, specs, derived, err := c.Metrics([]string{"a.b", ":set"}, isOpt)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.b", "x.y.z", "my.metric"}; !cmp.Equal(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if want := (&sampler.Spec{Label: "lbl", Type: "\nraw"}); !cmp.Equal(specs["x.y.z"], want) {
		t.Errorf("x.y.z: %+v, want %+v", specs["x.y.z"], want)
	}
	if want := (&sampler.Spec{Instances: []string{"one"}}); !cmp.Equal(specs["my.metric"], want) {
		t.Errorf("my.metric: %+v, want %+v", specs["my.metric"], want)
	}
	if derived != ";my.metric=a.b + 1" {
		t.Errorf("derived %q", derived)
	}
	for text, msg := range map[string]string{
		"[s]\na = 1\na = 2\n": "line 3:\nWhile reading from '" + filepath.Join(dir, "bad.conf") + "' [line  3]: option 'a' in section 's' already exists",
		"a = 1\n":             "line 1:\nFile contains no section headers.",
		"[options]\nfoo = 1":  "Unknown option foo in [options].",
		"[s]\nx.label = y\n":  "Undeclared metric key x.",
	} {
		c, err := Load(write("bad.conf", text))
		if err == nil {
			_, err = c.Options(nil, isOpt)
		}
		if err == nil {
			_, _, _, err = c.Metrics([]string{":s"}, isOpt)
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want %q", text, err, msg)
		}
	}
}

package sampler

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

func TestParseOption(t *testing.T) {
	var o Options
	for _, c := range []struct {
		short     rune
		arg       string
		ok        bool
		complaint string
	}{
		{'t', "2sec", true, ""}, {'S', "+1", true, ""}, {'T', "+9", true, ""}, {'O', "+2", true, ""},
		{'s', "5", true, ""}, {'z', "", true, ""}, {'Z', "UTC", true, ""}, {'r', "", true, ""},
		{'s', "-1", true, `-s requires a non-negative integer: "-1"`}, {'a', "x", false, ""}, {'P', "3", false, ""},
	} {
		ok, complaint := o.ParseOption(c.short, c.arg)
		if ok != c.ok || complaint != c.complaint {
			t.Errorf("-%c %q: %v %q", c.short, c.arg, ok, complaint)
		}
	}
	if o.Interval != "2sec" || *o.Start != "+1" || *o.Finish != "+9" || *o.Origin != "+2" || o.Samples != 5 || !o.HostZone || *o.TZ != "UTC" || !o.Raw {
		t.Errorf("options %+v", o)
	}
}

// TestSkipInvalid: pmrep's complaint about a metric ends Open, unless
// SkipInvalid, which leaves the metric out (ErrNoMetrics when none is
// left).
func TestSkipInvalid(t *testing.T) {
	testenv.Setenv(t)
	a := filepath.Join(testenv.RepoRoot(t), "testdata", "archives", "pmcd-v3")
	o := &Options{Prog: "x", Archive: a, Samples: -1, Metrics: []string{"no.such", "kernel.all.nprocs"}}
	if _, err := Open(o); err == nil || err.Error() != "Invalid metric no.such (PM_ERR_NAME Unknown metric name).\n" {
		t.Errorf("Open: %v", err)
	}
	o.SkipInvalid = true
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range s.Metrics {
		names = append(names, m.Name)
	}
	s.Close()
	if d := cmp.Diff([]string{"kernel.all.nprocs"}, names); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
	o.Metrics = []string{"no.such"}
	if _, err := Open(o); !errors.Is(err, ErrNoMetrics) {
		t.Errorf("Open with no metric left: %v", err)
	}
	// a scale the fetchgroup refuses: left out; one pmParseUnitsStr
	// refuses: pmrep's message
	o.Metrics = []string{"mem.util.used", "kernel.all.nprocs"}
	o.Specs = map[string]*Spec{"mem.util.used": {Unit: "count"}}
	if s, err := Open(o); err != nil || len(s.Metrics) != 1 || s.Metrics[0].Name != "kernel.all.nprocs" {
		t.Errorf("Open with an impossible conversion: %v", err)
	} else {
		s.Close()
	}
	o.Specs = map[string]*Spec{"mem.util.used": {Unit: "Kcount"}}
	if _, err := Open(o); err == nil || err.Error() != "PM_ERR_CONV Impossible value or scale conversion unrecognized or duplicate base unit: Kcount.\n" {
		t.Errorf("Open with a bad scale: %v", err)
	}
}

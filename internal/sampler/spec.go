package sampler

import (
	"github.com/pcpkit/pcpkit/pmapi"
)

// Spec holds a metric specification's settings beyond its name: pmrep's
// compact form "metric,label,instances,unit/scale,type,width,precision,
// limit" (pmrep(1)) and the verbose form of pmrep.conf(5). The label,
// width and precision only format pmrep's text: they change no value.
type Spec struct {
	Label     string
	Instances []string // the metric's instance filters (none: -i's)
	Unit      string   // unit/scale (pmParseUnitsStr's syntax; "": see Scales)
	Type      string   // "raw": no rate conversion
	Width     string
	Precision string
	// Limit is parsed but, as in pmrep 6.0.3 (whose precision takes its
	// place in the metric's settings), has no effect.
	Limit string
}

// raw is pmconfig's rawness of a metric with the settings sp (nil:
// none): -r, or the type "raw", or -R when the type is not given.
func (sp *Spec) raw(o *Options) bool {
	var typ string
	if sp != nil {
		typ = sp.Type
	}
	switch {
	case o.Raw:
		return true
	case typ == "":
		return o.RawPrefer
	}
	return typ == "raw"
}

// limit is the value limit of metric m: -9's, else -8's; none (0) for
// strings.
func (m *Metric) limit(f *Filter) int {
	lim := f.Limit
	if f.LimitForce != 0 {
		lim = f.LimitForce
	}
	if m.Desc.Type == pmapi.TypeString {
		lim = 0
	}
	return lim
}

// instances are the instance filters of metric m: its specification's,
// else -i's.
func (m *Metric) instances(f *Filter) []string {
	if m.spec != nil && len(m.spec.Instances) > 0 {
		return m.spec.Instances
	}
	return f.Instances
}

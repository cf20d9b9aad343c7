package sampler

import (
	"fmt"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Spec holds a metric specification's settings beyond its name: pmrep's
// compact form "metric,label,instances,unit/scale,type,width,precision,
// limit" (pmrep(1)) and the verbose form of pmrep.conf(5). The label,
// width and precision only format pmrep's text: they change no value.
type Spec struct {
	Label     string
	Instances []string // the metric's instance filters (none: -i's)
	Unit      string   // unit/scale: only the metric's own units are supported
	Type      string   // "raw": no rate conversion
	Width     string
	Precision string
	// Limit is parsed but, as in pmrep 6.0.3 (whose precision takes its
	// place in the metric's settings), has no effect.
	Limit string
}

// raw is pmconfig's rawness of metric name (descriptor d) with the
// settings sp (nil: none): -r, or the type "raw", or -R when the type is
// not given. It fails for a unit/scale other than the metric's own
// units (unit conversion is not implemented).
func (sp *Spec) raw(o *Options, name string, d pmapi.Desc) (bool, error) {
	var typ, unit string
	if sp != nil {
		typ, unit = sp.Type, sp.Unit
	}
	if unit != "" && d.Type != pmapi.TypeString {
		u, mult, err := pmapi.ParseUnits(unit)
		if err != nil {
			// pmrep's message: str() of the pmErr, the unit/scale
			return false, fmt.Errorf("%s %s %v: %s.\n", pmapi.ErrConv.Name(), pmapi.ErrConv.Error(), err, unit)
		}
		if u != d.Units || mult != 1 {
			return false, fmt.Errorf("%s: unit/scale %q (the metric's units are %q): unit conversion is not implemented\n", name, unit, d.Units.String())
		}
	}
	switch {
	case o.Raw:
		return true, nil
	case typ == "":
		return o.RawPrefer, nil
	}
	return typ == "raw", nil
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

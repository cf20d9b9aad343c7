package sampler

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Scales are pmrep's default and forced units of the metrics of one
// dimension (-q/-Q count, -b/-B space, -y/-Y time; pmrep.conf's
// count_scale, count_scale_force, space_scale, ...): units strings as
// pmParseUnitsStr reads them. A default applies to the metrics of that
// dimension alone (count, space or time to the power one) whose
// specification gives no unit/scale; a forced one to all of them.
type Scales struct {
	Count, CountForce string
	Space, SpaceForce string
	Time, TimeForce   string
}

// ScaleLongOpts are pmrep's long names of the scale options.
var ScaleLongOpts = []getopt.Long{
	{Name: "count-scale", HasArg: true, Short: 'q'},
	{Name: "count-scale-force", HasArg: true, Short: 'Q'},
	{Name: "space-scale", HasArg: true, Short: 'b'},
	{Name: "space-scale-force", HasArg: true, Short: 'B'},
	{Name: "time-scale", HasArg: true, Short: 'y'},
	{Name: "time-scale-force", HasArg: true, Short: 'Y'},
}

// ScaleUsage is the usage text of the scale options.
const ScaleUsage = `  -q SCALE, --count-scale=SCALE
                            default unit of count metrics (-Q: forced)
  -b SCALE, --space-scale=SCALE
                            default unit of space metrics (-B: forced)
  -y SCALE, --time-scale=SCALE
                            default unit of time metrics (-Y: forced)
`

// parseOption applies pmrep's scale option short (-q, -Q, -b, -B, -y,
// -Y) with its argument arg to s.
func (s *Scales) parseOption(short rune, arg string) bool {
	p := map[rune]*string{'q': &s.Count, 'Q': &s.CountForce, 'b': &s.Space, 'B': &s.SpaceForce, 'y': &s.Time, 'Y': &s.TimeForce}[short]
	if p == nil {
		return false
	}
	*p = arg
	return true
}

// conversion is a fetchgroup item's value conversion (libpcp's
// pmfg_prep_conversion): counters to rates per second, and values
// converted by pmConvScale to the units out (for a double, a product by
// factor; scaleOK false: pmConvScale fails), then multiplied by mult.
type conversion struct {
	rate, unit bool
	out        pmapi.Units
	mult       float64
	factor     float64
	scaleOK    bool
}

// errConv is the fetchgroup's refusal of a metric's scale: pmrep's
// message is the tool's name and this text.
var errConv = errors.New(pmapi.ErrConv.Error())

// scale is pmconfig's unit/scale of a metric (descriptor d) with the
// settings sp (nil: none) and the scale options s: the forced scale of
// its dimension, else the specification's, else the default of its
// dimension, else its own units.
func (s *Scales) scale(sp *Spec, d pmapi.Desc) string {
	var own string
	if sp != nil {
		own = sp.Unit
	}
	u := d.Units
	var def, force string
	switch {
	case u.DimCount == 1 && u.DimSpace == 0 && u.DimTime == 0:
		def, force = s.Count, s.CountForce
	case u.DimSpace == 1 && u.DimCount == 0 && u.DimTime == 0:
		def, force = s.Space, s.SpaceForce
	case u.DimTime == 1 && u.DimCount == 0 && u.DimSpace == 0:
		def, force = s.Time, s.TimeForce
	}
	switch {
	case force != "":
		return force
	case own != "":
		return own
	case def != "":
		return def
	}
	return u.String()
}

// label is pmconfig's text label of the unit/scale s of a metric
// (descriptor d, raw or not), which pmrep passes to the fetchgroup as
// the scale: " / s" added for a counter converted to rates when s has
// no "/", then format_metric_label's abbreviations when it has " / ".
func label(s string, d pmapi.Desc, raw bool) string {
	if !raw && d.Type != pmapi.TypeString && d.Sem == pmapi.SemCounter && !strings.Contains(s, "/") {
		s += " / s"
	}
	if strings.Contains(s, " / ") {
		// (pmconfig replaces within words too: "second" is "sond")
		s = strings.ReplaceAll(s, "nanosec", "ns")
		s = strings.ReplaceAll(s, "microsec", "us")
		s = strings.ReplaceAll(s, "millisec", "ms")
		s = strings.ReplaceAll(s, "sec", "s")
		s = strings.ReplaceAll(s, "hour", "h")
		s = strings.ReplaceAll(s, " / ", "/")
	}
	return s
}

// prepConversion is libpcp's pmfg_prep_conversion of a metric
// (descriptor d) to the scale s: none given (""), counters are converted
// to rates; otherwise the units of s must have d's dimensions (values
// converted), or those with time one power lower (counters and other
// values converted to rates, then to the units, the multiplier scaled to
// the time unit). Its error is errConv.
func prepConversion(d pmapi.Desc, s string) (conversion, error) {
	if s == "" {
		return conversion{rate: d.Sem == pmapi.SemCounter}, nil
	}
	out, mult, err := pmapi.ParseUnits(s)
	if err != nil {
		return conversion{}, errConv
	}
	in := d.Units
	if in.DimSpace != out.DimSpace || in.DimCount != out.DimCount {
		return conversion{}, errConv
	}
	switch in.DimTime {
	case out.DimTime:
		return scaling(in, conversion{unit: true, out: out, mult: mult}), nil
	case out.DimTime + 1:
		switch out.ScaleTime {
		case pmapi.TimeNSec:
			mult /= 1000000000.
		case pmapi.TimeUSec:
			mult /= 1000000.
		case pmapi.TimeMSec:
			mult /= 1000.
		case pmapi.TimeSec:
		case pmapi.TimeMin:
			mult *= 60.
		case pmapi.TimeHour:
			mult *= 3600.
		default:
			return conversion{}, errConv
		}
		out.DimTime++
		return scaling(in, conversion{rate: true, unit: true, out: out, mult: mult}), nil
	}
	return conversion{}, errConv
}

// scaling sets c's pmConvScale factor from units in to c.out: pmConvScale
// converts a double v to v * (mult/div), mult and div integers of the
// units, so the conversion of 1 is the factor.
func scaling(in pmapi.Units, c conversion) conversion {
	_, c.factor, c.scaleOK = derive.ConvScale(pmapi.TypeDouble, 0, 1, in, c.out)
	return c
}

// prepareUnits sets each metric's output type and conversion as
// pmconfig's finalisation of the metrics does, metric by metric (after
// all of them are resolved and their instances chosen): the scale
// (parsed by pmParseUnitsStr: pmrep's message and exit when it fails),
// the output type (double, but the metric's own when the scale's units
// are its units, double again for a counter converted to rates, string
// for strings), and the fetchgroup's conversion of the scale's label
// (pmrep's "Impossible value or scale conversion" when it fails). With
// SkipInvalid, a metric whose scale fails is left out instead, unless
// the scale is one given (a specification's or an option's) that
// pmParseUnitsStr refuses.
func (r *Sampler) prepareUnits() error {
	keep := r.Metrics[:0]
	pmids := r.pmids[:0]
	for i, m := range r.Metrics {
		if err := r.prepareUnit(m); err != nil {
			var bad *badScale
			if !r.o.SkipInvalid || errors.As(err, &bad) && bad.given {
				return err
			}
			continue
		}
		keep = append(keep, m)
		pmids = append(pmids, r.pmids[i])
	}
	clear(r.Metrics[len(keep):])
	r.Metrics, r.pmids = keep, pmids
	if len(r.Metrics) == 0 {
		return ErrNoMetrics
	}
	return nil
}

// prepareUnit sets m's output type and conversion (see prepareUnits).
func (r *Sampler) prepareUnit(m *Metric) error {
	if m.PMID == pmapi.PMIDNull {
		return nil // libpcp's anonymous metrics: no units, no values
	}
	d := m.Desc
	m.OType = d.Type
	raw := m.spec.raw(r.o)
	s := r.o.Scales.scale(m.spec, d)
	units, _, err := pmapi.ParseUnits(s)
	if err != nil {
		return &badScale{scale: s, err: err, given: s != d.Units.String()}
	}
	counter := !raw && d.Sem == pmapi.SemCounter
	switch {
	case d.Type == pmapi.TypeString:
	case counter || units.String() != d.Units.String():
		m.OType = pmapi.TypeDouble
	}
	m.conv, err = prepConversion(d, label(s, d, raw))
	if err != nil {
		return fmt.Errorf("%s: %v\n", r.o.Prog, err)
	}
	return nil
}

// badScale is a scale pmParseUnitsStr refuses (given: not the metric's
// own units).
type badScale struct {
	scale string
	err   error
	given bool
}

// Error is pmrep's message: str() of the pmErr, then the scale.
func (e *badScale) Error() string {
	return fmt.Sprintf("%s %s %v: %s.\n", pmapi.ErrConv.Name(), pmapi.ErrConv.Error(), e.err, e.scale)
}

// rescale is the fetchgroup's unit conversion of x (a value or a rate)
// to m's scale: pmConvScale, then the multiplier. It reports false when
// pmConvScale fails.
func (m *Metric) rescale(x float64) (float64, bool) {
	c := &m.conv
	if !c.unit {
		return x, true
	}
	return x * c.factor * c.mult, c.scaleOK
}

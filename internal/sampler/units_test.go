package sampler

import (
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestScaleLabelConversion: pmconfig's scale and label of a metric, and
// the fetchgroup's conversion of that label, for the cases the real
// pmrep shows (internal/pmreplay's TestInteropUnits compares the values).
func TestScaleLabelConversion(t *testing.T) {
	kbyte := pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceKByte}
	msec := pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}
	count := pmapi.Units{DimCount: 1}
	instant := func(u pmapi.Units) pmapi.Desc {
		return pmapi.Desc{Type: pmapi.TypeU64, Sem: pmapi.SemInstant, Units: u}
	}
	counter := func(u pmapi.Units) pmapi.Desc {
		return pmapi.Desc{Type: pmapi.TypeU64, Sem: pmapi.SemCounter, Units: u}
	}
	for _, c := range []struct {
		name       string
		d          pmapi.Desc
		unit       string // the specification's
		scales     Scales
		raw        bool
		scale      string
		label      string
		rate, conv bool
		mult       float64
		err        bool
	}{
		{name: "own units", d: instant(kbyte), scale: "Kbyte", label: "Kbyte", conv: true, mult: 1},
		{name: "MB", d: instant(kbyte), unit: "MB", scale: "MB", label: "MB", conv: true, mult: 1},
		{name: "multiplier", d: instant(kbyte), unit: "2 MB", scale: "2 MB", label: "2 MB", conv: true, mult: 0.5},
		{name: "instant to rate", d: instant(kbyte), unit: "MB/s", scale: "MB/s", label: "MB/s", rate: true, conv: true, mult: 1},
		{name: "other dimension", d: instant(kbyte), unit: "count", scale: "count", label: "count", err: true},
		{name: "default", d: instant(kbyte), scales: Scales{Space: "GB"}, scale: "GB", label: "GB", conv: true, mult: 1},
		{name: "spec over default", d: instant(kbyte), unit: "MB", scales: Scales{Space: "GB"}, scale: "MB", label: "MB", conv: true, mult: 1},
		{name: "forced over spec", d: instant(kbyte), unit: "MB", scales: Scales{SpaceForce: "GB"}, scale: "GB", label: "GB", conv: true, mult: 1},
		{name: "other dimension's default", d: instant(kbyte), scales: Scales{Time: "sec", Count: "count x 10^3"}, scale: "Kbyte", label: "Kbyte", conv: true, mult: 1},
		{name: "time counter", d: counter(msec), scale: "millisec", label: "ms/s", rate: true, conv: true, mult: 1000. / 1000000000.},
		{name: "time counter in seconds", d: counter(msec), unit: "sec", scale: "sec", label: "s/s", rate: true, conv: true, mult: 1. / 1000000000.},
		{name: "per minute", d: counter(msec), unit: "sec/min", scale: "sec/min", label: "sec/min", rate: true, conv: true, mult: 60. / 1000000000.},
		{name: "raw time counter", d: counter(msec), unit: "sec", raw: true, scale: "sec", label: "sec", conv: true, mult: 1},
		{name: "sond", d: counter(msec), unit: "second / second", scale: "second / second", label: "sond/sond", err: true},
		{name: "count counter", d: counter(count), scales: Scales{CountForce: "count x 10^3"}, unit: "count", scale: "count x 10^3", label: "count x 10^3/s", rate: true, conv: true, mult: 1},
		{name: "dimensionless counter", d: counter(pmapi.Units{}), scale: "", label: "/s", rate: true, conv: true, mult: 1},
		{name: "raw dimensionless counter", d: counter(pmapi.Units{}), raw: true, scale: "", label: "", rate: true},
	} {
		o := &Options{Scales: c.scales, Raw: c.raw}
		sp := &Spec{Unit: c.unit}
		s := o.Scales.scale(sp, c.d)
		l := label(s, c.d, sp.raw(o))
		conv, err := prepConversion(c.d, l)
		if s != c.scale || l != c.label || (err != nil) != c.err {
			t.Errorf("%s: scale %q, label %q, error %v; want %q, %q, error %v", c.name, s, l, err, c.scale, c.label, c.err)
			continue
		}
		if err == nil && (conv.rate != c.rate || conv.unit != c.conv || conv.unit && conv.mult != c.mult) {
			t.Errorf("%s: %+v; want rate %v, conversion %v, multiplier %v", c.name, conv, c.rate, c.conv, c.mult)
		}
	}
}

package dumplog

import (
	"fmt"

	"github.com/pcpkit/pcpkit/pcptime"
)

// setZone chooses the reporting zone (-z, -Z or the local zone), prints
// the real tool's note, and parses the -S/-T window in that zone.
func (d *dumper) setZone() int {
	switch {
	case d.opt.hostzone:
		d.z = pcptime.LoadZone(d.a.Label().TZ)
		fmt.Fprintf(d.out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", d.a.Label().Hostname)
	case d.opt.tz != "":
		d.z = pcptime.LoadZone(d.opt.tz)
		fmt.Fprintf(d.out, "Note: timezone set to \"TZ=%s\"\n\n", d.opt.tz)
	default:
		d.z = pcptime.LocalZone()
	}
	if d.opt.startSet || d.opt.finishSet {
		return d.parseWindow()
	}
	return 0
}

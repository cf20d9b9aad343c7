package dumplog

import (
	"fmt"

	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// parseWindow applies -S and -T as pmParseTimeWindow does, relative to the
// archive's label start and end, in the reporting zone. Records outside
// [start, end] are not printed (-S/-T apply to -m only).
func (d *dumper) parseWindow() int {
	spec := pcptime.WindowSpec{}
	if d.opt.startSet {
		spec.Start = &d.opt.start
	}
	if d.opt.finishSet {
		spec.End = &d.opt.finish
	}
	end, err := d.a.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: getopt.UnknownEndSec}
	}
	w, _, perr := pcptime.ParseWindowSpec(spec, d.start, end, d.z)
	if perr != nil {
		d.out.Flush()
		fmt.Fprintf(d.errw, "pmdumplog: invalid time window.\n%s\n", perr.Message())
		return 1
	}
	d.window, d.winLo, d.winHi = true, w.Start, w.End
	return 0
}

package interp

import (
	"fmt"
	"os"
)

// debug traces the interpolation on standard error when
// PCPKIT_DEBUG_INTERP is set, in the spirit of libpcp's PCP_DEBUG=interp
// (for comparing the two when they disagree).
var debug = os.Getenv("PCPKIT_DEBUG_INTERP") != ""

func debugf(format string, a ...any) {
	if debug {
		fmt.Fprintf(os.Stderr, format, a...)
	}
}

func stateStr(s uint8, v *value, t float64) string {
	str := ""
	switch {
	case s&sUndefined != 0:
		str = "<undefined>"
	case s&sMark != 0:
		str = "<mark>"
	default:
		str = "v"
		if !v.isBlk {
			str = fmt.Sprintf("v=%d", v.insitu)
		}
	}
	if s&sScanned != 0 {
		str += "&<scanned>"
	}
	return fmt.Sprintf("%.6f %s", t, str)
}

func (ic *inst) String() string {
	return fmt.Sprintf("pmid %s inst %d: t_first=%.6f prior=%s next=%s t_last=%.6f", ic.m.pmid, ic.id, ic.tFirst,
		stateStr(ic.sPrior, &ic.vPrior, ic.tPrior), stateStr(ic.sNext, &ic.vNext, ic.tNext), ic.tLast)
}

package interp

import (
	"math"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
	"pgregory.net/rapid"
)

// TestTakes: take changes an instance's bounds exactly when takes says
// it would (update loads a value only then).
func TestTakes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		// times on a coarse grid, so that equal times are common; -1 is
		// "none yet"
		tm := rapid.SampledFrom([]float64{-1, 0, 1, 2, 3, 4})
		ic := &inst{
			tPrior: tm.Draw(rt, "tPrior"), tNext: tm.Draw(rt, "tNext"),
			sPrior: sValue, sNext: sValue | sScanned,
			search: rapid.Bool().Draw(rt, "search"),
		}
		treq, at := tm.Draw(rt, "treq"), tm.Draw(rt, "t")
		before := *ic
		ip := Interp{priorHi: math.Inf(-1)}
		done := 0
		v := pmapi.Value{Insitu: 7}
		ip.take(ic, treq, at, &v, rapid.SampledFrom([]int{updForw, updBack}).Draw(rt, "how"), &done)
		// (a value taken is 7; the bounds held 0)
		taken := ic.vPrior.insitu == 7 || ic.vNext.insitu == 7
		changed := taken || ic.tPrior != before.tPrior || ic.tNext != before.tNext || ic.sPrior != before.sPrior ||
			ic.sNext != before.sNext || ic.search != before.search || done != 0
		if takes := before.takes(treq, at); takes != taken || !takes && changed {
			rt.Fatalf("takes %v, but take took the value: %v, changed the bounds: %v (%+v -> %+v)", takes, taken, changed, before, *ic)
		}
		if ic.tPrior != before.tPrior && ic.tPrior > ip.priorHi {
			rt.Fatalf("take set the prior to %v, above the bound of the priors %v", ic.tPrior, ip.priorHi)
		}
	})
}

package interp

import "github.com/pcpkit/pcpkit/pcptime"

// MarkPolicy is whether interpolation looks through <mark>s, as libpcp
// does when $PCP_IGNORE_MARK_RECORDS is set (PCPIntro(1)): Ignore turns
// it on, and a <mark> is then ignored when the records on either side of
// it lie at most Gap seconds apart; with Gap 0 every <mark> is ignored.
type MarkPolicy struct {
	Ignore bool
	Gap    float64
}

// SetMarkPolicy sets the function that gives the MarkPolicy. It is
// called once, when the first <mark> is met (libpcp reads the variable
// there, and only then warns about a bad value); until it is set, or
// if f is nil, <mark>s are not ignored.
func (ip *Interp) SetMarkPolicy(f func() MarkPolicy) {
	ip.markPolicy, ip.markKnown = f, false
}

// ignoreMark reports whether the <mark> just read is to be ignored.
// With a Gap, as libpcp's update_bounds, it reads from where the <mark>
// left the source: the record after (forwards), back over it and over
// the <mark>, the record before, and forwards over both again, so that
// the position ends where it was; t_next - t_prior is the gap. Reading
// backwards the same reads take the <mark> as "after" and the record two
// before it as "before", as libpcp does. A read that fails before both
// times are known (the <mark> at either end) leaves the <mark> in place.
func (ip *Interp) ignoreMark() bool {
	if !ip.markKnown {
		ip.markKnown = true
		if ip.markPolicy != nil {
			ip.marks = ip.markPolicy()
		}
	}
	if !ip.marks.Ignore {
		return false
	}
	if ip.marks.Gap == 0 {
		return true
	}
	read := func(forw bool) (float64, bool) {
		t, err := ip.src.Peek(forw)
		if err != nil {
			return -1, false
		}
		return pcptime.Sub(t, ip.start), true
	}
	tNext, ok := read(true)
	if !ok {
		return false
	}
	if _, ok := read(false); !ok {
		return false
	}
	if _, ok := read(false); !ok {
		return false
	}
	tPrior, ok := read(false)
	if !ok {
		return false
	}
	// Reading forwards again to where it started: libpcp compares the
	// times even when these reads fail.
	if _, ok := read(true); ok {
		read(true)
	}
	if debug {
		debugf("ignore mark? gap %.6f - %.6f <= %.6f\n", tNext, tPrior, ip.marks.Gap)
	}
	return tNext-tPrior <= ip.marks.Gap
}

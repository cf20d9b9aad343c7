package logcheck

import (
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The largest type, space scale and time scale pass 2 accepts
// (PM_TYPE_HIGHRES_EVENT, PM_SPACE_EBYTE, PM_TIME_HOUR).
const (
	maxType       = pmapi.TypeHighresEvent
	maxSpaceScale = pmapi.SpaceEByte
	maxTimeScale  = pmapi.TimeHour
)

// pass2 checks the metric descriptors, in the order of libpcp's hash
// table of them: the type, the semantics, the domain of the instance
// domain, the dimensions and scales of the units.
func (c *checker) pass2() {
	if c.opt.verbose {
		c.errf("%s: start pass2\n", c.archname)
	}
	m := c.a.Meta()
	h := lhash.New()
	for _, d := range m.Descs {
		h.Add(uint32(d.PMID))
	}
	for _, k := range h.Keys() {
		d, _ := m.Desc(pmapi.PMID(k))
		// pmNameID: with -n the name comes from that namespace, which
		// may not have it (the archive's own always has).
		name := "unknown"
		if names := c.names.Names(d.PMID); len(names) > 0 {
			name = names[0]
		} else {
			c.errf("%s.meta: PMID %s: no name in PMNS: %s\n", c.archname, d.PMID, pmapi.ErrPMID.Error())
		}
		if d.Type == pmapi.TypeNoSupport {
			continue
		}
		pre := c.archname + ".meta: " + name + " [" + d.PMID.String() + "]: "
		if d.Type < pmapi.Type32 || d.Type > maxType {
			c.errf("%sbad type (%d) in pmDesc\n", pre, d.Type)
		}
		// PCP 6.3.8 knows a derived metric's instance domain is
		// another domain's
		derived := c.v638 && derive.IsRemapped(d.PMID)
		if d.InDom != pmapi.InDomNull && d.PMID.Domain() != d.InDom.Domain() && !derived {
			c.errf("%sdomain of pmid (%d) != domain of indom (%d)\n", pre, d.PMID.Domain(), d.InDom.Domain())
		}
		if d.Sem != pmapi.SemCounter && d.Sem != pmapi.SemInstant && d.Sem != pmapi.SemDiscrete {
			c.errf("%sbad semantics (%d) in pmDesc\n", pre, d.Sem)
		}
		u := d.Units
		for _, dim := range []struct {
			name string
			v    int8
		}{{"Space", u.DimSpace}, {"Time", u.DimTime}, {"Count", u.DimCount}} {
			if dim.v < -2 || dim.v > 2 {
				c.errf("%sbad dimension (%d) for %s in pmDesc\n", pre, dim.v, dim.name)
			}
		}
		if u.DimSpace == 0 && u.ScaleSpace != 0 {
			c.errf("%snon-zero scale (%d) with zero dimension for Space in pmDesc\n", pre, u.ScaleSpace)
		}
		if u.ScaleSpace > maxSpaceScale {
			c.errf("%sbad scale (%d) for Space in pmDesc\n", pre, u.ScaleSpace)
		}
		if u.DimTime == 0 && u.ScaleTime != 0 {
			c.errf("%snon-zero scale (%d) with zero dimension for Time in pmDesc\n", pre, u.ScaleTime)
		}
		if u.ScaleTime > maxTimeScale {
			c.errf("%sbad scale (%d) for Time in pmDesc\n", pre, u.ScaleTime)
		}
		if u.DimCount == 0 && u.ScaleCount != 0 {
			c.errf("%snon-zero scale (%d) with zero dimension for Count in pmDesc\n", pre, u.ScaleCount)
		}
	}
}

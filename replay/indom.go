package replay

import (
	"sort"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Instance domains of an archive context, as libpcp's PMAPI gives them:
// InDom, LookupInDom and NameInDom answer as of the context's current
// time (pmGetInDom, pmLookupInDom, pmNameInDom on an archive context);
// the Archive variants answer over the whole archive
// (pmGetInDomArchive, pmLookupInDomArchive, pmNameInDomArchive).

// InDom returns the instances of indom in force at the context's current
// time (the last snapshot stamped at or before it), as pmGetInDom does on
// an archive context. It fails with pmapi.ErrInDomLog when the archive
// has no snapshot of indom by then.
func (c *Context) InDom(indom pmapi.InDom) (insts []int32, names []string, err error) {
	s, ok := c.indomNow(indom)
	if !ok {
		return nil, nil, pmapi.ErrInDomLog
	}
	return s.Insts, s.Names, nil
}

// InDomArchive returns every instance ever in indom with its newest
// name, in pmGetInDomArchive's order: the snapshots newest first, each
// sorted by instance number, an instance listed where it first appears.
// It fails with pmapi.ErrInDomLog when the archive has no snapshot of
// indom.
func (c *Context) InDomArchive(indom pmapi.InDom) (insts []int32, names []string, err error) {
	h := c.Meta().InDomHistory(indom)
	if len(h) == 0 {
		return nil, nil, pmapi.ErrInDomLog
	}
	seen := map[int32]bool{}
	var idx []int
	for i := len(h) - 1; i >= 0; i-- {
		s := &h[i]
		idx = idx[:0]
		for k := range s.Insts {
			idx = append(idx, k)
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.Insts[idx[a]] < s.Insts[idx[b]] })
		for _, k := range idx {
			if id := s.Insts[k]; !seen[id] {
				seen[id] = true
				insts = append(insts, id)
				names = append(names, s.Names[k])
			}
		}
	}
	return insts, names, nil
}

// indomNow is the snapshot of indom in force at the context's current
// time: the latest stamped at or before it. Unlike Meta.InDomAt there is
// no fallback to the first snapshot: before it, libpcp's pmGetInDom,
// pmLookupInDom and pmNameInDom fail with PM_ERR_INDOM_LOG.
func (c *Context) indomNow(indom pmapi.InDom) (*archive.InDomSnapshot, bool) {
	s, ok := c.Meta().InDomAt(indom, c.Origin())
	if !ok || c.Origin().Before(s.Stamp) {
		return nil, false
	}
	return s, true
}

// matchInst finds name in one snapshot as libpcp 6.0.3's archive lookup
// does: an instance whose name is name, else the first whose name up to
// its first space is a prefix of name (so "15" finds "1 minute" before
// "15 minute").
func matchInst(s *archive.InDomSnapshot, name string) (int32, bool) {
	for k, n := range s.Names {
		if n == name {
			return s.Insts[k], true
		}
	}
	for k, n := range s.Names {
		w := n
		if j := strings.IndexByte(n, ' '); j >= 0 {
			w = n[:j]
		}
		if strings.HasPrefix(name, w) {
			return s.Insts[k], true
		}
	}
	return 0, false
}

// LookupInDom finds an instance of indom by name in the snapshot in
// force at the context's current time (pmLookupInDom on an archive
// context). The match rule is matchInst's.
func (c *Context) LookupInDom(indom pmapi.InDom, name string) (int32, error) {
	s, ok := c.indomNow(indom)
	if !ok {
		return 0, pmapi.ErrInDomLog
	}
	if id, ok := matchInst(s, name); ok {
		return id, nil
	}
	return 0, pmapi.ErrInst
}

// LookupInDomArchive finds an instance of indom by name in any snapshot,
// newest first (pmLookupInDomArchive). The match rule is matchInst's.
func (c *Context) LookupInDomArchive(indom pmapi.InDom, name string) (int32, error) {
	h := c.Meta().InDomHistory(indom)
	if len(h) == 0 {
		return 0, pmapi.ErrInDomLog
	}
	for i := len(h) - 1; i >= 0; i-- {
		if id, ok := matchInst(&h[i], name); ok {
			return id, nil
		}
	}
	return 0, pmapi.ErrInstLog
}

// NameInDom names an instance as the snapshot in force at the context's
// current time does (pmNameInDom on an archive context).
func (c *Context) NameInDom(indom pmapi.InDom, inst int32) (string, error) {
	s, ok := c.indomNow(indom)
	if !ok {
		return "", pmapi.ErrInDomLog
	}
	for k, id := range s.Insts {
		if id == inst {
			return s.Names[k], nil
		}
	}
	return "", pmapi.ErrInst
}

// NameInDomArchive names an instance as the newest snapshot that has it
// does (pmNameInDomArchive).
func (c *Context) NameInDomArchive(indom pmapi.InDom, inst int32) (string, error) {
	h := c.Meta().InDomHistory(indom)
	if len(h) == 0 {
		return "", pmapi.ErrInDomLog
	}
	for i := len(h) - 1; i >= 0; i-- {
		for k, id := range h[i].Insts {
			if id == inst {
				return h[i].Names[k], nil
			}
		}
	}
	return "", pmapi.ErrInstLog
}

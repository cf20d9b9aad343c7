package archive

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Set is a multi-archive source, as libpcp builds one for an archive
// context whose name is a comma-separated list of archives and/or
// directories (every archive in a directory, found by its .meta file).
//
// As in libpcp:
//
//   - The archives are opened in the order they are named (a directory's
//     in the order the directory lists them) and kept sorted by their
//     label start. An archive that starts when another does is the same
//     archive named twice when the names are equal (it is dropped), and
//     otherwise an overlap (pmapi.ErrLogOverlap). Every archive must come
//     from the host of the earliest one so far (pmapi.ErrLogHost).
//   - The metadata accumulates, in the order the archives were opened:
//     Meta holds the descriptors, instance domains, labels and help texts
//     of all of them (the first one's wins where they disagree; instance
//     domain snapshots are kept in time order), but the namespace is that
//     of the first archive opened (in a directory, the first one listed)
//     plus the later archives' leaves directly under its nodes: PCP 6.0.3
//     finds no other name that only a later archive has (see merge).
//
// Reading a set as libpcp reads it (one archive after another in time
// order, with a virtual <mark> between two archives) is package replay's
// (replay.Context).
//
// A Set of one archive is that archive, with its own Meta.
type Set struct {
	archives []*Archive // in start order
	names    []string   // the name each archive was opened by
	meta     *Meta
}

// OpenSet opens the archives named by name: one archive (a base name or
// any of its files), a directory, or a comma-separated list of them. The
// first failure is returned, checked archive by archive in the order
// libpcp checks them: an error of Open; pmapi.ErrNoData for an archive
// whose first data volume has nothing after its label; pmapi.ErrLogHost;
// pmapi.ErrLogChangeType, ErrLogChangeSem, ErrLogChangeInDom or
// ErrLogChangeUnits for a descriptor that differs from an earlier
// archive's; pmapi.ErrLogOverlap. A name that gives no archive at all
// (such as an empty directory) gives pmapi.ErrLogFile.
func OpenSet(name string) (*Set, error) {
	s := &Set{}
	var opened []*Archive // in the order they were opened
	fail := func(err error) (*Set, error) {
		for _, a := range opened {
			a.Close()
		}
		return nil, err
	}
	names := expandList(name)
	if len(names) > 1 {
		s.meta = newMeta()
	}
	for _, n := range names {
		a, err := Open(n)
		if err != nil {
			return fail(err)
		}
		opened = append(opened, a)
		if err := checkData(a); err != nil {
			return fail(err)
		}
		if len(s.archives) > 0 && a.Label().Hostname != s.archives[0].Label().Hostname {
			return fail(pmapi.ErrLogHost)
		}
		if s.meta != nil {
			if err := s.meta.merge(a.Meta(), len(opened) == 1); err != nil {
				return fail(err)
			}
		}
		// Insert in start order.
		i, dup := 0, false
		for ; i < len(s.archives); i++ {
			d := pcptime.Sub(a.Label().Start, s.archives[i].Label().Start)
			if d < 0 {
				break
			}
			if d == 0 {
				if n != s.names[i] {
					return fail(pmapi.ErrLogOverlap)
				}
				dup = true
				break
			}
		}
		if dup {
			a.Close() // its metadata is merged already
			continue
		}
		s.archives = append(s.archives, nil)
		s.names = append(s.names, "")
		copy(s.archives[i+1:], s.archives[i:])
		copy(s.names[i+1:], s.names[i:])
		s.archives[i], s.names[i] = a, n
	}
	if len(s.archives) == 0 {
		return fail(pmapi.ErrLogFile)
	}
	if s.meta == nil {
		s.meta = s.archives[0].Meta()
	}
	return s, nil
}

// NewSet returns the set of one archive, a, opened by the name name: what
// OpenSet(name) returns for the name of one archive. Closing the set
// closes a.
func NewSet(a *Archive, name string) *Set {
	return &Set{archives: []*Archive{a}, names: []string{name}, meta: a.Meta()}
}

// checkData refuses, as libpcp's archive open does, an archive whose
// first data volume holds nothing after its label (even when a later
// volume has records): pmapi.ErrNoData, "Empty archive log file".
func checkData(a *Archive) error {
	vols := a.Volumes()
	if len(vols) == 0 {
		return nil
	}
	if sz, err := a.VolumeSize(vols[0]); err == nil && sz <= int64(a.Label().Size()) {
		return pmapi.ErrNoData
	}
	return nil
}

// expandList splits a comma-separated list of archive names, replacing
// each directory by the archives in it (dir/<base> for every file
// <base>.meta or <base>.meta.<compression suffix>), in the order the
// directory lists them. A trailing comma adds nothing; an empty element
// elsewhere is an empty name.
func expandList(name string) []string {
	var out []string
	for cur := name; cur != ""; {
		elem, rest, found := strings.Cut(cur, ",")
		if f, err := os.Open(elem); err == nil {
			ents, derr := f.ReadDir(-1)
			f.Close()
			if derr == nil {
				for _, e := range ents {
					n, _ := splitCompress(e.Name())
					if base, ok := strings.CutSuffix(n, ".meta"); ok && base != "" {
						out = append(out, filepath.Join(elem, base))
					}
				}
			} else {
				out = append(out, elem)
			}
		} else {
			out = append(out, elem)
		}
		if !found {
			break
		}
		cur = rest
	}
	return out
}

// wholeNamespaces reports whether the namespace of a set of archives has
// every archive's names, as PCP 6.3.8's libpcp gives it (pcpconf.Version).
func wholeNamespaces() bool { return pcpconf.Version() == pcpconf.Version638 }

// merge adds to m what src has that m has not: descriptors, instance
// domain snapshots, labels and help texts, and names. The first archive's
// names all go in (first); a later archive's name goes in only when the
// node above it is already in the namespace: PCP 6.0.3 does add the
// nodes such a name needs, but cannot find them (nor anything below them)
// afterwards, so only leaves under the first archive's nodes are seen.
// PCP 6.3.8 finds them: every name goes in (wholeNamespaces).
//
// A descriptor that differs from the one already known for its PMID is
// refused as libpcp refuses it: pmapi.ErrLogChangeType, ErrLogChangeSem,
// ErrLogChangeInDom or ErrLogChangeUnits, checked in that order.
func (m *Meta) merge(src *Meta, first bool) error {
	for _, d := range src.Descs {
		i, ok := m.descIndex[d.PMID]
		if !ok {
			m.descIndex[d.PMID] = len(m.Descs)
			m.Descs = append(m.Descs, d)
			continue
		}
		switch old := m.Descs[i]; {
		case old.Type != d.Type:
			return pmapi.ErrLogChangeType
		case old.Sem != d.Sem:
			return pmapi.ErrLogChangeSem
		case old.InDom != d.InDom:
			return pmapi.ErrLogChangeInDom
		case !old.Units.Equal(d.Units):
			return pmapi.ErrLogChangeUnits
		}
	}
	for _, n := range src.AllNames {
		if _, ok := m.byName[n]; ok {
			continue
		}
		if !first && !wholeNamespaces() {
			if k := strings.LastIndexByte(n, '.'); k >= 0 {
				parent := n[:k]
				if _, ok := m.nodeSeq[parent]; !ok {
					continue
				}
				if _, leaf := m.byName[parent]; leaf {
					continue
				}
			}
		}
		p := src.byName[n]
		m.byName[n] = p
		m.addNodes(n)
		m.names[p] = append(m.names[p], n)
		delete(m.namesSorted, p)
		m.AllNames = append(m.AllNames, n)
	}
	m.InDomRecords = append(m.InDomRecords, src.InDomRecords...)
	for _, ind := range src.InDomOrder {
		h, seen := m.indoms[ind]
		if !seen {
			m.InDomOrder = append(m.InDomOrder, ind)
		}
		for _, snap := range src.indoms[ind] {
			pos := sort.Search(len(h), func(i int) bool { return snap.Stamp.Before(h[i].Stamp) })
			h = insertState(h, pos, snap)
		}
		m.indoms[ind] = h
		m.states[ind] = append(m.states[ind], src.states[ind]...)
	}
	// libpcp checks for repeats again over all the label records loaded
	// so far: the kept ones of the earlier archives, all of this one's.
	m.rawLabels = append(m.rawLabels, src.rawLabels...)
	m.Labels = dropRepeatedLabels(append(m.Labels, src.rawLabels...))
	m.Texts = append(m.Texts, src.Texts...)
	m.Size += src.Size
	return nil
}

// Close closes every archive of the set.
func (s *Set) Close() error {
	for _, a := range s.archives {
		a.Close()
	}
	return nil
}

// Len is the number of archives in the set.
func (s *Set) Len() int { return len(s.archives) }

// Archive returns archive i of the set, in start order.
func (s *Set) Archive(i int) *Archive { return s.archives[i] }

// Name returns the name archive i was opened by.
func (s *Set) Name(i int) string { return s.names[i] }

// Label is the label of the first archive, as pmGetArchiveLabel gives it
// for a multi-archive context.
func (s *Set) Label() *Label { return s.archives[0].Label() }

// Meta is the metadata accumulated over every archive of the set.
func (s *Set) Meta() *Meta { return s.meta }

// End is the end of the last archive (Archive.End), as pmGetArchiveEnd
// reports it for a multi-archive context.
func (s *Set) End() (pmapi.Timestamp, error) {
	return s.archives[len(s.archives)-1].End()
}

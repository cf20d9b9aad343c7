package archive

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
//   - Reading forwards (SetCursor) goes through the archives in time
//     order and returns a virtual <mark> between two archives, stamped
//     1 ms after the end of the earlier one. SetCursor keeps libpcp's
//     reader state and positions as libpcp does, so that windows in
//     damaged or overlapping archives give the real tools' results.
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
			d := a.Label().Start.Sub(s.archives[i].Label().Start)
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

// merge adds to m what src has that m has not: descriptors, instance
// domain snapshots, labels and help texts, and names. The first archive's
// names all go in (first); a later archive's name goes in only when the
// node above it is already in the namespace: PCP 6.0.3 does add the
// nodes such a name needs, but cannot find them (nor anything below them)
// afterwards, so only leaves under the first archive's nodes are seen.
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
		if !first {
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

// NewCursor returns a cursor at the start of the first archive, as a new
// archive context is: the origin is the first archive's start.
func (s *Set) NewCursor() *SetCursor {
	c := &SetCursor{s: s}
	c.changeArchive(0)
	c.origin = s.archives[0].Label().Start
	return c
}

// Directions of reading, for the virtual marks.
const (
	dirNone = iota
	dirForw
	dirBack
)

// SetCursor reads the records of a Set forwards as libpcp's
// pmFetchArchive does after pmSetMode(PM_MODE_FORW): one archive after
// the other, with a virtual <mark> between two archives, stamped 1 ms
// after the end of the earlier one. It keeps libpcp's reader state (the
// current archive and position, the origin, whether reads are serial,
// whether the mark at a boundary was given) and moves it as libpcp does,
// quirks included, so that positioning in damaged or overlapping
// archives gives the real tools' results. Like Cursor, the records it
// returns stay valid until the next call.
type SetCursor struct {
	s        *Set
	ai       int     // current archive
	cur      *Cursor // in archive ai
	origin   pmapi.Timestamp
	serial   bool // reads follow on; otherwise the next Next positions first
	markDone int  // the virtual mark at this boundary was given, reading this way
	mark     Record
}

// ArchiveIndex is the archive the cursor is in.
func (c *SetCursor) ArchiveIndex() int { return c.ai }

// changeArchive makes archive i current, positioned at its start; the
// mark of a boundary is due again.
func (c *SetCursor) changeArchive(i int) {
	c.ai = i
	c.cur = c.s.archives[i].NewCursor()
	c.markDone = dirNone
}

// SeekTime sets the origin to t, as pmSetMode(PM_MODE_FORW) does: the
// next Next returns the first record (virtual marks included) at or after
// t, reading from where the temporal index points (see setTime), and
// every later Next a record no earlier than the one before.
func (c *SetCursor) SeekTime(t pmapi.Timestamp) error {
	c.origin = t
	c.serial = false
	c.setTime()
	return nil
}

// ForgetOrigin models what pmGetArchiveLabel does to a multi-archive
// context that is not in its first archive: libpcp switches to the first
// archive to read its label and back again, which sets the origin to the
// start of the current archive (the position is restored). The records
// between that start and the origin of SeekTime are then returned too,
// and where SeekTime left the positioning to the first read, that read
// positions for the new origin. In the first archive it changes nothing.
func (c *SetCursor) ForgetOrigin() {
	if c.ai == 0 {
		return
	}
	c.origin = c.s.archives[c.ai].Label().Start
}

// Next returns the next record at or after the origin, or io.EOF after
// the last record of the last archive. Moving on from an archive that
// ends after the next one starts gives pmapi.ErrLogOverlap (and leaves
// the cursor at the start of the next one). Damage is reported as
// Cursor.Next reports it.
func (c *SetCursor) Next() (*Record, error) {
	if !c.serial {
		// Position for the origin, then back up past it.
		c.setTime()
		for {
			r, err := c.readBack()
			if err != nil || r.Stamp.Compare(c.origin) <= 0 {
				break
			}
		}
		c.serial = true
	}
	for {
		r, err := c.readForw()
		if err != nil {
			return nil, err
		}
		if r.Stamp.Before(c.origin) {
			continue
		}
		c.origin = r.Stamp
		return r, nil
	}
}

// readForw reads the next record forwards, across volumes and archives;
// at the end of an archive it returns the virtual mark once, then moves
// to the start of the next archive.
func (c *SetCursor) readForw() (*Record, error) {
	for {
		r, err := c.cur.Next()
		if errors.Is(err, io.EOF) {
			if c.ai+1 >= len(c.s.archives) {
				return nil, io.EOF
			}
			end, eerr := c.s.archives[c.ai].End()
			if c.markDone == dirNone {
				if eerr != nil {
					return nil, eerr
				}
				c.markDone = dirForw
				c.mark = Record{Vol: -1, Offset: -1, Version: c.s.archives[c.ai].Version(), Stamp: end.Add(1e6)}
				return &c.mark, nil
			}
			c.changeArchive(c.ai + 1)
			if eerr == nil && c.s.archives[c.ai].Label().Start.Before(end) {
				return nil, pmapi.ErrLogOverlap
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		c.markDone = dirNone
		return r, nil
	}
}

// readBack reads the record before the position, across volumes and
// archives; at the start of an archive it returns the virtual mark (1 ms
// before the start) once, then moves to the end of the archive before.
func (c *SetCursor) readBack() (*Record, error) {
	for {
		vol, off := c.cur.Position()
		r, err := c.cur.Prev()
		if errors.Is(err, io.EOF) {
			if c.ai == 0 {
				return nil, io.EOF
			}
			start := c.s.archives[c.ai].Label().Start
			if c.markDone == dirNone {
				c.markDone = dirBack
				c.mark = Record{Vol: -1, Offset: -1, Version: c.s.archives[c.ai].Version(), Stamp: start.Add(-1e6)}
				return &c.mark, nil
			}
			c.changeArchive(c.ai - 1)
			c.cur.SeekEnd()
			end, eerr := c.s.archives[c.ai].End()
			if eerr != nil {
				return nil, eerr
			}
			if start.Before(end) {
				return nil, pmapi.ErrLogOverlap
			}
			continue
		}
		if err != nil {
			c.cur.SetPosition(vol, off)
			return nil, err
		}
		c.markDone = dirNone
		return r, nil
	}
}

// setTime positions the cursor for the origin as libpcp's __pmLogSetTime
// does for reading forwards. It starts in the archive before the first
// one that starts at or after the origin (the first archive if that is
// the first, the last if there is none). There the temporal index gives
// the position: the entry at the origin; else, of the entries either
// side of it, the one after it when it is nearer (reads are then not
// serial: the next Next backs up past the origin first), or the one
// before it, then one record back (index entries mark the end of a
// record); before the first entry, the first; after the last, the last.
// An entry beyond the end of the last volume (a truncated archive) is
// never used, and ends the search; entries in missing volumes are passed
// over. Without an index, the start of the archive (and reads stay as
// they were).
func (c *SetCursor) setTime() {
	t := c.origin
	i := 0
	for ; i < len(c.s.archives); i++ {
		if c.s.archives[i].Label().Start.Sub(t) >= 0 {
			break
		}
	}
	if i > 0 {
		i--
	}
	c.changeArchive(i)
	a := c.s.archives[i]
	idx := a.index
	vols := a.files.volumes()
	if len(idx) == 0 || len(vols) == 0 {
		return
	}
	minVol, maxVol := vols[0], vols[len(vols)-1]
	maxSize, err := a.VolumeSize(maxVol)
	if err != nil {
		maxSize = 0
	}
	j, toobig, match := -1, false, false
	k := 0
	for ; k < len(idx); k++ {
		e := idx[k]
		if int(e.Vol) < minVol {
			continue
		}
		if int(e.Vol) == maxVol && e.DataOff > maxSize {
			j, toobig = k, true
			break
		}
		if d := e.Stamp.Sub(t); d > 0 {
			j = k
			break
		} else if d == 0 {
			j, match = k, true
			break
		}
	}
	if k == len(idx) {
		j = len(idx)
	}
	c.serial = true
	at := func(k int, forw bool) {
		if k = a.volSkip(k, forw); k >= 0 {
			if c.cur.SetPosition(int(idx[k].Vol), idx[k].DataOff) == nil {
				return
			}
		}
		c.cur.SeekStart()
	}
	switch {
	case match:
		at(j, true)
	case j < 1:
		at(0, true)
	case j == len(idx):
		at(len(idx)-1, false)
	default:
		hi := idx[j].Stamp.Sub(t)
		lo := t.Sub(idx[j-1].Stamp)
		if hi <= lo && !toobig {
			at(j, true)
			c.serial = false
			return
		}
		at(j-1, true)
		c.readBack() // back up one record; a failure leaves the position
	}
}

// volSkip returns the first index entry from k on (forwards) or back
// (not forw) whose volume exists, or -1.
func (a *Archive) volSkip(k int, forw bool) int {
	idx := a.index
	for k >= 0 && k < len(idx) {
		if _, ok := a.files.vols[int(idx[k].Vol)]; ok {
			return k
		}
		v := idx[k].Vol
		for k >= 0 && k < len(idx) && idx[k].Vol == v {
			if forw {
				k++
			} else {
				k--
			}
		}
	}
	return -1
}

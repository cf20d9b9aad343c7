package archive

import (
	"cmp"
	"encoding/binary"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Metadata record types in the .meta file.
const (
	MetaDesc       = 1 // TYPE_DESC: a descriptor and its names
	MetaInDomV2    = 2 // TYPE_INDOM_V2: a full instance domain, µs stamp
	MetaLabelV2    = 3 // TYPE_LABEL_V2: label sets, µs stamp
	MetaText       = 4 // TYPE_TEXT: help text
	MetaInDom      = 5 // TYPE_INDOM: a full instance domain, ns stamp (v3)
	MetaInDomDelta = 6 // TYPE_INDOM_DELTA: changes to an instance domain (v3)
	MetaLabel      = 7 // TYPE_LABEL: label sets, ns stamp (v3)
)

// Help text types (the bits of HelpText.Type).
const (
	TextOneLine = 1
	TextHelp    = 2
	TextPMID    = 4
	TextInDom   = 8
)

// Label set types (LabelRecord.Type).
const (
	LabelContext   = 1 << 0
	LabelDomain    = 1 << 1
	LabelInDom     = 1 << 2
	LabelCluster   = 1 << 3
	LabelItem      = 1 << 4
	LabelInstances = 1 << 5
)

// InDomRecord is one instance domain record as it is on disk. For a delta
// record, Names[k] is "" and Deleted[k] true for an instance removed.
type InDomRecord struct {
	Offset  int64 // offset of the record in the .meta file
	Type    int   // MetaInDomV2, MetaInDom or MetaInDomDelta
	Stamp   pmapi.Timestamp
	InDom   pmapi.InDom
	Insts   []int32
	Names   []string
	Deleted []bool // only for MetaInDomDelta
}

// InDomSnapshot is the full membership of an instance domain from Stamp on
// (deltas applied).
type InDomSnapshot struct {
	Stamp pmapi.Timestamp
	Insts []int32
	Names []string

	index map[int32]int // built on first Lookup of a large snapshot
}

// Lookup returns the name of inst, and whether it is in the snapshot.
func (s *InDomSnapshot) Lookup(inst int32) (string, bool) {
	if len(s.Insts) <= 16 {
		for i, x := range s.Insts {
			if x == inst {
				return s.Names[i], true
			}
		}
		return "", false
	}
	if s.index == nil {
		s.index = make(map[int32]int, len(s.Insts))
		for i := len(s.Insts) - 1; i >= 0; i-- {
			s.index[s.Insts[i]] = i
		}
	}
	if i, ok := s.index[inst]; ok {
		return s.Names[i], true
	}
	return "", false
}

// LabelEntry locates one label's name and value inside a label set's JSON.
type LabelEntry struct {
	NameOff, NameLen   int
	Flags              uint8
	ValueOff, ValueLen int
}

// LabelSet is the labels of one instance (or PM_IN_NULL) as JSON text.
type LabelSet struct {
	Inst   int32
	JSON   string
	Labels []LabelEntry
	// Err, when negative, is what the record holds in place of the
	// number of labels: the error code the PMDA gave for this set (as
	// pmlogger wrote it), with no labels. libpcp keeps it and reads on;
	// pmlogextract copies it as it is.
	Err int32
}

// LabelRecord is one label record from the .meta file.
type LabelRecord struct {
	Stamp pmapi.Timestamp
	Type  uint32 // LabelContext, LabelDomain, ...
	Ident uint32 // PM_ID_NULL, a domain, an indom, a PMID (by Type)
	Sets  []LabelSet
}

// HelpText is one help text record.
type HelpText struct {
	Type  uint32 // TextOneLine or TextHelp, with TextPMID or TextInDom
	Ident uint32 // a PMID or an InDom
	Text  string
}

// Meta is an archive's metadata: everything in its .meta file, indexed.
// It is loaded whole when the archive is opened, as libpcp does; its size
// depends on the number of metrics and instance domain changes, not on
// the length of the recording.
type Meta struct {
	Descs     []pmapi.Desc // in file order, one per PMID (first seen)
	descIndex map[pmapi.PMID]int

	names       map[pmapi.PMID][]string
	namesSorted map[pmapi.PMID]bool
	nodeSeq     map[string]int // namespace node -> creation order
	byName      map[string]pmapi.PMID
	AllNames    []string // every name, in file order

	InDomRecords []InDomRecord                   // every indom record, in file order
	indoms       map[pmapi.InDom][]InDomSnapshot // libpcp's history of each, in time order
	states       map[pmapi.InDom][]InDomSnapshot // the state each record leaves, in file order
	InDomOrder   []pmapi.InDom                   // instance domains in order of first record

	Size int64 // bytes in the (decompressed) .meta file

	Labels    []LabelRecord // in file order, repeated label sets dropped as libpcp drops them
	rawLabels []LabelRecord // every label record, as written
	Texts     []HelpText    // in file order
}

func newMeta() *Meta {
	return &Meta{
		descIndex:   map[pmapi.PMID]int{},
		names:       map[pmapi.PMID][]string{},
		namesSorted: map[pmapi.PMID]bool{},
		nodeSeq:     map[string]int{},
		byName:      map[string]pmapi.PMID{},
		indoms:      map[pmapi.InDom][]InDomSnapshot{},
		states:      map[pmapi.InDom][]InDomSnapshot{},
	}
}

// Desc returns the descriptor of pmid.
func (m *Meta) Desc(pmid pmapi.PMID) (*pmapi.Desc, bool) {
	i, ok := m.descIndex[pmid]
	if !ok {
		return nil, false
	}
	return &m.Descs[i], true
}

// Names returns every name of pmid, in the order libpcp's pmNameAll gives
// them: a depth-first walk of the namespace, each node's children in the
// order they were first seen in the .meta file.
func (m *Meta) Names(pmid pmapi.PMID) []string {
	n := m.names[pmid]
	if len(n) > 1 && !m.namesSorted[pmid] {
		sort.SliceStable(n, func(i, j int) bool { return m.pmnsLess(n[i], n[j]) })
		m.namesSorted[pmid] = true
	}
	return n
}

// pmnsLess compares two names by the creation order of their first
// differing namespace node.
func (m *Meta) pmnsLess(a, b string) bool {
	i := 0
	for {
		ea, eb := compEnd(a, i), compEnd(b, i)
		if a[:ea] != b[:eb] {
			return m.nodeSeq[a[:ea]] < m.nodeSeq[b[:eb]]
		}
		if ea == len(a) || eb == len(b) {
			return ea == len(a) && eb != len(b)
		}
		i = ea + 1
	}
}

// compEnd is the end of the name component of s that starts at i.
func compEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '.'); j >= 0 {
		return i + j
	}
	return len(s)
}

// addNode numbers every namespace node of name not seen before.
func (m *Meta) addNodes(name string) {
	for i := 0; ; {
		e := compEnd(name, i)
		if _, ok := m.nodeSeq[name[:e]]; !ok {
			m.nodeSeq[name[:e]] = len(m.nodeSeq)
		}
		if e == len(name) {
			return
		}
		i = e + 1
	}
}

// Lookup returns the PMID of a metric name.
func (m *Meta) Lookup(name string) (pmapi.PMID, bool) {
	p, ok := m.byName[name]
	return p, ok
}

// RawLabels are the label records as written, in file order, before the
// check for repeated label sets that gives Labels (libpcp 6.0.3's; PCP
// 6.3.8's pmdumplog -e lists every record). The slice is the Meta's own.
func (m *Meta) RawLabels() []LabelRecord { return m.rawLabels }

// InDomHistory returns the snapshots of indom as libpcp keeps them: in
// time order (records stamped alike in file order), a repeat of a
// snapshot at its time left out (see insertState).
func (m *Meta) InDomHistory(indom pmapi.InDom) []InDomSnapshot { return m.indoms[indom] }

// InDomAt returns the snapshot of indom in force at t: the latest one
// whose stamp is at or before t (or the first one if t is earlier than
// all of them, as libpcp does).
func (m *Meta) InDomAt(indom pmapi.InDom, t pmapi.Timestamp) (*InDomSnapshot, bool) {
	h := m.indoms[indom]
	if len(h) == 0 {
		return nil, false
	}
	i := sort.Search(len(h), func(i int) bool { return t.Before(h[i].Stamp) })
	if i == 0 {
		return &h[0], true
	}
	return &h[i-1], true
}

// metaDecoder decodes the records of a .meta stream.
type metaDecoder struct {
	file    string
	version int
	meta    *Meta
}

// loadMeta reads the metadata records from r, which is positioned after
// the label (at byte offset start).
func loadMeta(file string, r io.Reader, start int64, version int) (*Meta, error) {
	d := &metaDecoder{file: file, version: version, meta: newMeta()}
	var hdr [8]byte
	buf := make([]byte, 0, 4096)
	off := start
	for recno := 2; ; recno++ {
		n, err := io.ReadFull(r, hdr[:])
		if recno == 2 && err == io.EOF {
			return nil, formatErr(file, off, recno, pmapi.ErrNoData, "no metadata records after the label")
		}
		if recno == 2 && err == io.ErrUnexpectedEOF {
			return nil, formatErr(file, off, recno, pmapi.ErrLogRec, "unexpected EOF in the first metadata record's header, got %d bytes", n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			// libpcp's __pmLogLoadMeta takes a short header read (the
			// file ends within a record's first 8 bytes) for the end
			// of the metadata, as it takes the end of the file (but
			// for the first record: nothing after the label is
			// PM_ERR_NODATA, part of a header PM_ERR_LOGREC); the
			// file's size counts those bytes.
			d.meta.Size = off + int64(n)
			d.meta.Labels = dropRepeatedLabels(d.meta.rawLabels)
			return d.meta, nil
		}
		if err != nil {
			return nil, formatErr(file, off, recno, pmapi.ErrLogRec, "cannot read metadata record header: %v", err)
		}
		rlen := int64(binary.BigEndian.Uint32(hdr[:]))
		if rlen < 12 {
			return nil, formatErr(file, off, recno, pmapi.ErrLogRec, "metadata record length %d is too small", rlen)
		}
		// Read in bounded steps so that a corrupt length cannot make us
		// allocate more than the file holds.
		buf = append(buf[:0], hdr[:]...)
		for int64(len(buf)) < rlen {
			step := rlen - int64(len(buf))
			if step > 1<<20 {
				step = 1 << 20
			}
			l := len(buf)
			buf = append(buf, make([]byte, step)...)
			m, err := io.ReadFull(r, buf[l:])
			if err != nil {
				return nil, formatErr(file, off, recno, pmapi.ErrLogRec, "unexpected EOF in metadata record body, wanted %d, got %d bytes", rlen, int64(l+m))
			}
		}
		if t := int64(binary.BigEndian.Uint32(buf[rlen-4:])); t != rlen {
			return nil, formatErr(file, off, recno, pmapi.ErrLogRec, "metadata record trailer %d does not match header %d", t, rlen)
		}
		if err := d.record(buf[:rlen], off, recno); err != nil {
			return nil, err
		}
		off += rlen
	}
}

// reader over one record's body with bounds checks.
type body struct {
	b   []byte
	p   int
	bad bool
}

func (b *body) u32() uint32 {
	if b.p+4 > len(b.b) {
		b.bad = true
		return 0
	}
	v := binary.BigEndian.Uint32(b.b[b.p:])
	b.p += 4
	return v
}

func (b *body) bytes(n int) []byte {
	if n < 0 || b.p+n > len(b.b) {
		b.bad = true
		return nil
	}
	v := b.b[b.p : b.p+n]
	b.p += n
	return v
}

func (b *body) stamp(version int) pmapi.Timestamp {
	if version == 3 {
		s := b.bytes(12)
		if s == nil {
			return pmapi.Timestamp{}
		}
		return readStamp3(s)
	}
	s := b.bytes(8)
	if s == nil {
		return pmapi.Timestamp{}
	}
	return readStamp2(s)
}

// count reads a count of items of at least min bytes each, rejecting
// counts the remaining bytes cannot hold.
func (b *body) count(min int) int {
	n := int32(b.u32())
	if n < 0 || int64(n)*int64(min) > int64(len(b.b)-b.p) {
		b.bad = true
		return 0
	}
	return int(n)
}

func (d *metaDecoder) record(rec []byte, off int64, recno int) error {
	typ := binary.BigEndian.Uint32(rec[4:])
	b := &body{b: rec[8 : len(rec)-4]}
	m := d.meta
	bad := func(what string) error {
		return formatErr(d.file, off, recno, pmapi.ErrLogRec, "malformed %s record", what)
	}
	switch typ {
	case MetaDesc:
		desc := pmapi.Desc{
			PMID:  pmapi.PMID(b.u32()),
			Type:  pmapi.Type(int32(b.u32())),
			InDom: pmapi.InDom(b.u32()),
			Sem:   pmapi.Sem(int32(b.u32())),
			Units: pmapi.UnitsFromUint32(b.u32()),
		}
		nn := b.count(4)
		names := make([]string, 0, nn)
		for i := 0; i < nn && !b.bad; i++ {
			// libpcp reads a name as a C string: it ends at its first
			// NUL (QA vldb-disks pads disk.dev.total with five).
			l := b.count(1)
			names = append(names, cstring(b.bytes(l)))
		}
		// libpcp reads the fields one by one and then the trailer, so a
		// name length that leaves bytes over misreads the trailer.
		if b.bad || b.p != len(b.b) {
			return bad("descriptor")
		}
		if _, ok := m.descIndex[desc.PMID]; !ok {
			m.descIndex[desc.PMID] = len(m.Descs)
			m.Descs = append(m.Descs, desc)
		}
		for _, n := range names {
			if _, ok := m.byName[n]; ok {
				continue
			}
			m.byName[n] = desc.PMID
			m.addNodes(n)
			m.names[desc.PMID] = append(m.names[desc.PMID], n)
			m.AllNames = append(m.AllNames, n)
		}
	case MetaInDomV2, MetaInDom, MetaInDomDelta:
		// libpcp reads a record by its own type, whatever the
		// archive's version (QA badmeta-6 and -7 mix the two).
		ir := InDomRecord{Offset: off, Type: int(typ), Stamp: b.stamp(recordVersion(typ)), InDom: pmapi.InDom(b.u32())}
		n := b.count(8)
		if b.bad {
			return bad("instance domain")
		}
		ir.Insts = make([]int32, n)
		for i := range ir.Insts {
			if ir.Insts[i] = int32(b.u32()); ir.Insts[i] < 0 {
				return bad("instance domain (negative instance identifier)")
			}
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(b.u32())
		}
		// The names are substrings of one copy of the string table, each
		// ending at the first NUL at or after its offset (found by binary
		// search), so that offsets into a table without NULs cost neither
		// a copy nor a scan per instance.
		strs := string(b.b[b.p:])
		var nuls []int
		for p := 0; ; p++ {
			k := strings.IndexByte(strs[p:], 0)
			if k < 0 {
				break
			}
			p += k
			nuls = append(nuls, p)
		}
		ir.Names = make([]string, n)
		if typ == MetaInDomDelta {
			ir.Deleted = make([]bool, n)
		}
		for i, x := range idx {
			if x < 0 {
				if typ != MetaInDomDelta || x != -1 {
					return bad("instance domain (negative name offset)")
				}
				ir.Deleted[i] = true
				continue
			}
			if int(x) > len(strs) {
				return bad("instance domain (name offset past the record)")
			}
			if int(x) == len(strs) {
				// libpcp lets an offset point just past the names (the
				// name is whatever follows in its memory): empty here
				continue
			}
			e := len(strs)
			if k := sort.SearchInts(nuls, int(x)); k < len(nuls) {
				e = nuls[k]
			}
			ir.Names[i] = strs[x:e]
		}
		if b.bad {
			return bad("instance domain")
		}
		m.addInDom(ir)
	case MetaLabelV2, MetaLabel:
		lr := decodeLabelRecord(b, recordVersion(typ))
		if b.bad {
			return bad("label")
		}
		m.rawLabels = append(m.rawLabels, lr)
	case MetaText:
		t := HelpText{Type: b.u32(), Ident: b.u32()}
		if b.bad {
			return bad("help text")
		}
		t.Text = cstring(b.b[b.p:])
		m.Texts = append(m.Texts, t)
	default:
		return formatErr(d.file, off, recno, pmapi.ErrRecType, "unknown metadata record type %d", typ)
	}
	return nil
}

// labelChainKey names a chain of label records: their type and ident.
type labelChainKey struct{ typ, ident uint32 }

// recordVersion is the format version whose timestamps a metadata record
// of type typ holds: 2 for TYPE_INDOM_V2 and TYPE_LABEL_V2, otherwise 3.
func recordVersion(typ uint32) int {
	if typ == MetaInDomV2 || typ == MetaLabelV2 {
		return 2
	}
	return 3
}

// dropRepeatedLabels applies libpcp's check for repeated label sets
// (__pmCheckDupLabels, run once an archive's metadata are loaded) to
// recs, in file order, and returns the records it keeps, in that order.
// libpcp chains the records of each type and ident newest first (those
// stamped alike in file order) and, walking each chain once, drops from
// a record the sets that are the same (sameLabelSet) as one of the next
// record's, then the record itself if no set is left. A set so drops
// when the record after it in the chain repeats it, even at the same
// time (QA nvidiagpu-0 holds two records of InDom 3.9's instance labels
// at 14:02:23.497239535: the first keeps only the two sets the second
// lacks). The kept records' Sets are new slices; recs is not changed.
func dropRepeatedLabels(recs []LabelRecord) []LabelRecord {
	chains := map[labelChainKey][]int{}
	var keys []labelChainKey
	for i := range recs {
		k := labelChainKey{recs[i].Type, recs[i].Ident}
		if _, ok := chains[k]; !ok {
			keys = append(keys, k)
		}
		chains[k] = append(chains[k], i)
	}
	sets := make([][]LabelSet, len(recs))
	for i := range recs {
		sets[i] = recs[i].Sets
	}
	dropped := make([]bool, len(recs))
	for _, k := range keys {
		c := chains[k]
		sort.SliceStable(c, func(x, y int) bool { return recs[c[y]].Stamp.Before(recs[c[x]].Stamp) })
		for n := 0; n+1 < len(c); n++ {
			cur, next := c[n], c[n+1]
			var kept []LabelSet
			for _, ls := range sets[cur] {
				repeated := false
				for j := range sets[next] {
					if sameLabelSet(&ls, &sets[next][j]) {
						repeated = true
						break
					}
				}
				if !repeated {
					kept = append(kept, ls)
				}
			}
			sets[cur] = kept
			dropped[cur] = len(kept) == 0
		}
	}
	out := make([]LabelRecord, 0, len(recs))
	for i, r := range recs {
		if !dropped[i] {
			r.Sets = sets[i]
			out = append(out, r)
		}
	}
	return out
}

// sameLabelSet is libpcp's samelabelset: the same instance, the same
// number of labels (or error code), and each label of a found in b by
// name with the same value. The JSON texts themselves are not compared.
func sameLabelSet(a, b *LabelSet) bool {
	if a.Inst != b.Inst || a.count() != b.count() {
		return false
	}
	for _, la := range a.Labels {
		found := false
		for _, lb := range b.Labels {
			na, okA := jsonField(a.JSON, la.NameOff, la.NameLen)
			nb, okB := jsonField(b.JSON, lb.NameOff, lb.NameLen)
			if !okA || !okB || na != nb {
				continue
			}
			va, okA := jsonField(a.JSON, la.ValueOff, la.ValueLen)
			vb, okB := jsonField(b.JSON, lb.ValueOff, lb.ValueLen)
			if !okA || !okB || va != vb {
				return false
			}
			found = true
			break
		}
		if !found {
			return false
		}
	}
	return true
}

// count is the set's label count as written: Err, or the number of
// labels.
func (s *LabelSet) count() int {
	if s.Err < 0 {
		return int(s.Err)
	}
	return len(s.Labels)
}

// jsonField is the n bytes of a label set's JSON at off, if they are
// there.
func jsonField(json string, off, n int) (string, bool) {
	if off < 0 || n < 0 || off+n > len(json) {
		return "", false
	}
	return json[off : off+n], true
}

// addInDom records an indom record, the state it leaves (deltas applied
// to the state before it in time) and adds that state to the indom's
// history as libpcp's addindom does.
func (m *Meta) addInDom(ir InDomRecord) {
	m.InDomRecords = append(m.InDomRecords, ir)
	h, seen := m.indoms[ir.InDom]
	if !seen {
		m.InDomOrder = append(m.InDomOrder, ir.InDom)
	}
	// pos: after every state stamped at or before the record.
	pos := sort.Search(len(h), func(i int) bool { return ir.Stamp.Before(h[i].Stamp) })
	var snap InDomSnapshot
	if ir.Type == MetaInDomDelta && pos > 0 && len(ir.Insts) == 0 {
		// An empty delta changes nothing: share the previous lists
		// rather than copy them (a damaged .meta may hold millions).
		prev := h[pos-1]
		snap.Insts, snap.Names = prev.Insts, prev.Names
	} else if ir.Type == MetaInDomDelta && pos > 0 {
		prev := h[pos-1]
		del := map[int32]bool{}
		for i, x := range ir.Insts {
			if ir.Deleted[i] {
				del[x] = true
			}
		}
		for i, x := range prev.Insts {
			if !del[x] {
				snap.Insts = append(snap.Insts, x)
				snap.Names = append(snap.Names, prev.Names[i])
			}
		}
		for i, x := range ir.Insts {
			if !ir.Deleted[i] {
				snap.Insts = append(snap.Insts, x)
				snap.Names = append(snap.Names, ir.Names[i])
			}
		}
	} else {
		snap.Insts, snap.Names = ir.Insts, ir.Names
	}
	snap.Stamp = ir.Stamp
	m.states[ir.InDom] = append(m.states[ir.InDom], snap)
	m.indoms[ir.InDom] = insertState(h, pos, snap)
}

// insertState puts snap at pos in h, a history in time order, where pos
// ends the states stamped at or before snap, as libpcp's addindom does:
// a state that is the same as one already at its time (sameState) is not
// added again; that one moves to the end of its time slot instead, which
// is where the next search for that time finds it. (QA 540117-short,
// bigace_v2, pcp-pidstat and pyapi repeat instance domain records.)
func insertState(h []InDomSnapshot, pos int, snap InDomSnapshot) []InDomSnapshot {
	for i := pos - 1; i >= 0 && h[i].Stamp == snap.Stamp; i-- {
		if sameState(&h[i], &snap) {
			dup := h[i]
			copy(h[i:pos-1], h[i+1:pos])
			h[pos-1] = dup
			return h
		}
	}
	h = append(h, InDomSnapshot{})
	copy(h[pos+1:], h[pos:])
	h[pos] = snap
	return h
}

// sameState reports whether two states hold the same instances with the
// same names, in any order (libpcp's sameindom; an instance is assumed to
// appear once). Their stamps do not count.
func sameState(a, b *InDomSnapshot) bool {
	if len(a.Insts) != len(b.Insts) {
		return false
	}
	for i, x := range a.Insts {
		if i < len(b.Insts) && b.Insts[i] == x {
			if a.Names[i] != b.Names[i] {
				return false
			}
			continue
		}
		name, ok := b.Lookup(x)
		if !ok || name != a.Names[i] {
			return false
		}
	}
	return true
}

// InDomRecordState returns the state the n-th record (from 0, in file
// order) of indom leaves: its instances, deltas applied. Unlike the
// history, it has one state per record, repeats included.
func (m *Meta) InDomRecordState(indom pmapi.InDom, n int) (*InDomSnapshot, bool) {
	st := m.states[indom]
	if n < 0 || n >= len(st) {
		return nil, false
	}
	return &st[n], true
}

// Traverse returns the leaf names at or below name in the order libpcp's
// pmTraversePMNS visits them on an archive's namespace: depth first, the
// children of each node newest first (each new child goes to the front of
// its parent's list). The empty name means the whole namespace.
func (m *Meta) Traverse(name string) []string {
	// An empty metric name (only in a damaged .meta) must not hide the
	// whole namespace.
	if _, ok := m.byName[name]; ok && name != "" {
		return []string{name}
	}
	prefix := name + "."
	if name == "" {
		prefix = ""
	}
	// Each name is sorted by its key: the creation numbers of its nodes,
	// from the top (looked up once per name, not at every comparison).
	// At the first node that differs, the newer node comes first; a leaf
	// comes before the names below it.
	type keyed struct {
		name string
		key  []int32
	}
	var ks []keyed
	var seqs []int32
	for _, n := range m.AllNames {
		if !strings.HasPrefix(n, prefix) {
			continue
		}
		start := len(seqs)
		for k := 0; ; {
			e := compEnd(n, k)
			seqs = append(seqs, int32(m.nodeSeq[n[:e]]))
			if e == len(n) {
				break
			}
			k = e + 1
		}
		// (a key keeps the array it was appended to: later appends
		// that move seqs leave it as it is)
		ks = append(ks, keyed{n, seqs[start:len(seqs):len(seqs)]})
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		for k := 0; k < len(a.key) && k < len(b.key); k++ {
			if a.key[k] != b.key[k] {
				return cmp.Compare(b.key[k], a.key[k])
			}
		}
		return cmp.Compare(len(a.key), len(b.key))
	})
	var out []string
	if len(ks) > 0 {
		out = make([]string, len(ks))
		for i := range ks {
			out[i] = ks[i].name
		}
	}
	return out
}

// decodeLabelRecord decodes the body of a label record (after the type
// word) as written, without the reader's de-duplication; b.bad reports a
// short or inconsistent body.
func decodeLabelRecord(b *body, version int) LabelRecord {
	lr := LabelRecord{Stamp: b.stamp(version), Type: b.u32(), Ident: b.u32()}
	ns := b.count(12)
	for i := 0; i < ns && !b.bad; i++ {
		s := LabelSet{Inst: int32(b.u32())}
		jl := b.count(1)
		s.JSON = string(b.bytes(jl))
		// A negative count is an error code (s.Err), not damage.
		nl := int32(b.u32())
		if nl < 0 {
			s.Err = nl
		} else if int64(nl)*8 > int64(len(b.b)-b.p) {
			b.bad = true
		}
		for k := 0; k < int(nl) && !b.bad; k++ {
			w := b.bytes(8)
			if w == nil {
				break
			}
			s.Labels = append(s.Labels, LabelEntry{
				NameOff: int(binary.BigEndian.Uint16(w)), NameLen: int(w[2]), Flags: w[3],
				ValueOff: int(binary.BigEndian.Uint16(w[4:])), ValueLen: int(binary.BigEndian.Uint16(w[6:])),
			})
		}
		lr.Sets = append(lr.Sets, s)
	}
	return lr
}

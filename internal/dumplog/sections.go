package dumplog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

func (d *dumper) labelStamp(b []byte, t pmapi.Timestamp) []byte {
	b = pcptime.AppendCtimeStamp(b, d.z.Civil(t.Sec), int64(t.Nsec), fracDigits(d.ver))
	if d.opt.xflag > 2 {
		b = fmt.Appendf(b, " %d", uint64(t.Sec))
	}
	return b
}

func (d *dumper) dumpLabel() {
	l := d.a.Label()
	b := d.buf
	b = fmt.Appendf(b, "Log Label (Log Format Version %d)\n", l.Version)
	b = fmt.Appendf(b, "Performance metrics from host %s\n", l.Hostname)
	b = append(b, "    commencing "...)
	b = d.labelStamp(b, l.Start)
	b = append(b, '\n')
	if end, err := d.a.End(); err == nil {
		b = append(b, "    ending     "...)
		b = d.labelStamp(b, end)
		b = append(b, '\n')
	} else {
		b = append(b, "    ending     UNKNOWN\n"...)
	}
	if d.opt.verboseLabel {
		if l.TZ != "" {
			b = fmt.Appendf(b, "Archive timezone: %s\n", l.TZ)
		}
		if l.Version == 3 && l.Zoneinfo != "" {
			b = fmt.Appendf(b, "Archive zoneinfo: %s\n", l.Zoneinfo)
		}
		b = fmt.Appendf(b, "PID for pmlogger: %d\n", l.PID)
		if l.Features != 0 {
			b = fmt.Appendf(b, "Archive features: 0x%x\n", l.Features)
		}
	}
	d.buf = b
	d.flushBuf()
}

// typeName is the descriptor type text pmdumplog prints.
func typeName(t pmapi.Type) string {
	switch t {
	case pmapi.Type32:
		return "32-bit int"
	case pmapi.TypeU32:
		return "32-bit unsigned int"
	case pmapi.Type64:
		return "64-bit int"
	case pmapi.TypeU64:
		return "64-bit unsigned int"
	case pmapi.TypeFloat:
		return "float"
	case pmapi.TypeDouble:
		return "double"
	case pmapi.TypeString:
		return "string"
	case pmapi.TypeAggregate:
		return "aggregate"
	case pmapi.TypeAggregateStat:
		return "static aggregate"
	case pmapi.TypeEvent:
		return "event record array"
	case pmapi.TypeHighresEvent:
		return "highres event record array"
	case pmapi.TypeNoSupport:
		return "Not Supported"
	}
	return "???"
}

// names is the "a or b" list of p's names, or the placeholder the real
// tool prints where there are none: "<noname>" in descriptors,
// "<nonames>" in values.
func (d *dumper) names(p pmapi.PMID, none string) string {
	n := d.ns.Names(p)
	if len(n) == 0 {
		return none
	}
	return strings.Join(n, " or ")
}

func appendInDom(b []byte, in pmapi.InDom) []byte {
	return fmt.Appendf(b, "%s 0x%x", in, uint32(in))
}

// appendDesc appends a descriptor as pmPrintDesc does.
func (d *dumper) appendDesc(b []byte, desc *pmapi.Desc) []byte {
	b = fmt.Appendf(b, "    Data Type: %s", typeName(desc.Type))
	if typeName(desc.Type) == "???" {
		// pmPrintDesc adds the number of an unknown type or semantics
		// (QA badmeta-2)
		b = fmt.Appendf(b, " (%d)", int32(desc.Type))
	}
	if desc.Type == pmapi.TypeNoSupport {
		return append(b, '\n')
	}
	b = append(b, "  InDom: "...)
	b = appendInDom(b, desc.InDom)
	b = append(b, '\n')
	b = fmt.Appendf(b, "    Semantics: %s", desc.Sem)
	if desc.Sem.String() == "???" {
		b = fmt.Appendf(b, " (%d)", int32(desc.Sem))
	}
	b = append(b, "  Units: "...)
	u := desc.Units.String()
	if u == "" {
		u = "none"
	}
	b = append(b, u...)
	return append(b, '\n')
}

// listOrder is the order pmdumplog lists the keys of h (PMIDs, instance
// domains) in: that of libpcp's hash table for PCP 6.0.3, ascending for
// PCP 6.3.8 (pcpconf.Version), which sorts them.
func listOrder(h *lhash.Order) []uint32 {
	keys := h.Keys()
	if pcpconf.Version() == pcpconf.Version638 {
		slices.Sort(keys)
	}
	return keys
}

func (d *dumper) dumpDescs() {
	m := d.a.Meta()
	h := lhash.New()
	for _, desc := range m.Descs {
		h.Add(uint32(desc.PMID))
	}
	b := append(d.buf, "\nDescriptions for Metrics in the Log ...\n"...)
	for _, k := range listOrder(h) {
		desc, _ := m.Desc(pmapi.PMID(k))
		b = fmt.Appendf(b, "PMID: %s (%s)\n", desc.PMID, d.names(desc.PMID, "<noname>"))
		b = d.appendDesc(b, desc)
	}
	d.buf = b
	d.flushBuf()
}

func (d *dumper) dumpInDoms() {
	m := d.a.Meta()
	h := lhash.New()
	for _, in := range m.InDomOrder {
		h.Add(uint32(in))
	}
	b := append(d.buf, "\nInstance Domains in the Log ...\n"...)
	for _, k := range listOrder(h) {
		in := pmapi.InDom(k)
		b = fmt.Appendf(b, "InDom: %s\n", in)
		for _, s := range m.InDomHistory(in) {
			b = d.stamp(b, s.Stamp)
			b = fmt.Appendf(b, " %d instances\n", len(s.Insts))
			// libpcp keeps each snapshot sorted by instance number.
			idx := make([]int, len(s.Insts))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(i, j int) bool { return s.Insts[idx[i]] < s.Insts[idx[j]] })
			for _, i := range idx {
				b = fmt.Appendf(b, "   %d or \"%s\"\n", s.Insts[i], s.Names[i])
			}
		}
		d.buf = b
		d.flushBuf()
		b = d.buf
	}
	d.buf = b
	d.flushBuf()
}

func (d *dumper) dumpOnDisk() {
	m := d.a.Meta()
	b := append(d.buf, "\nInstance Domains on-disk ...\n"...)
	for _, r := range m.InDomRecords {
		b = d.stamp(b, r.Stamp)
		if r.Type == archive.MetaInDomDelta {
			b = fmt.Appendf(b, " InDom: %s delta %d instances\n", r.InDom, len(r.Insts))
			for i, x := range r.Insts {
				if r.Deleted[i] {
					b = fmt.Appendf(b, "   del %d\n", x)
				} else {
					b = fmt.Appendf(b, "   add %d or \"%s\"\n", x, r.Names[i])
				}
			}
		} else {
			b = fmt.Appendf(b, " InDom: %s %d instances\n", r.InDom, len(r.Insts))
			for i, x := range r.Insts {
				b = fmt.Appendf(b, "   %d or \"%s\"\n", x, r.Names[i])
			}
		}
		d.buf = b
		d.flushBuf()
		b = d.buf
	}
	d.buf = b
	d.flushBuf()
}

func (d *dumper) dumpHelp() {
	m := d.a.Meta()
	b := append(d.buf, "\nMetric Help Text in the Log ...\n"...)
	// PMIDs first, then InDoms, each in ascending order; each ident
	// shows its one-line text, then its help text.
	for _, kind := range []uint32{archive.TextPMID, archive.TextInDom} {
		var idents []uint32
		texts := map[uint32][2]*archive.HelpText{}
		for i := range m.Texts {
			t := &m.Texts[i]
			if t.Type&kind == 0 {
				continue
			}
			if _, ok := texts[t.Ident]; !ok {
				idents = append(idents, t.Ident)
			}
			e := texts[t.Ident]
			if t.Type&archive.TextOneLine != 0 {
				e[0] = t
			} else {
				e[1] = t
			}
			texts[t.Ident] = e
		}
		sort.Slice(idents, func(i, j int) bool { return idents[i] < idents[j] })
		for _, id := range idents {
			e := texts[id]
			label := "PMID: " + pmapi.PMID(id).String()
			if kind == archive.TextInDom {
				label = "InDom: " + pmapi.InDom(id).String()
			}
			if e[0] != nil {
				b = fmt.Appendf(b, "%s [%s]\n", label, e[0].Text)
			}
			if e[1] != nil {
				b = fmt.Appendf(b, "%s\n%s\n", label, e[1].Text)
			}
		}
	}
	d.buf = b
	d.flushBuf()
}

var labelTypeNames = []struct {
	bit  uint8
	name string
}{
	{archive.LabelContext, "context"},
	{archive.LabelDomain, "domain"},
	{archive.LabelInDom, "indom"},
	{archive.LabelCluster, "cluster"},
	{archive.LabelItem, "pmid"},
	{archive.LabelInstances, "instances"},
	{0x40, "compound"},
	{0x80, "optional"},
}

// labelRank orders label types from the widest scope to the narrowest,
// as pmdumplog prints them: context, domain, cluster, item, indom,
// instances.
func labelRank(t uint32) int {
	switch t {
	case archive.LabelContext:
		return 0
	case archive.LabelDomain:
		return 1
	case archive.LabelCluster:
		return 2
	case archive.LabelItem:
		return 3
	case archive.LabelInDom:
		return 4
	case archive.LabelInstances:
		return 5
	}
	return 6
}

func (d *dumper) dumpLabelSets() {
	m := d.a.Meta()
	b := append(d.buf, "\nMetric Labels in the Log ...\n"...)
	// PCP 6.0.3 lists the label records libpcp keeps (Labels), 6.3.8
	// every one (RawLabels).
	labels := m.Labels
	if pcpconf.Version() == pcpconf.Version638 {
		labels = m.RawLabels()
	}
	// Group by timestamp (ascending), then type, then ident.
	recs := make([]*archive.LabelRecord, len(labels))
	for i := range labels {
		recs[i] = &labels[i]
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, c := recs[i], recs[j]
		if x := a.Stamp.Compare(c.Stamp); x != 0 {
			return x < 0
		}
		if x, y := labelRank(a.Type), labelRank(c.Type); x != y {
			return x < y
		}
		return a.Ident < c.Ident
	})
	var last pmapi.Timestamp
	for i, r := range recs {
		if i == 0 || r.Stamp != last {
			b = d.stamp(b, r.Stamp)
			b = append(b, '\n')
			last = r.Stamp
		}
		for k := range r.Sets {
			b = AppendLabelSet(b, r.Type, r.Ident, &r.Sets[k])
		}
		d.buf = b
		d.flushBuf()
		b = d.buf
	}
	d.buf = b
	d.flushBuf()
}

// AppendLabelSet appends a label set as pmdumplog -e shows it (libpcp's
// __pmDumpLabelSet): its owner, its JSON, then each label's offsets and
// flags.
func AppendLabelSet(b []byte, typ, ident uint32, s *archive.LabelSet) []byte {
	b = append(b, "    "...)
	switch typ {
	case archive.LabelContext:
		b = append(b, "Context"...)
	case archive.LabelDomain:
		b = fmt.Appendf(b, "Domain %d", ident)
	case archive.LabelInDom:
		b = fmt.Appendf(b, "InDom %s", pmapi.InDom(ident))
	case archive.LabelCluster:
		p := pmapi.PMID(ident)
		b = fmt.Appendf(b, "Cluster %d.%d", p.Domain(), p.Cluster())
	case archive.LabelItem:
		b = fmt.Appendf(b, "PMID %s", pmapi.PMID(ident))
	case archive.LabelInstances:
		b = fmt.Appendf(b, "InDom %s[%d]", pmapi.InDom(ident), s.Inst)
	default:
		b = fmt.Appendf(b, "Type 0x%x", typ)
	}
	b = fmt.Appendf(b, " labels (%d bytes): %s\n", len(s.JSON), s.JSON)
	for k, l := range s.Labels {
		b = fmt.Appendf(b, "        [%d] name(%d,%d) : value(%d,%d) [", k, l.NameOff, l.NameLen, l.ValueOff, l.ValueLen)
		first := true
		for _, t := range labelTypeNames {
			if l.Flags&t.bit != 0 {
				if !first {
					b = append(b, ',')
				}
				b = append(b, t.name...)
				first = false
			}
		}
		b = append(b, "]\n"...)
	}
	return b
}

func (d *dumper) dumpIndex() {
	b := append(d.buf, "\nTemporal Index\n"...)
	b = append(b, "\t\t"...)
	if d.ver == 3 {
		b = append(b, '\t')
	}
	if d.opt.xflag >= 1 {
		b = append(b, "\t\t"...)
	}
	if d.opt.xflag >= 2 {
		b = append(b, "\t\t"...)
	}
	b = append(b, "Log Vol    end(meta)     end(log)\n"...)
	// The real tool's integrity checks, in its order. A volume's size
	// is looked up when the volume changes: a missing one is reported
	// then, once, and its offsets are not checked.
	metaSize := d.a.Meta().Size
	logSize := int64(-1)
	idx := d.a.Index()
	for i, e := range idx {
		b = d.stamp(b, e.Stamp)
		b = fmt.Appendf(b, "\t  %5d  %11d  %11d\n", e.Vol, e.MetaOff, e.DataOff)
		if i == 0 || e.Vol != idx[i-1].Vol {
			logSize = -1
			if d.a.VolumePath(int(e.Vol)) == "" {
				b = fmt.Appendf(b, "\t\tWarning: file missing for log volume %d\n", e.Vol)
			} else if sz, err := d.a.VolumeSize(int(e.Vol)); err == nil {
				logSize = sz
			}
		}
		if e.Stamp.Sec < 0 || e.Stamp.Nsec < 0 || e.Stamp.Nsec > 999999999 {
			b = fmt.Appendf(b, "\t\tError: illegal timestamp value (%d sec, %d nsec)\n", e.Stamp.Sec, e.Stamp.Nsec)
		}
		if e.MetaOff > metaSize {
			b = fmt.Appendf(b, "\t\tError: offset to meta file past end of file (%d)\n", metaSize)
		}
		if logSize != -1 && e.DataOff > logSize {
			b = fmt.Appendf(b, "\t\tError: offset to log file past end of file (%d)\n", logSize)
		}
		if i == 0 {
			continue
		}
		last := &idx[i-1]
		if e.Stamp.Before(last.Stamp) {
			b = append(b, "\t\tError: timestamp went backwards in time "...)
			b = d.stampX(b, last.Stamp, d.ver, 0)
			b = append(b, " -> "...)
			b = d.stampX(b, e.Stamp, d.ver, 0)
			b = append(b, '\n')
		}
		if e.Vol < last.Vol {
			b = append(b, "\t\tError: volume number decreased\n"...)
		}
		if e.Vol == last.Vol && e.MetaOff < last.MetaOff {
			b = append(b, "\t\tError: offset to meta file decreased\n"...)
		}
		if e.Vol == last.Vol && e.DataOff < last.DataOff {
			b = append(b, "\t\tError: offset to log file decreased\n"...)
		}
	}
	d.buf = b
	d.flushBuf()
}

package collector

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// label is one name and value; the value is JSON (a quoted string or a
// number).
type label struct {
	name, value string
	optional    bool
}

// makeLabelSet builds a label set as pmcd sends it: the labels (sorted by
// name by the caller), each flagged with the label type typ.
func makeLabelSet(inst int32, typ uint32, labels ...label) archive.LabelSet {
	pairs := make([]archive.LabelPair, len(labels))
	for i, l := range labels {
		pairs[i] = archive.LabelPair{Name: l.name, Value: l.value, Flags: uint8(typ)}
		if l.optional {
			pairs[i].Flags |= archive.LabelOptional
		}
	}
	return archive.MakeLabelSet(inst, pairs...)
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"' || ch == '\\':
			b = append(b, '\\', ch)
		case ch < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&15])
		default:
			b = append(b, ch)
		}
	}
	return string(append(b, '"'))
}

// contextLabels are pmcd's context labels (ContextLabels) for this
// collector's tree and client.
func (c *Collector) contextLabels() archive.LabelSet {
	return ContextLabels(c.root, c.Host(), c.uid, c.gid)
}

// ContextLabels are the context labels pmcd gives a client on its unix
// socket (and libpcp a local context): the host's domain name (from
// root's proc/sys/kernel/domainname, "localdomain" without one), the
// host name, the machine id (root's etc/machine-id) and the client's
// user and group ids (optional labels). root is "/" but for tests.
func ContextLabels(root, host string, uid, gid int) archive.LabelSet {
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return ""
		}
		return string(bytes.TrimSpace(b))
	}
	dom := "localdomain"
	if d := read("proc/sys/kernel/domainname"); d != "" && d != "(none)" {
		dom = d
	}
	ls := []label{{name: "domainname", value: jsonString(dom)},
		{name: "groupid", value: strconv.Itoa(gid), optional: true},
		{name: "hostname", value: jsonString(host)}}
	if id := read("etc/machine-id"); id != "" {
		ls = append(ls, label{name: "machineid", value: jsonString(id)})
	}
	ls = append(ls, label{name: "userid", value: strconv.Itoa(uid), optional: true})
	return makeLabelSet(pmapi.InstNull, archive.LabelContext, ls...)
}

// Labels returns the label sets of one type for ident, as pmcd and the
// linux PMDA give them.
func (c *Collector) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	switch typ {
	case archive.LabelContext:
		return []archive.LabelSet{c.contextLabels()}, nil
	case archive.LabelDomain:
		switch ident {
		case 60:
			return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ, label{name: "agent", value: `"linux"`})}, nil
		case 2:
			return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ, label{name: "agent", value: `"pmcd"`})}, nil
		}
		return nil, nil
	case archive.LabelInDom:
		indom := pmapi.InDom(ident)
		if indom.Domain() != 60 {
			return nil, nil
		}
		var dt, in string
		switch indom.Serial() {
		case indomCPU:
			dt, in = "cpu", "per cpu"
		case indomDisk:
			dt, in = "block", "per disk"
		case indomParts:
			dt, in = "block", "per partition"
		case indomNet:
			dt, in = "interface", "per interface"
		case indomNode:
			dt, in = "numa_node", "per numa_node"
		case indomIRQ:
			dt, in = "irq", "per irq"
		case indomIRQCPU:
			dt, in = "", "per cpu, per irq"
		case indomSIRQCPU:
			dt, in = "cpu", "per cpu, per softirq"
		case indomSoftIRQ:
			return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ,
				label{name: "indom_name", value: `"per softirq"`})}, nil
		default:
			return nil, nil
		}
		dtv := jsonString(dt)
		if indom.Serial() == indomIRQCPU {
			dtv = `["irq","cpu"]`
		}
		return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ,
			label{name: "device_type", value: dtv},
			label{name: "indom_name", value: jsonString(in)})}, nil
	case archive.LabelCluster:
		return nil, nil
	case archive.LabelItem:
		m := c.byPMID[pmapi.PMID(ident)]
		if m != nil && m.desc.InDom == pmapi.InDomNull && strings.HasPrefix(m.name, "kernel.all.cpu.") {
			return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ, label{name: "device_type", value: `"cpu"`})}, nil
		}
		if m != nil && strings.HasPrefix(m.name, "kernel.pernode.cpu.") {
			return []archive.LabelSet{makeLabelSet(pmapi.InstNull, typ,
				label{name: "device_type", value: `["numa_node","cpu"]`})}, nil
		}
		return nil, nil
	case archive.LabelInstances:
		indom := pmapi.InDom(ident)
		if indom.Domain() != 60 {
			return nil, nil
		}
		c.newPass()
		ids, names, err := c.instances(indom.Serial())
		if err != nil {
			return nil, err
		}
		out := make([]archive.LabelSet, len(ids))
		for i, id := range ids {
			switch indom.Serial() {
			case indomCPU:
				out[i] = makeLabelSet(id, typ, label{name: "cpu", value: strconv.Itoa(int(id))})
			case indomDisk, indomParts:
				out[i] = makeLabelSet(id, typ, label{name: "device_name", value: jsonString(names[i])})
			case indomNet:
				out[i] = makeLabelSet(id, typ, label{name: "interface", value: jsonString(names[i])})
			case indomNode:
				out[i] = makeLabelSet(id, typ, label{name: "numa_node", value: strconv.Itoa(int(id))})
			case indomIRQ:
				l := &c.irq.lines[c.irq.lineIdx[i]]
				out[i] = makeLabelSet(id, typ, label{name: "irq", value: jsonString(l.e.name)},
					label{name: "irqtext", value: jsonString(l.e.aux)})
			case indomIRQCPU:
				p := c.irq.cpuIdx[i]
				l := &c.irq.lines[p[0]]
				out[i] = makeLabelSet(id, typ, label{name: "cpu", value: strconv.Itoa(int(c.irq.cols[p[1]]))},
					label{name: "irq", value: jsonString(l.e.name)},
					label{name: "irqtext", value: jsonString(l.e.aux)})
			case indomSIRQCPU:
				p := c.softirq.cpuIdx[i]
				out[i] = makeLabelSet(id, typ, label{name: "cpu", value: strconv.Itoa(int(c.softirq.cols[p[1]]))},
					label{name: "softirq", value: jsonString(c.softirq.lines[p[0]].e.name)})
			default:
				out[i] = archive.LabelSet{Inst: id}
			}
		}
		return out, nil
	}
	return nil, nil
}

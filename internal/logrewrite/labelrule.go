package logrewrite

import (
	"fmt"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// LABEL rules, read as the real tool's grammar reads them: the rule
// names the label sets of one kind (and identifier, instance, label name
// and value), each clause changes every spec the rule named.

// labelRule reads a LABEL rule (the LABEL keyword read).
func (p *parser) labelRule() {
	if p.labelsH == nil {
		p.labelsH = newLabelHash(p.meta)
	}
	t := p.next()
	var typ uint32
	var ident uint32
	known := true
	inst, instName := int32(-1), (*string)(nil)
	switch t.kind {
	case tContext:
		typ, ident = archive.LabelContext, uint32(pmapi.PMIDNull)
	case tDomain:
		typ = archive.LabelDomain
		ident = uint32(p.pmidDomain(p.expect(tNumber)))
	case tCluster:
		typ = archive.LabelCluster
		ident = uint32(p.pmidCluster(p.next()))
	case tItem:
		typ = archive.LabelItem
		ident, known = p.pmidOrName()
	case tIndom, tInstances:
		typ = archive.LabelInDom
		if t.kind == tInstances {
			typ = archive.LabelInstances
		}
		ident = uint32(p.indomTarget())
	default:
		p.syntax()
	}
	p.curName, p.curValue = nil, nil
	if typ == archive.LabelInstances {
		switch n := p.peek(); n.kind {
		case tString:
			p.next()
			s := n.text
			instName = &s
			p.labelDetails()
		case tNumber:
			p.next()
			inst = int32(atoi(n.text))
			p.labelDetails()
		case tLabelStar:
			p.next()
			p.labelDetails()
		}
	} else {
		p.labelDetails()
		if typ != archive.LabelInstances {
			// (the rules but INSTANCES name instance 0)
			inst = 0
		}
	}
	p.labelID = ident
	p.curInst = inst
	if instName != nil {
		p.curInst = -1
	}
	p.curLabel = nil
	found := 0
	starM, starI := p.starM, p.starI
	if known {
		for _, id := range p.labelsH.idents[typ] {
			var match bool
			switch typ {
			case archive.LabelContext:
				match = true
			case archive.LabelDomain:
				match = id == ident
			case archive.LabelCluster:
				match = id == ident || starM != 0 && pmapi.PMID(id).Domain() == pmapi.PMID(ident).Domain()
			case archive.LabelItem:
				if starM != 0 {
					match = pmapi.PMID(id).Domain() == pmapi.PMID(ident).Domain() &&
						(starM == 2 || pmapi.PMID(id).Cluster() == pmapi.PMID(ident).Cluster())
				} else {
					match = id == ident
				}
			default:
				match = id == ident || starI && pmapi.InDom(id).Domain() == pmapi.InDom(ident).Domain()
			}
			if !match {
				continue
			}
			if lp := p.startLabelRule(typ, id, inst, instName); lp != nil {
				lp.active = true
				p.curLabel = lp
				found++
			}
		}
	}
	p.walkLabel = found > 1
	if p.clauses(func(c token) { p.labelClause(typ, c) }) == 0 {
		p.deactivateLabels()
	}
}

// startLabelRule finds the spec a rule names (by instance, or instance
// name, label name and value), or makes it; nil, with a warning under
// -w, when the instance name is not in the archive.
func (p *parser) startLabelRule(typ, ident uint32, inst int32, instName *string) *labelSpec {
	if instName != nil {
		insts, names, ok := archiveInsts(p.meta, pmapi.InDom(ident))
		if !ok {
			if p.warn {
				p.warnf("Instance domain %s: %s", pmapi.InDom(ident), pmapi.ErrStr(int32(pmapi.ErrInDomLog)))
			}
			return nil
		}
		i := 0
		for ; i < len(insts); i++ {
			if instNameEq(names[i], *instName) {
				inst = insts[i]
				break
			}
		}
		if i == len(insts) {
			if p.warn {
				p.warnf("Instance domain %s: no instance \"%s\" found", pmapi.InDom(ident), *instName)
			}
			return nil
		}
	}
	for _, lp := range p.r.labels {
		if lp.typ == typ && lp.old == ident && (inst == -1 || inst == lp.inst) &&
			(p.curName == nil || lp.oldLabel != nil && *lp.oldLabel == *p.curName) &&
			(p.curValue == nil || lp.oldValue != nil && *lp.oldValue == *p.curValue) {
			return lp
		}
	}
	return p.r.createLabel(typ, ident, inst, p.curName, p.curValue)
}

func (r *rules) createLabel(typ, ident uint32, inst int32, name, value *string) *labelSpec {
	lp := &labelSpec{typ: typ, old: ident, new: ident, inst: inst, newInst: inst, oldLabel: name, oldValue: value}
	r.labels = append([]*labelSpec{lp}, r.labels...)
	return lp
}

// pmidDomain reads a DOMAIN rule's domain number.
func (p *parser) pmidDomain(t token) uint32 {
	dom := atoi(t.text)
	p.checkDomain(dom)
	p.starM = 0
	return uint32(dom)
}

// pmidCluster reads domain.cluster or domain.* (p.starM says which).
func (p *parser) pmidCluster(t token) pmapi.PMID {
	var dom, clu int
	switch t.kind {
	case tFloat:
		fmt.Sscanf(t.text, "%d.%d", &dom, &clu)
		p.checkDomain(dom)
		if clu < 0 || clu >= 4096 {
			p.failf("Illegal cluster field (%d) for pmid", clu)
		}
		p.starM = 0
	case tIndomStar:
		fmt.Sscanf(t.text, "%d.", &dom)
		p.checkDomain(dom)
		p.starM = 1
	default:
		p.syntax()
	}
	return pmapi.PMID(uint32(dom)<<22 | uint32(clu)<<10)
}

// labelDetails reads a rule's optional label name and value ("*" for
// any).
func (p *parser) labelDetails() {
	switch t := p.peek(); t.kind {
	case tString, tJSONString:
		p.curName = p.jsonName()
	case tLabelStar:
		p.next()
	default:
		return
	}
	if p.peek().kind == tLabelStar {
		p.next()
		return
	}
	p.curValue = p.jsonValue(false)
}

// jsonName reads a label name, quoted as JSON.
func (p *parser) jsonName() *string {
	t := p.next()
	var s string
	switch t.kind {
	case tString:
		s = `"` + t.text + `"`
	case tJSONString:
		s = t.text
	default:
		p.syntax()
	}
	return &s
}

// jsonValue reads a label value as JSON text (nil if there is none and
// it is optional).
func (p *parser) jsonValue(must bool) *string {
	t := p.peek()
	var s string
	switch t.kind {
	case tString, tJSONString:
		return p.jsonName()
	case tMinus:
		p.next()
		n := p.next()
		if n.kind != tNumber && n.kind != tJSONNumber {
			p.syntax()
		}
		s = "-" + n.text
	case tNumber, tJSONNumber, tJSONTrue, tJSONFalse, tJSONNull:
		p.next()
		s = t.text
	default:
		if must {
			p.syntax()
		}
		return nil
	}
	return &s
}

// describe names the label sets in the walk's messages.
func (lp *labelSpec) describe() string {
	switch lp.typ {
	case archive.LabelContext:
		return "context label"
	case archive.LabelDomain:
		return fmt.Sprintf("label for domain %d", pmapi.PMID(lp.old).Domain())
	case archive.LabelCluster:
		return fmt.Sprintf("label for cluster %d.%d", pmapi.PMID(lp.old).Domain(), pmapi.PMID(lp.old).Cluster())
	case archive.LabelItem:
		return fmt.Sprintf("label for metric %s", pmapi.PMID(lp.old))
	case archive.LabelInDom:
		return fmt.Sprintf("label for indom %s", pmapi.InDom(lp.old))
	}
	return fmt.Sprintf("label for the instances of indom %s", pmapi.InDom(lp.old))
}

// walkLabels is the specs a clause of the current LABEL rule applies to
// (see walkSpecs).
func (p *parser) walkLabels(flag int, which string) []*labelSpec {
	return walkSpecs(p, p.r.labels, p.curLabel, p.walkLabel, flag, lDelete, lActive, which,
		"pmlogrewrite: gram.y:230: walk_label: Assertion `(lp->flags & LABEL_ACTIVE)' failed.\n")
}

func (p *parser) deactivateLabels() { p.walkLabels(lActive, "active") }

// labelClause applies one clause (its first token c) of a rule on label
// sets of type typ.
func (p *parser) labelClause(typ uint32, c token) {
	// the messages of the label and value clauses, by type
	type words struct{ dupLabel, sameLabel, dupValue, sameValue string }
	msgs := func(lp *labelSpec) words {
		dc := fmt.Sprintf("cluster %d.%d", pmapi.PMID(lp.old).Domain(), pmapi.PMID(lp.old).Cluster())
		switch typ {
		case archive.LabelContext:
			return words{"Duplicate label clause for context", "Label for context: label: No change",
				"Duplicate value clause for " + dc, "Label for " + dc + ": value: No change"}
		case archive.LabelDomain:
			d := fmt.Sprintf("domain %d", lp.old)
			return words{"Duplicate label clause for " + d, "Label for " + d + ": label: No change",
				"Duplicate value clause for " + dc, "Label for " + dc + ": value: No change"}
		case archive.LabelCluster:
			return words{"Duplicate label clause for " + dc, "Label for " + dc + ": label: No change",
				"Duplicate value clause for " + dc, "Label for " + dc + ": value: No change"}
		case archive.LabelItem:
			m := "metric " + pmapi.PMID(lp.old).String()
			return words{"Duplicate label clause for " + m, "Label for " + m + ": label: No change",
				"Duplicate value clause for " + m, "Label for " + m + ": value: No change"}
		case archive.LabelInDom:
			i := pmapi.InDom(lp.old).String()
			return words{"Duplicate label clause for indom " + i, "Label for instance domain " + i + ": label: No change",
				"Duplicate value clause for indom " + i, "Label for instance domain " + i + ": value: No change"}
		}
		i := pmapi.InDom(lp.old).String()
		return words{"Duplicate label clause for instances of indom " + i, "Label for instances of instance domain " + i + ": label: No change",
			"Duplicate value clause for instances of indom " + i, "Label for instances of instance domain " + i + ": value: No change"}
	}
	switch {
	case c.kind == tDelete:
		for _, lp := range p.walkLabels(lDelete, "delete") {
			lp.flags |= lDelete
		}
	case c.kind == tLabel || c.kind == tValue:
		p.expect(tAssign)
		isValue := c.kind == tValue
		var v *string
		flag, which := lChangeLabel, "label"
		if isValue {
			v = p.jsonValue(true)
			flag, which = lChangeValue, "value"
		} else {
			v = p.jsonName()
		}
		for _, lp := range p.walkLabels(flag, which) {
			old, nw, m := &lp.oldLabel, &lp.newLabel, msgs(lp)
			dup, same := m.dupLabel, m.sameLabel
			if isValue {
				old, nw, dup, same = &lp.oldValue, &lp.newValue, m.dupValue, m.sameValue
			}
			if *nw != nil {
				p.fail(dup)
			}
			if *old != nil && **old == *v {
				if p.warn {
					p.warnf("%s", same)
				}
				continue
			}
			*nw = v
			lp.flags |= flag
		}
	case c.kind == tNew:
		name := p.jsonName()
		value := p.jsonValue(true)
		if p.curName != nil || p.curValue != nil {
			p.warnf("The target label name and value must both not be specified for a NEW label and will be ignored")
		}
		p.curName, p.curValue = name, value
		p.newLabel(typ)
	case c.kind == tDomain && typ == archive.LabelDomain:
		p.expect(tAssign)
		dom := uint32(atoi(p.expect(tNumber).text))
		for _, lp := range p.walkLabels(lChangeID, "id") {
			if dom == lp.old {
				if p.warn {
					p.warnf("Label for metric domain: %d: No change", lp.old)
				}
				continue
			}
			lp.new = dom
			lp.flags |= lChangeID
		}
	case c.kind == tCluster && typ == archive.LabelCluster:
		p.expect(tAssign)
		to := p.pmidCluster(p.next())
		for _, lp := range p.walkLabels(lChangeID, "id") {
			// (the real tool builds the identifier with item
			// PM_ID_NULL: its 10 bits are all set)
			clu := uint32(to.Cluster())
			if p.starM != 0 {
				clu = uint32(pmapi.PMID(lp.old).Cluster())
			}
			id := uint32(to.Domain())<<22 | clu<<10 | 0x3ff
			if id == lp.old {
				if p.warn {
					p.warnf("Label for cluster: %d.%d: No change", pmapi.PMID(lp.old).Domain(), pmapi.PMID(lp.old).Cluster())
				}
				continue
			}
			lp.new = id
			lp.flags |= lChangeID
		}
	case c.kind == tItem && typ == archive.LabelItem:
		p.expect(tAssign)
		x := p.pmidTarget()
		for _, lp := range p.walkLabels(lChangeID, "id") {
			old := pmapi.PMID(lp.old)
			pmid := starPMID(x, old, p.starM)
			if pmid == old {
				if p.warn {
					p.warnf("Label for metric: %s: item: No change", old)
				}
				continue
			}
			lp.new = uint32(pmid)
			lp.flags |= lChangeID
		}
	case c.kind == tIndom && typ == archive.LabelInDom, c.kind == tInstances && typ == archive.LabelInstances:
		p.expect(tAssign)
		x := p.indomTarget()
		for _, lp := range p.walkLabels(lChangeID, "id") {
			old := pmapi.InDom(lp.old)
			if lp.new != lp.old {
				if typ == archive.LabelInDom {
					p.failf("Duplicate label clause for indom %s", old)
				}
				p.failf("Duplicate label clause for instances of indom %s", old)
			}
			indom := x
			if p.starI {
				indom = pmapi.InDom(uint32(x.Domain())<<22 | uint32(old.Serial()))
			}
			if indom == old {
				if p.warn {
					p.warnf("Label for instance domain %s: indom: No change", old)
				}
				continue
			}
			lp.new = uint32(indom)
			lp.flags |= lChangeID
		}
	case c.kind == tInstance && typ == archive.LabelInstances:
		p.expect(tAssign)
		v := p.expect(tNumber)
		for _, lp := range p.walkLabels(lChangeID, "id") {
			if lp.newInst != lp.inst {
				p.failf("Duplicate label clause for instances of indom %s", pmapi.InDom(lp.old))
			}
			inst := int32(atoi(v.text))
			if inst == lp.inst {
				if p.warn {
					p.warnf("Label for instance domain %s instance %d: instance: No change", pmapi.InDom(lp.old), lp.inst)
				}
				continue
			}
			lp.newInst = inst
			lp.flags |= lChangeInstance
		}
	default:
		p.syntax()
	}
}

// newLabel applies a NEW clause: the label goes to the spec (made if
// need be) of each label set of the rule's kind that the archive has
// metrics or instance domains for.
func (p *parser) newLabel(typ uint32) {
	p.deactivateLabels()
	json := "{" + *p.curName + ":" + *p.curValue + "}"
	kind := map[uint32]string{archive.LabelContext: "context", archive.LabelDomain: "domain", archive.LabelCluster: "cluster",
		archive.LabelItem: "metric item", archive.LabelInDom: "indom", archive.LabelInstances: "indom instance"}[typ]
	add := func(lp *labelSpec, inst int32) {
		if !lp.addNew(*p.curName, *p.curValue, typ) {
			p.failf("Unable to add new %s label %s: %s", kind, json, pmapi.ErrStr(-22))
		}
		lp.newSet.Inst = inst
		lp.flags |= lNew
	}
	// the spec for new labels: no label name (and for an instance
	// domain, no instance)
	spec := func(match func(lp *labelSpec) bool, make func() *labelSpec) *labelSpec {
		for _, lp := range p.r.labels {
			if lp.typ == typ && match(lp) && lp.oldLabel == nil {
				return lp
			}
		}
		return make()
	}
	id := p.labelID
	found := false
	switch typ {
	case archive.LabelContext:
		lp := spec(func(*labelSpec) bool { return true }, func() *labelSpec {
			return p.r.createLabel(typ, uint32(pmapi.PMIDNull), 0, nil, nil)
		})
		add(lp, 0)
		return
	case archive.LabelDomain, archive.LabelCluster, archive.LabelItem:
		for _, k := range pmidWalk(p.meta) {
			m := pmapi.PMID(k)
			if typ == archive.LabelDomain && m.Domain() != id || typ != archive.LabelDomain && m.Domain() != pmapi.PMID(id).Domain() {
				continue
			}
			if typ == archive.LabelCluster && p.starM == 0 && m.Cluster() != pmapi.PMID(id).Cluster() {
				continue
			}
			if typ == archive.LabelItem && (p.starM < 2 && m.Cluster() != pmapi.PMID(id).Cluster() || p.starM == 0 && m != pmapi.PMID(id)) {
				continue
			}
			found = true
			var key uint32
			switch typ {
			case archive.LabelDomain:
				key = id
			case archive.LabelCluster:
				key = uint32(m.Domain())<<22 | uint32(m.Cluster())<<10
			default:
				key = uint32(m)
			}
			lp := spec(func(lp *labelSpec) bool { return lp.old == key }, func() *labelSpec {
				return p.r.createLabel(typ, key, 0, nil, nil)
			})
			add(lp, 0)
			if typ == archive.LabelDomain || p.starM == 0 {
				break
			}
		}
	default:
		for _, k := range p.indomWalk() {
			x := pmapi.InDom(k)
			if x.Domain() != pmapi.InDom(id).Domain() || !p.starI && x.Serial() != pmapi.InDom(id).Serial() {
				continue
			}
			if typ == archive.LabelInDom {
				found = true
				lp := spec(func(lp *labelSpec) bool { return lp.old == k && lp.inst == -1 }, func() *labelSpec {
					return p.r.createLabel(typ, k, 0, nil, nil)
				})
				add(lp, 0)
			} else {
				for _, insts := range p.indomRecordInsts(x) {
					for _, inst := range insts {
						if p.curInst != -1 && inst != p.curInst {
							continue
						}
						found = true
						lp := spec(func(lp *labelSpec) bool { return lp.old == k && lp.inst == inst }, func() *labelSpec {
							return p.r.createLabel(typ, k, inst, nil, nil)
						})
						add(lp, inst)
					}
				}
			}
			if !p.starI {
				break
			}
		}
	}
	if !found {
		what := map[uint32]string{archive.LabelDomain: "domain", archive.LabelCluster: "cluster",
			archive.LabelItem: "metric", archive.LabelInDom: "indom", archive.LabelInstances: "indom instance"}[typ]
		p.warnf("No matching %s for new label %s", what, json)
	}
}

// validLabelName is a label name pmParseLabels accepts: a letter, then
// letters, digits and underscores.
func validLabelName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDig(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// validJSONValue reports whether v is a JSON string, number, true,
// false or null.
func validJSONValue(v string) bool {
	switch {
	case v == "true" || v == "false" || v == "null":
		return true
	case strings.HasPrefix(v, `"`):
		if len(v) < 2 || v[len(v)-1] != '"' {
			return false
		}
		for i := 1; i < len(v)-1; i++ {
			switch c := v[i]; {
			case c == '"' || c < 0x20:
				return false
			case c == '\\':
				i++
				if i >= len(v)-1 || !strings.ContainsRune(`"\/bfnrtu`, rune(v[i])) {
					return false
				}
			}
		}
		return true
	}
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	switch {
	case i < len(v) && v[i] == '0':
		i++
	case i < len(v) && v[i] >= '1' && v[i] <= '9':
		i += digits(v, i)
	default:
		return false
	}
	if i < len(v) && v[i] == '.' {
		n := digits(v, i+1)
		if n == 0 {
			return false
		}
		i += 1 + n
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		n := digits(v, i)
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(v)
}

// addNew adds a label (a quoted name, a JSON value) to the spec's new
// label set, as __pmAddLabels merges it: sorted by name, a name given
// again takes the new value.
func (lp *labelSpec) addNew(name, value string, typ uint32) bool {
	bare := strings.TrimSuffix(strings.TrimPrefix(name, `"`), `"`)
	if !validLabelName(bare) || !validJSONValue(value) {
		return false
	}
	type nv struct{ name, value string }
	var all []nv
	if lp.newSet != nil {
		for _, l := range lp.newSet.Labels {
			all = append(all, nv{jsonPart(lp.newSet.JSON, l.NameOff, l.NameLen), jsonPart(lp.newSet.JSON, l.ValueOff, l.ValueLen)})
		}
	} else {
		lp.newSet = &archive.LabelSet{}
	}
	i := 0
	for ; i < len(all) && all[i].name < bare; i++ {
	}
	if i < len(all) && all[i].name == bare {
		all[i].value = value
	} else {
		all = append(all[:i], append([]nv{{bare, value}}, all[i:]...)...)
	}
	var b strings.Builder
	b.WriteByte('{')
	lp.newSet.Labels = lp.newSet.Labels[:0]
	for k, l := range all {
		if k > 0 {
			b.WriteByte(',')
		}
		e := archive.LabelEntry{Flags: uint8(typ)}
		b.WriteByte('"')
		e.NameOff, e.NameLen = b.Len(), len(l.name)
		b.WriteString(l.name)
		b.WriteString(`":`)
		e.ValueOff, e.ValueLen = b.Len(), len(l.value)
		b.WriteString(l.value)
		lp.newSet.Labels = append(lp.newSet.Labels, e)
	}
	b.WriteByte('}')
	lp.newSet.JSON = b.String()
	return true
}

// indomRecordInsts is the instances of each record of an instance
// domain, newest first, as libpcp's chain of them holds them: a delta
// record's own instances (added and deleted), not the state it leaves.
func (p *parser) indomRecordInsts(indom pmapi.InDom) [][]int32 {
	var out [][]int32
	if p.arch == nil {
		h := p.meta.InDomHistory(indom)
		for k := len(h) - 1; k >= 0; k-- {
			out = append(out, h[k].Insts)
		}
		return out
	}
	if p.inRecs == nil {
		p.inRecs = map[pmapi.InDom][]*archive.InDomRecord{}
		recs, err := p.arch.MetaRecords()
		if err != nil {
			return nil
		}
		for i := range recs {
			if ir := recs[i].InDom; ir != nil {
				p.inRecs[ir.InDom] = append(p.inRecs[ir.InDom], ir)
			}
		}
	}
	rs := p.inRecs[indom]
	for k := len(rs) - 1; k >= 0; k-- {
		out = append(out, rs[k].Insts)
	}
	return out
}

// pmidOrName reads the metric a text or label rule names: domain.cluster.item
// (or with *), or a name; false (with a warning under -w) for a name the
// archive does not have.
func (p *parser) pmidOrName() (uint32, bool) {
	n := p.next()
	switch n.kind {
	case tPMIDInt, tPMIDStar:
		return uint32(p.pmidInt(n)), true
	case tGName:
		p.starM = 0
		pmid, ok := p.meta.Lookup(n.text)
		if !ok && p.warn {
			p.warnf("Metric: %s: Unknown metric name", n.text)
		}
		return uint32(pmid), ok
	}
	p.syntax()
	return 0, false
}

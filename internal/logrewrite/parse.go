package logrewrite

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The parser follows the real tool's yacc grammar: a clause that stops
// short at a token it cannot take reports that clause's own message
// ("Expecting -> in inst clause"), anything else is "syntax error". The
// semantic actions run as each clause is read, against the input
// archive's metadata, as the real ones do: warnings (-w) are printed as
// they are found, and the first error ends the parse.

// cfgError is a fatal error in a configuration file.
type cfgError struct {
	file     string
	line     int
	msg      string
	semantic bool   // found after all files were read (no line)
	assert   string // the real tool's assertion failure (it aborts)
}

func (e *cfgError) Error() string {
	if e.assert != "" {
		return e.assert
	}
	if e.semantic {
		return fmt.Sprintf("Semantic error in configuration file (%s)\n%s\n", e.file, e.msg)
	}
	return fmt.Sprintf("Specification error in configuration file (%s)\n[line %d] %s\n", e.file, e.line, e.msg)
}

// parser reads one configuration file into rules.
type parser struct {
	lx        *lexer
	file      string
	r         *rules
	meta      *archive.Meta
	label     *archive.Label
	outVer    int
	warn      bool // -w
	scale     bool // -s
	stderr    io.Writer
	curInD    []*indomSpec  // the indom rule's specs (several for domain.*)
	curStar   bool          // the indom rule names domain.*
	curMet    []*metricSpec // the metric rule's specs
	starM     int           // 0: one metric, 1: domain.cluster.*, 2: domain.*.*
	starI     bool          // the last indom_int read was domain.*
	texts     *textHash     // the input's help texts (made for the first TEXT rule)
	curText   *textSpec     // the TEXT rule's last spec
	walkText  bool          // the TEXT rule named several texts
	labelsH   *labelHash    // the input's label sets (made for the first LABEL rule)
	curLabel  *labelSpec    // the LABEL rule's last spec
	walkLabel bool          // the LABEL rule named several label sets
	labelID   uint32        // the LABEL rule's identifier
	curInst   int32         // the LABEL rule's instance (-1: all)
	curName   *string       // the LABEL rule's label name, and value (nil: any)
	curValue  *string
	arch      *archive.Archive // for the instance domain records as written (nil: the history)
	inRecs    map[pmapi.InDom][]*archive.InDomRecord
}

type abort struct{ err *cfgError }

func (p *parser) fail(msg string) {
	panic(abort{&cfgError{file: p.file, line: p.lx.line, msg: msg}})
}

func (p *parser) failf(format string, args ...any) { p.fail(fmt.Sprintf(format, args...)) }

func (p *parser) warnf(format string, args ...any) {
	fmt.Fprintf(p.stderr, "Warning [%s, line %d]\n%s\n", p.file, p.lx.line, fmt.Sprintf(format, args...))
}

func (p *parser) syntax() { p.fail("syntax error") }

// next returns the next token; an unexpected character is an error.
func (p *parser) next() token {
	t := p.lx.next()
	if t.kind == tBad {
		p.failf("Unexpected character '%c'", t.text[0])
	}
	return t
}

func (p *parser) peek() token {
	t := p.lx.peek()
	if t.kind == tBad {
		p.lx.next()
		p.failf("Unexpected character '%c'", t.text[0])
	}
	return t
}

// parse reads the whole file.
func (p *parser) parse() (err error) {
	defer func() {
		if x := recover(); x != nil {
			a, ok := x.(abort)
			if !ok {
				panic(x)
			}
			err = a.err
		}
	}()
	n := 0
	for {
		t := p.next()
		switch t.kind {
		case tEOF:
			if n == 0 {
				p.syntax()
			}
			return nil
		case tGlobal:
			p.globalRule()
		case tIndom:
			p.indomRule()
		case tMetric:
			p.metricRule()
		case tText:
			p.textRule()
		case tLabel:
			p.labelRule()
		default:
			p.syntax()
		}
		n++
	}
}

func (p *parser) expect(k tokKind) token {
	t := p.next()
	if t.kind != k {
		p.syntax()
	}
	return t
}

// --- global ---

func (p *parser) globalRule() {
	p.clauses(func(t token) {
		switch t.kind {
		case tHostname:
			p.assignOr("Expecting -> in hostname clause")
			h := p.peek()
			switch h.kind {
			case tHName, tGName, tNumber, tFloat:
				p.next()
			default:
				p.fail("Expecting hostname in hostname clause")
			}
			p.globalChange(gHostname, "hostname", h.text, p.label.Hostname, &p.r.global.hostname)
		case tTZ:
			p.globalChange(gTZ, "timezone", p.globalString("timezone"), p.label.TZ, &p.r.global.tz)
		case tZoneinfo:
			s := p.globalString("zoneinfo")
			p.needV3("zoneinfo")
			p.globalChange(gZoneinfo, "zoneinfo", s, p.label.Zoneinfo, &p.r.global.zoneinfo)
		case tFeatures:
			p.assignOr("Expecting -> in features clause")
			v := p.features()
			p.needV3("features")
			var now string
			p.globalChange(gFeatures, "features", strconv.FormatUint(uint64(v), 10), strconv.FormatUint(uint64(p.label.Features), 10), &now)
			p.r.global.features = v
		case tTime:
			p.assignOr("Expecting -> in time clause")
			p.signTime()
		default:
			p.syntax()
		}
	})
}

// globalString reads "-> STRING" of a global clause.
func (p *parser) globalString(clause string) string {
	p.assignOr("Expecting -> in " + clause + " clause")
	t := p.peek()
	if t.kind != tString {
		p.failf("Expecting %s string in %s clause", clause, clause)
	}
	p.next()
	return t.text
}

func (p *parser) needV3(clause string) {
	if p.outVer < 3 {
		p.failf("Global %s clause requires output archive version of 3 or greater", clause)
	}
}

// globalChange records a global clause's new value v (the input's is
// old) in *dst, with the real tool's checks.
func (p *parser) globalChange(flag int, clause, v, old string, dst *string) {
	g := &p.r.global
	if g.flags&flag != 0 {
		p.failf("Duplicate global %s clause", clause)
	}
	if v == old {
		if p.warn {
			p.warnf("Global %s (%s): No change", clause, old)
		}
		return
	}
	*dst = v
	g.flags |= flag
}

// clauses reads a rule's "{ clause ... }", each clause by each (which
// is given the clause's first token), and returns how many there were.
func (p *parser) clauses(each func(t token)) int {
	p.expect(tLBrace)
	for n := 0; ; n++ {
		t := p.next()
		if t.kind == tRBrace {
			return n
		}
		each(t)
	}
}

// assignOr takes "->", or fails with msg.
func (p *parser) assignOr(msg string) {
	if p.peek().kind != tAssign {
		p.fail(msg)
	}
	p.next()
}

// features reads NUMBER or BITS(n, ...).
func (p *parser) features() uint32 {
	t := p.peek()
	switch t.kind {
	case tNumber:
		p.next()
		return uint32(cnum.Strtoull(t.text))
	case tBits:
		p.next()
		p.expect(tLParen)
		var v uint32
		for {
			n := p.expect(tNumber)
			b := atoi(n.text)
			if b < 0 || b > 31 {
				p.failf("Bit \"%d\" not in the range 0..31", b)
			}
			v |= 1 << uint(b)
			if p.next().kind == tRParen {
				return v
			}
		}
	}
	p.fail("Expecting features value in features clause")
	return 0
}

func (p *parser) signTime() {
	neg := false
	t := p.peek()
	switch t.kind {
	case tPlus:
		p.next()
	case tMinus:
		p.next()
		neg = true
	case tNumber, tFloat:
	default:
		p.fail("Expecting delta of the form [+-][HH:[MM:]]SS[.d...] in time clause")
	}
	// up to three fields, the last may have a fraction
	var fields []token
	for {
		f := p.next()
		if f.kind != tNumber && f.kind != tFloat {
			p.syntax()
		}
		fields = append(fields, f)
		if f.kind == tFloat || len(fields) == 3 || p.peek().kind != tColon {
			break
		}
		p.next()
	}
	for _, f := range fields[:len(fields)-1] {
		if f.kind != tNumber {
			p.syntax()
		}
	}
	num := func(f token) int64 { return int64(atoi(f.text)) }
	last := fields[len(fields)-1]
	sec, nsec := int64(0), int64(0)
	fmin := func(m int64) {
		if m > 59 {
			p.warnf("Minutes (%d) in time clause more than 59", m)
		}
	}
	fsec := func() int64 {
		if last.kind == tFloat {
			f := cnum.Atof(last.text)
			if f > 59 {
				p.warnf("Seconds (%.6f) in time clause more than 59", f)
			}
			nsec = int64(1e9*(f-math.Trunc(f)) + 0.5)
			return int64(f)
		}
		s := num(last)
		if s > 59 {
			p.warnf("Seconds (%d) in time clause more than 59", s)
		}
		return s
	}
	switch len(fields) {
	case 3:
		fmin(num(fields[1]))
		sec = num(fields[0])*3600 + num(fields[1])*60 + fsec()
	case 2:
		fmin(num(fields[0]))
		sec = num(fields[0])*60 + fsec()
	default:
		sec = fsec()
	}
	g := &p.r.global
	if g.flags&gTime != 0 {
		p.fail("Duplicate global time clause")
	}
	if sec == 0 && nsec == 0 {
		if p.warn {
			p.warnf("Global time: No change")
		}
		return
	}
	if neg {
		sec = -sec
	}
	g.sec, g.nsec = sec, nsec
	g.flags |= gTime
}

// --- indom ---

// indomInt reads domain.serial or domain.* (p.starI says which).
func (p *parser) indomInt(t token) pmapi.InDom {
	switch t.kind {
	case tFloat:
		var dom, ser int
		n, _ := fmt.Sscanf(t.text, "%d.%d", &dom, &ser)
		if n < 2 {
			p.fail("Missing serial field for indom")
		}
		if dom < 1 || dom >= 511 {
			p.failf("Illegal domain field (%d) for indom", dom)
		}
		if ser < 0 || ser >= 4194304 {
			p.failf("Illegal serial field (%d) for indom", ser)
		}
		p.starI = false
		return pmapi.InDom(uint32(dom)<<22 | uint32(ser))
	case tIndomStar:
		var dom int
		fmt.Sscanf(t.text, "%d.", &dom)
		if dom < 1 || dom >= 511 {
			p.failf("Illegal domain field (%d) for indom", dom)
		}
		p.starI = true
		return pmapi.InDom(uint32(dom) << 22)
	}
	panic("indomInt: not an indom")
}

func isIndomTok(k tokKind) bool { return k == tFloat || k == tIndomStar }

// indomTarget reads the domain.serial (or domain.*) a text or label rule
// or clause names; anything else is a syntax error.
func (p *parser) indomTarget() pmapi.InDom {
	n := p.next()
	if !isIndomTok(n.kind) {
		p.syntax()
	}
	return p.indomInt(n)
}

// startInDom finds or makes the spec of an instance domain of the archive
// (nil, with a warning under -w, if the archive has none).
func (p *parser) startInDom(indom pmapi.InDom) *indomSpec {
	if ip := p.r.byInDom[indom]; ip != nil {
		return ip
	}
	insts, names, ok := archiveInsts(p.meta, indom)
	if !ok {
		if p.warn {
			p.warnf("Instance domain %s: %s", indom, pmapi.ErrStr(int32(pmapi.ErrInDomLog)))
		}
		return nil
	}
	ip := &indomSpec{old: indom, new: indom, insts: insts, names: names,
		flags: make([]int, len(insts)), newInst: make([]int32, len(insts)), newName: make([]string, len(insts))}
	p.r.indoms = append([]*indomSpec{ip}, p.r.indoms...)
	p.r.byInDom[indom] = ip
	return ip
}

func (p *parser) indomRule() {
	t := p.peek()
	if !isIndomTok(t.kind) {
		p.fail("Expecting <domain>.<serial> or <domain>.* in indom rule")
	}
	p.next()
	indom := p.indomInt(t)
	p.curInD = nil
	p.curStar = p.starI
	if p.starI {
		// (in the order libpcp's hash table of them walks)
		for _, k := range p.indomWalk() {
			if x := pmapi.InDom(k); x.Domain() == indom.Domain() {
				p.startInDom(x)
			}
		}
		// the rule walks the specs newest first, as the real one does
		for _, ip := range p.r.indoms {
			if ip.old.Domain() == indom.Domain() {
				p.curInD = append(p.curInD, ip)
			}
		}
	} else if ip := p.startInDom(indom); ip != nil {
		p.curInD = append(p.curInD, ip)
	}
	p.clauses(func(t token) {
		switch t.kind {
		case tIndom:
			p.assignOr("Expecting -> in indom clause")
			dup := false
			n := p.peek()
			if n.kind == tDuplicate {
				p.next()
				dup = true
				n = p.next()
				if !isIndomTok(n.kind) {
					p.syntax()
				}
			} else if !isIndomTok(n.kind) {
				p.fail("Expecting <domain>.<serial> or <domain>.* in indom clause")
			} else {
				p.next()
			}
			to := p.indomInt(n)
			for _, ip := range p.curInD {
				if head := p.r.indoms[0]; head.new != head.old {
					p.failf("Duplicate indom clause for indom %s", head.old)
				}
				// The new indom's form (domain.* keeps each old
				// serial) decides, not the rule's.
				x := to
				if p.starI {
					x = pmapi.InDom(uint32(to.Domain())<<22 | uint32(ip.old.Serial()))
				}
				if x != ip.old {
					ip.new = x
				} else if p.warn {
					p.warnf("Instance domain %s: indom: No change", ip.old)
				}
				ip.duplicate = ip.duplicate || dup
			}
		case tIname:
			o, n := p.instClause(tString, "external instance name string", "iname")
			for _, ip := range p.curInD {
				var nn *string
				if n.kind == tString {
					nn = &n.text
				}
				p.changeByName(ip, o.text, nn)
			}
		case tInst:
			o, n := p.instClause(tNumber, "internal instance identifier", "inst")
			old := int32(atoi(o.text))
			for _, ip := range p.curInD {
				if n.kind == tDelete {
					p.changeByInst(ip, old, pmapi.InstNull)
				} else {
					p.changeByInst(ip, old, int32(atoi(n.text)))
				}
			}
		default:
			p.syntax()
		}
	})
}

// instClause reads the rest of an iname or inst clause: the old
// instance (a token of kind k), "->", and the new one or DELETE.
func (p *parser) instClause(k tokKind, what, clause string) (old, new token) {
	if old = p.peek(); old.kind != k {
		p.failf("Expecting old %s in %s clause", what, clause)
	}
	p.next()
	p.assignOr("Expecting -> in " + clause + " clause")
	if new = p.peek(); new.kind != k && new.kind != tDelete {
		p.failf("Expecting new %s or DELETE in %s clause", what, clause)
	}
	p.next()
	return old, new
}

// findInst is the index in ip of the instance an iname or inst clause
// names (match), checked against the clauses before it (flag: the
// clause's own change; del: the clause deletes), or -1 with a warning
// (unknown, as the real tool words it) when there is none.
func (p *parser) findInst(ip *indomSpec, match func(i int) bool, flag int, del bool, unknown string) int {
	for i := range ip.insts {
		if !match(i) {
			continue
		}
		if del && ip.flags[i] != 0 || ip.flags[i]&(flag|instDelete) != 0 {
			p.failf("Duplicate or conflicting clauses for instance [%d] \"%s\" of indom %s", ip.insts[i], ip.names[i], ip.old)
		}
		return i
	}
	if p.warn {
		p.warnf("%s for indom %s", unknown, ip.old)
	}
	return -1
}

func (p *parser) changeByName(ip *indomSpec, old string, nw *string) {
	i := p.findInst(ip, func(i int) bool { return instNameEq(ip.names[i], old) }, instChangeName, nw == nil,
		fmt.Sprintf("Unknown instance \"%s\" in iname clause", old))
	switch {
	case i < 0:
	case nw == nil:
		ip.flags[i] |= instDelete
	case ip.names[i] == *nw:
		if p.warn {
			p.warnf("Instance domain %s: Instance: \"%s\": No change", ip.old, ip.names[i])
		}
	default:
		ip.flags[i] |= instChangeName
		ip.newName[i] = *nw
	}
}

func (p *parser) changeByInst(ip *indomSpec, old, nw int32) {
	i := p.findInst(ip, func(i int) bool { return ip.insts[i] == old }, instChangeInst, nw == pmapi.InstNull,
		fmt.Sprintf("Unknown instance %d in inst clause", old))
	switch {
	case i < 0:
	case nw == pmapi.InstNull:
		ip.flags[i] |= instDelete
	case ip.insts[i] == nw:
		if p.warn {
			p.warnf("Instance domain %s: Instance: %d: No change", ip.old, ip.insts[i])
		}
	default:
		ip.flags[i] |= instChangeInst
		ip.newInst[i] = nw
	}
}

// --- metric ---

// startMetric finds or makes the spec of a metric of the archive (nil,
// with a warning under -w, if the archive has no such metric).
func (p *parser) startMetric(pmid pmapi.PMID) *metricSpec {
	if mp := p.r.byPMID[pmid]; mp != nil {
		return mp
	}
	names := p.meta.Names(pmid)
	d, ok := p.meta.Desc(pmid)
	if len(names) == 0 || !ok {
		if p.warn {
			p.warnf("Metric %s pmNameID: Unknown or illegal metric identifier", pmid)
		}
		return nil
	}
	mp := &metricSpec{oldName: names[0], old: *d, new: *d}
	p.r.metrics = append([]*metricSpec{mp}, p.r.metrics...)
	p.r.byPMID[pmid] = mp
	return mp
}

func (p *parser) pmidInt(t token) pmapi.PMID {
	var dom, clu, item int
	switch t.kind {
	case tPMIDInt:
		fmt.Sscanf(t.text, "%d.%d.%d", &dom, &clu, &item)
		p.checkDomain(dom)
		if clu < 0 || clu >= 4096 {
			p.failf("Illegal cluster field (%d) for pmid", clu)
		}
		if item < 0 || item >= 1024 {
			p.failf("Illegal item field (%d) for pmid", item)
		}
		p.starM = 0
	case tPMIDStar:
		n, _ := fmt.Sscanf(t.text, "%d.%d.", &dom, &clu)
		p.checkDomain(dom)
		if n == 2 {
			if clu >= 4096 {
				p.failf("Illegal cluster field (%d) for pmid", clu)
			}
			p.starM = 1
		} else {
			clu = 0
			p.starM = 2
		}
	}
	return pmapi.PMID(uint32(dom)<<22 | uint32(clu)<<10 | uint32(item))
}

// starPMID is the new PMID for old that a clause's target to gives when
// its form is domain.cluster.* (star 1: old's item) or domain.*.*
// (star 2: old's cluster and item).
func starPMID(to, old pmapi.PMID, star int) pmapi.PMID {
	switch star {
	case 1:
		return pmapi.PMID(uint32(to)&^0x3ff | uint32(old.Item()))
	case 2:
		return pmapi.PMID(uint32(to.Domain())<<22 | uint32(old)&0x3fffff)
	}
	return to
}

// pmidTarget reads the domain.cluster.item (or with *) of a clause.
func (p *parser) pmidTarget() pmapi.PMID {
	to := p.next()
	if to.kind != tPMIDInt && to.kind != tPMIDStar {
		p.syntax()
	}
	return p.pmidInt(to)
}

func (p *parser) checkDomain(dom int) {
	if dom < 1 || dom > 511 {
		p.failf("Illegal domain field (%d) for pmid", dom)
	}
	if dom == 511 {
		p.warnf("Dynamic metric domain field (%d) for pmid", dom)
	}
}

func (p *parser) metricRule() {
	t := p.peek()
	p.curMet = nil
	switch t.kind {
	case tPMIDInt, tPMIDStar:
		p.next()
		pmid := p.pmidInt(t)
		if p.starM != 0 {
			in := func(x pmapi.PMID) bool {
				return x.Domain() == pmid.Domain() && (p.starM == 2 || x.Cluster() == pmid.Cluster())
			}
			for _, k := range pmidWalk(p.meta) {
				if in(pmapi.PMID(k)) {
					p.startMetric(pmapi.PMID(k))
				}
			}
			// the rule walks the specs newest first, as the real one does
			for _, mp := range p.r.metrics {
				if in(mp.old.PMID) {
					p.curMet = append(p.curMet, mp)
				}
			}
		} else if mp := p.startMetric(pmid); mp != nil {
			p.curMet = append(p.curMet, mp)
		}
	case tGName:
		p.next()
		p.starM = 0
		if pmid, ok := p.meta.Lookup(t.text); ok {
			if mp := p.startMetric(pmid); mp != nil {
				p.curMet = append(p.curMet, mp)
			}
		} else if p.warn {
			p.warnf("Metric: %s: Unknown metric name", t.text)
		}
	default:
		p.fail("Expecting metric name or <domain>.<cluster>.<item> or <domain>.<cluster>.* or <domain>.*.* in metric rule")
	}
	p.clauses(func(t token) {
		switch t.kind {
		case tPMID:
			p.expect(tAssign)
			n := p.peek()
			if n.kind != tPMIDInt && n.kind != tPMIDStar {
				p.fail("Expecting <domain>.<cluster>.<item> or <domain>.<cluster>.* or <domain>.*.* in pmid clause")
			}
			p.next()
			// The new PMID's form decides what is kept of each old
			// one (domain.cluster.* its item, domain.*.* its cluster
			// and item), not the rule's.
			ruleStar := p.starM
			to := p.pmidInt(n)
			toStar := p.starM
			p.starM = ruleStar
			for _, mp := range p.walk(mChangePMID, "pmid", false) {
				x := starPMID(to, mp.old.PMID, toStar)
				if x == mp.old.PMID {
					if p.warn {
						p.warnf("Metric: %s (%s): pmid: No change", mp.oldName, mp.old.PMID)
					}
					continue
				}
				mp.new.PMID = x
				mp.flags |= mChangePMID
			}
		case tName:
			p.expect(tAssign)
			n := p.peek()
			if n.kind != tGName {
				p.fail("Expecting metric name in iname clause")
			}
			p.next()
			for _, mp := range p.walk(mChangeName, "name", false) {
				if n.text == mp.oldName {
					if p.warn {
						p.warnf("Metric: %s (%s): name: No change", mp.oldName, mp.old.PMID)
					}
					continue
				}
				if pmid, ok := p.meta.Lookup(n.text); ok {
					p.failf("Metric name %s already assigned for PMID %s", n.text, pmid)
				}
				mp.newName = n.text
				mp.flags |= mChangeName
			}
		case tType:
			p.typeClause()
		case tIndom:
			p.metricInDom()
		case tSem:
			p.expect(tAssign)
			n := p.peek()
			if n.kind != tSemName {
				p.fail("Expecting XXX (from PM_SEM_XXX) in sem clause")
			}
			p.next()
			for _, mp := range p.walk(mChangeSem, "sem", false) {
				if pmapi.Sem(n.ival) == mp.old.Sem {
					if p.warn {
						p.warnf("Metric: %s (%s): sem: %s: No change", mp.oldName, mp.old.PMID, mp.old.Sem)
					}
					continue
				}
				mp.new.Sem = pmapi.Sem(n.ival)
				mp.flags |= mChangeSem
			}
		case tUnits:
			p.unitsClause()
		case tDelete:
			for _, mp := range p.walk(mDelete, "delete", false) {
				mp.flags |= mDelete
			}
		default:
			p.syntax()
		}
	})
}

// walk is the metric rule's specs, checked for a clause of the given
// flag as the real tool checks them.
func (p *parser) walk(flag int, which string, dupOK bool) []*metricSpec {
	for _, mp := range p.curMet {
		if !dupOK && mp.flags&flag != 0 {
			p.failf("Duplicate %s clause for metric %s", which, mp.oldName)
		}
		if flag != mDelete {
			if mp.flags&mDelete != 0 {
				p.failf("Conflicting %s clause for deleted metric %s", which, mp.oldName)
			}
		} else if mp.flags&^mDelete != 0 {
			p.failf("Conflicting delete and other clauses for metric %s", mp.oldName)
		}
	}
	return p.curMet
}

func isNumericType(t pmapi.Type) bool {
	switch t {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble:
		return true
	}
	return false
}

func (p *parser) typeClause() {
	t := p.peek()
	cond, hasCond := pmapi.Type(0), false
	switch t.kind {
	case tAssign:
		p.next()
	case tIf:
		p.next()
		c := p.peek()
		if c.kind != tTypeName {
			p.fail("Expecting XXX (from PM_TYPE_XXX) after if in type clause")
		}
		p.next()
		cond, hasCond = pmapi.Type(c.ival), true
		p.expect(tAssign)
	default:
		p.syntax()
	}
	n := p.peek()
	if n.kind != tTypeName {
		p.fail("Expecting XXX (from PM_TYPE_XXX) in type clause")
	}
	p.next()
	to := pmapi.Type(n.ival)
	for _, mp := range p.walk(mChangeType, "type", hasCond) {
		if hasCond {
			if mp.old.Type != cond {
				if p.warn {
					p.warnf("Metric: %s (%s): type: PM_TYPE_%s: No conditional change to PM_TYPE_%s", mp.oldName, mp.old.PMID, mp.old.Type, to)
				}
				continue
			}
		} else if to == mp.old.Type {
			if p.warn {
				p.warnf("Metric: %s (%s): type: PM_TYPE_%s: No change", mp.oldName, mp.old.PMID, mp.old.Type)
			}
			continue
		}
		if !isNumericType(mp.old.Type) {
			p.failf("Old type (PM_TYPE_%s) must be numeric", mp.old.Type)
		}
		mp.new.Type = to
		mp.flags |= mChangeType
	}
}

func (p *parser) metricInDom() {
	p.expect(tAssign)
	n := p.peek()
	var to pmapi.InDom
	star := false
	switch {
	case n.kind == tNull:
		p.next()
		to = pmapi.InDomNull
	case isIndomTok(n.kind):
		p.next()
		to = p.indomInt(n)
		star = p.starI
	default:
		p.fail("Expecting <domain>.<serial> or NULL in indom clause")
	}
	output, oneInst := outAll, int32(0)
	var oneName *string
	if p.peek().kind == tOutput {
		p.next()
		o := p.next()
		switch o.kind {
		case tInst:
			v := p.expect(tNumber)
			output, oneInst = outOne, int32(atoi(v.text))
		case tIname:
			s := p.expect(tString)
			output, oneInst, oneName = outOne, pmapi.InstNull, &s.text
		case tOutputType:
			output = o.ival
		default:
			p.fail("Expecting FIRST or LAST or INST or INAME or MIN or MAX or AVG for OUTPUT instance option")
		}
	}
	for _, mp := range p.walk(mChangeInDom, "indom", false) {
		x := to
		if star {
			x = pmapi.InDom(uint32(to.Domain())<<22 | uint32(mp.old.InDom.Serial()))
		}
		if x == mp.old.InDom {
			if p.warn {
				p.warnf("Metric: %s (%s): indom: %s: No change", mp.oldName, mp.old.PMID, mp.old.InDom)
			}
			continue
		}
		if (output == outMin || output == outMax || output == outSum || output == outAvg) && !isNumericType(mp.old.Type) {
			p.failf("OUTPUT option MIN, MAX, AVG or SUM requires type to be numeric, not PM_TYPE_%s", mp.old.Type)
		}
		mp.new.InDom = x
		mp.flags |= mChangeInDom
		mp.output = output
		if output == outOne {
			mp.oneName, mp.oneInst = oneName, oneInst
			if mp.old.InDom == pmapi.InDomNull {
				mp.output = outFirst
			}
		}
		if output == outAll {
			switch {
			case mp.old.InDom != pmapi.InDomNull && x == pmapi.InDomNull:
				mp.output, mp.oneInst = outFirst, pmapi.InstNull
			case mp.old.InDom == pmapi.InDomNull && x != pmapi.InDomNull:
				mp.output, mp.oneInst = outFirst, 0
			}
		}
	}
}

func (p *parser) signNumber(t token) int {
	switch t.kind {
	case tPlus:
		return atoi(p.expect(tNumber).text)
	case tMinus:
		return -atoi(p.expect(tNumber).text)
	case tNumber:
		return atoi(t.text)
	}
	p.syntax()
	return 0
}

func (p *parser) unitsClause() {
	p.expect(tAssign)
	var dim [3]int
	for k := range dim {
		t := p.peek()
		if k == 0 && t.kind != tPlus && t.kind != tMinus && t.kind != tNumber {
			p.fail("Expecting 3 numeric values for dim* fields of units")
		}
		p.next()
		dim[k] = p.signNumber(t)
		p.expect(tComma)
	}
	sp := p.peek()
	if sp.kind != tSpaceName {
		p.fail("Expecting 0 or XXX (from PM_SPACE_XXX) for scaleSpace field of units")
	}
	p.next()
	p.expect(tComma)
	tm := p.peek()
	if tm.kind != tTimeName {
		p.fail("Expecting 0 or XXX (from PM_TIME_XXX) for scaleTime field of units")
	}
	p.next()
	p.expect(tComma)
	ct := p.peek()
	if ct.kind != tCountName {
		p.fail("Expecting 0 or ONE for scaleCount field of units")
	}
	p.next()
	rescale := false
	if p.peek().kind == tRescale {
		p.next()
		rescale = true
	}
	u := pmapi.Units{DimSpace: int8(dim[0]), DimTime: int8(dim[1]), DimCount: int8(dim[2]),
		ScaleSpace: uint8(sp.ival), ScaleTime: uint8(tm.ival), ScaleCount: uint8(ct.ival)}
	for _, mp := range p.walk(mChangeUnits, "units", false) {
		o := mp.old.Units
		if o.DimSpace == u.DimSpace && o.DimTime == u.DimTime && o.DimCount == u.DimCount &&
			o.ScaleSpace == u.ScaleSpace && o.ScaleTime == u.ScaleTime && o.ScaleCount == u.ScaleCount {
			if p.warn {
				p.warnf("Metric: %s (%s): units: %s: No change", mp.oldName, mp.old.PMID, o.String())
			}
			continue
		}
		mp.new.Units = u
		mp.flags |= mChangeUnits
		sameDim := o.DimSpace == u.DimSpace && o.DimTime == u.DimTime && o.DimCount == u.DimCount
		if rescale {
			if sameDim {
				mp.flags |= mRescale
			} else if p.warn {
				p.warnf("Metric: %s (%s): Dimension changed, cannot rescale", mp.oldName, mp.old.PMID)
			}
		} else if p.scale && sameDim {
			mp.flags |= mRescale
		}
	}
}

// atoi is C's atoi: strtol's value, as an int.
func atoi(s string) int {
	v, _ := cnum.Strtol(s)
	return int(int32(v))
}

// indomWalk is the archive's instance domains in the order a walk of
// libpcp's hash table of them gives (each added at its first record).
func (p *parser) indomWalk() []uint32 {
	o := lhash.New()
	for _, x := range p.meta.InDomOrder {
		o.Add(uint32(x))
	}
	return o.Keys()
}

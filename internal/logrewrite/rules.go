package logrewrite

import (
	"fmt"
	"io"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/lhash"
	"github.com/pcpkit/pcpkit/pmapi"
)

// The rewriting rules, as the real tool holds them once its
// configuration files are read: one spec per instance domain and per
// metric that a rule names (or that a rule's change reaches), built
// against the input archive's metadata.

// global clause flags
const (
	gHostname = 1 << iota
	gTZ
	gTime
	gZoneinfo
	gFeatures
)

type globalSpec struct {
	flags    int
	hostname string
	tz       string
	zoneinfo string
	features uint32
	// the time delta: sec may be negative, nsec is never (a negative
	// delta is -(|sec| + nsec), as the real parser leaves it)
	sec  int64
	nsec int64
}

// instance change flags
const (
	instChangeInst = 1 << iota
	instChangeName
	instDelete
)

type indomSpec struct {
	old, new  pmapi.InDom
	duplicate bool
	insts     []int32 // every instance the archive has for old
	names     []string
	flags     []int
	newInst   []int32
	newName   []string
}

// changed reports whether any instance is renumbered, renamed or deleted.
func (ip *indomSpec) changed() bool {
	for _, f := range ip.flags {
		if f != 0 {
			return true
		}
	}
	return false
}

// metric change flags
const (
	mChangePMID = 1 << iota
	mChangeName
	mChangeType
	mChangeInDom
	mChangeSem
	mChangeUnits
	mDelete
	mRescale
)

type metricSpec struct {
	oldName  string
	newName  string
	old, new pmapi.Desc
	flags    int
	output   int
	oneInst  int32
	oneName  *string
	ip       *indomSpec // the instance changes of its instance domain
}

// rules is a parsed configuration.
type rules struct {
	global  globalSpec
	indoms  []*indomSpec  // newest first, as the real tool's list
	metrics []*metricSpec // newest first
	texts   []*textSpec   // newest first
	labels  []*labelSpec  // newest first
	byPMID  map[pmapi.PMID]*metricSpec
	byInDom map[pmapi.InDom]*indomSpec
}

func newRules() *rules {
	return &rules{byPMID: map[pmapi.PMID]*metricSpec{}, byInDom: map[pmapi.InDom]*indomSpec{}}
}

// archiveInsts is every instance an instance domain has in the archive,
// newest state first, each once (libpcp's pmGetInDomArchive).
func archiveInsts(m *archive.Meta, indom pmapi.InDom) ([]int32, []string, bool) {
	h := m.InDomHistory(indom)
	if len(h) == 0 {
		return nil, nil, false
	}
	seen := map[int32]bool{}
	var insts []int32
	var names []string
	for k := len(h) - 1; k >= 0; k-- {
		for i, x := range h[k].Insts {
			if !seen[x] {
				seen[x] = true
				insts = append(insts, x)
				names = append(names, h[k].Names[i])
			}
		}
	}
	return insts, names, true
}

// instNameEq compares instance names as PCP does: up to the first space.
func instNameEq(a, b string) bool {
	i := 0
	for {
		ae := i >= len(a) || a[i] == ' '
		be := i >= len(b) || b[i] == ' '
		if ae || be {
			return ae && be
		}
		if a[i] != b[i] {
			return false
		}
		i++
	}
}

// anyChange reports whether the rules change anything (-q).
func (r *rules) anyChange() bool {
	if r.global.flags != 0 {
		return true
	}
	for _, ip := range r.indoms {
		if ip.new != ip.old || ip.changed() {
			return true
		}
	}
	for _, mp := range r.metrics {
		if mp.flags != 0 || mp.ip != nil {
			return true
		}
	}
	for _, lp := range r.labels {
		if lp.flags != 0 || lp.ip != nil {
			return true
		}
	}
	for _, tp := range r.texts {
		if tp.flags != 0 || tp.ip != nil {
			return true
		}
	}
	return false
}

// metricFor finds or makes the spec of a metric the archive has (nil if
// it has none).
func (r *rules) metricFor(m *archive.Meta, pmid pmapi.PMID) *metricSpec {
	if mp := r.byPMID[pmid]; mp != nil {
		return mp
	}
	names := m.Names(pmid)
	d, ok := m.Desc(pmid)
	if len(names) == 0 || !ok {
		return nil
	}
	mp := &metricSpec{oldName: names[0], old: *d, new: *d}
	r.metrics = append([]*metricSpec{mp}, r.metrics...)
	r.byPMID[pmid] = mp
	return mp
}

// link ties the rules together once every file is read, and checks them
// as a whole, as the real tool does (a "Semantic error" names the last
// file read): the metrics of an instance domain with changed instances
// take those changes, and its new number; the new instance domain of a
// metric must be in the output; the instances of a changed domain must
// stay unique.
func (r *rules) link(m *archive.Meta, file string, line int, warn bool, stderr io.Writer) error {
	semantic := func(format string, args ...any) error {
		return &cfgError{file: file, msg: fmt.Sprintf(format, args...), semantic: true}
	}
	for _, ip := range r.indoms {
		change := ip.changed()
		if !change && ip.new == ip.old {
			continue
		}
		for _, k := range pmidWalk(m) {
			mp := r.metricFor(m, pmapi.PMID(k))
			if mp == nil || mp.old.InDom != ip.old {
				continue
			}
			if change {
				mp.ip = ip
			}
			if ip.new != ip.old {
				if mp.flags&mChangeInDom != 0 {
					if mp.new.InDom != ip.new {
						return semantic("Conflicting indom change for metric %s (%s from metric clause, %s from indom clause)", mp.oldName, mp.new.InDom, ip.new)
					}
				} else {
					mp.flags |= mChangeInDom
					mp.new.InDom = ip.new
				}
			}
		}
	}
	if err := r.linkTexts(m, semantic); err != nil {
		return err
	}
	if err := r.linkLabels(m, semantic); err != nil {
		return err
	}
	for _, mp := range r.metrics {
		if mp.ip != nil || mp.flags&mChangeInDom == 0 || mp.new.InDom == pmapi.InDomNull {
			continue
		}
		if !r.inOutput(m, mp.old.InDom, mp.new.InDom) {
			return semantic("New indom (%s) for metric %s is not in the output archive", mp.new.InDom, mp.oldName)
		}
	}
	if err := r.checkTexts(m, semantic); err != nil {
		return err
	}
	if err := r.checkLabels(m, semantic); err != nil {
		return err
	}
	for _, ip := range r.indoms {
		inst := func(i int) (int32, string) {
			x, n := ip.insts[i], ip.names[i]
			if ip.flags[i]&instChangeInst != 0 {
				x = ip.newInst[i]
			}
			if ip.flags[i]&instChangeName != 0 {
				n = ip.newName[i]
			}
			return x, n
		}
		for i := range ip.insts {
			xi, ni := inst(i)
			for j := range ip.insts {
				if i == j {
					continue
				}
				xj, nj := inst(j)
				if xi == xj {
					return semantic("Duplicate instance id %d (\"%s\" and \"%s\") for indom %s", xi, ni, nj, ip.old)
				}
				if instNameEq(ni, nj) {
					return semantic("Duplicate instance name \"%s\" (%d) and \"%s\" (%d) for indom %s", ni, xi, nj, xj, ip.old)
				}
			}
		}
	}
	// OUTPUT INAME "name": the instance number it picks
	for _, mp := range r.metrics {
		if mp.flags&mChangeInDom == 0 || mp.output != outOne && mp.output != outFirst {
			continue
		}
		find := func(indom pmapi.InDom, which string) {
			insts, names, _ := archiveInsts(m, indom)
			for i := range insts {
				if mp.oneName != nil {
					if instNameEq(names[i], *mp.oneName) {
						mp.oneName, mp.oneInst = nil, insts[i]
						return
					}
				} else if insts[i] == mp.oneInst {
					return
				}
			}
			if warn {
				what := fmt.Sprintf("%d", mp.oneInst)
				if mp.oneName != nil {
					what = fmt.Sprintf("\"%s\"", *mp.oneName)
				}
				// (the line is where the last file ended)
				fmt.Fprintf(stderr, "Warning [%s, line %d]\nInstance %s from OUTPUT clause not found in %s indom %s\n", file, line, what, which, indom)
			}
		}
		if mp.old.InDom != pmapi.InDomNull && mp.output == outOne {
			find(mp.old.InDom, "old")
		}
		if mp.new.InDom != pmapi.InDomNull {
			find(mp.new.InDom, "new")
			if mp.old.InDom == pmapi.InDomNull && mp.oneInst == pmapi.InstNull {
				mp.oneInst = 0
			}
		}
	}
	return nil
}

// report prints the summary of -v and -C: global, instance domain,
// metric, help text and label set changes; namesOf gives a metric's
// names in the input archive.
func (r *rules) report(w io.Writer, in *archive.Label, namesOf func(pmapi.PMID) []string) {
	if is638() {
		fmt.Fprintf(w, "PCP Archive Rewrite Specifications Summary\n")
	} else {
		fmt.Fprintf(w, "PCP Archive Log Rewrite Specifications Summary\n")
	}
	change := r.global.flags != 0
	g := &r.global
	if g.flags&gHostname != 0 {
		fmt.Fprintf(w, "Hostname:\t%s -> %s\n", in.Hostname, g.hostname)
	}
	if g.flags&gTZ != 0 {
		fmt.Fprintf(w, "Timezone:\t%s -> %s\n", in.TZ, g.tz)
	}
	if g.flags&gZoneinfo != 0 {
		fmt.Fprintf(w, "Zoneinfo:\t%s -> %s\n", in.Zoneinfo, g.zoneinfo)
	}
	if g.flags&gTime != 0 {
		sign, s := "", g.sec
		if s < 0 {
			sign, s = "-", -s
		}
		h := s / 3600
		if h < 10 {
			fmt.Fprintf(w, "Delta:\t\t-> %s%02d:%02d:%02d.%09d\n", sign, h, s/60%60, s%60, g.nsec)
		} else {
			fmt.Fprintf(w, "Delta:\t\t-> %s%d:%02d:%02d.%09d\n", sign, h, s/60%60, s%60, g.nsec)
		}
	}
	if g.flags&gFeatures != 0 {
		fmt.Fprintf(w, "Features:\t%d -> %d\n", int32(in.Features), int32(g.features))
	}
	for _, ip := range r.indoms {
		hdr := false
		if ip.new != ip.old {
			fmt.Fprintf(w, "\nInstance Domain: %s\n", ip.old)
			hdr = true
			fmt.Fprintf(w, "pmInDom:\t-> %s\n", ip.new)
			change = true
		}
		for i, f := range ip.flags {
			if f == 0 {
				continue
			}
			change = true
			if !hdr {
				fmt.Fprintf(w, "\nInstance Domain: %s\n", ip.old)
				hdr = true
			}
			fmt.Fprintf(w, "Instance:\t[%d] \"%s\" -> ", ip.insts[i], ip.names[i])
			if f&instDelete != 0 {
				fmt.Fprintf(w, "DELETE\n")
				continue
			}
			x, n := ip.insts[i], ip.names[i]
			if f&instChangeInst != 0 {
				x = ip.newInst[i]
			}
			if f&instChangeName != 0 {
				n = ip.newName[i]
			}
			fmt.Fprintf(w, "[%d] \"%s\"\n", x, n)
		}
	}
	for _, mp := range r.metrics {
		if mp.flags != 0 || mp.ip != nil {
			change = true
			if names := namesOf(mp.old.PMID); is638() && len(names) > 1 {
				fmt.Fprintf(w, "\nMetrics: %s (%s)\n", names638(names), mp.old.PMID)
			} else {
				fmt.Fprintf(w, "\nMetric: %s (%s)\n", mp.oldName, mp.old.PMID)
			}
		}
		if mp.flags&mChangePMID != 0 {
			fmt.Fprintf(w, "pmID:\t\t%s -> %s\n", mp.old.PMID, mp.new.PMID)
		}
		if mp.flags&mChangeName != 0 {
			fmt.Fprintf(w, "Name:\t\t%s -> %s\n", mp.oldName, mp.newName)
		}
		if mp.flags&mChangeType != 0 {
			fmt.Fprintf(w, "Type:\t\t%s -> %s\n", mp.old.Type, mp.new.Type)
		}
		if mp.flags&mChangeInDom != 0 {
			fmt.Fprintf(w, "InDom:\t\t%s -> %s\n", mp.old.InDom, mp.new.InDom)
			if mp.output != outAll {
				fmt.Fprintf(w, "Output:\t\t%s\n", mp.outputText())
			}
		}
		if mp.ip != nil {
			fmt.Fprintf(w, "Inst Changes:\t<- InDom %s\n", mp.ip.old)
		}
		if mp.flags&mChangeSem != 0 {
			fmt.Fprintf(w, "Semantics:\t%s -> %s\n", mp.old.Sem, mp.new.Sem)
		}
		if mp.flags&mChangeUnits != 0 {
			fmt.Fprintf(w, "Units:\t\t%s -> %s", mp.old.Units, mp.new.Units)
			if mp.flags&mRescale != 0 {
				fmt.Fprintf(w, " (rescale)")
			}
			fmt.Fprintln(w)
		}
		if mp.flags&mDelete != 0 {
			fmt.Fprintf(w, "DELETE\n")
		}
	}
	if r.reportTexts(w) {
		change = true
	}
	if r.reportLabels(w) {
		change = true
	}
	if !change {
		fmt.Fprintf(w, "No changes\n")
	}
}

// outputText is how -v describes an OUTPUT pick.
func (mp *metricSpec) outputText() string {
	multi := mp.old.InDom != pmapi.InDomNull
	switch mp.output {
	case outOne:
		if multi {
			t := "value for instance"
			if mp.oneInst != pmapi.InstNull {
				t += fmt.Sprintf(" %d", mp.oneInst)
			}
			if mp.oneName != nil {
				t += fmt.Sprintf(" \"%s\"", *mp.oneName)
			}
			return t
		}
		return fmt.Sprintf("the only value (output instance %d)", mp.oneInst)
	case outFirst:
		if multi {
			return "first value"
		}
		if mp.oneInst != pmapi.InstNull || mp.oneName == nil {
			return fmt.Sprintf("first and only value (output instance %d)", mp.oneInst)
		}
		return fmt.Sprintf("first and only value (output instance \"%s\")", *mp.oneName)
	}
	names := map[int][2]string{
		outLast: {"last value", "last and only value"},
		outMin:  {"smallest value", "smallest and only value"},
		outMax:  {"largest value", "largest and only value"},
		outSum:  {"sum value (output instance %d)", "sum and only value"},
		outAvg:  {"average value (output instance %d)", "average and only value"},
	}
	n := names[mp.output]
	if multi {
		if strings.Contains(n[0], "%d") {
			return fmt.Sprintf(n[0], mp.oneInst)
		}
		return n[0]
	}
	return fmt.Sprintf("%s (output instance %d)", n[1], mp.oneInst)
}

// pmidWalk is the archive's metrics in the order a walk of libpcp's hash
// table of them gives (each added at its descriptor).
func pmidWalk(m *archive.Meta) []uint32 {
	o := lhash.New()
	for _, d := range m.Descs {
		o.Add(uint32(d.PMID))
	}
	return o.Keys()
}

// typeIndex is a libpcp index of metadata by type, then identifier (the
// archive's help texts or label sets): the types in the order a walk of
// its hash table of them gives, and for each type its identifiers
// likewise (each added when first seen).
type typeIndex struct {
	types  []uint32
	idents map[uint32][]uint32
	outer  *lhash.Order
	inner  map[uint32]*lhash.Order
}

func newTypeIndex() *typeIndex {
	return &typeIndex{idents: map[uint32][]uint32{}, outer: lhash.New(), inner: map[uint32]*lhash.Order{}}
}

// add notes a record of type typ for ident.
func (x *typeIndex) add(typ, ident uint32) {
	if x.inner[typ] == nil {
		x.outer.Add(typ)
		x.inner[typ] = lhash.New()
	}
	x.inner[typ].Add(ident)
}

// done fixes the walk orders once every record is added.
func (x *typeIndex) done() {
	x.types = x.outer.Keys()
	for typ, o := range x.inner {
		x.idents[typ] = o.Keys()
	}
}

// specState is what a help text or label set spec holds for the rules
// that name it.
type specState struct {
	flags  int        // its changes
	active bool       // named by the rule being read
	ip     *indomSpec // the instance changes of its instance domain
}

func (s *specState) state() *specState { return s }

// ruleSpec is a help text or label set spec, as a rule's clauses walk
// them.
type ruleSpec interface {
	comparable
	state() *specState
	// describe names the spec in the walk's messages ("label for
	// domain 0", "unknown text for metric 2.1.16")
	describe() string
}

// walkSpecs is the specs a clause of the current rule applies to (the
// active ones of all when the rule named several, else cur), checked as
// the real tool's walk_text and walk_label check them (flag: the
// clause's change; del and active: the delete and active flags). The
// real tool takes each spec out of the rule as a clause reaches it, so
// only a rule's first clause does anything, and after a rule that named
// one spec a second clause fails its assertion (assert). A rule with no
// clause walks with the active flag; the walk's next steps then check
// as a clause of no name.
func walkSpecs[S ruleSpec](p *parser, all []S, cur S, several bool, flag, del, active int, which, assert string) []S {
	var none S
	var out []S
	if several {
		for _, sp := range all {
			if sp.state().active {
				out = append(out, sp)
			}
		}
	} else if cur != none {
		if !cur.state().active {
			panic(abort{&cfgError{assert: assert}})
		}
		out = append(out, cur)
	}
	for i, sp := range out {
		st := sp.state()
		st.active = false
		if i > 0 && flag == active {
			flag, which = 0, ""
		}
		if st.flags&flag != 0 {
			p.failf("Duplicate %s clause for %s", which, sp.describe())
		}
		if flag != del {
			if st.flags&del != 0 {
				p.failf("Conflicting %s clause for deleted %s", which, sp.describe())
			}
		} else if st.flags&^del != 0 {
			p.failf("Conflicting delete and other clauses for %s", sp.describe())
		}
	}
	return out
}

// names638 is how PCP 6.3.8's report names a metric with several names
// ("Metrics: B [A]" for the names A and B, in the archive's order): the
// last, then the others from the last but one back, in brackets. Only
// two names have been seen (the sample archive's dupnames); the order
// for more is inferred.
func names638(names []string) string {
	var b strings.Builder
	b.WriteString(names[len(names)-1])
	b.WriteString(" [")
	for i := len(names) - 2; i >= 0; i-- {
		b.WriteString(names[i])
		if i > 0 {
			b.WriteByte(' ')
		}
	}
	b.WriteByte(']')
	return b.String()
}

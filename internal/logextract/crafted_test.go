package logextract

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Crafted archives: small Version 2 archives written with archive.Writer
// that tell apart the rules the real pmlogextract follows (each was used
// to find one). The interop test runs both tools on them.

type crafter struct {
	t *testing.T
	w *archive.Writer
}

var (
	cSingle = pmapi.NewPMID(245, 0, 1)
	cMulti  = pmapi.NewPMID(245, 0, 2)
	cMulti2 = pmapi.NewPMID(245, 0, 9)
	cS2     = pmapi.NewPMID(245, 0, 5)
	cZ1     = pmapi.NewPMID(246, 0, 1)
	cZ2     = pmapi.NewPMID(246, 0, 2)
	cInDom  = pmapi.NewInDom(245, 1)
)

func cts(s float64) pmapi.Timestamp {
	sec := int64(s)
	return pmapi.Timestamp{Sec: sec, Nsec: int32((s-float64(sec))*1e9 + 0.5)}
}

func newCrafter(t *testing.T, base string, start float64) *crafter {
	t.Helper()
	w, err := archive.Create(base, archive.WriterOptions{Version: 2, Hostname: "h", TZ: "UTC", Start: cts(start), FullInDoms: true})
	if err != nil {
		t.Fatal(err)
	}
	return &crafter{t: t, w: w}
}

func (c *crafter) must(err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatal(err)
	}
}

func (c *crafter) desc(p pmapi.PMID, indom pmapi.InDom, name string) {
	c.must(c.w.PutDesc(pmapi.Desc{PMID: p, Type: pmapi.TypeU32, InDom: indom, Sem: pmapi.SemInstant}, []string{name}))
}

func (c *crafter) descs() {
	c.desc(cSingle, pmapi.InDomNull, "x.single")
	c.desc(cMulti, cInDom, "x.multi")
}

func (c *crafter) indom(t float64, insts ...int32) {
	r := &archive.InDomRecord{Stamp: cts(t), InDom: cInDom, Insts: insts}
	for _, i := range insts {
		r.Names = append(r.Names, fmt.Sprintf("i%d", i))
	}
	c.must(c.w.PutInDom(r))
}

func (c *crafter) label(t float64, typ, ident uint32, inst int32, json string) {
	c.must(c.w.PutLabels(&archive.LabelRecord{Stamp: cts(t), Type: typ, Ident: ident, Sets: []archive.LabelSet{{Inst: inst, JSON: json,
		Labels: []archive.LabelEntry{{NameOff: 2, NameLen: 1, ValueOff: 5, ValueLen: len(json) - 6}}}}}))
}

// vs is a value set of pmid with a value per instance (inst -1 alone for
// a singular metric).
func vs(p pmapi.PMID, insts ...int32) pmapi.ValueSet {
	v := pmapi.ValueSet{PMID: p, NumVal: int32(len(insts))}
	for _, i := range insts {
		v.Values = append(v.Values, pmapi.Value{Inst: i, Insitu: 5})
	}
	return v
}

func (c *crafter) put(t float64, sets ...pmapi.ValueSet) {
	c.must(c.w.PutResult(&pmapi.Result{Timestamp: cts(t), VSets: sets}))
}

// rec puts x.single and, when insts is not nil, x.multi.
func (c *crafter) rec(t float64, insts []int32) {
	sets := []pmapi.ValueSet{vs(cSingle, -1)}
	if insts != nil {
		sets = append(sets, vs(cMulti, insts...))
	}
	c.put(t, sets...)
}

func (c *crafter) close() { c.must(c.w.Close()) }

func ints(s ...int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// craftedArchive is one crafted archive and the pmlogextract arguments
// (before the input) it is run with.
type craftedArchive struct {
	name  string
	make  func(c *crafter)
	modes [][]string
}

// craftedArchives lists the crafted archives; cfg(name) is a config file
// selecting the given metrics.
func craftedArchives(cfg func(metrics ...string) string) []craftedArchive {
	plain := [][]string{{}, {"-V", "3"}}
	return []craftedArchive{
		{"indom-late", func(c *crafter) { // a state stamped after its first use
			c.descs()
			c.indom(12, 1, 2)
			for t := 10.0; t < 14; t++ {
				c.rec(t, ints(1, 2))
			}
		}, plain},
		{"indom-skipped", func(c *crafter) { // only the state in force is written
			c.descs()
			c.indom(10, 1, 2)
			c.rec(10, ints(1, 2))
			c.indom(11, 1, 2, 3)
			c.rec(11, nil)
			c.indom(12, 1, 3)
			c.rec(12, nil)
			c.rec(13, ints(1, 3))
		}, plain},
		{"labels-texts", func(c *crafter) { // the last label of a kind; stamps; texts
			c.descs()
			c.indom(10, 1, 2)
			c.label(9, archive.LabelContext, 0xffffffff, -1, `{"a":1}`)
			c.label(12, archive.LabelContext, 0xffffffff, -1, `{"a":2}`)
			c.label(11, archive.LabelDomain, 245, -1, `{"d":1}`)
			c.label(13, archive.LabelItem, uint32(cSingle), -1, `{"i":1}`)
			c.label(10.5, archive.LabelInstances, uint32(cInDom), 1, `{"n":1}`)
			c.label(13, archive.LabelInstances, uint32(cInDom), 1, `{"n":2}`)
			c.label(8, archive.LabelInDom, uint32(cInDom), -1, `{"x":1}`)
			c.must(c.w.PutText(&archive.HelpText{Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(cSingle), Text: "one"}))
			c.must(c.w.PutText(&archive.HelpText{Type: archive.TextOneLine | archive.TextPMID, Ident: uint32(cSingle), Text: "two"}))
			c.must(c.w.PutText(&archive.HelpText{Type: archive.TextHelp | archive.TextInDom, Ident: uint32(cInDom), Text: "indom help"}))
			c.rec(10, ints(1, 2))
			c.rec(11, ints(1, 2))
			c.rec(12, nil)
			c.rec(13, nil)
			c.rec(14, ints(1, 2))
			c.rec(15, ints(1, 2))
		}, [][]string{{}, {"-c", cfg("x.multi")}, {"-c", cfg("x.single")}}},
		{"labels-pending", func(c *crafter) { // labels wait for a record that needs them
			c.descs()
			c.desc(cS2, pmapi.InDomNull, "y.other")
			c.indom(10, 1, 2)
			c.label(10.5, archive.LabelDomain, 245, -1, `{"d":1}`)
			c.label(11.5, archive.LabelItem, uint32(cMulti), -1, `{"i":1}`)
			c.label(13, archive.LabelCluster, uint32(pmapi.NewPMID(245, 0, 0)), -1, `{"c":1}`)
			c.label(12.5, archive.LabelContext, 0xffffffff, -1, `{"a":1}`)
			c.rec(10, nil)
			c.put(11, vs(cS2, -1))
			c.rec(12, nil)
			c.rec(13, nil)
			c.put(13.5, vs(cS2, -1))
			c.rec(14, ints(1, 2))
			c.rec(15, ints(1, 2))
		}, plain},
		{"labels-selected", func(c *crafter) { // a selection writes no domain labels
			c.desc(cZ1, pmapi.InDomNull, "z.one")
			c.desc(cZ2, pmapi.InDomNull, "z.two")
			c.label(11.5, archive.LabelCluster, uint32(pmapi.NewPMID(246, 0, 0)), -1, `{"c":1}`)
			c.label(11.5, archive.LabelItem, uint32(cZ2), -1, `{"i":1}`)
			c.label(11.7, archive.LabelDomain, 246, -1, `{"d":1}`)
			c.put(10, vs(cZ1, -1))
			c.put(12, vs(cZ2, -1), vs(cZ1, -1))
			c.put(13, vs(cZ1, -1), vs(cZ2, -1))
			c.put(14, vs(cZ1, -1))
		}, [][]string{{}, {"-c", cfg("z.one")}, {"-c", cfg("z")}}},
		{"indom-shared", func(c *crafter) { // a selection: states for the metric kept
			c.descs()
			c.desc(cMulti2, cInDom, "x.multi2")
			c.indom(10, 1, 2)
			c.indom(11, 1, 2, 3)
			c.label(11, archive.LabelInDom, uint32(cInDom), -1, `{"d":1}`)
			c.must(c.w.PutText(&archive.HelpText{Type: archive.TextOneLine | archive.TextInDom, Ident: uint32(cInDom), Text: "indom one"}))
			c.put(10, vs(cSingle, -1))
			c.put(10.5, vs(cMulti, 1, 2))
			c.put(11, vs(cMulti2, 1, 2, 3))
			c.put(12, vs(cMulti, 1, 2, 3))
			c.put(13, vs(cMulti, 1, 2, 3))
		}, [][]string{{}, {"-c", cfg("x.multi")}, {"-c", cfg("x.single")}, {"-c", cfg("x.multi [ 'i3', 1 ]")}}},
		{"singular-inst", func(c *crafter) { // the real tool's instance pick for singular metrics
			c.descs()
			c.desc(cS2, pmapi.InDomNull, "x.s2")
			c.indom(10, 1, 2, 3)
			c.put(10, vs(cMulti, 1, 2, 3), vs(cSingle, 0), vs(cS2, 0))
			c.put(11, vs(cSingle, 0), vs(cMulti, 1, 2, 3), vs(cS2, 0))
			c.put(12, vs(cSingle, 0), vs(cS2, 0))
			c.put(13, vs(cMulti, 1, 2), vs(cSingle, 0), vs(cS2, 0))
			c.put(14, vs(cMulti, 1, 2), vs(cSingle, -1), vs(cS2, 0))
			c.put(15, vs(cS2, 0), vs(cSingle, 0))
			c.put(16, vs(cSingle, -1), vs(cS2, -1))
			c.put(17, vs(cSingle, 5), vs(cS2, 5))
			c.put(18, vs(cSingle, 0), vs(cS2, 7))
			c.put(19, vs(cSingle, 0), vs(cMulti, 1), vs(cS2, 0))
		}, [][]string{{}, {"-c", cfg("x.single x.s2")}, {"-c", cfg("x.s2")}, {"-c", cfg("x")}}},
		{"epoch", func(c *crafter) { // no index entry stamped at the epoch
			c.descs()
			c.indom(0, 1)
			c.rec(0, ints(1))
			c.rec(0, ints(1))
			c.indom(0.5, 1, 2, 3)
			c.rec(0.5, ints(1, 2, 3))
			c.rec(1, ints(1))
		}, plain},
		{"deltas", func(c *crafter) { // full or delta, in Version 3
			c.descs()
			for k, s := range [][]int32{{1}, {1, 2}, {1, 2, 3, 4}, {5}, {5, 6, 7, 8, 9, 10}, {10, 2}, {10, 2, 3}, {},
				{8405}, {18326, 21556, 21573, 8405, 0}, {1, 2, 3, 4, 5, 6}, {1, 2, 3, 7, 8, 9}, {9, 5}, {9, 6, 5, 1}} {
				c.indom(float64(10+k), s...)
				c.rec(float64(10+k), ints(s...))
			}
		}, plain},
	}
}

// labelPerm writes an archive whose label sets come in the given order
// ("1234": item z.one, item z.two, indom, context), all stamped at its
// start: merged with another, the order decides which input's label sets
// the real tool writes.
func labelPerm(t *testing.T, base string, start float64, order string) {
	c := newCrafter(t, base, start)
	i1 := pmapi.NewInDom(246, 1)
	c.desc(cZ1, i1, "z.one")
	c.desc(cZ2, pmapi.InDomNull, "z.two")
	c.must(c.w.PutInDom(&archive.InDomRecord{Stamp: cts(start), InDom: i1, Insts: []int32{1}, Names: []string{"a"}}))
	for _, k := range order {
		switch k {
		case '1':
			c.label(start, archive.LabelItem, uint32(cZ1), -1, `{"a":1}`)
		case '2':
			c.label(start, archive.LabelItem, uint32(cZ2), -1, `{"b":1}`)
		case '3':
			c.label(start, archive.LabelInDom, uint32(i1), -1, `{"c":1}`)
		case '4':
			c.label(start, archive.LabelContext, 0xffffffff, -1, `{"d":1}`)
		}
	}
	for k := 0; k < 3; k++ {
		c.put(start+float64(k), vs(cZ1, 1), vs(cZ2, -1))
	}
	c.close()
}

// eventArchive holds event records of both kinds, with parameters.
func eventArchive(t *testing.T, base string) {
	c := newCrafter(t, base, 100)
	ev, hev, par := pmapi.NewPMID(29, 0, 136), pmapi.NewPMID(29, 0, 139), pmapi.NewPMID(29, 0, 127)
	c.must(c.w.PutDesc(pmapi.Desc{PMID: ev, Type: pmapi.TypeEvent, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"e.records"}))
	c.must(c.w.PutDesc(pmapi.Desc{PMID: hev, Type: pmapi.TypeHighresEvent, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"e.highres"}))
	c.must(c.w.PutDesc(pmapi.Desc{PMID: par, Type: pmapi.Type32, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant}, []string{"e.param"}))
	for k := 0; k < 4; k++ {
		t0 := float64(100 + k)
		b := binary.BigEndian.AppendUint32(nil, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(t0))
		b = binary.BigEndian.AppendUint32(b, 5)
		b = binary.BigEndian.AppendUint32(b, 1) // point
		b = binary.BigEndian.AppendUint32(b, 1) // 1 parameter
		b = binary.BigEndian.AppendUint32(b, uint32(par))
		b = binary.BigEndian.AppendUint32(b, 8) // 32-bit, vlen 8
		b = binary.BigEndian.AppendUint32(b, uint32(k))
		h := binary.BigEndian.AppendUint32(nil, 1)
		h = binary.BigEndian.AppendUint64(h, uint64(t0))
		h = binary.BigEndian.AppendUint64(h, 7)
		h = binary.BigEndian.AppendUint32(h, 1)
		h = binary.BigEndian.AppendUint32(h, 0)
		c.put(t0,
			pmapi.ValueSet{PMID: ev, NumVal: 1, ValFmt: pmapi.ValFmtSptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeEvent, Block: b}}},
			pmapi.ValueSet{PMID: hev, NumVal: 1, ValFmt: pmapi.ValFmtSptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeHighresEvent, Block: h}}})
	}
	c.close()
}

// makeCrafted writes every crafted archive into dir and returns their
// base names, with the argument lists to run each with.
func makeCrafted(t *testing.T, dir string) map[string][][]string {
	n := 0
	cfg := func(metrics ...string) string {
		n++
		path := filepath.Join(dir, fmt.Sprintf("cfg%d", n))
		writeFile(t, path, strings.Join(metrics, "\n")+"\n")
		return path
	}
	out := map[string][][]string{}
	for _, ca := range craftedArchives(cfg) {
		base := filepath.Join(dir, ca.name)
		start := 10.0
		if ca.name == "epoch" {
			start = 0
		}
		c := newCrafter(t, base, start)
		ca.make(c)
		c.close()
		out[base] = ca.modes
	}
	base := filepath.Join(dir, "events")
	eventArchive(t, base)
	out[base] = [][]string{{}, {"-V", "3"}}
	return out
}

package collector

import (
	"bytes"
	"strconv"
)

// This file holds the interrupt counts of /proc/interrupts and
// /proc/softirqs: per interrupt line summed over the CPUs
// (kernel.all.interrupts.total, instance domain 60.4;
// kernel.all.softirqs.total, 60.36), per line and CPU
// (kernel.percpu.interrupts, 60.40, instances "<line>::cpu<N>";
// kernel.percpu.softirqs, 60.41) and per CPU summed over the lines
// (kernel.percpu.intr, kernel.percpu.sirq). The ERR and MIS lines of
// /proc/interrupts are kernel.all.interrupts.{errors,missed}, not lines.

// irqLine is one line of /proc/interrupts or /proc/softirqs.
type irqLine struct {
	e      *instEntry   // in the per-line instance domain; e.aux is the line's text
	counts []uint64     // per column of the header
	n      int          // columns read
	cpuEnt []*instEntry // per column: its instance in the per-line-and-CPU domain
}

// irqTable is a parsed /proc/interrupts or /proc/softirqs.
type irqTable struct {
	cols    []int32 // the CPU number of each column ("CPU3" is 3)
	lines   []irqLine
	lineIdx []int32  // instances of the per-line domain, ascending
	cpuIdx  [][2]int // instances of the per-line-and-CPU domain: line, column
	cpuIDs  []int32  // their numbers, ascending (parallel to cpuIdx)
	perCPU  []uint64 // per column: the sum over the lines

	lineCache, cpuCache *instCache
	scratch             []byte
}

// parseIRQ parses /proc/interrupts (or /proc/softirqs, with no text and no
// ERR/MIS lines) into t.
func (c *Collector) parseIRQ(b []byte, t *irqTable, interrupts bool) {
	t.cols = t.cols[:0]
	head, rest := nextLine(b)
	for f, r := nextField(head); len(f) > 0; f, r = nextField(r) {
		if id, ok := bytes.CutPrefix(f, []byte("CPU")); ok {
			if v, ok := parseUint(id); ok && v < 1<<20 {
				t.cols = append(t.cols, int32(v))
			}
		}
	}
	nl := 0
	if interrupts {
		c.intrHas = [2]bool{}
	}
	for len(rest) > 0 {
		var line []byte
		line, rest = nextLine(rest)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		name := bytes.TrimSpace(line[:colon])
		if len(name) == 0 {
			continue
		}
		r := line[colon+1:]
		if interrupts && (string(name) == "ERR" || string(name) == "MIS") {
			f, _ := nextField(r)
			k := 0
			if string(name) == "MIS" {
				k = 1
			}
			c.intrErr[k], c.intrHas[k] = parseUint(f)
			continue
		}
		if nl == len(t.lines) {
			t.lines = append(t.lines, irqLine{})
		}
		l := &t.lines[nl]
		nl++
		l.e = t.lineCache.lookup(name)
		if cap(l.counts) < len(t.cols) {
			l.counts = make([]uint64, len(t.cols))
			l.cpuEnt = make([]*instEntry, len(t.cols))
		}
		l.counts, l.cpuEnt = l.counts[:len(t.cols)], l.cpuEnt[:len(t.cols)]
		l.n = 0
		for l.n < len(t.cols) {
			f, r2 := nextField(r)
			v, ok := parseUint(f)
			if !ok {
				break
			}
			l.counts[l.n] = v
			l.n++
			r = r2
		}
		if interrupts {
			l.e.aux = collapse(l.e.aux, bytes.TrimSpace(r), &t.scratch)
		}
		for k := 0; k < l.n; k++ {
			t.scratch = strconv.AppendInt(append(append(t.scratch[:0], name...), "::cpu"...), int64(t.cols[k]), 10)
			l.cpuEnt[k] = t.cpuCache.lookup(t.scratch)
		}
	}
	t.lines = t.lines[:nl]

	// the instance lists, ascending as the PMDA's caches give them
	t.lineIdx, t.cpuIdx, t.cpuIDs = t.lineIdx[:0], t.cpuIdx[:0], t.cpuIDs[:0]
	for i := range t.lines {
		t.lineIdx = append(t.lineIdx, int32(i))
		for k := 0; k < t.lines[i].n; k++ {
			t.cpuIdx = append(t.cpuIdx, [2]int{i, k})
		}
	}
	for i := 1; i < len(t.lineIdx); i++ {
		for j := i; j > 0 && t.lines[t.lineIdx[j]].e.id < t.lines[t.lineIdx[j-1]].e.id; j-- {
			t.lineIdx[j], t.lineIdx[j-1] = t.lineIdx[j-1], t.lineIdx[j]
		}
	}
	idOf := func(p [2]int) int32 { return t.lines[p[0]].cpuEnt[p[1]].id }
	for i := 1; i < len(t.cpuIdx); i++ {
		for j := i; j > 0 && idOf(t.cpuIdx[j]) < idOf(t.cpuIdx[j-1]); j-- {
			t.cpuIdx[j], t.cpuIdx[j-1] = t.cpuIdx[j-1], t.cpuIdx[j]
		}
	}
	for _, p := range t.cpuIdx {
		t.cpuIDs = append(t.cpuIDs, idOf(p))
	}
	if cap(t.perCPU) < len(t.cols) {
		t.perCPU = make([]uint64, len(t.cols))
	}
	t.perCPU = t.perCPU[:len(t.cols)]
	clear(t.perCPU)
	for i := range t.lines {
		for k := 0; k < t.lines[i].n; k++ {
			t.perCPU[k] += t.lines[i].counts[k]
		}
	}
}

// collapse returns b with each run of blanks made one space, reusing old
// when it is the same.
func collapse(old string, b []byte, scratch *[]byte) string {
	s := (*scratch)[:0]
	blank := false
	for _, ch := range b {
		if ch == ' ' || ch == '\t' {
			blank = true
			continue
		}
		if blank && len(s) > 0 {
			s = append(s, ' ')
		}
		blank = false
		s = append(s, ch)
	}
	*scratch = s
	if old == string(s) {
		return old
	}
	return string(s)
}

// irqColumn returns the column of CPU id in t, or -1.
func (t *irqTable) irqColumn(id int32) int {
	for k, c := range t.cols {
		if c == id {
			return k
		}
	}
	return -1
}

// irqBindings adds the interrupt metrics.
func irqBindings(add func(name string, src int, g getter, help string)) {
	lineTotal := func(t func(c *Collector) *irqTable) getter {
		return func(c *Collector, i int) (val, bool) {
			tb := t(c)
			l := &tb.lines[tb.lineIdx[i]]
			var s uint64
			for k := 0; k < l.n; k++ {
				s += l.counts[k]
			}
			return u(s)
		}
	}
	perLineCPU := func(t func(c *Collector) *irqTable) getter {
		return func(c *Collector, i int) (val, bool) {
			tb := t(c)
			p := tb.cpuIdx[i]
			return u(tb.lines[p[0]].counts[p[1]])
		}
	}
	perCPU := func(t func(c *Collector) *irqTable) getter {
		return func(c *Collector, i int) (val, bool) {
			tb := t(c)
			k := tb.irqColumn(c.stat.cpuIDs[i])
			if k < 0 {
				return none()
			}
			return u(tb.perCPU[k])
		}
	}
	irq := func(c *Collector) *irqTable { return &c.irq }
	soft := func(c *Collector) *irqTable { return &c.softirq }
	add("kernel.all.interrupts.total", srcIRQ, lineTotal(irq), "interrupts of each line, all CPUs, from /proc/interrupts")
	add("kernel.percpu.interrupts", srcIRQ, perLineCPU(irq), "interrupts of each line on each CPU, from /proc/interrupts")
	add("kernel.percpu.intr", srcIRQStat, perCPU(irq), "interrupts of all lines on each CPU, from /proc/interrupts")
	add("kernel.all.softirqs.total", srcSoftIRQ, lineTotal(soft), "soft interrupts of each kind, all CPUs, from /proc/softirqs")
	add("kernel.percpu.softirqs", srcSoftIRQ, perLineCPU(soft), "soft interrupts of each kind on each CPU, from /proc/softirqs")
	add("kernel.percpu.sirq", srcSoftIRQStat, perCPU(soft), "soft interrupts of all kinds on each CPU, from /proc/softirqs")
}

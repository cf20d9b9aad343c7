package collector

import (
	"bytes"
	"os"
	"strings"
)

// This file holds the CPU inventory (hinv.cpu.*, hinv.map.cpu_*, from
// /proc/cpuinfo and /sys/devices/system), the socket counts
// (network.sockstat.*, from /proc/net/sockstat and sockstat6) and the
// other hinv singletons.

// cpuInfo is one processor of /proc/cpuinfo.
type cpuInfo struct {
	id                                   int32
	vendor, model, stepping, name, flags string
	clock, bogomips                      float64
	cache, align                         uint64
	has                                  uint32 // ciHas* bits
}

const (
	ciHasVendor = 1 << iota
	ciHasModel
	ciHasStepping
	ciHasName
	ciHasFlags
	ciHasClock
	ciHasBogomips
	ciHasCache
	ciHasAlign
)

// keep returns old when b holds the same bytes, else a new string: the
// strings of /proc/cpuinfo rarely change, so this saves allocations.
func keep(old string, b []byte) string {
	if old == string(b) {
		return old
	}
	return string(b)
}

// parseCPUInfo parses /proc/cpuinfo into cpus (reusing its entries and
// their strings).
func parseCPUInfo(b []byte, cpus []cpuInfo) []cpuInfo {
	n := 0
	var cur *cpuInfo
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		c := bytes.IndexByte(line, ':')
		if c < 0 {
			continue
		}
		key := bytes.TrimSpace(line[:c])
		v := bytes.TrimSpace(line[c+1:])
		if string(key) == "processor" {
			id, ok := parseUint(v)
			if !ok || id > 1<<20 {
				cur = nil
				continue
			}
			if n < len(cpus) {
				cur = &cpus[n]
			} else {
				cpus = append(cpus, cpuInfo{})
				cur = &cpus[len(cpus)-1]
			}
			n++
			cur.id, cur.has = int32(id), 0
			continue
		}
		if cur == nil {
			continue
		}
		switch string(key) {
		case "vendor_id":
			cur.vendor, cur.has = keep(cur.vendor, v), cur.has|ciHasVendor
		case "model":
			cur.model, cur.has = keep(cur.model, v), cur.has|ciHasModel
		case "stepping":
			cur.stepping, cur.has = keep(cur.stepping, v), cur.has|ciHasStepping
		case "model name":
			cur.name, cur.has = keep(cur.name, v), cur.has|ciHasName
		case "flags":
			cur.flags, cur.has = keep(cur.flags, v), cur.has|ciHasFlags
		case "cpu MHz":
			if f, ok := parseFloat32(v); ok {
				cur.clock, cur.has = f, cur.has|ciHasClock
			}
		case "bogomips":
			if f, ok := parseFloat32(v); ok {
				cur.bogomips, cur.has = f, cur.has|ciHasBogomips
			}
		case "cache size":
			f, _ := nextField(v) // "1024 KB"
			if x, ok := parseUint(f); ok {
				cur.cache, cur.has = x, cur.has|ciHasCache
			}
		case "cache_alignment":
			if x, ok := parseUint(v); ok {
				cur.align, cur.has = x, cur.has|ciHasAlign
			}
		}
	}
	return cpus[:n]
}

// cpuinfoOf returns the /proc/cpuinfo entry of the CPU at index i of the
// CPU instance domain.
func (c *Collector) cpuinfoOf(i int) *cpuInfo {
	id := c.stat.cpuIDs[i]
	if i < len(c.cpuinfo) && c.cpuinfo[i].id == id {
		return &c.cpuinfo[i]
	}
	for k := range c.cpuinfo {
		if c.cpuinfo[k].id == id {
			return &c.cpuinfo[k]
		}
	}
	return nil
}

func ciString(bit uint32, p func(ci *cpuInfo) string) getter {
	return func(c *Collector, i int) (val, bool) {
		ci := c.cpuinfoOf(i)
		if ci == nil || ci.has&bit == 0 {
			return none()
		}
		return str(p(ci))
	}
}

func ciNum(bit uint32, p func(ci *cpuInfo) val) getter {
	return func(c *Collector, i int) (val, bool) {
		ci := c.cpuinfoOf(i)
		if ci == nil || ci.has&bit == 0 {
			return none()
		}
		return p(ci), true
	}
}

// cpuSysInfo is what /sys/devices/system/cpu tells of one CPU.
type cpuSysInfo struct {
	online uint64
	node   uint64
}

// refreshCPUSys reads the online state and NUMA node of each CPU: online
// is 1 unless cpuN/online says otherwise (the boot CPU often has no such
// file), the node is the N of the cpuN/nodeN entry (0 if none).
func (c *Collector) refreshCPUSys() {
	c.cpuSys = c.cpuSys[:0]
	for _, id := range c.stat.cpuIDs {
		p := c.cpuDir(id)
		s := cpuSysInfo{online: 1}
		if b, err := c.readFile(c.cpuOnline[id]); err == nil {
			if v, ok := parseUint(bytes.TrimSpace(b)); ok {
				s.online = v
			}
		}
		s.node = c.cpuNode(id, p)
		c.cpuSys = append(c.cpuSys, s)
	}
}

// cpuDir returns the /sys directory of CPU id, remembering it and the
// path of its online attribute.
func (c *Collector) cpuDir(id int32) string {
	p := c.cpuPaths[id]
	if p == "" {
		p = "sys/devices/system/cpu/cpu" + itoa(int(id))
		c.cpuPaths[id] = p
		c.cpuOnline[id] = p + "/online"
	}
	return p
}

// cpuNode finds the NUMA node of a CPU, remembering it: CPUs do not move
// between nodes.
func (c *Collector) cpuNode(id int32, dir string) uint64 {
	if n, ok := c.cpuNodes[id]; ok {
		return n
	}
	var node uint64
	if ents, err := os.ReadDir(c.path(dir)); err == nil {
		for _, e := range ents {
			if rest, ok := strings.CutPrefix(e.Name(), "node"); ok {
				if v, ok := parseUint([]byte(rest)); ok {
					node = v
					break
				}
			}
		}
	}
	c.cpuNodes[id] = node
	return node
}

// countNodes counts the NUMA nodes, /sys/devices/system/node/nodeN; a
// system without that directory has one.
func (c *Collector) countNodes() uint64 {
	c.listNodes()
	if len(c.nodes) == 0 {
		return 1
	}
	return uint64(len(c.nodes))
}

// The network.sockstat values, as indexes into Collector.sock.
const (
	ssTotal = iota
	ssTCPInuse
	ssTCPOrphan
	ssTCPTw
	ssTCPAlloc
	ssTCPMem
	ssUDPInuse
	ssUDPMem
	ssUDPLiteInuse
	ssRawInuse
	ssFragInuse
	ssFragMemory
	ssTCP6Inuse
	ssUDP6Inuse
	ssUDPLite6Inuse
	ssRaw6Inuse
	ssFrag6Inuse
	ssFrag6Memory
	nSockstat
)

// sockstatSlot maps a sockstat line and field to its index.
func sockstatSlot(line, field []byte) int {
	switch string(line) {
	case "sockets:":
		if string(field) == "used" {
			return ssTotal
		}
	case "TCP:":
		switch string(field) {
		case "inuse":
			return ssTCPInuse
		case "orphan":
			return ssTCPOrphan
		case "tw":
			return ssTCPTw
		case "alloc":
			return ssTCPAlloc
		case "mem":
			return ssTCPMem
		}
	case "UDP:":
		switch string(field) {
		case "inuse":
			return ssUDPInuse
		case "mem":
			return ssUDPMem
		}
	case "UDPLITE:":
		if string(field) == "inuse" {
			return ssUDPLiteInuse
		}
	case "RAW:":
		if string(field) == "inuse" {
			return ssRawInuse
		}
	case "FRAG:":
		switch string(field) {
		case "inuse":
			return ssFragInuse
		case "memory":
			return ssFragMemory
		}
	case "TCP6:":
		if string(field) == "inuse" {
			return ssTCP6Inuse
		}
	case "UDP6:":
		if string(field) == "inuse" {
			return ssUDP6Inuse
		}
	case "UDPLITE6:":
		if string(field) == "inuse" {
			return ssUDPLite6Inuse
		}
	case "RAW6:":
		if string(field) == "inuse" {
			return ssRaw6Inuse
		}
	case "FRAG6:":
		switch string(field) {
		case "inuse":
			return ssFrag6Inuse
		case "memory":
			return ssFrag6Memory
		}
	}
	return -1
}

// parseSockstat parses /proc/net/sockstat or sockstat6 ("TCP: inuse 2
// orphan 0 ...") into v and has.
func parseSockstat(b []byte, v *[nSockstat]uint64, has *[nSockstat]bool) {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		k, rest := nextField(line)
		for {
			var name, num []byte
			name, rest = nextField(rest)
			num, rest = nextField(rest)
			if len(name) == 0 || len(num) == 0 {
				break
			}
			i := sockstatSlot(k, name)
			if i < 0 {
				continue
			}
			if x, ok := parseUint(num); ok {
				v[i], has[i] = x, true
			}
		}
	}
}

func sockGet(k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if !c.sockHas[k] {
			return none()
		}
		return u(c.sock[k])
	}
}

// hinvBindings adds the CPU inventory, hinv singletons and
// network.sockstat.
func hinvBindings(add func(name string, src int, g getter, help string)) {
	add("hinv.cpu.clock", srcCPUInfo, ciNum(ciHasClock, func(ci *cpuInfo) val { return val{f: ci.clock} }),
		"clock rate in MHz, cpu MHz in /proc/cpuinfo")
	add("hinv.cpu.vendor", srcCPUInfo, ciString(ciHasVendor, func(ci *cpuInfo) string { return ci.vendor }),
		"manufacturer, vendor_id in /proc/cpuinfo")
	add("hinv.cpu.model", srcCPUInfo, ciString(ciHasModel, func(ci *cpuInfo) string { return ci.model }),
		"model number, model in /proc/cpuinfo")
	add("hinv.cpu.stepping", srcCPUInfo, ciString(ciHasStepping, func(ci *cpuInfo) string { return ci.stepping }),
		"stepping, from /proc/cpuinfo")
	add("hinv.cpu.cache", srcCPUInfo, ciNum(ciHasCache, func(ci *cpuInfo) val { return val{u: ci.cache} }),
		"cache size in Kbytes, from /proc/cpuinfo")
	add("hinv.cpu.bogomips", srcCPUInfo, ciNum(ciHasBogomips, func(ci *cpuInfo) val { return val{f: ci.bogomips} }),
		"bogomips, from /proc/cpuinfo")
	add("hinv.cpu.model_name", srcCPUInfo, ciString(ciHasName, func(ci *cpuInfo) string { return ci.name }),
		"model name, from /proc/cpuinfo")
	add("hinv.cpu.flags", srcCPUInfo, ciString(ciHasFlags, func(ci *cpuInfo) string { return ci.flags }),
		"feature flags, from /proc/cpuinfo")
	add("hinv.cpu.cache_alignment", srcCPUInfo, ciNum(ciHasAlign, func(ci *cpuInfo) val { return val{u: ci.align} }),
		"cache line alignment in bytes, from /proc/cpuinfo")
	add("hinv.cpu.online", srcCPUSys, func(c *Collector, i int) (val, bool) {
		if i >= len(c.cpuSys) {
			return none()
		}
		return u(c.cpuSys[i].online)
	}, "1 if the CPU is online, from /sys/devices/system/cpu/cpuN/online")
	add("hinv.map.cpu_num", srcStat, func(c *Collector, i int) (val, bool) {
		return u(uint64(c.stat.cpuIDs[i]))
	}, "logical number of the CPU")
	add("hinv.map.cpu_node", srcCPUSys, func(c *Collector, i int) (val, bool) {
		if i >= len(c.cpuSys) {
			return none()
		}
		return u(c.cpuSys[i].node)
	}, "NUMA node of the CPU")
	add("hinv.machine", srcUname, unameGet(unMachine), "hardware name, as uname -m")
	add("hinv.nnode", srcNone, func(c *Collector, _ int) (val, bool) { return u(c.countNodes()) },
		"number of NUMA nodes")
	add("hinv.hugepagesize", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return v[miHugepagesize] << 10
	}, miHugepagesize), "huge page size in bytes, Hugepagesize in /proc/meminfo")

	for _, x := range []struct {
		name string
		k    int
		six  bool
	}{{"total", ssTotal, false}, {"tcp.inuse", ssTCPInuse, false}, {"tcp.orphan", ssTCPOrphan, false},
		{"tcp.tw", ssTCPTw, false}, {"tcp.alloc", ssTCPAlloc, false}, {"tcp.mem", ssTCPMem, false},
		{"udp.inuse", ssUDPInuse, false}, {"udp.mem", ssUDPMem, false}, {"udplite.inuse", ssUDPLiteInuse, false},
		{"raw.inuse", ssRawInuse, false}, {"frag.inuse", ssFragInuse, false}, {"frag.memory", ssFragMemory, false},
		{"tcp6.inuse", ssTCP6Inuse, true}, {"udp6.inuse", ssUDP6Inuse, true},
		{"udplite6.inuse", ssUDPLite6Inuse, true}, {"raw6.inuse", ssRaw6Inuse, true},
		{"frag6.inuse", ssFrag6Inuse, true}, {"frag6.memory", ssFrag6Memory, true}} {
		src, file := srcSockstat, "/proc/net/sockstat"
		if x.six {
			src, file = srcSockstat6, "/proc/net/sockstat6"
		}
		add("network.sockstat."+x.name, src, sockGet(x.k), x.name+" in "+file)
	}
}

package collector

import (
	"bytes"
	"errors"
	"strconv"
	"unsafe"
)

// This file holds the parsers of the /proc files. Each one works on the
// whole file's bytes, fills a value that the Collector reuses between
// fetches, and never panics on malformed input: a line it cannot read is
// skipped, a field it cannot find is marked absent.

var errFormat = errors.New("collector: malformed file")

// nextLine returns the first line of b (without its newline) and the rest.
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// nextField returns the first run of non-blank bytes of b and the rest
// after it; blanks are spaces and tabs.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}

// parseUint parses a decimal unsigned integer; the whole of b must be digits.
// Values that overflow 64 bits wrap, as strtoull would not, but such values
// are not seen in /proc.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// parseFloat parses a decimal number as C's strtod does, correctly
// rounded to a double.
func parseFloat(b []byte) (float64, bool) { return parseFloatBits(b, 64) }

// parseFloat32 parses a decimal number correctly rounded to a float, as
// sscanf's %f gives the PMDA for its FLOAT metrics (rounding through a
// double first could differ in the last bit).
func parseFloat32(b []byte) (float64, bool) { return parseFloatBits(b, 32) }

func parseFloatBits(b []byte, bits int) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	// The string only lives for the call: no copy is needed.
	v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), bits)
	if err != nil {
		return 0, false
	}
	return v, true
}

// ---------------------------------------------------------------------------
// /proc/stat

// CPU time fields of a "cpu" line of /proc/stat, in jiffies (USER_HZ).
const (
	cpuUser = iota
	cpuNice
	cpuSys
	cpuIdle
	cpuWait
	cpuIRQ
	cpuSoftIRQ
	cpuSteal
	cpuGuest
	cpuGuestNice
	nCPUFields
)

// cpuTimes is one "cpu" line: the values and how many fields it had.
type cpuTimes struct {
	v [nCPUFields]uint64
	n int
}

// procStat is what the Collector keeps from /proc/stat.
type procStat struct {
	all    cpuTimes
	hasAll bool
	cpus   []cpuTimes // in file order
	cpuIDs []int32    // the N of "cpuN", parallel to cpus

	intr, ctxt, btime, processes, running, blocked uint64
	has                                            uint32 // statHas* bits
}

const (
	statHasIntr = 1 << iota
	statHasCtxt
	statHasBtime
	statHasProcesses
	statHasRunning
	statHasBlocked
)

func parseCPULine(rest []byte, t *cpuTimes) {
	t.n = 0
	for t.n < nCPUFields {
		var f []byte
		f, rest = nextField(rest)
		v, ok := parseUint(f)
		if !ok {
			break
		}
		t.v[t.n] = v
		t.n++
	}
	for i := t.n; i < nCPUFields; i++ {
		t.v[i] = 0
	}
}

// parseStat parses /proc/stat into s, reusing its slices.
func parseStat(b []byte, s *procStat) error {
	s.cpus = s.cpus[:0]
	s.cpuIDs = s.cpuIDs[:0]
	s.hasAll = false
	s.has = 0
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		key, rest := nextField(line)
		switch {
		case len(key) == 0:
			continue
		case string(key) == "cpu":
			parseCPULine(rest, &s.all)
			s.hasAll = s.all.n >= 4
		case len(key) > 3 && string(key[:3]) == "cpu":
			id, ok := parseUint(key[3:])
			if !ok || id > 1<<20 {
				continue
			}
			var t cpuTimes
			parseCPULine(rest, &t)
			if t.n < 4 {
				continue
			}
			s.cpus = append(s.cpus, t)
			s.cpuIDs = append(s.cpuIDs, int32(id))
		case string(key) == "intr":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.intr, s.has = v, s.has|statHasIntr
			}
		case string(key) == "ctxt":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.ctxt, s.has = v, s.has|statHasCtxt
			}
		case string(key) == "btime":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.btime, s.has = v, s.has|statHasBtime
			}
		case string(key) == "processes":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.processes, s.has = v, s.has|statHasProcesses
			}
		case string(key) == "procs_running":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.running, s.has = v, s.has|statHasRunning
			}
		case string(key) == "procs_blocked":
			f, _ := nextField(rest)
			if v, ok := parseUint(f); ok {
				s.blocked, s.has = v, s.has|statHasBlocked
			}
		}
	}
	if !s.hasAll && len(s.cpus) == 0 {
		return errFormat
	}
	return nil
}

// ---------------------------------------------------------------------------
// /proc/meminfo

// The /proc/meminfo fields the Collector knows, as indexes into
// procMeminfo.v.
const (
	miMemTotal = iota
	miMemFree
	miMemAvailable
	miBuffers
	miCached
	miSwapCached
	miActive
	miInactive
	miActiveAnon
	miInactiveAnon
	miActiveFile
	miInactiveFile
	miUnevictable
	miMlocked
	miHighTotal
	miHighFree
	miLowTotal
	miLowFree
	miMmapCopy
	miSwapTotal
	miSwapFree
	miDirty
	miWriteback
	miAnonPages
	miMapped
	miShmem
	miSlab
	miSReclaimable
	miSUnreclaim
	miKernelStack
	miPageTables
	miQuicklists
	miNFSUnstable
	miBounce
	miCommitLimit
	miCommittedAS
	miVmallocTotal
	miVmallocUsed
	miVmallocChunk
	miHardwareCorrupted
	miAnonHugePages
	miHugePagesTotal
	miHugePagesFree
	miHugePagesRsvd
	miHugePagesSurp
	miHugepagesize
	miDirectMap4k
	miDirectMap2M
	miDirectMap1G
	miReverseMaps
	miMemShared
	nMeminfo
)

// meminfoKey maps a /proc/meminfo key (before the ':') to its index, or -1.
func meminfoKey(k []byte) int {
	switch string(k) {
	case "MemTotal":
		return miMemTotal
	case "MemFree":
		return miMemFree
	case "MemAvailable":
		return miMemAvailable
	case "MemShared":
		return miMemShared
	case "Buffers":
		return miBuffers
	case "Cached":
		return miCached
	case "SwapCached":
		return miSwapCached
	case "Active":
		return miActive
	case "Inactive":
		return miInactive
	case "Active(anon)":
		return miActiveAnon
	case "Inactive(anon)":
		return miInactiveAnon
	case "Active(file)":
		return miActiveFile
	case "Inactive(file)":
		return miInactiveFile
	case "Unevictable":
		return miUnevictable
	case "Mlocked":
		return miMlocked
	case "HighTotal":
		return miHighTotal
	case "HighFree":
		return miHighFree
	case "LowTotal":
		return miLowTotal
	case "LowFree":
		return miLowFree
	case "MmapCopy":
		return miMmapCopy
	case "SwapTotal":
		return miSwapTotal
	case "SwapFree":
		return miSwapFree
	case "Dirty":
		return miDirty
	case "Writeback":
		return miWriteback
	case "AnonPages":
		return miAnonPages
	case "Mapped":
		return miMapped
	case "Shmem":
		return miShmem
	case "Slab":
		return miSlab
	case "SReclaimable":
		return miSReclaimable
	case "SUnreclaim":
		return miSUnreclaim
	case "KernelStack":
		return miKernelStack
	case "PageTables":
		return miPageTables
	case "Quicklists":
		return miQuicklists
	case "NFS_Unstable":
		return miNFSUnstable
	case "Bounce":
		return miBounce
	case "CommitLimit":
		return miCommitLimit
	case "Committed_AS":
		return miCommittedAS
	case "VmallocTotal":
		return miVmallocTotal
	case "VmallocUsed":
		return miVmallocUsed
	case "VmallocChunk":
		return miVmallocChunk
	case "HardwareCorrupted":
		return miHardwareCorrupted
	case "AnonHugePages":
		return miAnonHugePages
	case "HugePages_Total":
		return miHugePagesTotal
	case "HugePages_Free":
		return miHugePagesFree
	case "HugePages_Rsvd":
		return miHugePagesRsvd
	case "HugePages_Surp":
		return miHugePagesSurp
	case "Hugepagesize":
		return miHugepagesize
	case "DirectMap4k":
		return miDirectMap4k
	case "DirectMap2M":
		return miDirectMap2M
	case "DirectMap1G":
		return miDirectMap1G
	case "ReverseMaps":
		return miReverseMaps
	}
	return -1
}

// procMeminfo holds the /proc/meminfo values (kB, or a count for the
// HugePages_* fields) and which of them were present.
type procMeminfo struct {
	v   [nMeminfo]uint64
	has [nMeminfo]bool
}

func (m *procMeminfo) get(i int) (uint64, bool) { return m.v[i], m.has[i] }

// parseMeminfo parses /proc/meminfo into m.
func parseMeminfo(b []byte, m *procMeminfo) error {
	m.has = [nMeminfo]bool{}
	n := 0
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		c := bytes.IndexByte(line, ':')
		if c <= 0 {
			continue
		}
		i := meminfoKey(line[:c])
		if i < 0 {
			continue
		}
		f, _ := nextField(line[c+1:])
		v, ok := parseUint(f)
		if !ok {
			continue
		}
		m.v[i], m.has[i] = v, true
		n++
	}
	if n == 0 {
		return errFormat
	}
	return nil
}

// ---------------------------------------------------------------------------
// /proc/loadavg

type procLoadavg struct {
	load               [3]float64
	runnable, nprocs   uint64
	lastpid            uint64
	hasCounts, hasLast bool
}

// parseLoadavg parses "0.52 0.58 0.59 3/132 26816".
func parseLoadavg(b []byte, l *procLoadavg) error {
	line, _ := nextLine(b)
	rest := line
	for i := 0; i < 3; i++ {
		var f []byte
		f, rest = nextField(rest)
		v, ok := parseFloat32(f)
		if !ok {
			return errFormat
		}
		l.load[i] = v
	}
	l.hasCounts, l.hasLast = false, false
	f, rest := nextField(rest)
	if s := bytes.IndexByte(f, '/'); s > 0 {
		r, ok1 := parseUint(f[:s])
		n, ok2 := parseUint(f[s+1:])
		if ok1 && ok2 {
			l.runnable, l.nprocs, l.hasCounts = r, n, true
		}
	}
	f, _ = nextField(rest)
	if v, ok := parseUint(f); ok {
		l.lastpid, l.hasLast = v, true
	}
	return nil
}

// ---------------------------------------------------------------------------
// /proc/uptime

type procUptime struct {
	uptime, idle float64
}

func parseUptime(b []byte, u *procUptime) error {
	line, _ := nextLine(b)
	f1, rest := nextField(line)
	f2, _ := nextField(rest)
	a, ok1 := parseFloat(f1)
	c, ok2 := parseFloat(f2)
	if !ok1 || !ok2 {
		return errFormat
	}
	u.uptime, u.idle = a, c
	return nil
}

// ---------------------------------------------------------------------------
// /proc/diskstats

// The /proc/diskstats counters after the device name, as indexes into
// diskStat.v (Documentation/admin-guide/iostats.rst).
const (
	dsReadIOs = iota
	dsReadMerges
	dsReadSectors
	dsReadTicks
	dsWriteIOs
	dsWriteMerges
	dsWriteSectors
	dsWriteTicks
	dsInFlight
	dsIOTicks
	dsTimeInQueue
	dsDiscardIOs
	dsDiscardMerges
	dsDiscardSectors
	dsDiscardTicks
	dsFlushIOs
	dsFlushTicks
	nDiskFields
)

// diskStat is one line of /proc/diskstats. name aliases the file buffer
// until the Collector interns it.
type diskStat struct {
	major, minor uint64
	name         []byte
	v            [nDiskFields]uint64
	n            int // fields present
}

// parseDiskstats calls fn for each well-formed line of /proc/diskstats,
// with d (scratch space the caller provides) holding the line.
func parseDiskstats(b []byte, d *diskStat, fn func(d *diskStat)) error {
	seen := false
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		f, rest := nextField(line)
		maj, ok1 := parseUint(f)
		f, rest = nextField(rest)
		min, ok2 := parseUint(f)
		name, rest := nextField(rest)
		if !ok1 || !ok2 || len(name) == 0 {
			continue
		}
		d.major, d.minor, d.name, d.n = maj, min, name, 0
		for d.n < nDiskFields {
			f, rest = nextField(rest)
			v, ok := parseUint(f)
			if !ok {
				break
			}
			d.v[d.n] = v
			d.n++
		}
		if d.n < 4 {
			continue
		}
		for i := d.n; i < nDiskFields; i++ {
			d.v[i] = 0
		}
		if d.n < 11 {
			// The short form of old kernels: reads, read sectors,
			// writes, write sectors.
			r, rs, w, ws := d.v[0], d.v[1], d.v[2], d.v[3]
			d.v = [nDiskFields]uint64{}
			d.v[dsReadIOs], d.v[dsReadSectors], d.v[dsWriteIOs], d.v[dsWriteSectors] = r, rs, w, ws
		}
		seen = true
		fn(d)
	}
	if !seen && len(b) != 0 {
		return errFormat
	}
	return nil
}

// parsePartitions calls fn with the name and size (1 KiB blocks) of each
// device line of /proc/partitions.
func parsePartitions(b []byte, fn func(name []byte, blocks uint64)) {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		f, rest := nextField(line)
		if _, ok := parseUint(f); !ok {
			continue
		}
		f, rest = nextField(rest)
		if _, ok := parseUint(f); !ok {
			continue
		}
		f, rest = nextField(rest)
		blocks, ok := parseUint(f)
		name, _ := nextField(rest)
		if !ok || len(name) == 0 {
			continue
		}
		fn(name, blocks)
	}
}

// ---------------------------------------------------------------------------
// /proc/net/dev

// The /proc/net/dev counters, as indexes into netStat.v.
const (
	ndRxBytes = iota
	ndRxPackets
	ndRxErrs
	ndRxDrop
	ndRxFifo
	ndRxFrame
	ndRxCompressed
	ndRxMulticast
	ndTxBytes
	ndTxPackets
	ndTxErrs
	ndTxDrop
	ndTxFifo
	ndTxColls
	ndTxCarrier
	ndTxCompressed
	nNetFields
)

type netStat struct {
	name []byte
	v    [nNetFields]uint64
}

// parseNetDev calls fn for each interface line of /proc/net/dev ("  eth0:
// 123 ..."), with s (scratch space the caller provides) holding the line;
// the two heading lines have no ':' before the counters.
func parseNetDev(b []byte, s *netStat, fn func(n *netStat)) error {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		c := bytes.IndexByte(line, ':')
		if c < 0 {
			continue
		}
		name := bytes.TrimSpace(line[:c])
		if len(name) == 0 || bytes.IndexByte(name, '|') >= 0 {
			continue
		}
		rest := line[c+1:]
		ok := true
		for i := 0; i < nNetFields; i++ {
			var f []byte
			f, rest = nextField(rest)
			if s.v[i], ok = parseUint(f); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		s.name = name
		fn(s)
	}
	return nil
}

// ---------------------------------------------------------------------------
// /proc/mounts

// parseMounts calls fn with the device, mount point, type and options of
// each line of /proc/mounts. Octal escapes (\040 for a space) are left as
// they are, as the linux PMDA does.
func parseMounts(b []byte, fn func(dev, dir, typ, opts []byte)) {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		dev, rest := nextField(line)
		dir, rest := nextField(rest)
		typ, rest := nextField(rest)
		opts, _ := nextField(rest)
		if len(dev) == 0 || len(dir) == 0 || len(typ) == 0 {
			continue
		}
		fn(dev, dir, typ, opts)
	}
}

// hasOption reports whether the comma-separated mount options hold opt.
func hasOption(opts []byte, opt string) bool {
	for len(opts) > 0 {
		i := bytes.IndexByte(opts, ',')
		if i < 0 {
			return string(opts) == opt
		}
		if string(opts[:i]) == opt {
			return true
		}
		opts = opts[i+1:]
	}
	return false
}

// ---------------------------------------------------------------------------
// /proc/pressure/*

// pressure is one /proc/pressure file: the "some" and "full" lines.
type pressure struct {
	avg     [2][3]float64 // [some|full][avg10, avg60, avg300]
	total   [2]uint64
	present [2]bool
}

// parsePressure parses lines "some avg10=0.00 avg60=0.00 avg300=0.00
// total=0".
func parsePressure(b []byte, p *pressure) error {
	p.present = [2]bool{}
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		k, rest := nextField(line)
		var w int
		switch string(k) {
		case "some":
			w = 0
		case "full":
			w = 1
		default:
			continue
		}
		ok := true
		for i := 0; i < 4 && ok; i++ {
			var f []byte
			f, rest = nextField(rest)
			eq := bytes.IndexByte(f, '=')
			if eq < 0 {
				ok = false
				break
			}
			if i < 3 {
				p.avg[w][i], ok = parseFloat32(f[eq+1:])
			} else {
				p.total[w], ok = parseUint(f[eq+1:])
			}
		}
		p.present[w] = ok
	}
	if !p.present[0] && !p.present[1] {
		return errFormat
	}
	return nil
}

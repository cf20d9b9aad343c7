package collector

import (
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"
)

// null marks PM_INDOM_NULL in descTable.
const null = -1

// descEntry is one row of descTable.
type descEntry struct {
	name                  string
	domain, cluster, item uint32
	typ                   pmapi.Type
	indom                 int
	sem                   pmapi.Sem
	units                 pmapi.Units
}

func units(dimSpace, dimTime, dimCount int8, scaleSpace, scaleTime, scaleCount uint8) pmapi.Units {
	return pmapi.Units{DimSpace: dimSpace, DimTime: dimTime, DimCount: dimCount,
		ScaleSpace: scaleSpace, ScaleTime: scaleTime, ScaleCount: scaleCount}
}

// Instance domain serials (domain 60).
const (
	indomCPU      = 0
	indomDisk     = 1
	indomLoadavg  = 2
	indomNet      = 3
	indomFilesys  = 5
	indomParts    = 10
	indomTmpfs    = 18
	indomNode     = 19
	indomIRQ      = 4
	indomSoftIRQ  = 36
	indomIRQCPU   = 40
	indomSIRQCPU  = 41
	indomZram     = 38
	indomPressure = 37
)

// The sources a metric's values come from; each is read at most once per
// Fetch.
const (
	srcNone = iota
	srcStat
	srcMeminfo
	srcLoadavg
	srcUptime
	srcVmstat
	srcDisk
	srcPartitions
	srcScheduler
	srcNet
	srcFilesys
	srcStatfs
	srcUname
	srcPressCPU
	srcPressMem
	srcPressIO
	srcPressIRQ
	srcPidMax
	srcNptys
	srcEntropy
	srcPoolsize
	srcSnmp
	srcNetstat
	srcNetSys
	srcVfsFiles
	srcVfsInodes
	srcVfsDentry
	srcVfsAio
	srcIRQ
	srcIRQStat // srcIRQ and srcStat
	srcSoftIRQ
	srcSoftIRQStat
	srcCPUInfo
	srcCPUSys
	srcSockstat
	srcSockstat6
	srcStatfsTmp
	srcSoftnet
	srcSoftnetStat // srcSoftnet and srcStat
	srcScsiID
	srcZramSize
	srcZramIO
	srcZramMM
	srcZramBD
	srcNodeOnline
	srcNuma
	srcNumaMem // srcNuma and /proc/meminfo
	srcPernode
	nSources
)

// val is a metric value before encoding: u for integers (two's complement
// for signed types), f for FLOAT and DOUBLE, s for STRING.
type val struct {
	u uint64
	f float64
	s string
}

// getter computes the value of a metric for the instance at index i of its
// instance domain's current list (0 for a singular metric); false means no
// value for that instance.
type getter func(c *Collector, i int) (val, bool)

// metric is one exported metric.
type metric struct {
	name     string
	desc     pmapi.Desc
	src      int
	get      getter
	fixedErr int32 // when nonzero, every fetch gives this error
	// check, if set, is called after the refresh: a nonzero result is
	// the value set's error code.
	check func(c *Collector) int32
	help  string
}

// diskMetric is one of the /proc/diskstats metrics that disk.dev,
// disk.partitions and zram have alike.
type diskMetric struct {
	name string
	calc func(d *disk) uint64
	help string
}

// binding says how to compute a metric of descTable.
type binding struct {
	src   int
	get   getter
	err   int32
	check func(c *Collector) int32
	help  string
}

func u(v uint64) (val, bool)           { return val{u: v}, true }
func f(v float64) (val, bool)          { return val{f: v}, true }
func none() (val, bool)                { return val{}, false }
func str(s string) (val, bool)         { return val{s: s}, true }
func ms(c *Collector, j uint64) uint64 { return 1000 * j / uint64(c.hz) }

// buildTables binds descTable to the getters and builds the namespace.
func (c *Collector) buildTables() {
	b := bindings()
	c.byPMID = make(map[pmapi.PMID]*metric, len(descTable))
	c.byName = make(map[string]*metric, len(descTable))
	c.nonLeaf = map[string]bool{}
	for _, e := range descTable {
		bd, ok := b[e.name]
		if !ok {
			continue
		}
		indom := pmapi.InDomNull
		if e.indom != null {
			indom = pmapi.NewInDom(e.domain, uint32(e.indom))
		}
		m := &metric{
			name: e.name,
			desc: pmapi.Desc{PMID: pmapi.NewPMID(e.domain, e.cluster, e.item), Type: e.typ,
				InDom: indom, Sem: e.sem, Units: e.units},
			src: bd.src, get: bd.get, fixedErr: bd.err, check: bd.check, help: bd.help,
		}
		c.metrics = append(c.metrics, m)
		c.byPMID[m.desc.PMID] = m
		c.byName[m.name] = m
		c.names = append(c.names, m.name)
		for i := strings.IndexByte(m.name, '.'); i > 0; {
			c.nonLeaf[m.name[:i]] = true
			j := strings.IndexByte(m.name[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
}

// Names returns every metric name the Collector exports, in namespace
// order.
func (c *Collector) Names() []string { return append([]string(nil), c.names...) }

// ---------------------------------------------------------------------------
// Getters.

func cpuAll(field int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if !c.stat.hasAll || c.stat.all.n <= field {
			return none()
		}
		return u(ms(c, c.stat.all.v[field]))
	}
}

func cpuPer(field int) getter {
	return func(c *Collector, i int) (val, bool) {
		t := &c.stat.cpus[i]
		if t.n <= field {
			return none()
		}
		return u(ms(c, t.v[field]))
	}
}

// cpuCalc computes the derived CPU times from one /proc/stat cpu line.
func cpuCalc(c *Collector, t *cpuTimes, what int) (val, bool) {
	v := &t.v
	switch what {
	case 0: // intr: hard + soft interrupts
		if t.n <= cpuSoftIRQ {
			return none()
		}
		return u(ms(c, v[cpuIRQ]) + ms(c, v[cpuSoftIRQ]))
	case 1: // vuser: user excluding guest
		if t.n <= cpuGuest {
			return u(ms(c, v[cpuUser]))
		}
		return u(ms(c, v[cpuUser]-min(v[cpuGuest], v[cpuUser])))
	case 2: // vnice: nice excluding guest_nice
		if t.n <= cpuGuestNice {
			return u(ms(c, v[cpuNice]))
		}
		return u(ms(c, v[cpuNice]-min(v[cpuGuestNice], v[cpuNice])))
	}
	return none()
}

func cpuAllCalc(what int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if !c.stat.hasAll {
			return none()
		}
		return cpuCalc(c, &c.stat.all, what)
	}
}

func cpuPerCalc(what int) getter {
	return func(c *Collector, i int) (val, bool) { return cpuCalc(c, &c.stat.cpus[i], what) }
}

func statField(bit uint32, p func(s *procStat) uint64) getter {
	return func(c *Collector, _ int) (val, bool) {
		if c.stat.has&bit == 0 {
			return none()
		}
		return u(p(&c.stat))
	}
}

// mi is a /proc/meminfo field as it is (Kbyte, or a count).
func mi(k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if v, ok := c.mem.get(k); ok {
			return u(v)
		}
		return none()
	}
}

// miBytes is a /proc/meminfo Kbyte field in bytes.
func miBytes(k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if v, ok := c.mem.get(k); ok {
			return u(v << 10)
		}
		return none()
	}
}

// miCalc computes v from the named fields, all of which must be present.
func miCalc(calc func(v *[nMeminfo]uint64) uint64, keys ...int) getter {
	return func(c *Collector, _ int) (val, bool) {
		for _, k := range keys {
			if !c.mem.has[k] {
				return none()
			}
		}
		return u(calc(&c.mem.v))
	}
}

// hugeBytes is a HugePages_* count times the huge page size, in bytes.
func hugeBytes(k int) getter {
	return miCalc(func(v *[nMeminfo]uint64) uint64 { return v[k] * v[miHugepagesize] << 10 }, k, miHugepagesize)
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

func diskDev(calc func(d *disk) uint64) getter {
	return func(c *Collector, i int) (val, bool) { return u(calc(&c.disks[i])) }
}

func diskAll(calc func(d *disk) uint64) getter {
	return func(c *Collector, _ int) (val, bool) {
		var t uint64
		for i := range c.disks {
			t += calc(&c.disks[i])
		}
		return u(t)
	}
}

func dv(k int) func(d *disk) uint64 { return func(d *disk) uint64 { return d.v[k] } }
func dv32(k int) func(d *disk) uint64 {
	return func(d *disk) uint64 { return uint64(uint32(d.v[k])) }
}
func dsum(a, b int) func(d *disk) uint64 { return func(d *disk) uint64 { return d.v[a] + d.v[b] } }
func dhalf(k int) func(d *disk) uint64   { return func(d *disk) uint64 { return d.v[k] / 2 } }

func netDev(k int) getter {
	return func(c *Collector, i int) (val, bool) { return u(c.nets[i].v[k]) }
}

func fsGet(calc func(fs *filesys) (val, bool)) getter {
	return func(c *Collector, i int) (val, bool) {
		fs := &c.fss[i]
		if fs.stErr != nil {
			return none()
		}
		return calc(fs)
	}
}

// fsKB converts a count of file system blocks to Kbytes.
func fsKB(fs *filesys, blocks uint64) uint64 { return blocks * uint64(fs.st.Bsize) / 1024 }

func pressAvg(file, which int) getter {
	return func(c *Collector, i int) (val, bool) {
		p := &c.press[file]
		if !p.present[which] {
			return none()
		}
		return f(p.avg[which][i])
	}
}

func pressTotal(file, which int) getter {
	return func(c *Collector, _ int) (val, bool) {
		p := &c.press[file]
		if !p.present[which] {
			return none()
		}
		return u(p.total[which])
	}
}

func sysctl(k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if !c.sysctlOK[k] {
			return none()
		}
		return u(c.sysctl[k])
	}
}

func unameGet(k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if !c.uname.ok[k] {
			return none()
		}
		return str(c.uname.s[k])
	}
}

// bindings maps each metric name of descTable that the Collector supports
// to its source, getter and one-line help.
func bindings() map[string]binding {
	bm := map[string]binding{}
	add := func(name string, src int, g getter, help string) {
		bm[name] = binding{src: src, get: g, help: help}
	}

	// kernel.all
	add("kernel.all.load", srcLoadavg, func(c *Collector, i int) (val, bool) {
		return f(c.load.load[i])
	}, "1, 5 and 15 minute load averages from /proc/loadavg")
	add("kernel.all.intr", srcStat, statField(statHasIntr, func(s *procStat) uint64 { return s.intr }),
		"interrupts serviced since boot, first number of the intr line of /proc/stat")
	add("kernel.all.pswitch", srcStat, statField(statHasCtxt, func(s *procStat) uint64 { return s.ctxt }),
		"context switches since boot, ctxt in /proc/stat")
	add("kernel.all.sysfork", srcStat, statField(statHasProcesses, func(s *procStat) uint64 { return s.processes }),
		"processes and threads created since boot, processes in /proc/stat")
	add("kernel.all.running", srcStat, statField(statHasRunning, func(s *procStat) uint64 { return s.running }),
		"runnable tasks now, procs_running in /proc/stat")
	add("kernel.all.blocked", srcStat, statField(statHasBlocked, func(s *procStat) uint64 { return s.blocked }),
		"tasks blocked on I/O now, procs_blocked in /proc/stat")
	add("kernel.all.boottime", srcStat, statField(statHasBtime, func(s *procStat) uint64 { return s.btime }),
		"boot time in seconds since the epoch, btime in /proc/stat")
	add("kernel.all.hz", srcNone, func(c *Collector, _ int) (val, bool) { return u(uint64(c.hz)) },
		"clock ticks per second of the CPU times in /proc/stat (USER_HZ)")
	add("kernel.all.uptime", srcUptime, func(c *Collector, _ int) (val, bool) { return f(c.up.uptime) },
		"seconds since boot, from /proc/uptime")
	add("kernel.all.idletime", srcUptime, func(c *Collector, _ int) (val, bool) { return f(c.up.idle) },
		"seconds of idle CPU time since boot, from /proc/uptime")
	add("kernel.all.lastpid", srcLoadavg, func(c *Collector, _ int) (val, bool) {
		if !c.load.hasLast {
			return none()
		}
		return u(c.load.lastpid)
	}, "most recently allocated process id, from /proc/loadavg")
	add("kernel.all.runnable", srcLoadavg, func(c *Collector, _ int) (val, bool) {
		if !c.load.hasCounts {
			return none()
		}
		return u(c.load.runnable)
	}, "runnable scheduling entities, from /proc/loadavg")
	add("kernel.all.nprocs", srcLoadavg, func(c *Collector, _ int) (val, bool) {
		if !c.load.hasCounts {
			return none()
		}
		return u(c.load.nprocs)
	}, "scheduling entities (processes and threads) that exist, from /proc/loadavg")
	add("kernel.all.pid_max", srcPidMax, sysctl(0), "largest process id plus one, /proc/sys/kernel/pid_max")
	add("kernel.all.nptys", srcNptys, sysctl(1), "pseudo-terminals in use, /proc/sys/kernel/pty/nr")
	add("kernel.all.entropy.avail", srcEntropy, sysctl(2), "bits of entropy the kernel's random pool holds")
	add("kernel.all.entropy.poolsize", srcPoolsize, sysctl(3), "size in bits of the kernel's random pool")

	cpu := []struct {
		name  string
		field int
		calc  int
		help  string
	}{
		{"user", cpuUser, -1, "CPU time in user mode, guest time included"},
		{"nice", cpuNice, -1, "CPU time in user mode at low priority, guest nice time included"},
		{"sys", cpuSys, -1, "CPU time in the kernel"},
		{"idle", cpuIdle, -1, "idle CPU time"},
		{"intr", -1, 0, "CPU time servicing hard and soft interrupts"},
		{"steal", cpuSteal, -1, "CPU time stolen by the hypervisor"},
		{"guest", cpuGuest, -1, "CPU time running virtual guests"},
		{"vuser", -1, 1, "CPU time in user mode, guest time excluded"},
		{"guest_nice", cpuGuestNice, -1, "CPU time running niced virtual guests"},
		{"vnice", -1, 2, "CPU time at low priority, guest nice time excluded"},
		{"wait.total", cpuWait, -1, "idle CPU time with I/O outstanding"},
		{"irq.soft", cpuSoftIRQ, -1, "CPU time servicing soft interrupts"},
		{"irq.hard", cpuIRQ, -1, "CPU time servicing hard interrupts"},
	}
	for _, x := range cpu {
		if x.calc >= 0 {
			add("kernel.all.cpu."+x.name, srcStat, cpuAllCalc(x.calc), x.help+", all CPUs, from /proc/stat")
			add("kernel.percpu.cpu."+x.name, srcStat, cpuPerCalc(x.calc), x.help+", per CPU, from /proc/stat")
		} else {
			add("kernel.all.cpu."+x.name, srcStat, cpuAll(x.field), x.help+", all CPUs, from /proc/stat")
			add("kernel.percpu.cpu."+x.name, srcStat, cpuPer(x.field), x.help+", per CPU, from /proc/stat")
		}
	}

	press := []struct {
		res  string
		file int
		src  int
	}{{"cpu", 0, srcPressCPU}, {"memory", 1, srcPressMem}, {"io", 2, srcPressIO}, {"irq", 3, srcPressIRQ}}
	for _, p := range press {
		for w, kind := range []string{"some", "full"} {
			add("kernel.all.pressure."+p.res+"."+kind+".avg", p.src, pressAvg(p.file, w),
				"average share of time some or all tasks stalled on "+p.res+" ("+kind+"), /proc/pressure/"+p.res)
			add("kernel.all.pressure."+p.res+"."+kind+".total", p.src, pressTotal(p.file, w),
				"total time tasks stalled on "+p.res+" ("+kind+"), /proc/pressure/"+p.res)
		}
	}

	// mem
	mem := []struct {
		name string
		key  int
		help string
	}{
		{"free", miMemFree, "unused memory, MemFree"},
		{"shared", miMemShared, "shared memory, MemShared (old kernels only)"},
		{"bufmem", miBuffers, "memory in block device buffers, Buffers"},
		{"cached", miCached, "page cache memory, Cached"},
		{"swapCached", miSwapCached, "swapped-in memory still in swap, SwapCached"},
		{"active", miActive, "recently used memory, Active"},
		{"inactive", miInactive, "less recently used memory, Inactive"},
		{"highTotal", miHighTotal, "high memory, HighTotal"},
		{"highFree", miHighFree, "unused high memory, HighFree"},
		{"lowTotal", miLowTotal, "low memory, LowTotal"},
		{"lowFree", miLowFree, "unused low memory, LowFree"},
		{"swapTotal", miSwapTotal, "swap space, SwapTotal"},
		{"swapFree", miSwapFree, "unused swap space, SwapFree"},
		{"dirty", miDirty, "memory waiting to be written back, Dirty"},
		{"writeback", miWriteback, "memory being written back, Writeback"},
		{"mapped", miMapped, "memory mapped from files, Mapped"},
		{"slab", miSlab, "kernel slab memory, Slab"},
		{"committed_AS", miCommittedAS, "memory committed to address spaces, Committed_AS"},
		{"pageTables", miPageTables, "memory in page tables, PageTables"},
		{"reverseMaps", miReverseMaps, "memory in reverse maps, ReverseMaps (old kernels only)"},
		{"anonpages", miAnonPages, "anonymous user memory, AnonPages"},
		{"commitLimit", miCommitLimit, "memory that can be committed, CommitLimit"},
		{"bounce", miBounce, "memory in bounce buffers, Bounce"},
		{"NFS_Unstable", miNFSUnstable, "NFS pages not yet committed, NFS_Unstable"},
		{"slabReclaimable", miSReclaimable, "reclaimable slab memory, SReclaimable"},
		{"slabUnreclaimable", miSUnreclaim, "unreclaimable slab memory, SUnreclaim"},
		{"active_anon", miActiveAnon, "recently used anonymous memory, Active(anon)"},
		{"inactive_anon", miInactiveAnon, "less recently used anonymous memory, Inactive(anon)"},
		{"active_file", miActiveFile, "recently used file memory, Active(file)"},
		{"inactive_file", miInactiveFile, "less recently used file memory, Inactive(file)"},
		{"unevictable", miUnevictable, "memory that cannot be paged out, Unevictable"},
		{"mlocked", miMlocked, "memory locked with mlock, Mlocked"},
		{"shmem", miShmem, "shared memory and tmpfs, Shmem"},
		{"kernelStack", miKernelStack, "kernel stacks, KernelStack"},
		{"hugepagesTotal", miHugePagesTotal, "huge pages, HugePages_Total"},
		{"hugepagesFree", miHugePagesFree, "unused huge pages, HugePages_Free"},
		{"hugepagesRsvd", miHugePagesRsvd, "reserved huge pages, HugePages_Rsvd"},
		{"hugepagesSurp", miHugePagesSurp, "surplus huge pages, HugePages_Surp"},
		{"directMap4k", miDirectMap4k, "memory mapped with 4 KiB pages, DirectMap4k"},
		{"directMap2M", miDirectMap2M, "memory mapped with 2 MiB pages, DirectMap2M"},
		{"vmallocTotal", miVmallocTotal, "vmalloc address space, VmallocTotal"},
		{"vmallocUsed", miVmallocUsed, "used vmalloc space, VmallocUsed"},
		{"vmallocChunk", miVmallocChunk, "largest free vmalloc chunk, VmallocChunk"},
		{"mmap_copy", miMmapCopy, "mmap copy memory (no-MMU kernels), MmapCopy"},
		{"quicklists", miQuicklists, "per-CPU quicklist memory, Quicklists"},
		{"corrupthardware", miHardwareCorrupted, "memory in pages with hardware errors, HardwareCorrupted"},
		{"anonhugepages", miAnonHugePages, "anonymous huge page memory, AnonHugePages"},
		{"directMap1G", miDirectMap1G, "memory mapped with 1 GiB pages, DirectMap1G"},
		{"available", miMemAvailable, "memory available for new work without swapping, MemAvailable"},
	}
	for _, x := range mem {
		add("mem.util."+x.name, srcMeminfo, mi(x.key), x.help+" in /proc/meminfo")
	}
	add("mem.util.used", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return sub(v[miMemTotal], v[miMemFree])
	}, miMemTotal, miMemFree), "memory in use: MemTotal less MemFree")
	add("mem.util.other", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return sub(sub(sub(v[miMemTotal], v[miMemFree]), v[miCached]), v[miBuffers])
	}, miMemTotal, miMemFree, miCached, miBuffers), "memory in use that is neither page cache nor buffers")
	add("mem.util.cache_clean", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return sub(sub(v[miCached], v[miDirty]), v[miWriteback])
	}, miCached, miDirty, miWriteback), "page cache that is neither dirty nor under writeback")
	add("mem.util.hugepagesTotalBytes", srcMeminfo, hugeBytes(miHugePagesTotal), "memory in huge pages")
	add("mem.util.hugepagesFreeBytes", srcMeminfo, hugeBytes(miHugePagesFree), "memory in unused huge pages")
	add("mem.util.hugepagesRsvdBytes", srcMeminfo, hugeBytes(miHugePagesRsvd), "memory in reserved huge pages")
	add("mem.util.hugepagesSurpBytes", srcMeminfo, hugeBytes(miHugePagesSurp), "memory in surplus huge pages")
	add("mem.physmem", srcMeminfo, mi(miMemTotal), "total usable memory, MemTotal in /proc/meminfo")
	add("mem.freemem", srcMeminfo, mi(miMemFree), "unused memory, MemFree in /proc/meminfo")
	add("hinv.physmem", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return v[miMemTotal] >> 10
	}, miMemTotal), "total usable memory in Mbytes, from MemTotal in /proc/meminfo")
	add("hinv.pagesize", srcNone, func(c *Collector, _ int) (val, bool) { return u(uint64(pageSize)) },
		"memory page size")

	// swap
	add("swap.pagesin", srcVmstat, vmKey(slots().vmstat["pswpin"]), "pages read from swap, pswpin in /proc/vmstat")
	add("swap.pagesout", srcVmstat, vmKey(slots().vmstat["pswpout"]), "pages written to swap, pswpout in /proc/vmstat")
	bm["swap.in"] = binding{err: int32(pmapi.ErrAppVersion), help: "swap in operations (kernels before 2.6 only)"}
	bm["swap.out"] = binding{err: int32(pmapi.ErrAppVersion), help: "swap out operations (kernels before 2.6 only)"}
	add("swap.free", srcMeminfo, miBytes(miSwapFree), "unused swap space in bytes, SwapFree in /proc/meminfo")
	add("swap.length", srcMeminfo, miBytes(miSwapTotal), "swap space in bytes, SwapTotal in /proc/meminfo")
	add("swap.used", srcMeminfo, miCalc(func(v *[nMeminfo]uint64) uint64 {
		return sub(v[miSwapTotal], v[miSwapFree]) << 10
	}, miSwapTotal, miSwapFree), "swap space in use in bytes")

	// disks
	dk := []diskMetric{
		{"read", dv(dsReadIOs), "read requests completed"},
		{"write", dv(dsWriteIOs), "write requests completed"},
		{"total", dsum(dsReadIOs, dsWriteIOs), "read and write requests completed"},
		{"blkread", dv(dsReadSectors), "512-byte sectors read"},
		{"blkwrite", dv(dsWriteSectors), "512-byte sectors written"},
		{"blktotal", dsum(dsReadSectors, dsWriteSectors), "512-byte sectors read and written"},
		{"read_bytes", dhalf(dsReadSectors), "Kbytes read"},
		{"write_bytes", dhalf(dsWriteSectors), "Kbytes written"},
		{"total_bytes", func(d *disk) uint64 { return (d.v[dsReadSectors] + d.v[dsWriteSectors]) / 2 }, "Kbytes read and written"},
		{"read_merge", dv(dsReadMerges), "read requests merged"},
		{"write_merge", dv(dsWriteMerges), "write requests merged"},
		{"avactive", dv32(dsIOTicks), "time with I/O in progress"},
		{"read_rawactive", dv32(dsReadTicks), "time spent by read requests"},
		{"write_rawactive", dv32(dsWriteTicks), "time spent by write requests"},
		{"total_rawactive", func(d *disk) uint64 { return uint64(uint32(d.v[dsReadTicks] + d.v[dsWriteTicks])) }, "time spent by read and write requests"},
		{"aveq", dv32(dsTimeInQueue), "weighted time with I/O in progress"},
		{"discard", dv(dsDiscardIOs), "discard requests completed"},
		{"blkdiscard", dv(dsDiscardSectors), "512-byte sectors discarded"},
		{"discard_bytes", dhalf(dsDiscardSectors), "Kbytes discarded"},
		{"discard_merge", dv(dsDiscardMerges), "discard requests merged"},
		{"discard_rawactive", dv32(dsDiscardTicks), "time spent by discard requests"},
		{"flush", dv(dsFlushIOs), "flush requests completed"},
		{"flush_rawactive", dv32(dsFlushTicks), "time spent by flush requests"},
		{"inflight", dv32(dsInFlight), "requests in flight now"},
	}
	for _, x := range dk {
		add("disk.dev."+x.name, srcDisk, diskDev(x.calc), x.help+", per disk, from /proc/diskstats")
		// The sums are 64-bit; those the PMDA keeps in 32 bits (U32
		// descriptors) wrap the same way when they are encoded.
		add("disk.all."+x.name, srcDisk, diskAll(x.calc), x.help+", all disks, from /proc/diskstats")
	}
	for _, x := range dk {
		calc := x.calc
		add("disk.partitions."+x.name, srcDisk, func(c *Collector, i int) (val, bool) {
			return u(calc(&c.parts[i]))
		}, x.help+", per partition, from /proc/diskstats")
	}
	add("disk.partitions.capacity", srcPartitions, func(c *Collector, i int) (val, bool) {
		if c.parts[i].blocks == 0 {
			return none()
		}
		return u(c.parts[i].blocks)
	}, "partition size in Kbytes, from /proc/partitions")
	zramBindings(add, dk)
	add("disk.dev.scheduler", srcScheduler, func(c *Collector, i int) (val, bool) {
		return str(c.disks[i].sched)
	}, "I/O scheduler of the disk, from /sys/block/<disk>/queue/scheduler")
	add("disk.dev.capacity", srcPartitions, func(c *Collector, i int) (val, bool) {
		if c.disks[i].blocks == 0 {
			return none()
		}
		return u(c.disks[i].blocks)
	}, "disk size in Kbytes, from /proc/partitions")
	add("hinv.ndisk", srcDisk, func(c *Collector, _ int) (val, bool) { return u(uint64(len(c.disks))) },
		"number of disks")

	// network
	nd := []struct {
		name string
		k    int
		help string
	}{
		{"in.bytes", ndRxBytes, "bytes received"},
		{"in.packets", ndRxPackets, "packets received"},
		{"in.errors", ndRxErrs, "receive errors"},
		{"in.drops", ndRxDrop, "received packets dropped"},
		{"in.fifo", ndRxFifo, "receive FIFO overruns"},
		{"in.frame", ndRxFrame, "receive framing errors"},
		{"in.compressed", ndRxCompressed, "compressed packets received"},
		{"in.mcasts", ndRxMulticast, "multicast packets received"},
		{"out.bytes", ndTxBytes, "bytes sent"},
		{"out.packets", ndTxPackets, "packets sent"},
		{"out.errors", ndTxErrs, "send errors"},
		{"out.drops", ndTxDrop, "sent packets dropped"},
		{"out.fifo", ndTxFifo, "send FIFO overruns"},
		{"out.carrier", ndTxCarrier, "carrier losses while sending"},
		{"out.compressed", ndTxCompressed, "compressed packets sent"},
	}
	for _, x := range nd {
		add("network.interface."+x.name, srcNet, netDev(x.k), x.help+", per interface, from /proc/net/dev")
	}
	add("hinv.ninterface", srcNet, func(c *Collector, _ int) (val, bool) { return u(uint64(len(c.nets))) },
		"number of network interfaces")

	// file systems
	add("filesys.capacity", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(fsKB(fs, fs.st.Blocks)) }),
		"size of the file system in Kbytes")
	add("filesys.used", srcStatfs, fsGet(func(fs *filesys) (val, bool) {
		return u(fsKB(fs, fs.st.Blocks) - fsKB(fs, fs.st.Bfree))
	}), "space in use on the file system in Kbytes")
	add("filesys.free", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(fsKB(fs, fs.st.Bfree)) }),
		"free space on the file system in Kbytes")
	add("filesys.maxfiles", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(fs.st.Files) }),
		"inodes the file system can hold")
	add("filesys.usedfiles", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(sub(fs.st.Files, fs.st.Ffree)) }),
		"inodes in use on the file system")
	add("filesys.freefiles", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(fs.st.Ffree) }),
		"free inodes on the file system")
	add("filesys.mountdir", srcFilesys, func(c *Collector, i int) (val, bool) { return str(c.fss[i].dir) },
		"where the file system is mounted")
	add("filesys.full", srcStatfs, fsGet(func(fs *filesys) (val, bool) {
		used := float64(fsKB(fs, fs.st.Blocks) - fsKB(fs, fs.st.Bfree))
		avail := float64(fsKB(fs, fs.st.Bavail))
		if used+avail == 0 {
			return f(0)
		}
		return f(100 * used / (used + avail))
	}), "percentage of the file system's space in use, of the space available to users")
	add("filesys.blocksize", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(uint64(fs.st.Bsize)) }),
		"block size of the file system in bytes")
	add("filesys.avail", srcStatfs, fsGet(func(fs *filesys) (val, bool) { return u(fsKB(fs, fs.st.Bavail)) }),
		"free space available to unprivileged users in Kbytes")
	add("filesys.readonly", srcStatfs, fsGet(func(fs *filesys) (val, bool) {
		if fs.readonly {
			return u(1)
		}
		return u(0)
	}), "1 if the file system is mounted read-only (the ro option), else 0")
	tmp := func(calc func(fs *filesys) (val, bool)) getter {
		return func(c *Collector, i int) (val, bool) {
			fs := &c.tmps[i]
			if fs.stErr != nil {
				return none()
			}
			return calc(fs)
		}
	}
	add("tmpfs.capacity", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) { return u(fsKB(fs, fs.st.Blocks)) }),
		"size of the tmpfs file system in Kbytes")
	add("tmpfs.used", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) {
		return u(fsKB(fs, fs.st.Blocks) - fsKB(fs, fs.st.Bfree))
	}), "space in use on the tmpfs file system in Kbytes")
	add("tmpfs.free", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) { return u(fsKB(fs, fs.st.Bfree)) }),
		"free space on the tmpfs file system in Kbytes")
	add("tmpfs.maxfiles", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) { return u(fs.st.Files) }),
		"inodes the tmpfs file system can hold")
	add("tmpfs.usedfiles", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) { return u(sub(fs.st.Files, fs.st.Ffree)) }),
		"inodes in use on the tmpfs file system")
	add("tmpfs.freefiles", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) { return u(fs.st.Ffree) }),
		"free inodes on the tmpfs file system")
	add("tmpfs.full", srcStatfsTmp, tmp(func(fs *filesys) (val, bool) {
		used := float64(fsKB(fs, fs.st.Blocks) - fsKB(fs, fs.st.Bfree))
		avail := float64(fsKB(fs, fs.st.Bavail))
		if used+avail == 0 {
			return f(0)
		}
		return f(100 * used / (used + avail))
	}), "percentage of the tmpfs file system's space in use")
	add("hinv.nfilesys", srcFilesys, func(c *Collector, _ int) (val, bool) { return u(uint64(len(c.fss))) },
		"number of mounted block device file systems")

	add("hinv.ncpu", srcStat, func(c *Collector, _ int) (val, bool) { return u(uint64(len(c.stat.cpus))) },
		"number of CPUs")

	// uname
	add("kernel.uname.release", srcUname, unameGet(unRelease), "kernel release, as uname -r")
	add("kernel.uname.version", srcUname, unameGet(unVersion), "kernel version, as uname -v")
	add("kernel.uname.sysname", srcUname, unameGet(unSysname), "kernel name, as uname -s")
	add("kernel.uname.machine", srcUname, unameGet(unMachine), "hardware name, as uname -m")
	add("kernel.uname.nodename", srcUname, unameGet(unNodename), "host name, as uname -n")
	add("kernel.uname.distro", srcUname, unameGet(unDistro), "Linux distribution name and release")
	add("pmcd.hostname", srcUname, func(c *Collector, _ int) (val, bool) { return str(c.Host()) },
		"the host's name")
	moreBindings(add)
	hinvBindings(add)
	numaBindings(add)
	irqBindings(add)
	softnetBindings(add, bm)
	return bm
}

func vmKey(slot int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if v, ok := c.vm.get(slot); ok {
			return u(v)
		}
		return none()
	}
}

func snmpKey(file, slot int) getter {
	return func(c *Collector, _ int) (val, bool) {
		kv := &c.snmp
		if file == netstatFile {
			kv = &c.netstat
		}
		if v, ok := kv.get(slot); ok {
			return u(v)
		}
		return none()
	}
}

func vfsField(file, k int) getter {
	return func(c *Collector, _ int) (val, bool) {
		if c.vfsN[file] <= k {
			return none()
		}
		return u(c.vfs[file][k])
	}
}

// moreBindings adds mem.vmstat, the network protocol counters, the wider
// network.interface metrics, vfs and the interrupt error counts.
func moreBindings(add func(name string, src int, g getter, help string)) {
	for _, e := range descTable {
		k, ok := strings.CutPrefix(e.name, "mem.vmstat.")
		if !ok {
			continue
		}
		add(e.name, srcVmstat, vmKey(slots().vmstat[k]), k+" in /proc/vmstat")
	}
	rec, unrec := slots().vmstat["nr_slab_reclaimable"], slots().vmstat["nr_slab_unreclaimable"]
	own := slots().vmstat["nr_slab"]
	add("mem.vmstat.nr_slab", srcVmstat, func(c *Collector, _ int) (val, bool) {
		if v, ok := c.vm.get(own); ok {
			return u(v)
		}
		r, ok1 := c.vm.get(rec)
		n, ok2 := c.vm.get(unrec)
		if !ok1 || !ok2 {
			return none()
		}
		return u(r + n)
	}, "slab pages: nr_slab in /proc/vmstat, or the sum of its reclaimable and unreclaimable parts")

	for _, f := range snmpFields {
		name := "/proc/net/snmp"
		src := srcSnmp
		if f.file == netstatFile {
			name, src = "/proc/net/netstat", srcNetstat
		}
		add(f.name, src, snmpKey(f.file, slots().snmp[f.sec][f.field]), f.sec+" "+f.field+" in "+name)
	}

	add("network.interface.collisions", srcNet, netDev(ndTxColls), "collisions while sending, per interface, from /proc/net/dev")
	for _, x := range []struct {
		name   string
		in, ou int
	}{{"bytes", ndRxBytes, ndTxBytes}, {"packets", ndRxPackets, ndTxPackets},
		{"errors", ndRxErrs, ndTxErrs}, {"drops", ndRxDrop, ndTxDrop}} {
		in, ou := x.in, x.ou
		add("network.interface.total."+x.name, srcNet, func(c *Collector, i int) (val, bool) {
			return u(c.nets[i].v[in] + c.nets[i].v[ou])
		}, x.name+" received and sent, per interface, from /proc/net/dev")
	}
	add("network.interface.total.mcasts", srcNet, netDev(ndRxMulticast),
		"multicast packets received (the kernel does not count those sent), per interface")
	add("network.interface.mtu", srcNetSys, func(c *Collector, i int) (val, bool) {
		n := &c.nets[i]
		if !n.hasMTU {
			return none()
		}
		return u(n.mtu)
	}, "maximum transmission unit, from /sys/class/net/<interface>/mtu")
	add("network.interface.up", srcNetSys, func(c *Collector, i int) (val, bool) {
		n := &c.nets[i]
		if !n.hasFlags {
			return none()
		}
		return u(n.flags & iffUp)
	}, "1 if the interface is up, else 0")
	add("network.interface.running", srcNetSys, func(c *Collector, i int) (val, bool) {
		n := &c.nets[i]
		if !n.hasFlags {
			return none()
		}
		if n.flags&iffUp != 0 && n.operUp {
			return u(1)
		}
		return u(0)
	}, "1 if the interface is up and operational, else 0")

	add("vfs.files.count", srcVfsFiles, vfsField(0, 0), "file handles in use, from /proc/sys/fs/file-nr")
	add("vfs.files.free", srcVfsFiles, vfsField(0, 1), "file handles allocated but free, from /proc/sys/fs/file-nr")
	add("vfs.files.max", srcVfsFiles, vfsField(0, 2), "most file handles the kernel will allocate, from /proc/sys/fs/file-nr")
	add("vfs.inodes.count", srcVfsInodes, vfsField(1, 0), "inodes allocated, from /proc/sys/fs/inode-state")
	add("vfs.inodes.free", srcVfsInodes, vfsField(1, 1), "free inodes, from /proc/sys/fs/inode-state")
	add("vfs.dentry.count", srcVfsDentry, vfsField(2, 0), "directory entries allocated, from /proc/sys/fs/dentry-state")
	add("vfs.dentry.free", srcVfsDentry, vfsField(2, 1), "unused directory entries, from /proc/sys/fs/dentry-state")
	add("vfs.aio.count", srcVfsAio, vfsField(3, 0), "asynchronous I/O contexts in use, /proc/sys/fs/aio-nr")
	add("vfs.aio.max", srcVfsAio, vfsField(3, 1), "most asynchronous I/O contexts allowed, /proc/sys/fs/aio-max-nr")

	add("kernel.all.interrupts.errors", srcIRQ, func(c *Collector, _ int) (val, bool) {
		if !c.intrHas[0] {
			return none()
		}
		return u(c.intrErr[0])
	}, "spurious interrupts, the ERR line of /proc/interrupts")
	add("kernel.all.interrupts.missed", srcIRQ, func(c *Collector, _ int) (val, bool) {
		if !c.intrHas[1] {
			return none()
		}
		return u(c.intrErr[1])
	}, "missed interrupts, the MIS line of /proc/interrupts")
}

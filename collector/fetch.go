package collector

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

var pageSize = os.Getpagesize()

// disk is one disk of the current /proc/diskstats.
type disk struct {
	id     int32
	name   string
	v      [nDiskFields]uint64
	blocks uint64 // from /proc/partitions, when read
	sched  string
	wwid   string
	zram   zramStat // of a zram device
}

// netIf is one interface of the current /proc/net/dev, with what
// /sys/class/net tells of it when that was read.
type netIf struct {
	id   int32
	name string
	v    [nNetFields]uint64

	mtu, flags       uint64
	hasMTU, hasFlags bool
	operUp           bool
}

// iffUp is IFF_UP in an interface's flags.
const iffUp = 1

// readNetSys reads the interface's mtu, flags and operstate attributes.
// An interface is operational (IFF_RUNNING) when it is up and its
// operstate is "up" or "unknown" (the kernel's netif_oper_up).
func (c *Collector) readNetSys(n *netIf) {
	p := c.netPaths[n.name]
	if p == nil {
		base := "sys/class/net/" + n.name + "/"
		p = &[3]string{base + "mtu", base + "flags", base + "operstate"}
		c.netPaths[n.name] = p
	}
	n.hasMTU, n.hasFlags, n.operUp = false, false, false
	if b, err := c.readFile(p[0]); err == nil {
		n.mtu, n.hasMTU = parseUint(bytes.TrimSpace(b))
	}
	if b, err := c.readFile(p[1]); err == nil {
		f := bytes.TrimSpace(b)
		if h, ok := bytes.CutPrefix(f, []byte("0x")); ok {
			n.flags, n.hasFlags = parseHex(h)
		}
	}
	if b, err := c.readFile(p[2]); err == nil {
		st := bytes.TrimSpace(b)
		n.operUp = string(st) == "up" || string(st) == "unknown"
	}
}

func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9':
			v = v<<4 | uint64(ch-'0')
		case ch >= 'a' && ch <= 'f':
			v = v<<4 | uint64(ch-'a'+10)
		case ch >= 'A' && ch <= 'F':
			v = v<<4 | uint64(ch-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// filesys is one mounted file system of the current /proc/mounts.
type filesys struct {
	id       int32
	dev      string
	dir      string
	path     string // dir under the root
	readonly bool   // mounted with the "ro" option
	st       syscall.Statfs_t
	stErr    error
}

// The kernel.uname fields, as indexes into unameInfo.
const (
	unRelease = iota
	unVersion
	unSysname
	unMachine
	unNodename
	unDistro
	nUname
)

type unameInfo struct {
	s          [nUname]string
	ok         [nUname]bool
	distroRead bool
}

var (
	loadIDs    = []int32{1, 5, 15}
	loadNames  = []string{"1 minute", "5 minute", "15 minute"}
	pressIDs   = []int32{10, 60, 300}
	pressNames = []string{"10 second", "1 minute", "5 minute"}
)

// refresh reads source s once per fetch; the error is remembered.
func (c *Collector) refresh(s int) error {
	if c.fresh[s] {
		return c.errs[s]
	}
	c.fresh[s] = true
	c.errs[s] = c.doRefresh(s)
	return c.errs[s]
}

func (c *Collector) doRefresh(s int) error {
	switch s {
	case srcNone:
		return nil
	case srcStat:
		b, err := c.readFile("proc/stat")
		if err != nil {
			return err
		}
		return parseStat(b, &c.stat)
	case srcMeminfo:
		b, err := c.readFile("proc/meminfo")
		if err != nil {
			return err
		}
		return parseMeminfo(b, &c.mem)
	case srcLoadavg:
		b, err := c.readFile("proc/loadavg")
		if err != nil {
			return err
		}
		return parseLoadavg(b, &c.load)
	case srcUptime:
		b, err := c.readFile("proc/uptime")
		if err != nil {
			return err
		}
		return parseUptime(b, &c.up)
	case srcVmstat:
		b, err := c.readFile("proc/vmstat")
		if err != nil {
			return err
		}
		return parseVmstat(b, &c.vm)
	case srcSnmp, srcNetstat:
		kv, file := &c.snmp, "proc/net/snmp"
		if s == srcNetstat {
			kv, file = &c.netstat, "proc/net/netstat"
		}
		kv.reset()
		b, err := c.readFile(file)
		if err != nil {
			return err
		}
		parseSnmp(b, kv)
		return nil
	case srcNetSys:
		if err := c.refresh(srcNet); err != nil {
			return err
		}
		for i := range c.nets {
			c.readNetSys(&c.nets[i])
		}
		return nil
	case srcVfsFiles, srcVfsInodes, srcVfsDentry:
		k := s - srcVfsFiles
		c.vfsN[k] = 0
		b, err := c.readFile([...]string{"proc/sys/fs/file-nr", "proc/sys/fs/inode-state", "proc/sys/fs/dentry-state"}[k])
		if err != nil {
			return err
		}
		c.vfsN[k] = parseFields(b, c.vfs[k][:])
		return nil
	case srcVfsAio:
		c.vfsN[3] = 0
		b, err := c.readFile("proc/sys/fs/aio-nr")
		if err != nil {
			return err
		}
		if parseFields(b, c.vfs[3][:1]) == 1 {
			c.vfsN[3] = 1
			if b, err := c.readFile("proc/sys/fs/aio-max-nr"); err == nil && parseFields(b, c.vfs[3][1:2]) == 1 {
				c.vfsN[3] = 2
			}
		}
		return nil
	case srcCPUInfo:
		if err := c.refresh(srcStat); err != nil {
			return err
		}
		b, err := c.readFile("proc/cpuinfo")
		if err != nil {
			return err
		}
		c.cpuinfo = parseCPUInfo(b, c.cpuinfo)
		return nil
	case srcCPUSys:
		if err := c.refresh(srcStat); err != nil {
			return err
		}
		c.refreshCPUSys()
		return nil
	case srcSockstat, srcSockstat6:
		lo, hi, file := 0, ssTCP6Inuse, "proc/net/sockstat"
		if s == srcSockstat6 {
			lo, hi, file = ssTCP6Inuse, nSockstat, "proc/net/sockstat6"
		}
		clear(c.sockHas[lo:hi])
		b, err := c.readFile(file)
		if err != nil {
			return err
		}
		parseSockstat(b, &c.sock, &c.sockHas)
		return nil
	case srcIRQ, srcSoftIRQ:
		t, file := &c.irq, "proc/interrupts"
		if s == srcSoftIRQ {
			t, file = &c.softirq, "proc/softirqs"
		}
		b, err := c.readFile(file)
		if err != nil {
			t.lines, t.lineIdx, t.cpuIdx, t.cpuIDs = t.lines[:0], t.lineIdx[:0], t.cpuIdx[:0], t.cpuIDs[:0]
			if s == srcIRQ {
				c.intrHas = [2]bool{}
			}
			return err
		}
		c.parseIRQ(b, t, s == srcIRQ)
		return nil
	case srcIRQStat, srcSoftIRQStat:
		if err := c.refresh(srcStat); err != nil {
			return err
		}
		return c.refresh(s - 1)
	case srcDisk:
		return c.refreshDisks()
	case srcPartitions:
		if err := c.refresh(srcDisk); err != nil {
			return err
		}
		b, err := c.readFile("proc/partitions")
		if err != nil {
			return err
		}
		parsePartitions(b, func(name []byte, blocks uint64) {
			for i := range c.disks {
				if c.disks[i].name == string(name) {
					c.disks[i].blocks = blocks
				}
			}
			for i := range c.parts {
				if c.parts[i].name == string(name) {
					c.parts[i].blocks = blocks
				}
			}
		})
		return nil
	case srcScheduler:
		if err := c.refresh(srcDisk); err != nil {
			return err
		}
		for i := range c.disks {
			c.disks[i].sched = c.scheduler(c.disks[i].name)
		}
		return nil
	case srcNet:
		return c.refreshNet()
	case srcFilesys:
		return c.refreshFilesys()
	case srcStatfs:
		if err := c.refresh(srcFilesys); err != nil {
			return err
		}
		for i := range c.fss {
			fs := &c.fss[i]
			fs.stErr = c.statfs(fs.path, &fs.st)
		}
		return nil
	case srcNuma:
		return c.refreshNuma()
	case srcNumaMem:
		if err := c.refresh(srcMeminfo); err != nil {
			return err
		}
		return c.refresh(srcNuma)
	case srcPernode:
		return c.refreshPernode()
	case srcSoftnet, srcSoftnetStat:
		if err := c.refresh(srcStat); err != nil && s == srcSoftnetStat {
			return err
		}
		b, err := c.readFile("proc/net/softnet_stat")
		if err != nil {
			c.softnet = softnetStat{cpus: c.softnet.cpus[:0]}
			return err
		}
		parseSoftnet(b, &c.softnet, c.stat.cpuIDs)
		return nil
	case srcZramSize, srcZramIO, srcZramMM, srcZramBD:
		if err := c.refresh(srcDisk); err != nil {
			return err
		}
		c.readZram(s - srcZramSize)
		return nil
	case srcScsiID:
		if err := c.refresh(srcDisk); err != nil {
			return err
		}
		for i := range c.disks {
			c.disks[i].wwid = c.scsiID(c.disks[i].name)
		}
		return nil
	case srcNodeOnline:
		c.listNodes()
		for i := range c.nodes {
			n := &c.nodes[i]
			n.online = 1
			if b, err := c.readFile(n.files[2]); err == nil {
				if v, ok := parseUint(bytes.TrimSpace(b)); ok {
					n.online = v
				}
			}
		}
		return nil
	case srcStatfsTmp:
		if err := c.refresh(srcFilesys); err != nil {
			return err
		}
		for i := range c.tmps {
			fs := &c.tmps[i]
			fs.stErr = c.statfs(fs.path, &fs.st)
		}
		return nil
	case srcUname:
		c.refreshUname()
		return nil
	case srcPressCPU, srcPressMem, srcPressIO, srcPressIRQ:
		k := s - srcPressCPU
		b, err := c.readFile([...]string{"proc/pressure/cpu", "proc/pressure/memory", "proc/pressure/io",
			"proc/pressure/irq"}[k])
		if err != nil {
			// as the PMDA: no values, not an error (kernels without
			// PSI, or without irq pressure)
			c.press[k].present = [2]bool{}
			return nil
		}
		return parsePressure(b, &c.press[k])
	case srcPidMax, srcNptys, srcEntropy, srcPoolsize:
		k := s - srcPidMax
		b, err := c.readFile([...]string{"proc/sys/kernel/pid_max", "proc/sys/kernel/pty/nr",
			"proc/sys/kernel/random/entropy_avail", "proc/sys/kernel/random/poolsize"}[k])
		if err != nil {
			return err
		}
		c.sysctl[k], c.sysctlOK[k] = parseUint(bytes.TrimSpace(b))
		return nil
	}
	return nil
}

// isDisk reports whether a /proc/diskstats name is a whole disk for
// disk.dev: not a partition, loop, RAM, zram, CD-ROM, device-mapper, md,
// xvm volume or WWID name (the linux PMDA's rules).
func isDisk(name []byte) bool {
	if isLoopLike(name) || bytes.Contains(name, []byte("xvm")) {
		return false
	}
	if len(name) == 18 && (name[0] == '1' || name[0] == '2' || name[0] == '3') {
		return false // a WWID
	}
	return !isPartition(name)
}

// isLoopLike reports the devices the PMDA never counts as disks or
// partitions of disks: loop, RAM, zram, device-mapper, md and CD-ROM
// devices.
func isLoopLike(s []byte) bool {
	has := func(p string) bool { return bytes.HasPrefix(s, []byte(p)) }
	if has("loop") || has("ram") || has("zram") || has("dm-") || has("md") {
		return true
	}
	return has("sr") && len(s) > 2 && isDigit(s[2])
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// isPartition applies the PMDA's partition-name heuristic: a name with a
// slash is a partition when it ends in p<digits> (or has no trailing
// digits); otherwise a name ending in a digit is a partition, unless it is
// a loop-like device or a whole mmcblk, nvme, rbd or nbd device (whose
// partitions have a "p" before the number).
func isPartition(s []byte) bool {
	m := len(s) - 1
	if m < 0 {
		return false
	}
	if bytes.IndexByte(s, '/') >= 0 {
		p := m
		for p > 0 && isDigit(s[p]) {
			p--
		}
		if p == m {
			return true
		}
		return s[p] == 'p'
	}
	if !isDigit(s[m]) || isLoopLike(s) {
		return false
	}
	wholeDevice := func(prefix string) bool {
		return bytes.HasPrefix(s, []byte(prefix)) && bytes.IndexByte(s[len(prefix):], 'p') < 0
	}
	switch {
	case wholeDevice("mmcblk"), wholeDevice("nvme"), wholeDevice("rbd"), wholeDevice("nbd"):
		return false
	}
	return true
}

func (c *Collector) refreshDisks() error {
	b, err := c.readFile("proc/diskstats")
	if err != nil {
		return err
	}
	c.disks, c.parts, c.zrams = c.disks[:0], c.parts[:0], c.zrams[:0]
	err = parseDiskstats(b, &c.dsScratch, func(d *diskStat) {
		var list *[]disk
		var cache *instCache
		switch {
		case bytes.HasPrefix(d.name, []byte("dm-")), bytes.HasPrefix(d.name, []byte("md")):
			return // device-mapper and md devices have instance domains of their own
		case bytes.HasPrefix(d.name, []byte("zram")):
			list, cache = &c.zrams, c.zramCache
		case isLoopLike(d.name):
			return
		case isPartition(d.name):
			list, cache = &c.parts, c.partCache
		case isDisk(d.name):
			list, cache = &c.disks, c.diskCache
		default:
			return
		}
		for i := range *list { // a repeated name keeps its first line
			if (*list)[i].name == string(d.name) {
				return
			}
		}
		e := cache.lookup(d.name)
		*list = append(*list, disk{id: e.id, name: e.name, v: d.v})
	})
	// the PMDA's instance cache lists instances in ascending order
	sortDisks(c.disks)
	sortDisks(c.parts)
	sortDisks(c.zrams)
	return err
}

func sortDisks(d []disk) {
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j].id < d[j-1].id; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
}

// scheduler returns the I/O scheduler of disk name: the bracketed entry of
// /sys/block/<name>/queue/scheduler, or "unknown". The attribute file is
// kept open and re-read, as the /proc files are.
func (c *Collector) scheduler(name string) string {
	rel, ok := c.schedPath[name]
	if !ok {
		rel = "sys/block/" + name + "/queue/scheduler"
		c.schedPath[name] = rel
	}
	b, err := c.readFile(rel)
	if err == nil {
		line, _ := nextLine(b)
		if i := bytes.IndexByte(line, '['); i >= 0 {
			if j := bytes.IndexByte(line[i:], ']'); j > 0 {
				return internSched(line[i+1 : i+j])
			}
		}
		return "unknown"
	}
	for _, x := range []struct{ file, name string }{
		{"iosched/quantum", "cfq"}, {"iosched/fifo_batch", "deadline"},
		{"iosched/antic_expire", "anticipatory"}, {"iosched", "noop"},
	} {
		if _, err := os.Stat(c.path("sys/block/" + name + "/queue/" + x.file)); err == nil {
			return x.name
		}
	}
	return "unknown"
}

var knownScheds = []string{"none", "mq-deadline", "kyber", "bfq", "noop", "deadline", "cfq"}

func internSched(b []byte) string {
	for _, s := range knownScheds {
		if string(b) == s {
			return s
		}
	}
	return string(b)
}

func (c *Collector) refreshNet() error {
	b, err := c.readFile("proc/net/dev")
	if err != nil {
		return err
	}
	c.nets = c.nets[:0]
	err = parseNetDev(b, &c.ndScratch, func(n *netStat) {
		for i := range c.nets {
			if c.nets[i].name == string(n.name) {
				return
			}
		}
		e := c.netCache.lookup(n.name)
		c.nets = append(c.nets, netIf{id: e.id, name: e.name, v: n.v})
	})
	for i := 1; i < len(c.nets); i++ {
		for j := i; j > 0 && c.nets[j].id < c.nets[j-1].id; j-- {
			c.nets[j], c.nets[j-1] = c.nets[j-1], c.nets[j]
		}
	}
	return err
}

func (c *Collector) refreshFilesys() error {
	b, err := c.readFile("proc/mounts")
	if err != nil {
		return err
	}
	if c.mountsOK && bytes.Equal(b, c.lastMounts) {
		return nil // unchanged: keep the file systems and their paths
	}
	c.lastMounts = append(c.lastMounts[:0], b...)
	c.mountsOK = true
	c.fss, c.tmps = c.fss[:0], c.tmps[:0]
	parseMounts(b, func(dev, dir, typ, opts []byte) {
		switch string(typ) {
		case "proc", "nfs", "devfs", "devpts", "devtmpfs", "selinuxfs", "securityfs",
			"configfs", "cgroup", "sysfs":
			return
		case "tmpfs": // named by its mount point, in an instance domain of its own
			e := c.tmpCache.lookup(dir)
			for i := range c.tmps {
				if c.tmps[i].id == e.id {
					return
				}
			}
			c.tmps = append(c.tmps, filesys{id: e.id, dev: e.name, dir: e.name, path: c.path(e.name)})
			return
		}
		switch {
		case bytes.HasPrefix(typ, []byte("auto")):
			return
		case !bytes.HasPrefix(dev, []byte("/dev")):
			return
		}
		e := c.fsCache.lookup(c.realDevice(dev))
		for i := range c.fss { // a repeated device keeps its first line
			if c.fss[i].id == e.id {
				return
			}
		}
		if e.aux != string(dir) {
			e.aux = string(dir)
		}
		c.fss = append(c.fss, filesys{id: e.id, dev: e.name, dir: e.aux, path: c.path(e.aux),
			readonly: hasOption(opts, "ro")})
	})
	sortFilesys(c.fss)
	sortFilesys(c.tmps)
	return nil
}

func sortFilesys(f []filesys) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j].id < f[j-1].id; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}

// realDevice resolves symbolic links in a mounted device's path, as
// realpath(3) does, under the root; on failure it is returned as it is.
func (c *Collector) realDevice(dev []byte) []byte {
	if c.root == "/" {
		// cheap test first: most devices are not links
		var st syscall.Stat_t
		p := string(dev)
		if err := syscall.Lstat(p, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFLNK {
			return dev
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return []byte(r)
		}
		return dev
	}
	r, err := filepath.EvalSymlinks(c.path(string(dev)))
	if err != nil {
		return dev
	}
	rel, err := filepath.Rel(c.root, r)
	if err != nil || strings.HasPrefix(rel, "..") {
		return dev
	}
	return []byte("/" + rel)
}

// refreshUname reads the kernel.uname strings, keeping the old strings
// when nothing changed.
func (c *Collector) refreshUname() {
	set := func(k int, b []byte) {
		b = bytes.TrimRight(b, "\n")
		if !c.uname.ok[k] || c.uname.s[k] != string(b) {
			c.uname.s[k] = string(b)
		}
		c.uname.ok[k] = true
	}
	if filepath.Clean(c.root) == "/" {
		var u syscall.Utsname
		if err := syscall.Uname(&u); err == nil {
			var buf [65]byte
			set(unSysname, cstr(&buf, u.Sysname[:]))
			set(unRelease, cstr(&buf, u.Release[:]))
			set(unVersion, cstr(&buf, u.Version[:]))
			set(unMachine, cstr(&buf, u.Machine[:]))
			set(unNodename, cstr(&buf, u.Nodename[:]))
		}
	} else {
		for _, x := range []struct {
			k    int
			file string
		}{{unSysname, "proc/sys/kernel/ostype"}, {unRelease, "proc/sys/kernel/osrelease"},
			{unVersion, "proc/sys/kernel/version"}, {unMachine, "proc/sys/kernel/arch"},
			{unNodename, "proc/sys/kernel/hostname"}} {
			if b, err := c.readFile(x.file); err == nil {
				set(x.k, b)
			}
		}
	}
	if !c.uname.distroRead {
		c.uname.distroRead = true
		if d, ok := c.distro(); ok {
			c.uname.s[unDistro], c.uname.ok[unDistro] = d, true
		}
	}
}

// cstr copies the NUL-terminated bytes of a into buf.
func cstr(buf *[65]byte, a []int8) []byte {
	b := buf[:0]
	for _, x := range a {
		if x == 0 {
			break
		}
		b = append(b, byte(x))
	}
	return b
}

// distro names the Linux distribution from its release file: the first
// line of a vendor release file, "Debian " and /etc/debian_version, or
// PRETTY_NAME from /etc/os-release.
func (c *Collector) distro() (string, bool) {
	for _, f := range []string{"etc/mandriva-release", "etc/gentoo-release", "etc/redhat-release",
		"etc/slackware-version", "etc/SuSE-release", "etc/lsb-release"} {
		b, err := c.readSmall(f)
		if err != nil {
			continue
		}
		if f == "etc/lsb-release" {
			for len(b) > 0 {
				var line []byte
				line, b = nextLine(b)
				if v, ok := bytes.CutPrefix(line, []byte("DISTRIB_DESCRIPTION=")); ok {
					return string(bytes.Trim(v, "\"")), true
				}
			}
			continue
		}
		line, _ := nextLine(b)
		return string(bytes.TrimSpace(line)), true
	}
	if b, err := c.readSmall("etc/debian_version"); err == nil {
		line, _ := nextLine(b)
		return "Debian " + string(bytes.TrimSpace(line)), true
	}
	if b, err := c.readSmall("etc/os-release"); err == nil {
		for len(b) > 0 {
			var line []byte
			line, b = nextLine(b)
			if v, ok := bytes.CutPrefix(line, []byte("PRETTY_NAME=")); ok {
				return string(bytes.Trim(v, "\"")), true
			}
		}
	}
	return "", false
}

// instances returns the current instances of indom 60.serial, refreshing
// their source if this fetch has not.
func (c *Collector) instances(serial uint32) ([]int32, []string, error) {
	switch serial {
	case indomCPU:
		if err := c.refresh(srcStat); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for _, id := range c.stat.cpuIDs {
			name, ok := c.cpuNames[id]
			if !ok {
				name = "cpu" + itoa(int(id))
				c.cpuNames[id] = name
			}
			c.ids, c.inames = append(c.ids, id), append(c.inames, name)
		}
	case indomDisk:
		if err := c.refresh(srcDisk); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.disks {
			c.ids, c.inames = append(c.ids, c.disks[i].id), append(c.inames, c.disks[i].name)
		}
	case indomLoadavg:
		return loadIDs, loadNames, nil
	case indomNet:
		if err := c.refresh(srcNet); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.nets {
			c.ids, c.inames = append(c.ids, c.nets[i].id), append(c.inames, c.nets[i].name)
		}
	case indomFilesys:
		if err := c.refresh(srcFilesys); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.fss {
			c.ids, c.inames = append(c.ids, c.fss[i].id), append(c.inames, c.fss[i].dev)
		}
	case indomPressure:
		return pressIDs, pressNames, nil
	case indomParts:
		if err := c.refresh(srcDisk); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.parts {
			c.ids, c.inames = append(c.ids, c.parts[i].id), append(c.inames, c.parts[i].name)
		}
	case indomNode:
		c.listNodes()
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.nodes {
			c.ids, c.inames = append(c.ids, c.nodes[i].id), append(c.inames, c.nodes[i].name)
		}
	case indomIRQ, indomSoftIRQ:
		t, src := &c.irq, srcIRQ
		if serial == indomSoftIRQ {
			t, src = &c.softirq, srcSoftIRQ
		}
		if err := c.refresh(src); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for _, i := range t.lineIdx {
			e := t.lines[i].e
			c.ids, c.inames = append(c.ids, e.id), append(c.inames, e.name)
		}
	case indomIRQCPU, indomSIRQCPU:
		t, src := &c.irq, srcIRQ
		if serial == indomSIRQCPU {
			t, src = &c.softirq, srcSoftIRQ
		}
		if err := c.refresh(src); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for _, p := range t.cpuIdx {
			e := t.lines[p[0]].cpuEnt[p[1]]
			c.ids, c.inames = append(c.ids, e.id), append(c.inames, e.name)
		}
	case indomZram:
		if err := c.refresh(srcDisk); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.zrams {
			c.ids, c.inames = append(c.ids, c.zrams[i].id), append(c.inames, c.zrams[i].name)
		}
	case indomTmpfs:
		if err := c.refresh(srcFilesys); err != nil {
			return nil, nil, err
		}
		c.ids, c.inames = c.ids[:0], c.inames[:0]
		for i := range c.tmps {
			c.ids, c.inames = append(c.ids, c.tmps[i].id), append(c.inames, c.tmps[i].dev)
		}
	default:
		return nil, nil, pmapi.ErrInDom
	}
	return c.ids, c.inames, nil
}

// Fetch reads the current values of pmids. The Result, its value sets and
// their values are reused by the next call.
func (c *Collector) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	c.newPass()
	c.res.Timestamp = stamp(c.now())
	c.res.VSets = c.res.VSets[:0]
	c.vals = c.vals[:0]
	c.blocks = c.blocks[:0]
	for _, id := range pmids {
		c.res.VSets = append(c.res.VSets, c.fetchOne(id))
	}
	return &c.res, 0, nil
}

func stamp(t time.Time) pmapi.Timestamp {
	return pmapi.Timestamp{Sec: t.Unix(), Nsec: int32(t.Nanosecond())}
}

func (c *Collector) fetchOne(id pmapi.PMID) pmapi.ValueSet {
	vs := pmapi.ValueSet{PMID: id}
	m := c.byPMID[id]
	switch {
	case m == nil && id.Domain() != 60 && id.Domain() != 2:
		vs.NumVal = int32(pmapi.ErrNoAgent)
		return vs
	case m == nil:
		vs.NumVal = int32(pmapi.ErrPMID)
		return vs
	case m.fixedErr != 0:
		vs.NumVal = m.fixedErr
		return vs
	}
	if err := c.refresh(m.src); err != nil {
		vs.NumVal = errCode(err)
		return vs
	}
	if m.check != nil {
		if code := m.check(c); code != 0 {
			vs.NumVal = code
			return vs
		}
	}
	start := len(c.vals)
	if m.desc.InDom == pmapi.InDomNull {
		if v, ok := m.get(c, 0); ok {
			c.appendValue(m.desc.Type, pmapi.InstNull, v)
		}
	} else {
		ids, _, err := c.instances(m.desc.InDom.Serial())
		if err != nil {
			vs.NumVal = errCode(err)
			return vs
		}
		for i, inst := range ids {
			if v, ok := m.get(c, i); ok {
				c.appendValue(m.desc.Type, inst, v)
			}
		}
	}
	n := len(c.vals) - start
	vs.NumVal = int32(n)
	if n > 0 {
		vs.Values = c.vals[start:len(c.vals):len(c.vals)]
		if m.desc.Type != pmapi.Type32 && m.desc.Type != pmapi.TypeU32 {
			vs.ValFmt = pmapi.ValFmtDptr
		}
	}
	return vs
}

// appendValue encodes v as pmcd would: 32-bit integers in situ, other
// types in a value block (numbers big-endian, strings NUL-terminated).
func (c *Collector) appendValue(t pmapi.Type, inst int32, v val) {
	pv := pmapi.Value{Inst: inst}
	start := len(c.blocks)
	switch t {
	case pmapi.Type32, pmapi.TypeU32:
		pv.Insitu = int32(uint32(v.u))
		c.vals = append(c.vals, pv)
		return
	case pmapi.Type64, pmapi.TypeU64:
		c.blocks = binary.BigEndian.AppendUint64(c.blocks, v.u)
	case pmapi.TypeDouble:
		c.blocks = binary.BigEndian.AppendUint64(c.blocks, math.Float64bits(v.f))
	case pmapi.TypeFloat:
		c.blocks = binary.BigEndian.AppendUint32(c.blocks, math.Float32bits(float32(v.f)))
	case pmapi.TypeString:
		c.blocks = append(c.blocks, v.s...)
		c.blocks = append(c.blocks, 0)
	}
	pv.BlockType = t
	pv.Block = c.blocks[start:len(c.blocks):len(c.blocks)]
	c.vals = append(c.vals, pv)
}

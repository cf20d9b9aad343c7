package collector

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// copyTree copies the fixture tree src into a new temporary directory,
// so that tests may add to it or damage it.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// fixtureStatfs answers statfs(2) for the fixture's mount points.
func fixtureStatfs(root string) func(string, *syscall.Statfs_t) error {
	return func(path string, st *syscall.Statfs_t) error {
		rel, _ := filepath.Rel(root, path)
		switch rel {
		case ".":
			*st = syscall.Statfs_t{Bsize: 4096, Blocks: 1000, Bfree: 400, Bavail: 300, Files: 100, Ffree: 40}
		case "data":
			*st = syscall.Statfs_t{Bsize: 1024, Blocks: 2048, Bfree: 2048, Bavail: 2048, Files: 10, Ffree: 10, Flags: 1 /* ST_RDONLY */}
		case "run":
			*st = syscall.Statfs_t{Bsize: 4096, Blocks: 100, Bfree: 75, Bavail: 75, Files: 50, Ffree: 45}
		default:
			return syscall.ENOENT
		}
		return nil
	}
}

// newFixture returns a Collector on a copy of testdata/root with the
// symbolic link the tree needs, the fixture's PMDA caches and statfs.
func newFixture(t testing.TB) (*Collector, string) {
	t.Helper()
	root := copyTree(t, "testdata/root")
	if err := os.MkdirAll(filepath.Join(root, "dev/disk/by-label"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "dev/sdc1"), nil, 0o644)
	if err := os.Symlink("../../sdc1", filepath.Join(root, "dev/disk/by-label/backup")); err != nil {
		t.Fatal(err)
	}
	c, err := New(WithRoot(root), WithPMDACacheDir("testdata/pmdacache"), withStatfs(fixtureStatfs(root)),
		WithClock(func() time.Time { return time.Unix(1700000100, 5) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, root
}

// fetchText fetches name and renders its values: inst -> text, or nil
// with the error code for a failed metric.
func fetchText(t testing.TB, c *Collector, name string) (map[int32]string, int32) {
	t.Helper()
	ids, _ := c.LookupNames([]string{name})
	if ids[0] == pmapi.PMIDNull {
		t.Fatalf("%s: not exported", name)
	}
	d, _ := c.Desc(ids[0])
	res, _, err := c.Fetch(ids)
	if err != nil {
		t.Fatal(err)
	}
	vs := &res.VSets[0]
	if vs.NumVal < 0 {
		return nil, vs.NumVal
	}
	if int(vs.NumVal) != len(vs.Values) {
		t.Fatalf("%s: NumVal %d with %d values", name, vs.NumVal, len(vs.Values))
	}
	wantFmt := int32(pmapi.ValFmtDptr)
	if d.Type == pmapi.Type32 || d.Type == pmapi.TypeU32 {
		wantFmt = pmapi.ValFmtInsitu
	}
	if vs.NumVal > 0 && vs.ValFmt != wantFmt {
		t.Errorf("%s: valfmt %d, want %d", name, vs.ValFmt, wantFmt)
	}
	return ourValues(d, vs), 0
}

func TestFixtureValues(t *testing.T) {
	c, _ := newFixture(t)
	const S = pmapi.InstNull
	tests := []struct {
		name string
		want map[int32]string // nil: no values
	}{
		{"kernel.all.load", map[int32]string{1: "0.25", 5: "0.5", 15: "1.75"}},
		{"kernel.all.intr", map[int32]string{S: "123456"}},
		{"kernel.all.pswitch", map[int32]string{S: "987654"}},
		{"kernel.all.sysfork", map[int32]string{S: "4242"}},
		{"kernel.all.running", map[int32]string{S: "3"}},
		{"kernel.all.blocked", map[int32]string{S: "1"}},
		{"kernel.all.boottime", map[int32]string{S: "1700000000"}},
		{"kernel.all.hz", map[int32]string{S: "100"}},
		{"kernel.all.uptime", map[int32]string{S: "12345.67"}},
		{"kernel.all.idletime", map[int32]string{S: "23456.78"}},
		{"kernel.all.runnable", map[int32]string{S: "2"}},
		{"kernel.all.nprocs", map[int32]string{S: "345"}},
		{"kernel.all.lastpid", map[int32]string{S: "6789"}},
		{"kernel.all.pid_max", map[int32]string{S: "4194304"}},
		{"kernel.all.nptys", map[int32]string{S: "3"}},
		{"kernel.all.entropy.avail", map[int32]string{S: "256"}},
		{"kernel.all.cpu.user", map[int32]string{S: "10000"}},
		{"kernel.all.cpu.nice", map[int32]string{S: "200"}},
		{"kernel.all.cpu.sys", map[int32]string{S: "3000"}},
		{"kernel.all.cpu.idle", map[int32]string{S: "40000"}},
		{"kernel.all.cpu.wait.total", map[int32]string{S: "500"}},
		{"kernel.all.cpu.irq.hard", map[int32]string{S: "60"}},
		{"kernel.all.cpu.irq.soft", map[int32]string{S: "70"}},
		{"kernel.all.cpu.intr", map[int32]string{S: "130"}},
		{"kernel.all.cpu.steal", map[int32]string{S: "80"}},
		{"kernel.all.cpu.guest", map[int32]string{S: "1000"}},
		{"kernel.all.cpu.guest_nice", map[int32]string{S: "100"}},
		{"kernel.all.cpu.vuser", map[int32]string{S: "9000"}},
		{"kernel.all.cpu.vnice", map[int32]string{S: "100"}},
		{"kernel.percpu.cpu.user", map[int32]string{0: "6000", 1: "4000"}},
		{"kernel.percpu.cpu.vuser", map[int32]string{0: "5400", 1: "3600"}},
		{"kernel.percpu.cpu.intr", map[int32]string{0: "100", 1: "30"}},
		{"kernel.percpu.cpu.vnice", map[int32]string{0: "60", 1: "40"}},
		{"kernel.all.pressure.cpu.some.avg", map[int32]string{10: "1.5", 60: "2.25", 300: "3"}},
		{"kernel.all.pressure.cpu.some.total", map[int32]string{S: "123456"}},
		{"kernel.all.pressure.io.full.avg", map[int32]string{10: "0", 60: "0.050000001", 300: "0.1"}},
		{"kernel.all.pressure.io.full.total", map[int32]string{S: "500"}},
		{"kernel.all.pressure.memory.some.avg", nil},
		{"kernel.all.pressure.irq.full.total", nil},
		{"mem.physmem", map[int32]string{S: "2048000"}},
		{"mem.freemem", map[int32]string{S: "512000"}},
		{"mem.util.used", map[int32]string{S: "1536000"}},
		{"mem.util.free", map[int32]string{S: "512000"}},
		{"mem.util.other", map[int32]string{S: "1226000"}},
		{"mem.util.cache_clean", map[int32]string{S: "297500"}},
		{"mem.util.bufmem", map[int32]string{S: "10000"}},
		{"mem.util.cached", map[int32]string{S: "300000"}},
		{"mem.util.available", map[int32]string{S: "1024000"}},
		{"mem.util.slabReclaimable", map[int32]string{S: "60000"}},
		{"mem.util.active_file", map[int32]string{S: "250000"}},
		{"mem.util.vmallocTotal", map[int32]string{S: "34359738367"}},
		{"mem.util.hugepagesTotal", map[int32]string{S: "4"}},
		{"mem.util.hugepagesTotalBytes", map[int32]string{S: "8388608"}},
		{"mem.util.hugepagesRsvdBytes", map[int32]string{S: "2097152"}},
		{"mem.util.corrupthardware", map[int32]string{S: "0"}},
		{"mem.util.directMap1G", nil},
		{"mem.util.highTotal", nil},
		{"mem.util.shared", nil},
		{"hinv.physmem", map[int32]string{S: "2000"}},
		{"swap.length", map[int32]string{S: "1024000000"}},
		{"swap.free", map[int32]string{S: "921600000"}},
		{"swap.used", map[int32]string{S: "102400000"}},
		{"swap.pagesin", map[int32]string{S: "11"}},
		{"swap.pagesout", map[int32]string{S: "22"}},
		// disks: nvme0n1 keeps 0 from the cache file, sdz holds 1, so sda
		// and sdb take 2 and 3.
		{"disk.dev.read", map[int32]string{2: "100", 0: "1000", 3: "4294967296"}},
		{"disk.dev.write", map[int32]string{2: "200", 0: "2000", 3: "5"}},
		{"disk.dev.total", map[int32]string{2: "300", 0: "3000", 3: "4294967301"}},
		{"disk.dev.read_bytes", map[int32]string{2: "1000", 0: "10000", 3: "1"}},
		{"disk.dev.total_bytes", map[int32]string{2: "3000", 0: "30000", 3: "5"}},
		{"disk.dev.blktotal", map[int32]string{2: "6000", 0: "60000", 3: "10"}},
		{"disk.dev.read_merge", map[int32]string{2: "10", 0: "100", 3: "0"}},
		{"disk.dev.avactive", map[int32]string{2: "120", 0: "1200", 3: "1"}},
		{"disk.dev.aveq", map[int32]string{2: "130", 0: "1300", 3: "10"}},
		{"disk.dev.total_rawactive", map[int32]string{2: "130", 0: "1300", 3: "12"}},
		{"disk.dev.discard", map[int32]string{2: "3", 0: "0", 3: "0"}},
		{"disk.dev.discard_bytes", map[int32]string{2: "32", 0: "0", 3: "0"}},
		{"disk.dev.flush", map[int32]string{2: "7", 0: "0", 3: "0"}},
		{"disk.dev.flush_rawactive", map[int32]string{2: "9", 0: "0", 3: "0"}},
		{"disk.dev.inflight", map[int32]string{2: "1", 0: "2", 3: "0"}},
		{"disk.dev.scheduler", map[int32]string{2: `"mq-deadline"`, 0: `"none"`, 3: `"unknown"`}},
		{"disk.dev.capacity", map[int32]string{2: "104857600", 0: "500107608"}},
		{"disk.all.read", map[int32]string{S: "4294968396"}},
		{"disk.all.avactive", map[int32]string{S: "1321"}},
		{"disk.all.total_bytes", map[int32]string{S: "33005"}},
		{"disk.all.flush_rawactive", map[int32]string{S: "9"}},
		{"hinv.ndisk", map[int32]string{S: "3"}},
		// interfaces: eth0 keeps 5 from the cache file; lo and wlan0 take 6, 7.
		{"network.interface.in.bytes", map[int32]string{6: "1000", 5: "5000000", 7: "0"}},
		{"network.interface.in.packets", map[int32]string{6: "10", 5: "4000", 7: "0"}},
		{"network.interface.in.errors", map[int32]string{6: "0", 5: "1", 7: "0"}},
		{"network.interface.in.drops", map[int32]string{6: "0", 5: "2", 7: "0"}},
		{"network.interface.in.mcasts", map[int32]string{6: "0", 5: "6", 7: "0"}},
		{"network.interface.out.bytes", map[int32]string{6: "1000", 5: "600000", 7: "0"}},
		{"network.interface.out.packets", map[int32]string{6: "10", 5: "3000", 7: "0"}},
		{"network.interface.out.errors", map[int32]string{6: "0", 5: "7", 7: "0"}},
		{"network.interface.out.drops", map[int32]string{6: "0", 5: "8", 7: "0"}},
		{"network.interface.out.carrier", map[int32]string{6: "0", 5: "11", 7: "0"}},
		{"network.interface.out.compressed", map[int32]string{6: "0", 5: "12", 7: "0"}},
		{"hinv.ninterface", map[int32]string{S: "3"}},
		// file systems: /dev/sda1 on / (0), /dev/nvme0n1 on /data (1),
		// /dev/disk/by-label/backup resolved to /dev/sdc1 (2), whose
		// statfs fails.
		{"filesys.mountdir", map[int32]string{0: `"/"`, 1: `"/data"`, 2: `"/backup"`}},
		{"filesys.capacity", map[int32]string{0: "4000", 1: "2048"}},
		{"filesys.free", map[int32]string{0: "1600", 1: "2048"}},
		{"filesys.used", map[int32]string{0: "2400", 1: "0"}},
		{"filesys.avail", map[int32]string{0: "1200", 1: "2048"}},
		{"filesys.full", map[int32]string{0: "66.66666666666667", 1: "0"}},
		{"filesys.maxfiles", map[int32]string{0: "100", 1: "10"}},
		{"filesys.usedfiles", map[int32]string{0: "60", 1: "0"}},
		{"filesys.freefiles", map[int32]string{0: "40", 1: "10"}},
		{"filesys.blocksize", map[int32]string{0: "4096", 1: "1024"}},
		{"filesys.readonly", map[int32]string{0: "0", 1: "1"}},
		{"hinv.nfilesys", map[int32]string{S: "3"}},
		{"hinv.ncpu", map[int32]string{S: "2"}},
		{"kernel.uname.release", map[int32]string{S: `"6.1.0-test"`}},
		{"kernel.uname.version", map[int32]string{S: `"#1 SMP PREEMPT_DYNAMIC Debian 6.1.0"`}},
		{"kernel.uname.sysname", map[int32]string{S: `"Linux"`}},
		{"kernel.uname.machine", map[int32]string{S: `"aarch64"`}},
		{"kernel.uname.nodename", map[int32]string{S: `"fixturehost"`}},
		{"kernel.uname.distro", map[int32]string{S: `"Debian 12.5"`}},
		{"pmcd.hostname", map[int32]string{S: `"fixturehost"`}},
		{"mem.vmstat.pgpgin", map[int32]string{S: "1000"}},
		{"mem.vmstat.pgfault", map[int32]string{S: "5555"}},
		{"mem.vmstat.nr_slab", map[int32]string{S: "340"}},
		{"mem.vmstat.nr_dirty", map[int32]string{S: "12"}},
		{"mem.vmstat.allocstall", nil},
		{"network.ip.forwarding", map[int32]string{S: "1"}},
		{"network.ip.defaultttl", map[int32]string{S: "64"}},
		{"network.ip.inreceives", map[int32]string{S: "1000"}},
		{"network.ip.inoctets", map[int32]string{S: "123456789"}},
		{"network.ip.csumerrors", map[int32]string{S: "7"}},
		{"network.ip.outrequests", nil},
		{"network.icmp.inmsgs", map[int32]string{S: "5"}},
		{"network.tcp.maxconn", map[int32]string{S: "18446744073709551615"}},
		{"network.tcp.rtomin", map[int32]string{S: "200"}},
		{"network.tcp.currestab", map[int32]string{S: "4"}},
		{"network.tcp.insegs", map[int32]string{S: "6682"}},
		{"network.tcp.syncookiessent", map[int32]string{S: "1"}},
		{"network.tcp.timewaited", map[int32]string{S: "22"}},
		{"network.tcp.tcploss", map[int32]string{S: "3"}},
		{"network.tcp.fastretrans", map[int32]string{S: "44"}},
		{"network.tcp.tcpmd5failure", map[int32]string{S: "5"}},
		{"network.udp.recvbuferrors", map[int32]string{S: "3"}},
		{"network.udp.outdatagrams", map[int32]string{S: "90"}},
		{"network.udplite.indatagrams", nil},
		{"network.interface.collisions", map[int32]string{6: "0", 5: "10", 7: "0"}},
		{"network.interface.total.bytes", map[int32]string{6: "2000", 5: "5600000", 7: "0"}},
		{"network.interface.total.packets", map[int32]string{6: "20", 5: "7000", 7: "0"}},
		{"network.interface.total.errors", map[int32]string{6: "0", 5: "8", 7: "0"}},
		{"network.interface.total.drops", map[int32]string{6: "0", 5: "10", 7: "0"}},
		{"network.interface.total.mcasts", map[int32]string{6: "0", 5: "6", 7: "0"}},
		{"network.interface.mtu", map[int32]string{6: "65536", 5: "1500", 7: "1500"}},
		{"network.interface.up", map[int32]string{6: "1", 5: "1", 7: "1"}},
		{"network.interface.running", map[int32]string{6: "1", 5: "1", 7: "0"}},
		{"vfs.files.count", map[int32]string{S: "1669"}},
		{"vfs.files.free", map[int32]string{S: "0"}},
		{"vfs.files.max", map[int32]string{S: "2466177"}},
		{"vfs.inodes.count", map[int32]string{S: "107843"}},
		{"vfs.inodes.free", map[int32]string{S: "12"}},
		{"vfs.dentry.count", map[int32]string{S: "1056689"}},
		{"vfs.dentry.free", map[int32]string{S: "1054833"}},
		{"vfs.aio.count", map[int32]string{S: "7"}},
		{"vfs.aio.max", map[int32]string{S: "65536"}},
		{"kernel.all.interrupts.errors", map[int32]string{S: "3"}},
		{"kernel.all.interrupts.missed", map[int32]string{S: "4"}},
		{"disk.partitions.read", map[int32]string{0: "90", 1: "1"}},
		{"disk.partitions.write_bytes", map[int32]string{0: "1900", 1: "0"}},
		{"disk.partitions.avactive", map[int32]string{0: "110", 1: "1"}},
		{"disk.partitions.capacity", map[int32]string{0: "104856576"}},
		{"tmpfs.capacity", map[int32]string{0: "400"}},
		{"tmpfs.used", map[int32]string{0: "100"}},
		{"tmpfs.free", map[int32]string{0: "300"}},
		{"tmpfs.maxfiles", map[int32]string{0: "50"}},
		{"tmpfs.usedfiles", map[int32]string{0: "5"}},
		{"tmpfs.freefiles", map[int32]string{0: "45"}},
		{"tmpfs.full", map[int32]string{0: "25"}},
		{"mem.numa.util.total", map[int32]string{0: "1024000", 1: "1024000"}},
		{"mem.numa.util.free", map[int32]string{0: "512000", 1: "1000"}},
		{"mem.numa.util.used", map[int32]string{0: "512000"}},
		{"mem.numa.util.active_anon", map[int32]string{0: "1000"}},
		{"mem.numa.util.filePages", map[int32]string{0: "20000"}},
		{"mem.numa.util.hugepagesTotal", map[int32]string{0: "2"}},
		{"mem.numa.util.hugepagesTotalBytes", map[int32]string{0: "4194304"}},
		{"mem.numa.util.highTotal", nil},
		{"mem.numa.alloc.hit", map[int32]string{0: "1000"}},
		{"mem.numa.alloc.other_node", map[int32]string{0: "6"}},
		{"kernel.pernode.cpu.user", map[int32]string{0: "6000", 1: "4000"}},
		{"kernel.pernode.cpu.vuser", map[int32]string{0: "5400", 1: "3600"}},
		{"kernel.pernode.cpu.intr", map[int32]string{0: "100", 1: "30"}},
		{"kernel.all.interrupts.total", map[int32]string{0: "44", 1: "8", 2: "3"}},
		{"kernel.percpu.interrupts", map[int32]string{0: "44", 1: "0", 2: "1", 3: "7", 4: "0", 5: "3"}},
		{"kernel.percpu.intr", map[int32]string{0: "45", 1: "10"}},
		{"kernel.all.softirqs.total", map[int32]string{0: "3", 1: "300", 2: "5"}},
		{"kernel.percpu.softirqs", map[int32]string{0: "1", 1: "2", 2: "100", 3: "200", 4: "5", 5: "0"}},
		{"kernel.percpu.sirq", map[int32]string{0: "106", 1: "202"}},
		{"hinv.map.scsi_id", map[int32]string{2: `"35000c500a1b2c3d4"`, 0: `"20025388b71b2"`, 3: `"unknown"`}},
		{"hinv.node.online", map[int32]string{0: "1", 1: "0"}},
		{"network.softnet.processed", map[int32]string{S: "26"}},
		{"network.softnet.dropped", map[int32]string{S: "1"}},
		{"network.softnet.cpu_collision", map[int32]string{S: "3"}},
		{"network.softnet.flow_limit_count", map[int32]string{S: "6"}},
		{"network.softnet.percpu.processed", map[int32]string{1: "10", 0: "16"}},
		{"network.softnet.percpu.flow_limit_count", map[int32]string{1: "5", 0: "1"}},
		{"zram.read", map[int32]string{0: "3"}},
		{"zram.read_bytes", map[int32]string{0: "12"}},
		{"zram.capacity", map[int32]string{0: "1048576"}},
		{"zram.io_stat.failed.reads", map[int32]string{0: "1"}},
		{"zram.io_stat.notify_free", map[int32]string{0: "4"}},
		{"zram.mm_stat.data_size.original", map[int32]string{0: "4"}},
		{"zram.mm_stat.mem.max_used", map[int32]string{0: "16"}},
		{"zram.mm_stat.pages.same", map[int32]string{0: "20"}},
		{"zram.mm_stat.pages.huge", map[int32]string{0: "28"}},
		{"zram.bd_stat.count", nil},
		{"hinv.cpu.vendor", map[int32]string{0: `"GenuineIntel"`, 1: `"GenuineIntel"`}},
		{"hinv.cpu.model", map[int32]string{0: `"85"`, 1: `"85"`}},
		{"hinv.cpu.stepping", map[int32]string{0: `"7"`, 1: `"7"`}},
		{"hinv.cpu.model_name", map[int32]string{0: `"Intel(R) Xeon(R) Test CPU @ 2.00GHz"`, 1: `"Intel(R) Xeon(R) Test CPU @ 2.00GHz"`}},
		{"hinv.cpu.flags", map[int32]string{0: `"fpu vme de pse"`, 1: `"fpu vme de pse"`}},
		{"hinv.cpu.clock", map[int32]string{0: "1999.999", 1: "2100.5"}},
		{"hinv.cpu.bogomips", map[int32]string{0: "3999.99", 1: "3999.99"}},
		{"hinv.cpu.cache", map[int32]string{0: "39424", 1: "39424"}},
		{"hinv.cpu.cache_alignment", map[int32]string{0: "64", 1: "64"}},
		{"hinv.cpu.online", map[int32]string{0: "1", 1: "0"}},
		{"hinv.map.cpu_num", map[int32]string{0: "0", 1: "1"}},
		{"hinv.map.cpu_node", map[int32]string{0: "0", 1: "1"}},
		{"hinv.nnode", map[int32]string{S: "2"}},
		{"hinv.machine", map[int32]string{S: `"aarch64"`}},
		{"hinv.hugepagesize", map[int32]string{S: "2097152"}},
		{"network.sockstat.total", map[int32]string{S: "28"}},
		{"network.sockstat.tcp.orphan", map[int32]string{S: "1"}},
		{"network.sockstat.tcp.mem", map[int32]string{S: "231"}},
		{"network.sockstat.udp.mem", map[int32]string{S: "5"}},
		{"network.sockstat.raw.inuse", map[int32]string{S: "1"}},
		{"network.sockstat.frag.memory", map[int32]string{S: "0"}},
		{"network.sockstat.tcp6.inuse", map[int32]string{S: "6"}},
		{"network.sockstat.udp6.inuse", map[int32]string{S: "2"}},
	}
	for _, tc := range tests {
		got, code := fetchText(t, c, tc.name)
		if code != 0 {
			t.Errorf("%s: error %v", tc.name, pmapi.Error(code))
			continue
		}
		if tc.want == nil {
			tc.want = map[int32]string{}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
	if _, code := fetchText(t, c, "swap.in"); code != int32(pmapi.ErrAppVersion) {
		t.Errorf("swap.in: code %d, want PM_ERR_APPVERSION", code)
	}
	if c.Host() != "fixturehost" {
		t.Errorf("Host() = %q", c.Host())
	}
}

func TestFixtureInDoms(t *testing.T) {
	c, _ := newFixture(t)
	tests := []struct {
		indom pmapi.InDom
		ids   []int32
		names []string
	}{
		{pmapi.NewInDom(60, 0), []int32{0, 1}, []string{"cpu0", "cpu1"}},
		{pmapi.NewInDom(60, 1), []int32{0, 2, 3}, []string{"nvme0n1", "sda", "sdb"}},
		{pmapi.NewInDom(60, 2), []int32{1, 5, 15}, []string{"1 minute", "5 minute", "15 minute"}},
		{pmapi.NewInDom(60, 3), []int32{5, 6, 7}, []string{"eth0", "lo", "wlan0"}},
		{pmapi.NewInDom(60, 5), []int32{0, 1, 2}, []string{"/dev/sda1", "/dev/nvme0n1", "/dev/sdc1"}},
		{pmapi.NewInDom(60, 37), []int32{10, 60, 300}, []string{"10 second", "1 minute", "5 minute"}},
		{pmapi.NewInDom(60, 10), []int32{0, 1}, []string{"sda1", "nvme0n1p1"}},
		{pmapi.NewInDom(60, 18), []int32{0}, []string{"/run"}},
		{pmapi.NewInDom(60, 19), []int32{0, 1}, []string{"node0", "node1"}},
		{pmapi.NewInDom(60, 38), []int32{0}, []string{"zram0"}},
		{pmapi.NewInDom(60, 4), []int32{0, 1, 2}, []string{"0", "24", "NMI"}},
		{pmapi.NewInDom(60, 40), []int32{0, 1, 2, 3, 4, 5}, []string{"0::cpu0", "0::cpu1", "24::cpu0", "24::cpu1", "NMI::cpu0", "NMI::cpu1"}},
		{pmapi.NewInDom(60, 36), []int32{0, 1, 2}, []string{"HI", "TIMER", "NET_RX"}},
		{pmapi.NewInDom(60, 41), []int32{0, 1, 2, 3, 4, 5}, []string{"HI::cpu0", "HI::cpu1", "TIMER::cpu0", "TIMER::cpu1", "NET_RX::cpu0", "NET_RX::cpu1"}},
	}
	for _, tc := range tests {
		ids, names, err := c.InDom(tc.indom)
		if err != nil {
			t.Errorf("%v: %v", tc.indom, err)
			continue
		}
		if strings.Join(names, ",") != strings.Join(tc.names, ",") || len(ids) != len(tc.ids) {
			t.Errorf("%v: got %v %q, want %v %q", tc.indom, ids, names, tc.ids, tc.names)
			continue
		}
		for i := range ids {
			if ids[i] != tc.ids[i] {
				t.Errorf("%v: got %v %q, want %v %q", tc.indom, ids, names, tc.ids, tc.names)
				break
			}
		}
	}
	if _, _, err := c.InDom(pmapi.NewInDom(60, 99)); err != pmapi.ErrInDom {
		t.Errorf("unknown indom: %v", err)
	}
	if _, _, err := c.InDom(pmapi.NewInDom(29, 0)); err != pmapi.ErrInDom {
		t.Errorf("other domain: %v", err)
	}
}

// TestFixtureNewInstances checks that a disk that appears keeps the next
// number and one that goes away keeps its number when it returns.
func TestFixtureNewInstances(t *testing.T) {
	c, root := newFixture(t)
	ds := filepath.Join(root, "proc/diskstats")
	write := func(s string) {
		if err := os.WriteFile(ds, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("   8       0 sda 1 0 0 0 0 0 0 0 0 0 0\n")
	_, names, _ := c.InDom(pmapi.NewInDom(60, 1))
	if strings.Join(names, ",") != "sda" {
		t.Fatalf("got %q", names)
	}
	write("   8       0 sdc 1 0 0 0 0 0 0 0 0 0 0\n   8       0 sda 1 0 0 0 0 0 0 0 0 0 0\n")
	ids, names, _ := c.InDom(pmapi.NewInDom(60, 1))
	if strings.Join(names, ",") != "sda,sdc" || ids[0] != 2 || ids[1] != 3 {
		t.Fatalf("got %v %q", ids, names)
	}
}

func TestFixtureNamespace(t *testing.T) {
	c, _ := newFixture(t)
	all, err := c.Traverse("")
	if err != nil || len(all) != len(descTable) {
		t.Fatalf("Traverse(\"\"): %d names, %v; table has %d", len(all), err, len(descTable))
	}
	for _, tc := range []struct {
		name string
		n    int
	}{{"kernel.all.cpu", 13}, {"kernel.percpu.cpu", 13}, {"kernel.percpu", 17}, {"disk.all", 24}, {"disk.dev", 26},
		{"filesys", 11}, {"network.interface.in", 8}, {"network.interface.out", 7},
		{"swap", 7}, {"kernel.uname", 6}, {"mem.util", 56}, {"kernel.all.load", 1}, {"pmcd", 1}} {
		got, err := c.Traverse(tc.name)
		if err != nil || len(got) != tc.n {
			t.Errorf("Traverse(%q): %d names (%v), want %d", tc.name, len(got), err, tc.n)
		}
		for _, n := range got {
			if n != tc.name && !strings.HasPrefix(n, tc.name+".") {
				t.Errorf("Traverse(%q) gave %q", tc.name, n)
			}
		}
	}
	for _, bad := range []string{"kernel.al", "nosuch", "kernel.all.load.x", "disk.dev.read.", "."} {
		if bad == "." {
			continue
		}
		if _, err := c.Traverse(bad); err != pmapi.ErrName {
			t.Errorf("Traverse(%q): %v, want PM_ERR_NAME", bad, err)
		}
	}
	ids, err := c.LookupNames([]string{"kernel.all.load", "nosuch.metric", "disk.dev", "hinv.ncpu"})
	if err != nil {
		t.Fatal(err)
	}
	want := []pmapi.PMID{pmapi.NewPMID(60, 2, 0), pmapi.PMIDNull, pmapi.PMIDNull, pmapi.NewPMID(60, 0, 32)}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("LookupNames[%d] = %v, want %v", i, ids[i], want[i])
		}
	}
	names, err := c.NamesOf(pmapi.NewPMID(60, 1, 1))
	if err != nil || len(names) != 1 || names[0] != "mem.util.used" {
		t.Errorf("NamesOf(60.1.1) = %v, %v", names, err)
	}
	if _, err := c.NamesOf(pmapi.NewPMID(60, 1, 999)); err != pmapi.ErrPMID {
		t.Errorf("NamesOf unknown: %v", err)
	}
	if _, err := c.Desc(pmapi.NewPMID(60, 1, 999)); err != pmapi.ErrPMID {
		t.Errorf("Desc unknown: %v", err)
	}
	// every PMID and name is unique
	seen := map[pmapi.PMID]string{}
	for _, n := range all {
		ids, _ := c.LookupNames([]string{n})
		if prev, dup := seen[ids[0]]; dup {
			t.Errorf("%s and %s share %v", prev, n, ids[0])
		}
		seen[ids[0]] = n
		if txt, err := c.Text(archive.TextOneLine|archive.TextPMID, uint32(ids[0])); err != nil || txt == "" {
			t.Errorf("%s: no one-line help: %v", n, err)
		}
	}
	if _, err := c.Text(archive.TextHelp|archive.TextPMID, uint32(pmapi.NewPMID(60, 2, 0))); err != pmapi.ErrText {
		t.Errorf("long help: %v, want PM_ERR_TEXT", err)
	}
}

func TestFixtureFetchErrors(t *testing.T) {
	c, _ := newFixture(t)
	res, _, err := c.Fetch([]pmapi.PMID{pmapi.NewPMID(60, 1, 999), pmapi.NewPMID(29, 0, 1), pmapi.NewPMID(60, 2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if res.VSets[0].NumVal != int32(pmapi.ErrPMID) || res.VSets[1].NumVal != int32(pmapi.ErrNoAgent) ||
		res.VSets[2].NumVal != 3 {
		t.Errorf("got %+v", res.VSets)
	}
	if res.Timestamp != (pmapi.Timestamp{Sec: 1700000100, Nsec: 5}) {
		t.Errorf("timestamp %v", res.Timestamp)
	}
}

// labelMap decodes a label set's JSON and checks its label entries.
func labelMap(t *testing.T, s archive.LabelSet, typ uint32) map[string]string {
	t.Helper()
	out := map[string]string{}
	if s.JSON == "" {
		return out
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s.JSON), &m); err != nil {
		t.Fatalf("label JSON %q: %v", s.JSON, err)
	}
	if len(s.Labels) != len(m) {
		t.Errorf("%q: %d entries for %d labels", s.JSON, len(s.Labels), len(m))
	}
	for _, l := range s.Labels {
		name := s.JSON[l.NameOff : l.NameOff+l.NameLen]
		value := s.JSON[l.ValueOff : l.ValueOff+l.ValueLen]
		if string(m[name]) != value {
			t.Errorf("%q: entry %q=%q, JSON has %s", s.JSON, name, value, m[name])
		}
		if uint32(l.Flags)&^archive.LabelOptional != typ {
			t.Errorf("%q: flags %#x, type %#x", s.JSON, l.Flags, typ)
		}
	}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func TestFixtureLabels(t *testing.T) {
	c, _ := newFixture(t)
	sets, err := c.Labels(archive.LabelContext, uint32(pmapi.PMIDNull))
	if err != nil || len(sets) != 1 {
		t.Fatalf("context labels: %v %v", sets, err)
	}
	ctx := labelMap(t, sets[0], archive.LabelContext)
	if ctx["hostname"] != `"fixturehost"` || ctx["domainname"] != `"localdomain"` ||
		ctx["machineid"] != `"0123456789abcdef0123456789abcdef"` || ctx["userid"] == "" || ctx["groupid"] == "" {
		t.Errorf("context labels %v", ctx)
	}
	keys := make([]string, 0, len(ctx))
	for _, l := range sets[0].Labels {
		keys = append(keys, sets[0].JSON[l.NameOff:l.NameOff+l.NameLen])
	}
	if !sort.StringsAreSorted(keys) {
		t.Errorf("context labels not sorted: %v", keys)
	}
	sets, _ = c.Labels(archive.LabelDomain, 60)
	if len(sets) != 1 || sets[0].JSON != `{"agent":"linux"}` {
		t.Errorf("domain labels %+v", sets)
	}
	sets, _ = c.Labels(archive.LabelInDom, uint32(pmapi.NewInDom(60, 1)))
	if len(sets) != 1 || sets[0].JSON != `{"device_type":"block","indom_name":"per disk"}` {
		t.Errorf("indom labels %+v", sets)
	}
	labelMap(t, sets[0], archive.LabelInDom)
	sets, _ = c.Labels(archive.LabelInstances, uint32(pmapi.NewInDom(60, 3)))
	if len(sets) != 3 || sets[0].Inst != 5 || sets[0].JSON != `{"interface":"eth0"}` {
		t.Errorf("instance labels %+v", sets)
	}
	sets, _ = c.Labels(archive.LabelInstances, uint32(pmapi.NewInDom(60, 2)))
	if len(sets) != 3 || sets[0].JSON != "" || sets[2].Inst != 15 {
		t.Errorf("loadavg instance labels %+v", sets)
	}
	sets, _ = c.Labels(archive.LabelInstances, uint32(pmapi.NewInDom(60, 40)))
	if len(sets) != 6 || sets[3].JSON != `{"cpu":1,"irq":"24","irqtext":"PCI-MSI 1-edge virtio0"}` {
		t.Errorf("per-CPU interrupt labels %+v", sets)
	}
	for _, s := range sets {
		labelMap(t, s, archive.LabelInstances)
	}
	sets, _ = c.Labels(archive.LabelItem, uint32(pmapi.NewPMID(60, 0, 20)))
	if len(sets) != 1 || sets[0].JSON != `{"device_type":"cpu"}` {
		t.Errorf("item labels %+v", sets)
	}
	sets, _ = c.Labels(archive.LabelItem, uint32(pmapi.NewPMID(60, 0, 0)))
	if len(sets) != 0 {
		t.Errorf("percpu item labels %+v", sets)
	}
}

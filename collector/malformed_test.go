package collector

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// fetchAll fetches every exported metric and checks the result's shape.
func fetchAll(t testing.TB, c *Collector) *pmapi.Result {
	t.Helper()
	ids, _ := c.LookupNames(c.Names())
	res, _, err := c.Fetch(ids)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if len(res.VSets) != len(ids) {
		t.Fatalf("%d value sets for %d PMIDs", len(res.VSets), len(ids))
	}
	for i, vs := range res.VSets {
		if vs.PMID != ids[i] {
			t.Fatalf("value set %d is %v, want %v", i, vs.PMID, ids[i])
		}
		if vs.NumVal < 0 && len(vs.Values) != 0 || vs.NumVal >= 0 && int(vs.NumVal) != len(vs.Values) {
			t.Fatalf("%v: NumVal %d with %d values", vs.PMID, vs.NumVal, len(vs.Values))
		}
	}
	return res
}

var garbage = []string{
	"",
	"\n\n\n",
	"garbage",
	"\x00\xff\xfe\x01binary\x00",
	"cpu\ncpu0\nintr\nMemTotal:\nMemTotal: x kB\n 8 0\n8 0 sda\n8 0 sda x y\neth0:\neth0: 1 2 3\n",
	"cpu 1 2 3\ncpu99999999999999999999 1 2 3 4\n",
	"99999999999999999999999999 1 2 3\n",
	"some avg10=x avg60= total\nfull\n",
	"1.0 2.0\n",
	"a/b/c d e\n/dev/x\n/dev/x /m\n",
	strings.Repeat("x", 20000),
}

// TestMalformedFiles replaces each /proc file in turn by junk, or removes
// it, and fetches everything: no panic, and the metrics of that file have
// an error or no values.
func TestMalformedFiles(t *testing.T) {
	files := []string{"proc/stat", "proc/meminfo", "proc/loadavg", "proc/uptime", "proc/vmstat",
		"proc/diskstats", "proc/partitions", "proc/net/dev", "proc/mounts", "proc/pressure/cpu",
		"proc/sys/kernel/pid_max", "proc/sys/kernel/hostname", "etc/debian_version",
		"sys/block/sda/queue/scheduler", "proc/net/snmp", "proc/net/netstat", "proc/interrupts",
		"proc/sys/fs/file-nr", "sys/class/net/eth0/flags", "sys/class/net/eth0/mtu", "proc/cpuinfo",
		"proc/net/sockstat", "sys/devices/system/cpu/cpu1/online", "sys/devices/system/node/node0/meminfo", "proc/softirqs",
		"proc/net/softnet_stat", "sys/block/sda/device/wwid", "sys/block/zram0/mm_stat"}
	_, root := newFixture(t)
	for _, f := range files {
		p := filepath.Join(root, f)
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(WithRoot(root), WithPMDACacheDir("testdata/pmdacache"), withStatfs(fixtureStatfs(root)))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range append(garbage, "<missing>") {
			if g == "<missing>" {
				os.Remove(p)
			} else if err := os.WriteFile(p, []byte(g), 0o644); err != nil {
				t.Fatal(err)
			}
			fetchAll(t, c)
			c.Host()
		}
		for _, indom := range []uint32{0, 1, 2, 3, 4, 5, 10, 18, 19, 36, 37, 38, 40, 41} {
			c.InDom(pmapi.NewInDom(60, indom))
			c.Labels(archive.LabelInstances, uint32(pmapi.NewInDom(60, indom)))
		}
		c.Close()
		// a fresh Collector on the damaged tree
		if c2, err := New(WithRoot(root), withStatfs(fixtureStatfs(root))); err == nil {
			fetchAll(t, c2)
			c2.Close()
		}
		if err := os.WriteFile(p, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMissingFiles(t *testing.T) {
	c, root := newFixture(t)
	os.Remove(filepath.Join(root, "proc/diskstats"))
	if _, code := fetchText(t, c, "disk.dev.read"); code != -int32(syscall.ENOENT) {
		t.Errorf("disk.dev.read without diskstats: code %d, want -ENOENT", code)
	}
	if _, code := fetchText(t, c, "hinv.ndisk"); code != -int32(syscall.ENOENT) {
		t.Errorf("hinv.ndisk without diskstats: code %d", code)
	}
	os.WriteFile(filepath.Join(root, "proc/meminfo"), []byte("nothing here\n"), 0o644)
	if _, code := fetchText(t, c, "mem.util.used"); code != int32(pmapi.ErrValue) {
		t.Errorf("mem.util.used with empty meminfo: code %d", code)
	}
	// A file that comes back is read again.
	os.WriteFile(filepath.Join(root, "proc/diskstats"), []byte("   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"), 0o644)
	if got, code := fetchText(t, c, "disk.dev.read"); code != 0 || got[2] != "1" {
		t.Errorf("disk.dev.read after diskstats returns: %v %d", got, code)
	}
	// New fails without /proc/stat.
	os.Remove(filepath.Join(root, "proc/stat"))
	if _, err := New(WithRoot(root)); err == nil {
		t.Errorf("New without /proc/stat succeeded")
	}
}

// FuzzParsers feeds arbitrary bytes to every /proc parser.
func FuzzParsers(f *testing.F) {
	for _, name := range []string{"stat", "meminfo", "loadavg", "uptime", "vmstat", "diskstats",
		"partitions", "net/dev", "mounts", "pressure/cpu", "pressure/io", "net/snmp", "net/netstat",
		"interrupts", "softirqs", "cpuinfo", "net/sockstat", "net/sockstat6", "net/softnet_stat"} {
		b, err := os.ReadFile(filepath.Join("testdata/root/proc", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, g := range garbage {
		f.Add([]byte(g))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s procStat
		if parseStat(b, &s) == nil && len(s.cpus) != len(s.cpuIDs) {
			t.Fatalf("%d cpus, %d ids", len(s.cpus), len(s.cpuIDs))
		}
		for _, x := range s.cpus {
			if x.n < 4 || x.n > nCPUFields {
				t.Fatalf("cpu with %d fields", x.n)
			}
		}
		var m procMeminfo
		parseMeminfo(b, &m)
		var l procLoadavg
		parseLoadavg(b, &l)
		var u procUptime
		parseUptime(b, &u)
		vm := newKV(len(slots().vmstat))
		parseVmstat(b, &vm)
		sn := newKV(slots().nSnmp)
		parseSnmp(b, &sn)
		var dst [3]uint64
		parseFields(b, dst[:])
		parseHex(b)
		parseCPUInfo(b, nil)
		var sns softnetStat
		parseSoftnet(b, &sns, []int32{0, 1})
		fc := &Collector{}
		for _, intr := range []bool{true, false} {
			tb := irqTable{lineCache: newInstCache(""), cpuCache: newInstCache("")}
			fc.parseIRQ(b, &tb, intr)
			if len(tb.cpuIdx) != len(tb.cpuIDs) {
				t.Fatalf("%d per-CPU instances, %d ids", len(tb.cpuIdx), len(tb.cpuIDs))
			}
		}
		nk := newKV(len(numaKeys))
		parseNodeMeminfo(b, &nk)
		var sv [nSockstat]uint64
		var sh [nSockstat]bool
		parseSockstat(b, &sv, &sh)
		parseInt(b)
		parseDiskstats(b, new(diskStat), func(d *diskStat) {
			if d.n < 4 || d.n > nDiskFields || len(d.name) == 0 {
				t.Fatalf("disk %q with %d fields", d.name, d.n)
			}
			isDisk(d.name)
		})
		parsePartitions(b, func(name []byte, _ uint64) {
			if len(name) == 0 {
				t.Fatal("empty partition name")
			}
		})
		parseNetDev(b, new(netStat), func(n *netStat) {
			if len(n.name) == 0 {
				t.Fatal("empty interface name")
			}
		})
		parseMounts(b, func(dev, dir, typ, opts []byte) {
			hasOption(opts, "ro")
			if len(dev) == 0 || len(dir) == 0 || len(typ) == 0 {
				t.Fatal("empty mount field")
			}
		})
		var p pressure
		parsePressure(b, &p)
		isPartition(b)
		parseFloat(b)
		parseFloat32(b)
		parseUint(b)
	})
}

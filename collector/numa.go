package collector

import (
	"bytes"
	"os"
	"sort"
	"strings"
)

// This file holds the per NUMA node metrics: mem.numa.* from
// /sys/devices/system/node/nodeN/{meminfo,numastat} and kernel.pernode.cpu.*,
// the per-CPU times of /proc/stat summed over each node's CPUs. The node
// instance domain (60.19) numbers nodes by their kernel number and names
// them "nodeN".

// numaKeys are the per-node meminfo keys the Collector reports, then the
// numastat keys.
var numaKeys = []string{
	"MemTotal", "MemFree", "MemUsed", "Active", "Inactive", "Active(anon)", "Inactive(anon)",
	"Active(file)", "Inactive(file)", "HighTotal", "HighFree", "LowTotal", "LowFree", "Unevictable",
	"Mlocked", "Dirty", "Writeback", "FilePages", "Mapped", "AnonPages", "Shmem", "KernelStack",
	"PageTables", "NFS_Unstable", "Bounce", "WritebackTmp", "Slab", "SReclaimable", "SUnreclaim",
	"HugePages_Total", "HugePages_Free", "HugePages_Surp",
	"numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node",
}

// numaNode is one node: its number, name, values by numaKeys slot, and
// its CPU times summed.
type numaNode struct {
	id     int32
	name   string
	files  *[3]string // meminfo, numastat and online, relative to the root
	online uint64
	kv     kvValues
	cpu    cpuTimes
}

// listNodes finds the NUMA nodes, in ascending order. The list is kept
// and looked at again every idleFilePasses passes (nodes rarely come and
// go).
func (c *Collector) listNodes() {
	if c.nodesListed && c.pass-c.nodesPass < idleFilePasses {
		return
	}
	c.nodesListed, c.nodesPass = true, c.pass
	ents, err := os.ReadDir(c.path("sys/devices/system/node"))
	var ids []int32
	if err == nil {
		for _, e := range ents {
			if rest, ok := strings.CutPrefix(e.Name(), "node"); ok {
				if v, ok := parseUint([]byte(rest)); ok && v < 1<<20 {
					ids = append(ids, int32(v))
				}
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	same := len(ids) == len(c.nodes)
	for i := 0; same && i < len(ids); i++ {
		same = ids[i] == c.nodes[i].id
	}
	if same {
		return
	}
	c.nodes = c.nodes[:0]
	for _, id := range ids {
		name := "node" + itoa(int(id))
		dir := "sys/devices/system/node/" + name + "/"
		c.nodes = append(c.nodes, numaNode{id: id, name: name, files: &[3]string{dir + "meminfo", dir + "numastat", dir + "online"},
			kv: newKV(len(numaKeys))})
	}
}

// parseNodeMeminfo parses a node's meminfo ("Node 0 MemTotal: 123 kB")
// or numastat ("numa_hit 123") into kv.
func parseNodeMeminfo(b []byte, kv *kvValues) {
	slot := slots().numa
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		rest := line
		if bytes.HasPrefix(rest, []byte("Node ")) {
			_, rest = nextField(rest) // "Node"
			_, rest = nextField(rest) // its number
		}
		k, rest := nextField(rest)
		k = bytes.TrimSuffix(k, []byte(":"))
		i, ok := slot[string(k)]
		if !ok {
			continue
		}
		f, _ := nextField(rest)
		if v, ok := parseUint(f); ok {
			kv.v[i], kv.has[i] = v, true
		}
	}
}

// refreshNuma reads each node's meminfo and numastat.
func (c *Collector) refreshNuma() error {
	c.listNodes()
	for i := range c.nodes {
		n := &c.nodes[i]
		n.kv.reset()
		for _, f := range n.files[:2] {
			if b, err := c.readFile(f); err == nil {
				parseNodeMeminfo(b, &n.kv)
			}
		}
	}
	return nil
}

// refreshPernode sums the per-CPU times of /proc/stat by node.
func (c *Collector) refreshPernode() error {
	if err := c.refresh(srcStat); err != nil {
		return err
	}
	c.listNodes()
	for i := range c.nodes {
		c.nodes[i].cpu = cpuTimes{n: nCPUFields}
	}
	for k, id := range c.stat.cpuIDs {
		node := int32(c.cpuNode(id, c.cpuDir(id)))
		for i := range c.nodes {
			n := &c.nodes[i]
			if n.id != node {
				continue
			}
			t := &c.stat.cpus[k]
			for f := 0; f < nCPUFields; f++ {
				n.cpu.v[f] += t.v[f]
			}
			if t.n < n.cpu.n {
				n.cpu.n = t.n
			}
		}
	}
	return nil
}

func numaGet(key string) getter {
	slot := slots().numa[key]
	return func(c *Collector, i int) (val, bool) {
		if v, ok := c.nodes[i].kv.get(slot); ok {
			return u(v)
		}
		return none()
	}
}

func numaHugeBytes(key string) getter {
	slot := slots().numa[key]
	return func(c *Collector, i int) (val, bool) {
		v, ok := c.nodes[i].kv.get(slot)
		size, ok2 := c.mem.get(miHugepagesize)
		if !ok || !ok2 {
			return none()
		}
		return u(v * size << 10)
	}
}

// numaBindings adds mem.numa.* and kernel.pernode.cpu.*.
func numaBindings(add func(name string, src int, g getter, help string)) {
	for _, x := range []struct{ name, key string }{
		{"total", "MemTotal"}, {"free", "MemFree"}, {"used", "MemUsed"}, {"active", "Active"},
		{"inactive", "Inactive"}, {"active_anon", "Active(anon)"}, {"inactive_anon", "Inactive(anon)"},
		{"active_file", "Active(file)"}, {"inactive_file", "Inactive(file)"}, {"highTotal", "HighTotal"},
		{"highFree", "HighFree"}, {"lowTotal", "LowTotal"}, {"lowFree", "LowFree"},
		{"unevictable", "Unevictable"}, {"mlocked", "Mlocked"}, {"dirty", "Dirty"},
		{"writeback", "Writeback"}, {"filePages", "FilePages"}, {"mapped", "Mapped"},
		{"anonpages", "AnonPages"}, {"shmem", "Shmem"}, {"kernelStack", "KernelStack"},
		{"pageTables", "PageTables"}, {"NFS_Unstable", "NFS_Unstable"}, {"bounce", "Bounce"},
		{"writebackTmp", "WritebackTmp"}, {"slab", "Slab"}, {"slabReclaimable", "SReclaimable"},
		{"slabUnreclaimable", "SUnreclaim"}, {"hugepagesTotal", "HugePages_Total"},
		{"hugepagesFree", "HugePages_Free"}, {"hugepagesSurp", "HugePages_Surp"},
	} {
		add("mem.numa.util."+x.name, srcNuma, numaGet(x.key), x.key+" in the node's meminfo")
	}
	for _, x := range []struct{ name, key string }{
		{"hugepagesTotalBytes", "HugePages_Total"}, {"hugepagesFreeBytes", "HugePages_Free"},
		{"hugepagesSurpBytes", "HugePages_Surp"}} {
		add("mem.numa.util."+x.name, srcNumaMem, numaHugeBytes(x.key), x.key+" of the node in bytes")
	}
	for _, x := range []struct{ name, key string }{
		{"hit", "numa_hit"}, {"miss", "numa_miss"}, {"foreign", "numa_foreign"},
		{"interleave_hit", "interleave_hit"}, {"local_node", "local_node"}, {"other_node", "other_node"},
	} {
		add("mem.numa.alloc."+x.name, srcNuma, numaGet(x.key), x.key+" in the node's numastat")
	}

	pernode := func(field, calc int) getter {
		return func(c *Collector, i int) (val, bool) {
			t := &c.nodes[i].cpu
			if calc >= 0 {
				return cpuCalc(c, t, calc)
			}
			if t.n <= field {
				return none()
			}
			return u(ms(c, t.v[field]))
		}
	}
	for _, x := range []struct {
		name        string
		field, calc int
	}{{"user", cpuUser, -1}, {"nice", cpuNice, -1}, {"sys", cpuSys, -1}, {"idle", cpuIdle, -1},
		{"intr", -1, 0}, {"steal", cpuSteal, -1}, {"guest", cpuGuest, -1}, {"vuser", -1, 1},
		{"guest_nice", cpuGuestNice, -1}, {"vnice", -1, 2}, {"wait.total", cpuWait, -1},
		{"irq.soft", cpuSoftIRQ, -1}, {"irq.hard", cpuIRQ, -1}} {
		add("kernel.pernode.cpu."+x.name, srcPernode, pernode(x.field, x.calc),
			"CPU time of the node's CPUs ("+x.name+"), from /proc/stat")
	}
}

package collector

import "github.com/pcpkit/pcpkit/pmapi"

// This file holds network.softnet.*, from /proc/net/softnet_stat: one line
// of hexadecimal counters per online CPU (processed, dropped, time_squeeze,
// five unused, cpu_collision, received_rps, flow_limit_count, backlog
// length and, from Linux 5.10, the CPU's number), summed and per CPU.

// The softnet_stat columns the Collector reports, and how many columns a
// line needs to have them.
var softnetCols = [6]struct{ col, need int }{
	{0, 1}, {1, 2}, {2, 3}, {8, 9}, {9, 10}, {10, 11},
}

// softnetCPU is one line of /proc/net/softnet_stat.
type softnetCPU struct {
	cpu int32
	v   [6]uint64
}

type softnetStat struct {
	cpus  []softnetCPU
	ncols int // the fewest columns of a line
	total [6]uint64
}

// parseSoftnet parses /proc/net/softnet_stat into s; cpuIDs numbers the
// lines of kernels that do not print the CPU number.
func parseSoftnet(b []byte, s *softnetStat, cpuIDs []int32) {
	s.cpus, s.ncols, s.total = s.cpus[:0], 0, [6]uint64{}
	row := 0
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		var cols [16]uint64
		n := 0
		for rest := line; n < len(cols); n++ {
			var f []byte
			f, rest = nextField(rest)
			v, ok := parseHex(f)
			if !ok {
				break
			}
			cols[n] = v
		}
		if n == 0 {
			continue
		}
		var sc softnetCPU
		switch {
		case n >= 13 && cols[12] < 1<<20:
			sc.cpu = int32(cols[12])
		case row < len(cpuIDs):
			sc.cpu = cpuIDs[row]
		default:
			sc.cpu = int32(row)
		}
		row++
		for k, c := range softnetCols {
			if n >= c.need {
				sc.v[k] = cols[c.col]
				s.total[k] += cols[c.col]
			}
		}
		if s.ncols == 0 || n < s.ncols {
			s.ncols = n
		}
		s.cpus = append(s.cpus, sc)
	}
}

// softnetBindings adds network.softnet.*, hinv.map.scsi_id and
// hinv.node.online. A counter the kernel's lines do
// not have is PM_ERR_APPVERSION for the whole metric, as with the PMDA.
func softnetBindings(add func(name string, src int, g getter, help string), bm map[string]binding) {
	for k, name := range []string{"processed", "dropped", "time_squeeze", "cpu_collision",
		"received_rps", "flow_limit_count"} {
		k := k
		need := softnetCols[k].need
		check := func(c *Collector) int32 {
			if c.softnet.ncols < need {
				return int32(pmapi.ErrAppVersion)
			}
			return 0
		}
		add("network.softnet."+name, srcSoftnet, func(c *Collector, _ int) (val, bool) {
			return u(c.softnet.total[k])
		}, name+" summed over the CPUs, from /proc/net/softnet_stat")
		add("network.softnet.percpu."+name, srcSoftnetStat, func(c *Collector, i int) (val, bool) {
			id := c.stat.cpuIDs[i]
			for j := range c.softnet.cpus {
				if c.softnet.cpus[j].cpu == id {
					return u(c.softnet.cpus[j].v[k])
				}
			}
			return none()
		}, name+" per CPU, from /proc/net/softnet_stat")
		for _, n := range [...]string{"network.softnet." + name, "network.softnet.percpu." + name} {
			b := bm[n]
			b.check = check
			bm[n] = b
		}
	}
	add("hinv.map.scsi_id", srcScsiID, func(c *Collector, i int) (val, bool) {
		return str(c.disks[i].wwid)
	}, "WWID of the disk, from /sys/block/<disk>/device/wwid")
	add("hinv.node.online", srcNodeOnline, func(c *Collector, i int) (val, bool) {
		return u(c.nodes[i].online)
	}, "1 if the NUMA node is online, from /sys/devices/system/node/nodeN/online")
}

// scsiID returns the WWID of disk name as the PMDA gives it: from
// /sys/block/<disk>/device/wwid or /sys/block/<disk>/wwid, less its last
// byte (the newline) and anything after a newline, with the "t10.",
// "eui." and "naa." prefixes replaced by 1, 2 and 3 (the kernel's
// scsi_vpd_lun_id designator types); "unknown" when there is none.
func (c *Collector) scsiID(name string) string {
	p := c.wwidPaths[name]
	if p == nil {
		p = &[2]string{"sys/block/" + name + "/device/wwid", "sys/block/" + name + "/wwid"}
		c.wwidPaths[name] = p
	}
	b, err := c.readFile(p[0])
	if err != nil {
		if b, err = c.readFile(p[1]); err != nil {
			return "unknown"
		}
	}
	if len(b) == 0 {
		return "unknown"
	}
	b = b[:len(b)-1]
	if i := bytesIndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	var prefix byte
	switch {
	case len(b) >= 4 && string(b[:4]) == "t10.":
		prefix = '1'
	case len(b) >= 4 && string(b[:4]) == "eui.":
		prefix = '2'
	case len(b) >= 4 && string(b[:4]) == "naa.":
		prefix = '3'
	}
	old := c.wwids[name]
	if prefix != 0 {
		if len(old) == len(b)-3 && old[0] == prefix && old[1:] == string(b[4:]) {
			return old
		}
		s := string(prefix) + string(b[4:])
		c.wwids[name] = s
		return s
	}
	if old == string(b) {
		return old
	}
	s := string(b)
	c.wwids[name] = s
	return s
}

func bytesIndexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

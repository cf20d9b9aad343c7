package collector

// This file holds zram.*: the /proc/diskstats counters of the zram
// compressed RAM disks (instance domain 60.38, numbered by the PMDA's
// instance cache 60.38), and their /sys/block/zramN/{disksize,io_stat,
// mm_stat,bd_stat} attributes.

// zramFiles are the sysfs attributes of one zram device, relative to the
// root.
type zramFiles [4]string // disksize, io_stat, mm_stat, bd_stat

// zramStat is what the sysfs attributes of one zram device hold.
type zramStat struct {
	size                uint64 // disksize in Kbytes (0 when unknown)
	io                  [4]uint64
	mm                  [8]uint64
	bd                  [3]uint64
	hasIO, hasMM, hasBD bool
}

func (c *Collector) zramFilesOf(name string) *zramFiles {
	p := c.zramPaths[name]
	if p == nil {
		d := "sys/block/" + name + "/"
		p = &zramFiles{d + "disksize", d + "io_stat", d + "mm_stat", d + "bd_stat"}
		c.zramPaths[name] = p
	}
	return p
}

// readZram reads attribute k (0 disksize, 1 io_stat, 2 mm_stat, 3
// bd_stat) of every zram device. As the PMDA's fscanf, a file with fewer
// numbers than it should have gives no values.
func (c *Collector) readZram(k int) {
	for i := range c.zrams {
		d := &c.zrams[i]
		z := &d.zram
		b, err := c.readFile(c.zramFilesOf(d.name)[k])
		switch k {
		case 0:
			z.size = 0
			var v [1]uint64
			if err == nil && parseFields(b, v[:]) == 1 {
				z.size = v[0] >> 10
			}
		case 1:
			z.hasIO = err == nil && parseFields(b, z.io[:]) == len(z.io)
		case 2:
			z.hasMM = err == nil && parseFields(b, z.mm[:]) == len(z.mm)
		case 3:
			z.hasBD = err == nil && parseFields(b, z.bd[:]) == len(z.bd)
		}
	}
}

// zramBindings adds zram.*.
func zramBindings(add func(name string, src int, g getter, help string), dk []diskMetric) {
	for _, x := range dk {
		calc := x.calc
		add("zram."+x.name, srcDisk, func(c *Collector, i int) (val, bool) {
			return u(calc(&c.zrams[i]))
		}, x.help+", per zram device, from /proc/diskstats")
	}
	add("zram.capacity", srcZramSize, func(c *Collector, i int) (val, bool) {
		return u(c.zrams[i].zram.size)
	}, "zram device size in Kbytes, from disksize")
	for k, name := range []string{"failed.reads", "failed.writes", "invalid", "notify_free"} {
		k := k
		add("zram.io_stat."+name, srcZramIO, func(c *Collector, i int) (val, bool) {
			z := &c.zrams[i].zram
			if !z.hasIO {
				return none()
			}
			return u(z.io[k])
		}, name+" from the zram device's io_stat")
	}
	for k, name := range []string{"data_size.original", "data_size.compressed", "mem.used_total",
		"mem.limit", "mem.max_used", "pages.same", "pages.compacted", "pages.huge"} {
		k := k
		add("zram.mm_stat."+name, srcZramMM, func(c *Collector, i int) (val, bool) {
			z := &c.zrams[i].zram
			if !z.hasMM {
				return none()
			}
			if k >= 5 {
				return u(z.mm[k] << 2) // 4 KiB pages to Kbytes, as the PMDA does
			}
			return u(z.mm[k] >> 10) // bytes to Kbytes
		}, name+" from the zram device's mm_stat, in Kbytes")
	}
	for k, name := range []string{"count", "reads", "writes"} {
		k := k
		add("zram.bd_stat."+name, srcZramBD, func(c *Collector, i int) (val, bool) {
			z := &c.zrams[i].zram
			if !z.hasBD {
				return none()
			}
			return u(z.bd[k] << 2) // 4 KiB pages to Kbytes
		}, name+" from the zram device's bd_stat, in Kbytes")
	}
}

package collector

import (
	"bytes"
	"strings"
	"sync"
)

// This file holds the metrics read from files of named values:
// /proc/vmstat ("key value" lines), /proc/net/snmp and /proc/net/netstat
// (a header line of field names, then a line of values, per section).
// The keys a Collector looks for are fixed, so each has a slot in a value
// array; looking a key up by its bytes does not allocate.

// kvValues holds one file's values by slot.
type kvValues struct {
	v   []uint64
	has []bool
}

func newKV(n int) kvValues { return kvValues{v: make([]uint64, n), has: make([]bool, n)} }

func (k *kvValues) reset() { clear(k.has) }

func (k *kvValues) get(i int) (uint64, bool) { return k.v[i], k.has[i] }

// Which of the files a snmpFields entry comes from.
const (
	snmpFile = iota
	netstatFile
)

// slotTables numbers the keys the collector keeps of /proc/vmstat, of
// /proc/net/snmp and /proc/net/netstat (one numbering for both), and of
// a NUMA node's meminfo and numastat.
type slotTables struct {
	vmstat map[string]int            // a /proc/vmstat key's slot
	snmp   map[string]map[string]int // section, then field, to a slot
	nSnmp  int
	numa   map[string]int // numaKeys' slots
}

// slots returns the tables, built when first needed rather than at
// start-up: every tool links the collector (pminfo -h @), few use it.
var slots = sync.OnceValue(func() *slotTables {
	t := &slotTables{vmstat: map[string]int{}, snmp: map[string]map[string]int{}, numa: make(map[string]int, len(numaKeys))}
	for _, e := range descTable {
		if k, ok := strings.CutPrefix(e.name, "mem.vmstat."); ok {
			t.vmstat[k] = len(t.vmstat)
		}
	}
	for _, k := range []string{"pswpin", "pswpout", "nr_slab_reclaimable", "nr_slab_unreclaimable"} {
		if _, ok := t.vmstat[k]; !ok {
			t.vmstat[k] = len(t.vmstat)
		}
	}
	for _, f := range snmpFields {
		m := t.snmp[f.sec]
		if m == nil {
			m = map[string]int{}
			t.snmp[f.sec] = m
		}
		if _, ok := m[f.field]; !ok {
			m[f.field] = t.nSnmp
			t.nSnmp++
		}
	}
	for i, k := range numaKeys {
		t.numa[k] = i
	}
	return t
})

// parseVmstat parses /proc/vmstat into kv (slots of slots().vmstat).
func parseVmstat(b []byte, kv *kvValues) error {
	kv.reset()
	n := 0
	all := b
	slot := slots().vmstat
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		k, rest := nextField(line)
		i, ok := slot[string(k)]
		if !ok {
			continue
		}
		f, _ := nextField(rest)
		if v, ok := parseUint(f); ok {
			kv.v[i], kv.has[i] = v, true
			n++
		}
	}
	if n == 0 && len(bytes.TrimSpace(all)) != 0 {
		return errFormat // text, but not /proc/vmstat's
	}
	return nil
}

// parseInt parses a decimal integer with an optional minus sign, giving
// its two's complement (so -1 is 2^64-1, as the PMDA's %llu reads it).
func parseInt(b []byte) (uint64, bool) {
	if len(b) > 1 && b[0] == '-' {
		v, ok := parseUint(b[1:])
		return -v, ok
	}
	return parseUint(b)
}

// parseSnmp parses /proc/net/snmp or /proc/net/netstat into kv (slots of
// slots().snmp): "Tcp: RtoAlgorithm RtoMin ..." followed by "Tcp: 1 200 ...".
func parseSnmp(b []byte, kv *kvValues) {
	sections := slots().snmp
	for len(b) > 0 {
		var head, vals []byte
		head, b = nextLine(b)
		c := bytes.IndexByte(head, ':')
		if c <= 0 {
			continue
		}
		fields := sections[string(head[:c])]
		if len(b) == 0 {
			return
		}
		vals, b = nextLine(b)
		if !bytes.HasPrefix(vals, head[:c+1]) {
			// not a header/value pair: resynchronise on the next line
			b = append(vals[:len(vals):len(vals)], b...)
			continue
		}
		if fields == nil {
			continue
		}
		hr, vr := head[c+1:], vals[c+1:]
		for {
			var name, v []byte
			name, hr = nextField(hr)
			v, vr = nextField(vr)
			if len(name) == 0 || len(v) == 0 {
				break
			}
			i, ok := fields[string(name)]
			if !ok {
				continue
			}
			if x, ok := parseInt(v); ok {
				kv.v[i], kv.has[i] = x, true
			}
		}
	}
}

// parseFields parses up to len(dst) blank-separated unsigned numbers from
// the first line of b, returning how many it found.
func parseFields(b []byte, dst []uint64) int {
	line, _ := nextLine(b)
	n := 0
	for n < len(dst) {
		var f []byte
		f, line = nextField(line)
		v, ok := parseUint(f)
		if !ok {
			break
		}
		dst[n] = v
		n++
	}
	return n
}

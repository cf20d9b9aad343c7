package collector

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// instEntry is one instance in an instCache: its number and interned name,
// and an auxiliary string the owner may keep with it (a mount point).
type instEntry struct {
	id   int32
	name string
	aux  string
}

// instCache numbers instances by name as libpcp_pmda's instance cache
// (pmdaCache) does: a name keeps its number for the Collector's lifetime,
// a new name takes the next number after the largest in use (or, in the
// cache's "reuse" mode, the smallest unused one). It can be seeded from a
// cache file the PMDA saved.
type instCache struct {
	byName map[string]*instEntry
	next   int32
	reuse  bool // ins_mode 1: new names take the smallest unused number
}

// newInstCache returns a cache seeded from file (a PMDA cache file; ""
// or an unreadable file gives an empty cache).
func newInstCache(file string) *instCache {
	ic := &instCache{byName: map[string]*instEntry{}}
	if file == "" {
		return ic
	}
	f, err := os.Open(file)
	if err != nil {
		return ic
	}
	defer f.Close()
	loadCacheFile(ic, bufio.NewScanner(f))
	return ic
}

// loadCacheFile reads a pmdaCache save file: a header line "<version>
// <ins_mode> <maxinst>", then one line per instance, "<inst> <last-seen
// stamp> [<hex key>] <external name>".
func loadCacheFile(ic *instCache, sc *bufio.Scanner) {
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if isHeader(line) {
				if h := strings.Fields(line); len(h) >= 2 && h[1] == "1" {
					ic.reuse = true
				}
				continue
			}
		}
		f := strings.SplitN(strings.TrimLeft(line, " \t"), " ", 3)
		if len(f) != 3 || f[2] == "" {
			continue
		}
		if strings.HasPrefix(f[2], "[") { // a key: skip it
			end := strings.IndexByte(f[2], ']')
			if end < 0 {
				continue
			}
			f[2] = strings.TrimLeft(f[2][end+1:], " \t")
			if f[2] == "" {
				continue
			}
		}
		id, err := strconv.ParseInt(f[0], 10, 32)
		if err != nil || id < 0 {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		if _, dup := ic.byName[f[2]]; dup {
			continue
		}
		ic.byName[f[2]] = &instEntry{id: int32(id), name: f[2]}
		if int32(id) >= ic.next {
			ic.next = int32(id) + 1
		}
	}
}

// isHeader reports whether line is a cache file header: only numbers.
func isHeader(line string) bool {
	fs := strings.Fields(line)
	if len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		if _, err := strconv.ParseInt(f, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// lookup returns the entry of name, adding it with the next number when it
// is new. It does not allocate for a known name.
func (ic *instCache) lookup(name []byte) *instEntry {
	if e := ic.byName[string(name)]; e != nil {
		return e
	}
	if ic.next < 0 { // wrapped: numbers exhausted
		ic.reuse = true
	}
	id := ic.next
	if ic.reuse {
		used := make(map[int32]bool, len(ic.byName))
		for _, e := range ic.byName {
			used[e.id] = true
		}
		for id = 0; used[id]; id++ {
		}
	} else {
		ic.next++
	}
	e := &instEntry{id: id, name: string(name)}
	ic.byName[e.name] = e
	return e
}

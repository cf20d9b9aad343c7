package collector

import (
	"bufio"
	"strings"
	"testing"
)

func TestInstCacheFile(t *testing.T) {
	load := func(s string) *instCache {
		ic := &instCache{byName: map[string]*instEntry{}}
		loadCacheFile(ic, bufio.NewScanner(strings.NewReader(s)))
		return ic
	}
	// appending mode: new names go after the largest number
	ic := load("2 0 2147483647\n0 1795241723 vda\n4 1795241723 [0a0b] vdb\nbad line\n7 x vdc\n\n3 1795241723 vda\n")
	if e := ic.byName["vda"]; e == nil || e.id != 0 {
		t.Errorf("vda: %+v", e)
	}
	if e := ic.byName["vdb"]; e == nil || e.id != 4 {
		t.Errorf("vdb (with a key): %+v", e)
	}
	if _, ok := ic.byName["vdc"]; ok {
		t.Errorf("vdc with a bad stamp was loaded")
	}
	if e := ic.lookup([]byte("sdx")); e.id != 5 {
		t.Errorf("new name: %d, want 5", e.id)
	}
	if e := ic.lookup([]byte("vda")); e.id != 0 {
		t.Errorf("known name: %d, want 0", e.id)
	}
	// reuse mode: new names take the smallest free number
	ic = load("2 1 2147483647\n0 1 a\n2 1 b\n")
	if e := ic.lookup([]byte("c")); e.id != 1 {
		t.Errorf("reuse mode: %d, want 1", e.id)
	}
	if e := ic.lookup([]byte("d")); e.id != 3 {
		t.Errorf("reuse mode: %d, want 3", e.id)
	}
	// no header, empty, garbage
	for _, s := range []string{"", "\n", "x y z\n", "0 1\n", "-1 1 neg\n"} {
		ic = load(s)
		if e := ic.lookup([]byte("first")); e.id != 0 {
			t.Errorf("%q: first new name %d", s, e.id)
		}
	}
}

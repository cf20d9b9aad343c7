package collector

import (
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// coreNames is the core set the issue asks for, as a pmlogger config
// would name it (non-leaf names expanded by Traverse).
var coreNames = []string{"kernel.all.load", "kernel.all.cpu", "kernel.all.nprocs", "kernel.all.pswitch",
	"kernel.all.intr", "kernel.percpu.cpu", "mem.util", "mem.physmem", "swap", "disk.dev", "disk.all",
	"network.interface.in", "network.interface.out", "filesys", "hinv.ncpu", "hinv.ndisk", "hinv.physmem",
	"kernel.uname"}

func corePMIDs(tb testing.TB, c *Collector) []pmapi.PMID {
	tb.Helper()
	var names []string
	for _, n := range coreNames {
		leaves, err := c.Traverse(n)
		if err != nil {
			tb.Fatalf("Traverse(%s): %v", n, err)
		}
		names = append(names, leaves...)
	}
	ids, _ := c.LookupNames(names)
	return ids
}

// BenchmarkFetchCore fetches the core set from the live /proc and /sys.
func BenchmarkFetchCore(b *testing.B) {
	c := newLocal(b)
	ids := corePMIDs(b, c)
	c.Fetch(ids) // open the files, intern the instance names
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Fetch(ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)), "metrics/op")
}

// BenchmarkFetchCoreFixture is BenchmarkFetchCore on the fixture tree.
func BenchmarkFetchCoreFixture(b *testing.B) {
	c, _ := newFixture(b)
	ids := corePMIDs(b, c)
	c.Fetch(ids)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Fetch(ids); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFetchAllocs keeps the steady-state allocations of a core fetch low.
func TestFetchAllocs(t *testing.T) {
	c, _ := newFixture(t)
	ids := corePMIDs(t, c)
	c.Fetch(ids)
	n := testing.AllocsPerRun(20, func() { c.Fetch(ids) })
	t.Logf("%.1f allocations per core fetch (%d metrics)", n, len(ids))
	if n > 40 {
		t.Errorf("%.1f allocations per core fetch, want at most 40", n)
	}
}

// BenchmarkFetchAll fetches every exported metric from the live /proc and
// /sys.
func BenchmarkFetchAll(b *testing.B) {
	c := newLocal(b)
	ids, _ := c.LookupNames(c.Names())
	c.Fetch(ids)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Fetch(ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)), "metrics/op")
}

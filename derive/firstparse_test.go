package derive

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// firstParseEnv names the dialect whose first Parse a test binary started
// by BenchmarkFirstParse measures (TestMain does it, then exits).
const firstParseEnv = "PCPKIT_DERIVE_FIRST_PARSE"

// firstParseExpr is the expression parsed first.
const firstParseExpr = "sample.long.one + 2 * sample.long.ten"

func TestMain(m *testing.M) {
	if d := os.Getenv(firstParseEnv); d != "" {
		os.Exit(measureFirstParse(d))
	}
	os.Exit(m.Run())
}

// measureFirstParse prints the wall time, the process's CPU time (the
// garbage collector's included; 0 where it is not known), bytes and
// allocations of the process's first Parse of dialect name ("6.0.3" or
// "current").
func measureFirstParse(name string) int {
	d := Dialect603
	if name == DialectCurrent.String() {
		d = DialectCurrent
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, start := processCPU(), time.Now()
	_, err := Parse(firstParseExpr, d)
	ns, cpu := time.Since(start).Nanoseconds(), processCPU()-cpu0
	runtime.ReadMemStats(&after)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %d %d %d\n", ns, cpu.Nanoseconds(), after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs)
	return 0
}

// BenchmarkFirstParse is the cost of the first Parse of each dialect in a
// process (what the first derived metric pays), each iteration in a fresh
// test binary: first-ns/op, first-cpu-ns/op, first-B/op and
// first-allocs/op are the child's own measurement of that one call.
func BenchmarkFirstParse(b *testing.B) {
	for _, d := range []Dialect{Dialect603, DialectCurrent} {
		b.Run(d.String(), func(b *testing.B) {
			var ns, cpu, bytes, allocs int64
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), firstParseEnv+"="+d.String())
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("%s: %v", cmd, err)
				}
				var n, c, by, al int64
				if _, err := fmt.Sscan(string(out), &n, &c, &by, &al); err != nil {
					b.Fatalf("child printed %q: %v", out, err)
				}
				ns, cpu, bytes, allocs = ns+n, cpu+c, bytes+by, allocs+al
			}
			b.ReportMetric(float64(ns)/float64(b.N), "first-ns/op")
			b.ReportMetric(float64(cpu)/float64(b.N), "first-cpu-ns/op")
			b.ReportMetric(float64(bytes)/float64(b.N), "first-B/op")
			b.ReportMetric(float64(allocs)/float64(b.N), "first-allocs/op")
		})
	}
}

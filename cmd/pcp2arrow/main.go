// Command pcp2arrow writes metrics of a PCP archive, replayed as PCP
// 6.0.3's pmrep -o csv reports them, as Apache Parquet for DuckDB,
// pandas, Polars or Spark. See internal/pcp2arrow and docs/pcp2arrow.md.
package main

import (
	"os"
	"runtime/debug"

	"github.com/pcpkit/pcpkit/internal/pcp2arrow"
)

// memoryLimit is the Go runtime's soft memory limit unless $GOMEMLIMIT
// or $GOGC say otherwise: the memory an export holds is bounded (row
// groups, chunks of samples replayed at once), so the collector need
// only run when the heap nears the limit, not every time it doubles (it
// scans the row groups' values each time: a third of a long export's
// time at -t 10sec).
const memoryLimit = 192 << 20

func main() {
	_, limit := os.LookupEnv("GOMEMLIMIT")
	_, gogc := os.LookupEnv("GOGC")
	if !limit && !gogc {
		debug.SetMemoryLimit(memoryLimit)
		debug.SetGCPercent(-1)
	}
	os.Exit(pcp2arrow.Main(os.Args[1:], os.Stdout, os.Stderr))
}

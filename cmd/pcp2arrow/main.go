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
// sets one: the memory of an export is bounded (row groups, chunks of
// samples replayed at once), and the collector keeps what it has freed
// from piling up on top of it.
const memoryLimit = 192 << 20

func main() {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(pcp2arrow.Main(os.Args[1:], os.Stdout, os.Stderr))
}

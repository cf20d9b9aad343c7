// Command pcp2arrow writes metrics of a PCP archive, replayed as PCP
// 6.0.3's pmrep -o csv reports them, as Apache Parquet for DuckDB,
// pandas, Polars or Spark. See internal/pcp2arrow and docs/pcp2arrow.md.
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pcp2arrow"
)

func main() {
	os.Exit(pcp2arrow.Main(os.Args[1:], os.Stdout, os.Stderr))
}

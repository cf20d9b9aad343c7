// Command pmlogreduce writes a temporally reduced copy of a PCP archive,
// with the options, messages and output of PCP 6.0.3's pmlogreduce. See
// pmlogreduce(1).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/logreduce"
)

func main() {
	os.Exit(logreduce.Main(os.Args[1:], os.Stdout, os.Stderr))
}

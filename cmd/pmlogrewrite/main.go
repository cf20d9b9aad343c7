// Command pmlogrewrite rewrites a PCP archive's metadata and values by
// the rules of configuration files, with the options, messages and output
// of PCP 6.0.3's pmlogrewrite. See pmlogrewrite(1).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/logrewrite"
)

func main() {
	os.Exit(logrewrite.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Command pmdumplog dumps a PCP archive's label, metadata, temporal index
// and records, with the options and output of PCP 6.0.3's pmdumplog. See
// pmdumplog(1); `pmdumplog --json` is a pcpkit extension.
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/dumplog"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(dumplog.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Command pmval reports the values of a performance metric over time,
// from a PCP archive or live from a pmcd, with the options and output of
// PCP 6.0.3's pmval. See pmval(1) and docs/pmval.md (a local context, -L,
// and the GUI time control, -g and -p, are not supported).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pmval"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(pmval.Main(os.Args[1:], os.Stdout, os.Stderr))
}

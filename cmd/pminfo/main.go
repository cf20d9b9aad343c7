// Command pminfo displays information about performance metrics (names,
// identifiers, descriptors, help text, labels, series identifiers and
// values) from PCP archives, a pmcd or pcpkit's built-in collector
// ("-h @"), with the options and output of PCP 6.0.3's pminfo. See
// pminfo(1) and docs/json.md (--json).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pminfo"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(pminfo.Main(os.Args[1:], os.Stdout, os.Stderr))
}

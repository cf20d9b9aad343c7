// Command pmprobe reports whether performance metrics have values, and
// how many (with the instances or the values on request), from PCP
// archives, a pmcd or pcpkit's built-in collector ("-h @"), with the
// options and output of PCP 6.0.3's pmprobe. See pmprobe(1).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pmprobe"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(pmprobe.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Command pmlogextract copies, windows, filters, converts and merges PCP
// archives, with the options and output of PCP 6.0.3's pmlogextract. See
// pmlogextract(1).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/logextract"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(logextract.Main(os.Args[1:], os.Stdout, os.Stderr))
}

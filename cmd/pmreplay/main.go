// Command pmreplay replays metrics of a PCP archive interpolated on a
// regular grid and prints them as PCP 6.0.3's pmrep prints them with
// -o csv (or as JSON Lines with --json). See internal/pmreplay.
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pmreplay"
)

func main() {
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(pmreplay.Main(os.Args[1:], os.Stdout, os.Stderr))
}

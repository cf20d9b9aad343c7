// Command pmlogcheck checks a PCP archive for damage
// with the options, report and exit status of PCP 6.0.3's pmlogcheck. See
// pmlogcheck(1); `pmlogcheck --repair OUTPUT` is a pcpkit extension.
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/logcheck"
)

func main() {
	// The real tool's getopt parsing is reproduced by internal/getopt:
	// every argument goes to the tool as it is.
	os.Exit(logcheck.Main(os.Args[1:], os.Stdout, os.Stderr))
}

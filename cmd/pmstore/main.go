// Command pmstore changes the value of a performance metric in a pmcd or
// a local context, with the options and output of PCP 6.0.3's pmstore.
// See pmstore(1).
package main

import (
	"os"

	"github.com/pcpkit/pcpkit/internal/pmstore"
)

func main() {
	os.Exit(pmstore.Main(os.Args[1:], os.Stdout, os.Stderr))
}

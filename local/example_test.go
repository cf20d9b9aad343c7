package local_test

import (
	"fmt"
	"os"

	"github.com/pcpkit/pcpkit/local"
)

// A local context with the linux PMDA alone (pminfo -L -K clear -K
// add,60,...): hinv.ncpu fetched from the PMDA the Source runs.
func Example() {
	ns, err := local.DefaultNamespace("/var/lib/pcp")
	if err != nil {
		fmt.Println(err)
		return
	}
	src := local.New([]local.PMDA{{Domain: 60, Path: "/var/lib/pcp/pmdas/linux/pmda_linux.so", Init: "linux_init"}}, ns, os.Stderr)
	defer src.Close()
	ids, _ := src.LookupNames([]string{"hinv.ncpu"})
	res, _, err := src.Fetch(ids)
	if err != nil {
		fmt.Println(err)
		return
	}
	if vs := res.VSets[0]; vs.NumVal > 0 {
		fmt.Println("hinv.ncpu", vs.Values[0].Insitu)
	}
}

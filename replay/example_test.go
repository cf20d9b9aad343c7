package replay_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/replay"
)

// archiveForExamples is a small archive recorded by the real pmlogger.
const archiveForExamples = "../testdata/archives/pmcd-v3"

// Reading records forwards: each Fetch returns the next record holding
// one of the metrics asked for, with one value set per metric in the
// order asked.
func ExampleContext_Fetch() {
	c, err := replay.Open(archiveForExamples)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	pswitch, _ := c.Meta().Lookup("kernel.all.pswitch")
	ncpu, _ := c.Meta().Lookup("hinv.ncpu")
	for i := 0; i < 3; i++ {
		res, err := c.Fetch([]pmapi.PMID{pswitch, ncpu})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d.%09d", res.Timestamp.Sec, res.Timestamp.Nsec)
		for _, vs := range res.VSets {
			d, _ := c.Meta().Desc(vs.PMID)
			fmt.Printf(" %s:%d", vs.PMID, vs.NumVal)
			for _, v := range vs.Values {
				fmt.Printf("=%s", pmapi.AppendValue(nil, d.Type, &v))
			}
		}
		fmt.Println()
	}
	// Output:
	// 1795241754.897315921 60.0.13:1=872788 60.0.32:1=2
	// 1795241755.897018919 60.0.13:1=873909 60.0.32:1=2
	// 1795241756.897350409 60.0.13:1=874081 60.0.32:1=2
}

// Interpolating: the values of a counter every two seconds from the
// start of the archive, as pmval -t 2 asks for them. The first fetch
// precedes the first sample, so it has no value.
func ExampleContext_SetMode() {
	c, err := replay.Open(archiveForExamples)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	pswitch, _ := c.Meta().Lookup("kernel.all.pswitch")
	if err := c.SetMode(replay.Interp, c.Start(), 2e9); err != nil {
		log.Fatal(err)
	}
	for {
		res, err := c.Fetch([]pmapi.PMID{pswitch})
		if errors.Is(err, pmapi.ErrEOL) {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		vs := res.VSets[0]
		fmt.Printf("%d.%09d", res.Timestamp.Sec, res.Timestamp.Nsec)
		for _, v := range vs.Values {
			fmt.Printf(" %s", pmapi.AppendValue(nil, pmapi.TypeU64, &v))
		}
		fmt.Println()
	}
	// Output:
	// 1795241754.877004711
	// 1795241756.877004711 874078
	// 1795241758.877004711 874771
	// 1795241760.877004711 875199
	// 1795241762.877004711 888879
}

// Reading whole records backwards from the end, <mark>s included.
func ExampleContext_FetchArchive() {
	c, err := replay.Open(archiveForExamples)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	end, err := c.End()
	if err != nil {
		log.Fatal(err)
	}
	c.SetMode(replay.Back, end, 0)
	for i := 0; i < 2; i++ {
		res, err := c.FetchArchive()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d.%09d %d metrics, mark %v\n", res.Timestamp.Sec, res.Timestamp.Nsec, len(res.VSets), res.IsMark())
	}
	// Output:
	// 1795241762.898611662 5 metrics, mark false
	// 1795241762.898580556 1 metrics, mark false
}

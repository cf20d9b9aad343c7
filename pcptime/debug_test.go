package pcptime

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestDebugTrans(t *testing.T) {
	spec := os.Getenv("DBG_TZ")
	if spec == "" {
		t.Skip()
	}
	z := LoadZone(spec)
	var from, to int64 = -400000000, 100000000
	po, _, pd := z.Lookup(from)
	for s := from + 1800; s <= to; s += 1800 {
		o, _, d := z.Lookup(s)
		if o != po || d != pd {
			lo, hi := s-1800, s
			for hi-lo > 1 {
				m := lo + (hi-lo)/2
				oo, _, dd := z.Lookup(m)
				if oo == po && dd == pd {
					lo = m
				} else {
					hi = m
				}
			}
			isd := 0
			if d {
				isd = 1
			}
			fmt.Printf("%d %s UTC -> isdst=%d off=%d\n", hi, time.Unix(hi, 0).UTC().Format("2006-01-02 15:04:05"), isd, o)
			po, pd = o, d
		}
	}
}

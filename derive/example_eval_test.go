package derive_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// An Evaluator between a client and any source of values: here a source
// of one U64 counter, disk.reads, over two instances, fetched every 2
// seconds.
func ExampleEvaluator() {
	reads := pmapi.NewPMID(60, 0, 4)
	indom := pmapi.NewInDom(60, 1)
	reg := derive.NewRegistry(derive.Dialect603)
	m, err := reg.Register("disk.read_rate", "rate(disk.reads)")
	if err != nil {
		panic(err)
	}
	dc := reg.NewContext(func(name string) (pmapi.Desc, bool) {
		if name != "disk.reads" {
			return pmapi.Desc{}, false
		}
		return pmapi.Desc{PMID: reads, Type: pmapi.TypeU64, InDom: indom, Sem: pmapi.SemCounter,
			Units: pmapi.Units{DimCount: 1}}, true
	})
	desc, _ := dc.Desc(m.PMID)
	fmt.Println(m.PMID, desc.Type, desc.Units)

	// source answers a fetch list at time sec: the counter for
	// instances 0 and 1, and PM_ERR_NOAGENT for anything else (the
	// derived PMID itself)
	source := func(list []pmapi.PMID, sec int64, v0, v1 uint64) *pmapi.Result {
		res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: sec}}
		for _, p := range list {
			vs := pmapi.ValueSet{PMID: p, NumVal: int32(pmapi.ErrNoAgent)}
			if p == reads {
				vs.NumVal, vs.ValFmt = 2, pmapi.ValFmtDptr
				for i, v := range []uint64{v0, v1} {
					vs.Values = append(vs.Values, pmapi.Value{Inst: int32(i), BlockType: pmapi.TypeU64,
						Block: binary.BigEndian.AppendUint64(nil, v)})
				}
			}
			res.VSets = append(res.VSets, vs)
		}
		return res
	}

	ev := dc.NewEvaluator(derive.EvalOptions{})
	req := []pmapi.PMID{m.PMID}
	for i, s := range [][2]uint64{{100, 7}, {160, 9}, {300, 9}} {
		list := ev.Prefetch(req)
		out, err := ev.Postfetch(req, source(list, int64(2*i), s[0], s[1]))
		if err != nil {
			panic(err)
		}
		vs := out.VSets[0]
		fmt.Printf("fetch %d: %v, %d values:", i, list, vs.NumVal)
		for _, v := range vs.Values {
			fmt.Printf(" [%d] %g", v.Inst, math.Float64frombits(binary.BigEndian.Uint64(v.Block)))
		}
		fmt.Println()
	}
	// Output:
	// 511.0.1 DOUBLE count / sec
	// fetch 0: [511.0.1 60.0.4], 0 values:
	// fetch 1: [511.0.1 60.0.4], 2 values: [0] 30 [1] 1
	// fetch 2: [511.0.1 60.0.4], 2 values: [0] 70 [1] 0
}

package interp

import (
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// benchRecord is a record of 100 value sets, as the benchmark archive
// has them (scripts/bench.sh): singular U32 values insitu, singular
// DOUBLEs and U64s over five instances in blocks.
func benchRecord(tb testing.TB) []byte {
	res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 1700000000}}
	for i := 0; i < 100; i++ {
		vs := pmapi.ValueSet{PMID: pmapi.NewPMID(60, 3, uint32(i)), ValFmt: pmapi.ValFmtDptr}
		switch i % 3 {
		case 0:
			for j := int32(0); j < 5; j++ {
				vs.Values = append(vs.Values, pmapi.Value{Inst: j, BlockType: pmapi.TypeU64, Block: []byte{0, 0, 0, 0, 0, 0, 1, byte(i)}})
			}
		case 1:
			vs.ValFmt = pmapi.ValFmtInsitu
			vs.Values = []pmapi.Value{{Inst: pmapi.InstNull, Insitu: int32(i)}}
		case 2:
			vs.Values = []pmapi.Value{{Inst: pmapi.InstNull, BlockType: pmapi.TypeDouble, Block: []byte{0x40, 0x24, 0, 0, 0, 0, 0, 0}}}
		}
		vs.NumVal = int32(len(vs.Values))
		res.VSets = append(res.VSets, vs)
	}
	raw, err := archive.AppendResultRecord(nil, 3, res)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// BenchmarkScan is the scan of a record (its Decode and a scan of every
// value set) for one metric of its 100, the 60th, its values read: what
// update does with every record interpolation reads, once the layout
// of the records is known.
func BenchmarkScan(b *testing.B) {
	raw := benchRecord(b)
	ip := &Interp{metrics: map[pmapi.PMID]*metric{}, gen: 1}
	want := pmapi.NewPMID(60, 3, 60)
	ip.metrics[want] = &metric{pmid: want}
	var r Record
	var sum int64
	scan := func() {
		if !r.Decode(raw, 3) || !r.scanAll(ip) || len(r.hits) != 1 {
			b.Fatal("scan failed")
		}
		h := &r.hits[0]
		var v pmapi.Value
		for j := 0; j < int(h.vs.NumVal); j++ {
			r.value(&h.vs, j, &v)
			sum += int64(v.Inst) + int64(len(v.Block))
		}
	}
	scan()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		scan()
	}
	if sum == 0 {
		b.Fatal("no values")
	}
}

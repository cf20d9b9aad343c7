package pmval

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// extractMetric is a metric of the archive extractArchive writes: its
// type and semantics, and the value block of each instance at sample i.
type extractMetric struct {
	name  string
	typ   pmapi.Type
	sem   pmapi.Sem
	insts int // 0: singular
	block func(i, inst int) (pmapi.Type, []byte)
}

func be64(u uint64) []byte { return binary.BigEndian.AppendUint64(nil, u) }

func dbl(i int) []byte { return be64(math.Float64bits(float64(i) + 0.5)) }

// extractMetrics have value blocks pmExtractValue takes (d.ok, d.zero,
// c.ok) and ones it refuses: another block type, another size. (Not a
// DOUBLE block of 4 bytes: libpcp swaps 8 bytes of it in place when it
// reads it, over the next block's header, and then finds the record
// corrupt.)
var extractMetrics = []extractMetric{
	{"d.ok", pmapi.TypeDouble, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeDouble, dbl(i) }},
	{"d.zero", pmapi.TypeDouble, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) {
		return 0, binary.LittleEndian.AppendUint64(nil, math.Float64bits(float64(i)+0.5)) // an untyped block, as it is
	}},
	{"d.u64blk", pmapi.TypeDouble, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeU64, dbl(i) }},
	{"d.long", pmapi.TypeDouble, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeDouble, append(dbl(i), 1, 2, 3, 4) }},
	{"d.agg", pmapi.TypeDouble, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeAggregate, dbl(i) }},
	{"d.inst", pmapi.TypeDouble, pmapi.SemInstant, 3, func(i, inst int) (pmapi.Type, []byte) {
		if inst == 1 && i >= 2 {
			return pmapi.TypeU64, dbl(i)
		}
		return pmapi.TypeDouble, dbl(i)
	}},
	{"f.long", pmapi.TypeFloat, pmapi.SemInstant, 0, func(i, _ int) (pmapi.Type, []byte) {
		return pmapi.TypeFloat, be64(uint64(math.Float32bits(float32(i)+0.25)) << 32)
	}},
	{"c.ok", pmapi.TypeU64, pmapi.SemCounter, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeU64, be64(uint64(1000 * i)) }},
	{"c.u64dbl", pmapi.TypeU64, pmapi.SemCounter, 0, func(i, _ int) (pmapi.Type, []byte) { return pmapi.TypeDouble, be64(uint64(1000 * i)) }},
	{"c.u64long", pmapi.TypeU64, pmapi.SemCounter, 0, func(i, _ int) (pmapi.Type, []byte) {
		return pmapi.TypeU64, append(be64(uint64(1000*i)), 9, 9, 9, 9)
	}},
	{"c.inst", pmapi.TypeU64, pmapi.SemCounter, 3, func(i, inst int) (pmapi.Type, []byte) {
		if inst == 2 && i >= 3 {
			return pmapi.TypeDouble, be64(uint64(1000 * i))
		}
		return pmapi.TypeU64, be64(uint64(1000 * i * (inst + 1)))
	}},
}

// extractArchive writes an archive of four samples of extractMetrics in
// dir, and returns its name.
func extractArchive(t *testing.T, dir string) string {
	start := pmapi.Timestamp{Sec: 1700000000}
	base := filepath.Join(dir, "extract")
	w, err := archive.Create(base, archive.WriterOptions{Version: 3, Hostname: "h", TZ: "UTC", Start: start})
	if err != nil {
		t.Fatal(err)
	}
	indom := pmapi.NewInDom(245, 1)
	if err := w.PutInDom(&archive.InDomRecord{Type: archive.MetaInDom, Stamp: start, InDom: indom,
		Insts: []int32{0, 1, 2}, Names: []string{"a", "b", "c"}}); err != nil {
		t.Fatal(err)
	}
	for k, m := range extractMetrics {
		d := pmapi.Desc{PMID: pmapi.NewPMID(245, 0, uint32(k)), Type: m.typ, InDom: pmapi.InDomNull, Sem: m.sem}
		if m.insts > 0 {
			d.InDom = indom
		}
		if err := w.PutDesc(d, []string{m.name}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 4; i++ {
		res := &pmapi.Result{Timestamp: start.Add(int64(i-1) * 1e9)}
		for k, m := range extractMetrics {
			vs := pmapi.ValueSet{PMID: pmapi.NewPMID(245, 0, uint32(k)), ValFmt: pmapi.ValFmtDptr}
			for inst := 0; inst < max(m.insts, 1); inst++ {
				bt, b := m.block(i, inst)
				id := int32(inst)
				if m.insts == 0 {
					id = pmapi.InstNull
				}
				vs.Values = append(vs.Values, pmapi.Value{Inst: id, BlockType: bt, Block: b})
			}
			vs.NumVal = int32(len(vs.Values))
			res.VSets = append(res.VSets, vs)
		}
		if err := w.PutResult(res); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return base
}

// TestInteropExtract: values pmExtractValue refuses (a block of another
// type, or of another size) stop the real pmval in -U mode, after the
// line so far, with "pmval:printvals pmExtractValue: Impossible value or
// scale conversion" (printvals[j] for instance j of an instance domain,
// printrate prev/this for a counter's rate), exit status 1; interpolation
// copes with them.
func TestInteropExtract(t *testing.T) {
	testenv.RealTool(t, "pmval")
	dir := t.TempDir()
	extractArchive(t, dir)
	for _, m := range extractMetrics {
		for _, args := range [][]string{{"-U", "extract"}, {"-a", "extract", "-t", "1"}, {"-a", "extract", "-t", "0.5", "-r"}} {
			compareReal(t, dir, append(args, m.name))
		}
	}
}

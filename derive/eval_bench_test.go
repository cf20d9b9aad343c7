package derive

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// benchSource makes results of two U64 counters a and b over 16
// instances, a fetch a second.
type benchSource struct {
	pmidA, pmidB pmapi.PMID
	res          pmapi.Result
	blocks       []byte
}

func newBenchSource(ninst int) *benchSource {
	s := &benchSource{pmidA: pmapi.NewPMID(30, 0, 1), pmidB: pmapi.NewPMID(30, 0, 2)}
	s.blocks = make([]byte, 2*ninst*8)
	s.res.VSets = make([]pmapi.ValueSet, 0, 4)
	return s
}

// fill makes sample k for the fetch list list.
func (s *benchSource) fill(list []pmapi.PMID, k int64, ninst int) *pmapi.Result {
	s.res.Timestamp = pmapi.Timestamp{Sec: 1_700_000_000 + k}
	s.res.VSets = s.res.VSets[:len(list)]
	off := 0
	for i, p := range list {
		vs := &s.res.VSets[i]
		vs.PMID = p
		if p != s.pmidA && p != s.pmidB {
			vs.NumVal, vs.Values = int32(pmapi.ErrNoAgent), vs.Values[:0]
			continue
		}
		vs.NumVal, vs.ValFmt = int32(ninst), pmapi.ValFmtDptr
		if cap(vs.Values) < ninst {
			vs.Values = make([]pmapi.Value, ninst)
		}
		vs.Values = vs.Values[:ninst]
		mul := int64(3)
		if p == s.pmidB {
			mul = 7
		}
		for j := 0; j < ninst; j++ {
			b := s.blocks[off : off+8 : off+8]
			off += 8
			binary.BigEndian.PutUint64(b, uint64(k*mul*int64(j+1)))
			vs.Values[j] = pmapi.Value{Inst: int32(j), BlockType: pmapi.TypeU64, Block: b}
		}
	}
	return &s.res
}

func benchContext(tb testing.TB, expr string) (*Context, *benchSource, pmapi.PMID) {
	tb.Helper()
	src := newBenchSource(16)
	indom := pmapi.NewInDom(30, 1)
	reg := NewRegistry(Dialect603)
	m, err := reg.Register("bench.ratio", expr)
	if err != nil {
		tb.Fatal(err)
	}
	c := reg.NewContext(func(name string) (pmapi.Desc, bool) {
		d := pmapi.Desc{Type: pmapi.TypeU64, InDom: indom, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}}
		switch name {
		case "a":
			d.PMID = src.pmidA
		case "b":
			d.PMID = src.pmidB
		default:
			return pmapi.Desc{}, false
		}
		return d, true
	})
	return c, src, m.PMID
}

// BenchmarkDeltaRatio evaluates delta(a)/delta(b) over 16 instances, one
// op per sample (report: ns/op and allocs/op per sample).
func BenchmarkDeltaRatio(b *testing.B) {
	c, src, p := benchContext(b, "delta(a) / delta(b)")
	ev := c.NewEvaluator(EvalOptions{})
	req := []pmapi.PMID{p}
	// warm up
	for k := int64(0); k < 3; k++ {
		list := ev.Prefetch(req)
		if _, err := ev.Postfetch(req, src.fill(list, k, 16)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list := ev.Prefetch(req)
		out, err := ev.Postfetch(req, src.fill(list, int64(i+3), 16))
		if err != nil || out.VSets[0].NumVal != 16 {
			b.Fatalf("fetch %d: %v %+v", i, err, out)
		}
	}
}

// TestDeltaRatioMillion evaluates delta(a)/delta(b) over 1,000,000 samples
// of 16 instances, checks every value (3/7 after the first sample) and
// that no fetch after the warm-up allocates. Skipped with -short.
func TestDeltaRatioMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("1M samples: skipped with -short")
	}
	c, src, p := benchContext(t, "delta(a) / delta(b)")
	ev := c.NewEvaluator(EvalOptions{})
	req := []pmapi.PMID{p}
	const n = 1_000_000
	want := 3.0 / 7.0
	check := func(k int64) {
		list := ev.Prefetch(req)
		out, err := ev.Postfetch(req, src.fill(list, k, 16))
		if err != nil {
			t.Fatal(err)
		}
		vs := out.VSets[0]
		if k == 0 {
			if vs.NumVal != 0 {
				t.Fatalf("first sample: %d values, want none", vs.NumVal)
			}
			return
		}
		if vs.NumVal != 16 {
			t.Fatalf("sample %d: %d values", k, vs.NumVal)
		}
		for j, v := range vs.Values {
			got := float64frombe(v.Block)
			if v.Inst != int32(j) || got != want {
				t.Fatalf("sample %d inst %d: %d %v, want %d %v", k, j, v.Inst, got, j, want)
			}
		}
	}
	for k := int64(0); k < 3; k++ {
		check(k)
	}
	allocs := testing.AllocsPerRun(n-3, func() {
		k := src.res.Timestamp.Sec - 1_700_000_000 + 1
		check(k)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per fetch after warm-up, want 0", allocs)
	}
}

func float64frombe(b []byte) float64 {
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

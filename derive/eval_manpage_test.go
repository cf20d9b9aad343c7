package derive

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// The examples of pmRegisterDerived(3), evaluated over a small PMNS with
// network interfaces eth0, eth1 and lo.
func TestEvalManPageExamples(t *testing.T) {
	ni := pmapi.NewInDom(60, 3)
	di := pmapi.NewInDom(60, 1)
	byte_ := pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceByte}
	descs := map[string]pmapi.Desc{
		"network.interface.in.bytes":  {PMID: pmapi.NewPMID(60, 3, 0), Type: pmapi.TypeU64, InDom: ni, Sem: pmapi.SemCounter, Units: byte_},
		"network.interface.out.bytes": {PMID: pmapi.NewPMID(60, 3, 8), Type: pmapi.TypeU64, InDom: ni, Sem: pmapi.SemCounter, Units: byte_},
		"network.interface.speed": {PMID: pmapi.NewPMID(60, 3, 22), Type: pmapi.TypeFloat, InDom: ni, Sem: pmapi.SemInstant,
			Units: pmapi.Units{DimSpace: 1, DimTime: -1, ScaleSpace: pmapi.SpaceMByte, ScaleTime: pmapi.TimeSec}},
		"sample.milliseconds": {PMID: pmapi.NewPMID(29, 0, 3), Type: pmapi.TypeDouble, InDom: pmapi.InDomNull, Sem: pmapi.SemCounter,
			Units: pmapi.Units{DimTime: 1, ScaleTime: pmapi.TimeMSec}},
		"disk.dev.total":       {PMID: pmapi.NewPMID(60, 0, 28), Type: pmapi.TypeU64, InDom: di, Sem: pmapi.SemCounter, Units: pmapi.Units{DimCount: 1}},
		"disk.dev.total_bytes": {PMID: pmapi.NewPMID(60, 0, 37), Type: pmapi.TypeU64, InDom: di, Sem: pmapi.SemCounter, Units: pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceKByte}},
		"mem.util.free":        {PMID: pmapi.NewPMID(60, 1, 2), Type: pmapi.TypeU64, InDom: pmapi.InDomNull, Sem: pmapi.SemInstant, Units: pmapi.Units{DimSpace: 1, ScaleSpace: pmapi.SpaceKByte}},
	}
	names := map[pmapi.InDom]map[int32]string{ni: {0: "eth0", 1: "eth1", 2: "lo"}, di: {0: "sda", 1: "sdb"}}
	lookup := func(n string) (pmapi.Desc, bool) { d, ok := descs[n]; return d, ok }
	sample := func(sec int64, vals map[string][]uint64, ms float64) *pmapi.Result {
		res := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: sec}}
		for name, vs := range vals {
			d := descs[name]
			set := pmapi.ValueSet{PMID: d.PMID, NumVal: int32(len(vs)), ValFmt: pmapi.ValFmtDptr}
			for i, v := range vs {
				iv := ival{inst: int32(i), u: v, f: float64(v)}
				pv, _ := encodeValue(&iv, d.Type, nil)
				set.Values = append(set.Values, pv)
			}
			res.VSets = append(res.VSets, set)
		}
		iv := ival{inst: pmapi.InstNull, f: ms}
		pv, _ := encodeValue(&iv, pmapi.TypeDouble, nil)
		res.VSets = append(res.VSets, pmapi.ValueSet{PMID: descs["sample.milliseconds"].PMID, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{pv}})
		return res
	}
	s1 := sample(100, map[string][]uint64{
		"network.interface.in.bytes": {1000, 5000, 7}, "network.interface.out.bytes": {10, 20, 30},
		"network.interface.speed": {100, 1000, 0}, "disk.dev.total": {10, 20}, "disk.dev.total_bytes": {100, 200},
		"mem.util.free": {20 << 20}}, 5000)
	s2 := sample(101, map[string][]uint64{
		"network.interface.in.bytes": {1000 + 2<<20, 5000 + 1<<20, 7}, "network.interface.out.bytes": {11, 22, 33},
		"network.interface.speed": {100, 1000, 0}, "disk.dev.total": {10, 24}, "disk.dev.total_bytes": {100, 264},
		"mem.util.free": {5 << 20}}, 6000)
	cases := []struct {
		expr string
		d    Dialect
		typ  pmapi.Type
		want string // after the second sample
	}{
		// the worked example: byte/millisec scaled to Mbyte/sec
		{expr: "network.interface.speed - delta(network.interface.in.bytes) / delta(sample.milliseconds)",
			typ: pmapi.TypeDouble, want: "0:98 1:999 2:0"},
		{expr: "network.interface.in.bytes[eth1] + network.interface.out.bytes[eth1]", typ: pmapi.TypeU64, want: "1:1053598"},
		{expr: "(network.interface.in.bytes + network.interface.out.bytes)[eth1]", typ: pmapi.TypeU64, want: "1:1053598"},
		{expr: "scalar(network.interface.in.bytes[eth0]) + scalar(network.interface.in.bytes[eth1])", typ: pmapi.TypeU64, want: "-:3151728"},
		{expr: "matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes)", typ: pmapi.TypeU64, want: "0:2098152 1:1053576"},
		{expr: "mem.util.free > mkconst(10485760, units=Kbyte)", typ: pmapi.TypeU32, want: "-:0"},
		{expr: "delta(disk.dev.total) == 0 ? mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(disk.dev.total_bytes) / delta(disk.dev.total)",
			d: DialectCurrent, typ: pmapi.TypeDouble, want: "0:1 1:16"},
		{expr: "defined(abc.def) ? count(abc.def) : novalue()", d: DialectCurrent, typ: pmapi.Type32, want: ""},
		{expr: "defined(network.interface.in.bytes) ? count(network.interface.in.bytes) : novalue()", d: DialectCurrent, typ: pmapi.TypeU32, want: "-:3"},
		{expr: "!defined(a) || !defined(b) ? novalue() : a + b", d: DialectCurrent, typ: pmapi.Type32, want: ""},
		{expr: "rate(network.interface.in.bytes)", typ: pmapi.TypeDouble, want: "0:2.097152e+06 1:1.048576e+06 2:0"},
		{expr: `rescale(rate(network.interface.in.bytes), "Mbyte/sec")`, d: DialectCurrent, typ: pmapi.TypeDouble, want: "0:2 1:1 2:0"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			reg := NewRegistry(c.d)
			m, err := reg.Register("x", c.expr)
			if err != nil {
				t.Fatal(err)
			}
			dc := reg.NewContext(lookup)
			desc, err := dc.Desc(m.PMID)
			if err != nil {
				t.Fatalf("Desc: %v", err)
			}
			if desc.Type != c.typ {
				t.Errorf("type %v, want %v", desc.Type, c.typ)
			}
			ev := dc.NewEvaluator(EvalOptions{Names: InstNamerFunc(func(indom pmapi.InDom, inst int32, _ pmapi.Timestamp) (string, bool) {
				n, ok := names[indom][inst]
				return n, ok
			})})
			req := []pmapi.PMID{m.PMID}
			var got string
			for _, s := range []*pmapi.Result{s1, s2} {
				ev.Prefetch(req)
				out, err := ev.Postfetch(req, s)
				if err != nil {
					t.Fatal(err)
				}
				got = tShow(&out.VSets[0], desc.Type)
			}
			if strings.TrimSpace(got) != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

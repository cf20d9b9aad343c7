package pmcd

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// bigResult is a HIGHRES_RESULT of 100 metrics like a logger's: a third
// singular insitu values, a third singular U64 blocks, a third with four
// instances of DOUBLE blocks, plus strings and an error.
func bigResult() *pmapi.Result {
	r := &pmapi.Result{Timestamp: pmapi.Timestamp{Sec: 1795251884, Nsec: 910873169}}
	for i := 0; i < 100; i++ {
		vs := pmapi.ValueSet{PMID: pmapi.NewPMID(60, uint32(i/10), uint32(i))}
		switch {
		case i == 99:
			vs.NumVal = int32(pmapi.ErrNoAgent)
		case i%10 == 9:
			vs.NumVal, vs.ValFmt = 1, pmapi.ValFmtDptr
			vs.Values = []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeString, Block: []byte("6.18.44-fc-v657\x00")}}
		case i%3 == 0:
			vs.NumVal = 1
			vs.Values = []pmapi.Value{{Inst: -1, Insitu: int32(i)}}
		case i%3 == 1:
			vs.NumVal, vs.ValFmt = 1, pmapi.ValFmtDptr
			vs.Values = []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeU64, Block: binary.BigEndian.AppendUint64(nil, uint64(i)<<33)}}
		default:
			vs.NumVal, vs.ValFmt = 4, pmapi.ValFmtDptr
			for k := 0; k < 4; k++ {
				vs.Values = append(vs.Values, pmapi.Value{Inst: int32(k), BlockType: pmapi.TypeDouble, Block: binary.BigEndian.AppendUint64(nil, uint64(k))})
			}
		}
		r.VSets = append(r.VSets, vs)
	}
	return r
}

// BenchmarkDecodeHighresResult decodes a 100-metric HIGHRES_RESULT into
// the reused Result (allocation-free after the first).
func BenchmarkDecodeHighresResult(b *testing.B) {
	pdu := encodeResult(bigResult(), true)
	var rb resultBuf
	if _, err := rb.decode(pdu, pduHighresResult); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pdu)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rb.decode(pdu, pduHighresResult); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDecodeNoAllocs(t *testing.T) {
	pdu := encodeResult(bigResult(), true)
	var rb resultBuf
	rb.decode(pdu, pduHighresResult)
	if n := testing.AllocsPerRun(100, func() { rb.decode(pdu, pduHighresResult) }); n != 0 {
		t.Errorf("%v allocations per decode after warm-up", n)
	}
	res, err := rb.decode(pdu, pduHighresResult)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, bigResult())
}

// BenchmarkFetchPipe is a whole Fetch (request written, reply read and
// decoded) against a canned pmcd over net.Pipe.
func BenchmarkFetchPipe(b *testing.B) {
	want := bigResult()
	reply := encodeResult(want, true)
	cli, srv := net.Pipe()
	defer cli.Close()
	go func() {
		defer srv.Close()
		srv.Write(greeting(0, fullFeatures))
		buf := make([]byte, 64<<10)
		h := make([]byte, hdrLen) // allocated once: the benchmark counts every goroutine's allocations
		for {
			if _, err := io.ReadFull(srv, h); err != nil {
				return
			}
			n := binary.BigEndian.Uint32(h)
			if _, err := io.ReadFull(srv, buf[:n-hdrLen]); err != nil {
				return
			}
			switch binary.BigEndian.Uint32(h[4:]) {
			case pduHighresFetch:
				srv.Write(reply)
			}
		}
	}()
	c, err := newClientOn(cli, WithTimeout(0))
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]pmapi.PMID, len(want.VSets))
	for i, vs := range want.VSets {
		ids[i] = vs.PMID
	}
	if _, _, err := c.Fetch(ids); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Fetch(ids); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetchLive fetches kernel.all.load, kernel.all.cpu.* and
// disk.dev.* from the real pmcd (skipped when none answers).
func BenchmarkFetchLive(b *testing.B) {
	c, err := Dial("local:", WithConnectTimeout(time.Second))
	if err != nil {
		b.Skipf("no pmcd: %v", err)
	}
	defer c.Close()
	var names []string
	for _, n := range []string{"kernel.all", "disk.dev", "mem.util"} {
		l, err := c.Traverse(n)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, l...)
	}
	ids, err := c.LookupNames(names)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := c.Fetch(ids); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Fetch(ids); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids)), "pmids")
}

package pmlogger

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/pmlogger/fakesource"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// pduFake serves the fake source's results as HIGHRES_RESULT (or
// RESULT) PDUs, laid out differently from fetch to fetch (value blocks in
// order or reversed, padding zero or not, spare bytes), with now and
// then a malformed one: the fast path sees shapes that change and that
// repeat.
type pduFake struct {
	*fakesource.Source
	n   int
	pdu []byte
}

func (f *pduFake) FetchPDU(pmids []pmapi.PMID) ([]byte, uint32, uint32, error) {
	res, changes, err := f.Source.Fetch(pmids)
	if err != nil {
		return nil, 0, changes, err
	}
	f.n++
	n := f.n
	highres := n%97 < 90
	reverse := n/50%4 == 1
	padByte := byte(0)
	if n/50%4 == 2 {
		padByte = 0xa5
	}
	b := f.pdu[:0]
	be := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	typ := uint32(0x7015)
	be(0)
	be(typ)
	be(0)
	if highres {
		be(uint32(len(res.VSets)))
		b = binary.BigEndian.AppendUint64(b, uint64(res.Timestamp.Sec))
		b = binary.BigEndian.AppendUint64(b, uint64(res.Timestamp.Nsec))
	} else {
		typ = 0x7001
		binary.BigEndian.PutUint32(b[4:], typ)
		be(uint32(res.Timestamp.Sec))
		be(uint32(res.Timestamp.Nsec / 1000))
		be(uint32(len(res.VSets)))
	}
	type ptr struct {
		at int
		v  *pmapi.Value
	}
	var ptrs []ptr
	for i := range res.VSets {
		vs := &res.VSets[i]
		be(uint32(vs.PMID))
		if vs.NumVal <= 0 {
			be(uint32(vs.NumVal))
			continue
		}
		be(uint32(len(vs.Values)))
		be(uint32(vs.ValFmt))
		for j := range vs.Values {
			v := &vs.Values[j]
			be(uint32(v.Inst))
			if vs.ValFmt == pmapi.ValFmtInsitu {
				be(uint32(v.Insitu))
			} else {
				ptrs = append(ptrs, ptr{len(b), v})
				be(0)
			}
		}
	}
	if n%13 == 0 {
		be(0xdeadbeef) // spare bytes between the sets and the blocks
	}
	for k := range ptrs {
		p := ptrs[k]
		if reverse {
			p = ptrs[len(ptrs)-1-k]
		}
		binary.BigEndian.PutUint32(b[p.at:], uint32(len(b)/4))
		be(uint32(p.v.BlockType)<<24 | uint32(len(p.v.Block)+4))
		b = append(b, p.v.Block...)
		for len(b)%4 != 0 {
			b = append(b, padByte)
		}
	}
	if n%211 == 0 && len(ptrs) > 0 {
		// A pointer outside the PDU: the decoder must refuse it.
		binary.BigEndian.PutUint32(b[ptrs[0].at:], 0x7fffffff)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	f.pdu = b
	return b, typ, changes, nil
}

func (f *pduFake) DecodeResult(pdu []byte, typ uint32) (*pmapi.Result, error) {
	return pmcd.DecodeResultPDU(pdu, typ)
}

// TestFastPathSameArchive records the same fetches of a pduFake with the
// fast path and without it: the archives and logs must be byte for byte
// the same, every fast record must be what the general path makes of
// its PDU, and the fast path must have taken most samples.
func TestFastPathSameArchive(t *testing.T) {
	const samples = 1500
	config := `log mandatory on 10 msec {
    fake.counter fake.instant fake.seq fake.cpu.user fake.disk.read fake.string fake.float fake.big
}
log mandatory on 30 msec { fake.disk.read [ "disk1" "disk3" ] fake.counter }
`
	for _, version := range []int{2, 3} {
		var bases [2]string
		var logs [2]bytes.Buffer
		var fast int
		dir := t.TempDir()
		for k, noFast := range []bool{false, true} {
			src := &pduFake{Source: newFake()}
			src.Changes = func(n int) uint32 {
				if n%333 == 0 {
					return 1 // PMCD_ADD_AGENT: a <mark>
				}
				return 0
			}
			// (The archive's name is logged: both runs record to the
			// same name, the first one's files are then moved.)
			base := filepath.Join(dir, "a")
			bases[k] = filepath.Join(dir, fmt.Sprint("run", k))
			l, err := New(Options{Archive: base, Source: src, Version: version, Log: &logs[k],
				Groups: groupsFor(t, src.Source, config, nil)})
			if err != nil {
				t.Fatal(err)
			}
			l.noFast = noFast
			nfast := checkFast(t, l, src)
			if err := l.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < samples; i++ {
				if err := l.Sample(0); err != nil {
					t.Fatal(err)
				}
				if i%3 == 0 {
					if err := l.Sample(1); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := l.Finish(); err != nil {
				t.Fatal(err)
			}
			fast += *nfast
			for _, ext := range []string{".0", ".meta", ".index"} {
				if err := os.Rename(base+ext, bases[k]+ext); err != nil {
					t.Fatal(err)
				}
			}
		}
		if fast < samples/4 {
			t.Errorf("v%d: %d fast records of %d samples", version, fast, samples)
		}
		sameFiles(t, fmt.Sprintf("v%d with the fast path and without", version), bases[0], bases[1], []string{".0", ".meta", ".index"})
		if a, b := logs[0].String(), logs[1].String(); a != b {
			t.Errorf("v%d: logs differ:\n%s\n---\n%s", version, a, b)
		}
		if !bytes.Contains(logs[0].Bytes(), []byte("Error")) && !bytes.Contains(logs[0].Bytes(), []byte("bad result")) {
			t.Errorf("v%d: no malformed PDU was reported:\n%s", version, logs[0].String())
		}
		t.Logf("v%d: %d of %d samples by the fast path", version, fast, samples)
	}
}

// TestInteropFastPath records 1000 fetches of the real pmcd (the
// benchmark's configuration, and one with instance lists) and checks
// every record the fast path writes against what the general path makes
// of the same PDU; most of the first group's must go the fast way.
func TestInteropFastPath(t *testing.T) {
	needPMCD(t)
	config := `log mandatory on 10 msec {
    kernel.all.load kernel.all.cpu kernel.percpu.cpu.user kernel.percpu.cpu.sys kernel.percpu.cpu.idle
    kernel.all.nprocs kernel.all.pswitch kernel.all.intr mem.util mem.physmem swap
    disk.dev.read disk.dev.write disk.dev.read_bytes disk.dev.write_bytes disk.all
    network.interface.in.bytes network.interface.out.bytes network.interface.in.packets network.interface.out.packets
    filesys.capacity filesys.used filesys.free hinv.ncpu hinv.ndisk pmcd.pdu_in.total pmcd.pdu_out.total
    pmcd.hostname pmcd.pmlogger
}
log mandatory on 20 msec { network.interface.in.bytes [ "lo" ] kernel.all.load [ "1 minute" "15 minute" ] no.such.metric }
`
	for _, version := range []int{2, 3} {
		c, err := pmcd.Dial("local:")
		if err != nil {
			t.Fatal(err)
		}
		groups, _, err := ParseGroups([]byte(config), "test.config", c, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		l, err := New(Options{Archive: filepath.Join(t.TempDir(), "a"), Source: c, Version: version, Groups: groups})
		if err != nil {
			t.Fatal(err)
		}
		nfast := checkFast(t, l, c)
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		const samples = 1000
		for i := 0; i < samples; i++ {
			if err := l.Sample(i % 2); err != nil {
				t.Fatal(err)
			}
		}
		st, err := l.Finish()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		// (The second group's instance lists keep it on the general
		// path: its records are not copies of the PDUs' value sets.)
		fast := *nfast
		if fast < samples/2*9/10 {
			t.Errorf("v%d: %d of %d samples by the fast path", version, fast, samples)
		}
		t.Logf("v%d: %d of %d samples by the fast path, %d records", version, fast, samples, st.Records)
	}
}

// checkFast makes l check each record its fast path writes against what
// the general path makes of the same PDU (a test failure at the first
// that differs); the count of fast records is in *n.
func checkFast(t *testing.T, l *Logger, ps pduSource) (n *int) {
	n = new(int)
	l.verifyFast = func(fg *fetchGroup, pdu []byte, typ uint32, rec []byte) {
		*n++
		want, err := l.generalRecord(fg, ps, pdu, typ)
		if err != nil {
			t.Fatalf("fast record %d: the general path fails: %v", *n, err)
		}
		if !bytes.Equal(rec, want) {
			t.Fatalf("fast record %d differs from the general path's:\n%x\n%x", *n, rec, want)
		}
	}
	return n
}

// sameFiles reports each file (base+ext) of two archives that is not
// byte for byte the same, and where the first difference is.
func sameFiles(t *testing.T, what, base0, base1 string, exts []string) {
	t.Helper()
	for _, ext := range exts {
		a, err := os.ReadFile(base0 + ext)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(base1 + ext)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Errorf("%s: %s differs (%d and %d bytes) from byte %d: %x / %x", what, ext, len(a), len(b), i, a[i:min(i+16, len(a))], b[i:min(i+16, len(b))])
		}
	}
}

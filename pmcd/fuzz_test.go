package pmcd

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Seeds: PDU bodies (without the header) as the real pmcd sent them, from
// docs/pmcd-protocol.md, and from the builders.
func seedBodies() [][]byte {
	body := func(pdu []byte) []byte { return pdu[hdrLen:] }
	json := `{"agent":"linux"}`
	return [][]byte{
		body(encodeResult(sampleResult(), true)),
		body(encodeResult(sampleResult(), false)),
		body(namesPDU([]string{"load", "intr", "cpu"}, []int32{0, 0, 1})),
		body(namesPDU([]string{"kernel.all.load"}, nil)),
		words(2, 3, 0x0f000800, 0xffffffff, 0x0f000020),
		words(0x0f000800, 4, 0x0f000002, 3, 0),
		words(2, 0x0f000800, 4, 0x0f000002, 3, 0, 0xffffffff, 0, 0, 0, 0),
		append(words(0x0f000002, 2, 1, 8), "1 minute\x00\x00\x00\x05\x00\x00\x00\x085 minute"...),
		append(words(0x0008000f, 31), "1, 5 and 15 minute load average~"...),
		append(words(60, 2, 0, 1, 0xffffffff, 1, 52, uint32(len(json)), 0x00020502, 0x00090007), json...),
		words(uint32(0xffffcfa3)),
		{},
		{0xff, 0xff, 0xff, 0xff},
	}
}

// FuzzDecode feeds arbitrary PDU bodies to every decoder: none may panic,
// and what they accept must be self-consistent.
func FuzzDecode(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b)
	}
	var rb resultBuf
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, typ := range []uint32{pduResult, pduHighresResult} {
			pdu := buildPDU(typ, b)
			res, err := rb.decode(pdu, typ)
			if err != nil {
				if _, ok := err.(*DecodeError); !ok {
					t.Fatalf("decode error of type %T: %v", err, err)
				}
				continue
			}
			checkDecoded(t, pdu, res, typ == pduHighresResult)
		}
		decodeError(buildPDU(pduError, b))
		decodeIDs(buildPDU(pduPMNSIDs, b))
		if names, status, err := decodeNames(buildPDU(pduPMNSNames, b)); err == nil && status != nil && len(status) != len(names) {
			t.Fatalf("%d names, %d status", len(names), len(status))
		}
		decodeDesc(buildPDU(pduDesc, b))
		decodeDescs(buildPDU(pduDescs, b))
		if _, insts, names, err := decodeInstance(buildPDU(pduInstance, b)); err == nil && len(insts) != len(names) {
			t.Fatalf("%d instances, %d names", len(insts), len(names))
		}
		decodeText(buildPDU(pduText, b))
		if _, _, sets, err := decodeLabels(buildPDU(pduLabel, b)); err == nil {
			for _, s := range sets {
				for _, l := range s.Labels {
					_ = s.JSON[l.NameOff : l.NameOff+l.NameLen]
					_ = s.JSON[l.ValueOff : l.ValueOff+l.ValueLen]
				}
			}
		}
	})
}

// checkDecoded checks a decoded result: blocks lie inside the PDU, the
// archive encoder accepts it, and encoding it again as pmcd would and
// decoding that gives the same record.
func checkDecoded(t *testing.T, pdu []byte, res *pmapi.Result, highres bool) {
	t.Helper()
	for _, vs := range res.VSets {
		if vs.NumVal > 0 && int(vs.NumVal) != len(vs.Values) {
			t.Fatalf("NumVal %d with %d values", vs.NumVal, len(vs.Values))
		}
	}
	rec, err := archive.AppendResultRecord(nil, 3, res)
	if err != nil {
		t.Fatalf("AppendResultRecord: %v", err)
	}
	again := encodeResult(res, highres)
	var rb2 resultBuf
	res2, err := rb2.decode(again, binary.BigEndian.Uint32(again[4:]))
	if err != nil {
		t.Fatalf("re-encoded result does not decode: %v", err)
	}
	rec2, _ := archive.AppendResultRecord(nil, 3, res2)
	if !bytes.Equal(rec, rec2) {
		t.Fatalf("re-encoded result differs")
	}
}

// FuzzClient plays an arbitrary byte stream as pmcd's side of a
// connection (after a valid greeting) while the client makes every kind
// of request: each call returns, with a result or an error, and nothing
// panics or hangs.
func FuzzClient(f *testing.F) {
	good := encodeResult(sampleResult(), true)
	f.Add(append(errorPDU(1), good...), uint16(fullFeatures))
	f.Add(good, uint16(0))
	f.Add(namesPDU([]string{"a"}, nil), uint16(fullFeatures))
	f.Add(append(buildPDU(pduPMNSIDs, words(1, 1, 5)), good...), uint16(fullFeatures))
	for _, b := range seedBodies() {
		f.Add(buildPDU(pduLabel, b), uint16(fullFeatures))
	}
	f.Fuzz(func(t *testing.T, stream []byte, features uint16) {
		cli, srv := net.Pipe()
		defer cli.Close()
		go func() {
			go io.Copy(io.Discard, srv)
			srv.Write(greeting(0, Features(features)&^FeatureCertReqd))
			srv.Write(stream)
			srv.Close()
		}()
		c, err := newClientOn(cli, WithTimeout(time.Second), WithMaxPDU(1<<20))
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		ids := []pmapi.PMID{1, 2, 3}
		for i := 0; i < 3 && c.conn != nil; i++ {
			if res, _, err := c.Fetch(ids); err == nil {
				if _, err := archive.AppendResultRecord(nil, 2, res); err != nil {
					t.Fatalf("fetched result: %v", err)
				}
			}
			c.LookupNames([]string{"a", "b.c"})
			c.Desc(1)
			c.Descs(ids)
			c.InDom(1)
			c.Labels(archive.LabelInstances, 1)
			c.Text(1|4, 1)
			c.Traverse("a")
			c.Children("")
			c.NamesOf(1)
		}
	})
}

// FuzzReadPDU: framing of arbitrary input.
func FuzzReadPDU(f *testing.F) {
	f.Add(encodeResult(sampleResult(), true))
	f.Add(words(8, pduError, 0))
	f.Add(words(0xffffffff, pduError, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf, pend []byte
		r := bytes.NewReader(b)
		off := 0
		for {
			_, pdu, err := readPDU(r, &pend, &buf, 4096)
			if err != nil {
				return
			}
			if len(pdu) < hdrLen || len(pdu) > 4096 || int(binary.BigEndian.Uint32(pdu)) != len(pdu) {
				t.Fatalf("PDU of %d bytes", len(pdu))
			}
			// The PDUs are the input's, in order, whatever was read
			// ahead.
			if !bytes.Equal(pdu, b[off:off+len(pdu)]) {
				t.Fatalf("PDU at offset %d differs from the input", off)
			}
			off += len(pdu)
		}
	})
}

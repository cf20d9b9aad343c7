package pmcd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// ---------------------------------------------------------------------------
// PDU builders shared by the fake pmcd, the fuzz seeds and the benchmark.

func buildPDU(typ uint32, body []byte) []byte {
	b := make([]byte, hdrLen, hdrLen+len(body))
	binary.BigEndian.PutUint32(b, uint32(hdrLen+len(body)))
	binary.BigEndian.PutUint32(b[4:], typ)
	return append(b, body...)
}

func words(ws ...uint32) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.BigEndian.AppendUint32(b, w)
	}
	return b
}

func errorPDU(code int32) []byte { return buildPDU(pduError, words(uint32(code))) }

// greeting is pmcd's opening ERROR PDU: code (PCP 1.x form) and the
// __pmPDUInfo datum.
func greeting(code int32, features Features) []byte {
	return buildPDU(pduError, words(uint32(code), 2<<24|1<<16|uint32(features)))
}

// encodeResult builds a RESULT or HIGHRES_RESULT PDU the way pmcd does:
// value sets first, then the value blocks, pointed at by word offsets
// from the start of the PDU.
func encodeResult(r *pmapi.Result, highres bool) []byte {
	var head []byte
	if highres {
		head = words(uint32(len(r.VSets)), uint32(uint64(r.Timestamp.Sec)>>32), uint32(r.Timestamp.Sec), 0, uint32(r.Timestamp.Nsec))
	} else {
		head = words(uint32(r.Timestamp.Sec), uint32(r.Timestamp.Nsec/1000), uint32(len(r.VSets)))
	}
	size := hdrLen + len(head)
	for _, vs := range r.VSets {
		size += 8
		if vs.NumVal > 0 {
			size += 4 + 8*len(vs.Values)
		}
	}
	var sets, blocks []byte
	for _, vs := range r.VSets {
		if vs.NumVal <= 0 {
			sets = append(sets, words(uint32(vs.PMID), uint32(vs.NumVal))...)
			continue
		}
		sets = append(sets, words(uint32(vs.PMID), uint32(len(vs.Values)), uint32(vs.ValFmt))...)
		for _, v := range vs.Values {
			if vs.ValFmt == pmapi.ValFmtInsitu {
				sets = append(sets, words(uint32(v.Inst), uint32(v.Insitu))...)
				continue
			}
			off := size + len(blocks)
			sets = append(sets, words(uint32(v.Inst), uint32(off/4))...)
			blocks = append(blocks, words(uint32(v.BlockType)<<24|uint32(len(v.Block)+4))...)
			blocks = append(blocks, v.Block...)
			for len(blocks)%4 != 0 {
				blocks = append(blocks, '~')
			}
		}
	}
	typ := uint32(pduResult)
	if highres {
		typ = pduHighresResult
	}
	return buildPDU(typ, append(append(head, sets...), blocks...))
}

func namesPDU(names []string, status []int32) []byte {
	n := 0
	for _, s := range names {
		n += len(s) + 1
	}
	b := words(uint32(n), uint32(len(status)), uint32(len(names)))
	for i, s := range names {
		if status != nil {
			b = append(b, words(uint32(status[i]))...)
		}
		b = append(b, words(uint32(len(s)))...)
		b = appendStr(b, s)
	}
	return buildPDU(pduPMNSNames, b)
}

// sampleResult is a Result with insitu, 64-bit, float, string and error
// value sets, like a real fetch.
func sampleResult() *pmapi.Result {
	u64 := []byte{0, 0, 0, 0, 0, 0x8e, 0x78, 0x08}
	return &pmapi.Result{
		Timestamp: pmapi.Timestamp{Sec: 1795251884, Nsec: 910873169},
		VSets: []pmapi.ValueSet{
			{PMID: 0x0f000800, NumVal: 3, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{
				{Inst: 1, BlockType: pmapi.TypeFloat, Block: []byte{0x3f, 0x47, 0xae, 0x14}},
				{Inst: 5, BlockType: pmapi.TypeFloat, Block: []byte{0x3f, 0xd5, 0xc2, 0x8f}},
				{Inst: 15, BlockType: pmapi.TypeFloat, Block: []byte{0x40, 0x2e, 0xb8, 0x52}},
			}},
			{PMID: 0x0f000020, NumVal: 1, Values: []pmapi.Value{{Inst: -1, Insitu: 2}}},
			{PMID: 0x0f003000, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeString, Block: []byte("6.18.44-fc-v657\x00")}}},
			{PMID: 0x0f000014, NumVal: 1, ValFmt: pmapi.ValFmtDptr, Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeU64, Block: u64}}},
			{PMID: 0x3c000000, NumVal: int32(pmapi.ErrNoAgent)},
			{PMID: 0x0f000021, NumVal: 0},
		},
	}
}

// ---------------------------------------------------------------------------
// The fake pmcd.

// fakeConn is one accepted connection, seen from the fake pmcd.
type fakeConn struct {
	t    *testing.T
	c    net.Conn
	n    int // connection number, from 0
	seen []uint32
}

// read reads one request PDU; ok is false at EOF.
func (f *fakeConn) read() (typ uint32, body []byte, ok bool) {
	var h [hdrLen]byte
	f.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(f.c, h[:]); err != nil {
		return 0, nil, false
	}
	n := binary.BigEndian.Uint32(h[:])
	typ = binary.BigEndian.Uint32(h[4:])
	if n < hdrLen || n > maxRequest {
		f.t.Errorf("fake pmcd: request %s of length %d", pduName(typ), n)
		return 0, nil, false
	}
	body = make([]byte, n-hdrLen)
	if _, err := io.ReadFull(f.c, body); err != nil {
		return 0, nil, false
	}
	f.seen = append(f.seen, typ)
	return typ, body, true
}

// expect reads a request and checks its type.
func (f *fakeConn) expect(want uint32) []byte {
	typ, body, ok := f.read()
	if !ok {
		f.t.Errorf("fake pmcd: connection closed, expected %s", pduName(want))
		return nil
	}
	if typ != want {
		f.t.Errorf("fake pmcd: got %s, expected %s", pduName(typ), pduName(want))
	}
	return body
}

func (f *fakeConn) write(b ...[]byte) {
	for _, p := range b {
		if _, err := f.c.Write(p); err != nil {
			return
		}
	}
}

// handshake greets with features and reads CREDS.
func (f *fakeConn) handshake(features Features) {
	f.write(greeting(0, features))
	body := f.expect(pduCreds)
	if len(body) != 8 || binary.BigEndian.Uint32(body) != 1 || binary.BigEndian.Uint32(body[4:])>>16 != 0x0102 {
		f.t.Errorf("fake pmcd: CREDS body % x", body)
	}
}

const fullFeatures = FeatureAuth | FeatureContainer | FeatureLabels | FeatureHighres | FeatureDescs

// fakePMCD serves each connection with serve; it returns the spec to dial.
func fakePMCD(t *testing.T, serve func(f *fakeConn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func(n int) {
				defer wg.Done()
				defer c.Close()
				serve(&fakeConn{t: t, c: c, n: n})
				// Keep the connection open until the test ends or the
				// client closes it (so that "no reply" means a hang).
				c.SetDeadline(time.Time{})
				go func() { <-done; c.Close() }()
				io.Copy(io.Discard, c)
			}(n)
		}
	}()
	return ln.Addr().String()
}

// dialFake dials spec with short timeouts.
func dialFake(t *testing.T, spec string) *Client {
	t.Helper()
	c, err := Dial(spec, WithConnectTimeout(2*time.Second), WithTimeout(2*time.Second))
	if err != nil {
		t.Fatalf("Dial(%s): %v", spec, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ---------------------------------------------------------------------------
// Tests.

func TestFakeHandshakeRefused(t *testing.T) {
	// pmcd sends its refusal as a PCP 1.x code: PM_ERR_PERMISSION
	// (-12387) is -1042 there.
	spec := fakePMCD(t, func(f *fakeConn) { f.write(greeting(-1042, fullFeatures)) })
	_, err := Dial(spec, WithConnectTimeout(2*time.Second))
	var he *HandshakeError
	if !errors.As(err, &he) || !errors.Is(err, pmapi.ErrPermission) {
		t.Fatalf("Dial: %v, want a HandshakeError with PM_ERR_PERMISSION", err)
	}
	if Code(err) != pmapi.ErrPermission {
		t.Errorf("Code = %d", Code(err))
	}
	t.Log(err)
}

func TestFakeHandshakeBad(t *testing.T) {
	cases := []struct {
		name  string
		greet []byte
		want  string
	}{
		{"short ERROR", errorPDU(0), "16-byte greeting"},
		{"not ERROR", buildPDU(pduResult, words(0, 0, 0)), "RESULT PDU"},
		{"version 1", buildPDU(pduError, words(0, 1<<24)), "PDU version 1"},
		{"closed", nil, "connection closed"},
		{"truncated", greeting(0, 0)[:15], "unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := fakePMCD(t, func(f *fakeConn) {
				f.write(tc.greet)
				if len(tc.greet) < 16 {
					f.c.Close()
				}
			})
			_, err := Dial(spec, WithConnectTimeout(2*time.Second))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Dial: %v, want an error containing %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

func TestFakeHandshakeTimeout(t *testing.T) {
	spec := fakePMCD(t, func(f *fakeConn) {}) // says nothing
	start := time.Now()
	_, err := Dial(spec, WithConnectTimeout(300*time.Millisecond))
	if err == nil || Code(err) != pmapi.ErrTimeout {
		t.Fatalf("Dial: %v, want a timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Dial took %v", d)
	}
}

func TestFakeErrorReplies(t *testing.T) {
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduPMNSNames)
		f.write(errorPDU(int32(pmapi.ErrName)))
		f.expect(pduDescReq)
		f.write(errorPDU(int32(pmapi.ErrPMID)))
		f.expect(pduTextReq)
		f.write(errorPDU(int32(pmapi.ErrText)))
		f.expect(pduPMNSTraverse)
		f.write(errorPDU(int32(pmapi.ErrName)))
		f.expect(pduLabelReq)
		f.write(errorPDU(int32(pmapi.ErrNoLabels)))
		f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(errorPDU(int32(pmapi.ErrNoProfile)))
		// Still usable after all that.
		f.expect(pduDescReq)
		f.write(buildPDU(pduDesc, words(0x0f000020, 1, 0xffffffff, 4, 0)))
	})
	c := dialFake(t, spec)
	ids, err := c.LookupNames([]string{"a.b", "c"})
	if err != nil || len(ids) != 2 || ids[0] != pmapi.PMIDNull || ids[1] != pmapi.PMIDNull {
		t.Errorf("LookupNames = %v, %v", ids, err)
	}
	if _, err := c.Desc(1); err != pmapi.ErrPMID {
		t.Errorf("Desc: %v", err)
	}
	if _, err := c.Text(archive.TextOneLine|archive.TextPMID, 1); err != pmapi.ErrText {
		t.Errorf("Text: %v", err)
	}
	if _, err := c.Traverse("x"); err != pmapi.ErrName {
		t.Errorf("Traverse: %v", err)
	}
	if sets, err := c.Labels(archive.LabelContext, 0xffffffff); err != nil || sets == nil || len(sets) != 0 {
		t.Errorf("Labels: %v, %v", sets, err)
	}
	if _, _, err := c.Fetch([]pmapi.PMID{1}); err != pmapi.ErrNoProfile || c.Lost(err) {
		t.Errorf("Fetch: %v (lost %v)", err, c.Lost(err))
	}
	d, err := c.Desc(0x0f000020)
	if err != nil || d.Type != pmapi.TypeU32 || d.InDom != pmapi.InDomNull || d.Sem != pmapi.SemDiscrete {
		t.Errorf("Desc = %+v, %v", d, err)
	}
}

func TestFakeStateChanges(t *testing.T) {
	want := sampleResult()
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduProfile)
		body := f.expect(pduHighresFetch)
		if len(body) != 16+4*len(want.VSets) {
			t.Errorf("HIGHRES_FETCH body of %d bytes", len(body))
		}
		f.write(errorPDU(1), errorPDU(8), encodeResult(want, true))
		f.expect(pduHighresFetch) // no second PROFILE
		f.write(encodeResult(want, true))
	})
	c := dialFake(t, spec)
	ids := make([]pmapi.PMID, len(want.VSets))
	for i, vs := range want.VSets {
		ids[i] = vs.PMID
	}
	res, changes, err := c.Fetch(ids)
	if err != nil || changes != 9 {
		t.Fatalf("Fetch: changes %d, %v", changes, err)
	}
	checkResult(t, res, want)
	if _, changes, err = c.Fetch(ids); err != nil || changes != 0 {
		t.Fatalf("second Fetch: changes %d, %v", changes, err)
	}
}

// checkResult compares a decoded result with the one encoded, and checks
// that the archive encoder accepts it.
func checkResult(t *testing.T, got, want *pmapi.Result) {
	t.Helper()
	a, err := archive.AppendResultRecord(nil, 3, got)
	if err != nil {
		t.Fatalf("AppendResultRecord(got): %v", err)
	}
	b, _ := archive.AppendResultRecord(nil, 3, want)
	if string(a) != string(b) {
		t.Errorf("result differs:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestFakeFetchFallback(t *testing.T) {
	want := sampleResult()
	want.Timestamp.Nsec = 910873000 // RESULT has microseconds
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(FeatureAuth) // no HIGHRES, no DESCS, no LABELS
		f.expect(pduProfile)
		f.expect(pduFetch)
		f.write(errorPDU(2), encodeResult(want, false))
		for i := 0; i < 2; i++ {
			body := f.expect(pduDescReq)
			if len(body) == 4 && binary.BigEndian.Uint32(body) == 2 {
				f.write(errorPDU(int32(pmapi.ErrPMID)))
			} else {
				f.write(buildPDU(pduDesc, words(binary.BigEndian.Uint32(body), 3, 0xffffffff, 1, 0x10010000)))
			}
		}
	})
	c := dialFake(t, spec)
	if c.Features()&FeatureHighres != 0 {
		t.Fatal("features")
	}
	res, changes, err := c.Fetch([]pmapi.PMID{1, 2, 3, 4, 5, 6})
	if err != nil || changes != 2 {
		t.Fatalf("Fetch: %d, %v", changes, err)
	}
	checkResult(t, res, want)
	ds, err := c.Descs([]pmapi.PMID{1, 2})
	if err != nil || len(ds) != 2 || ds[0].PMID != 1 || ds[0].Units.Uint32() != 0x10010000 || ds[1].PMID != pmapi.PMIDNull {
		t.Errorf("Descs = %+v, %v", ds, err)
	}
	if sets, err := c.Labels(archive.LabelContext, 0xffffffff); err != nil || len(sets) != 0 {
		t.Errorf("Labels without the feature: %v, %v", sets, err)
	}
}

// TestFakeBadPDUs: each malformed reply is an error, the connection is
// dropped and Lost says so; nothing panics or hangs.
func TestFakeBadPDUs(t *testing.T) {
	hdr := func(n, typ uint32) []byte { return words(n, typ, 0) }
	good := encodeResult(sampleResult(), true)
	badOff := append([]byte(nil), good...)
	binary.BigEndian.PutUint32(badOff[hdrLen+20+8+4+4:], 0xfffffff0) // first DPTR value
	cases := []struct {
		name  string
		reply [][]byte
		close bool
		want  string
	}{
		{"closed mid-PDU", [][]byte{good[:40]}, true, "unexpected EOF"},
		{"closed mid-header", [][]byte{good[:5]}, true, "unexpected EOF"},
		{"closed before reply", nil, true, "connection closed"},
		{"garbage", [][]byte{[]byte("GET / HTTP/1.0\r\n\r\nhello, world, this is not a PDU")}, false, "over the"},
		{"oversized header", [][]byte{hdr(0x7fffffff, pduHighresResult)}, false, "over the 67108864-byte limit"},
		{"negative length", [][]byte{hdr(0xfffffff0, pduHighresResult)}, false, "over the"},
		{"shorter than header", [][]byte{hdr(8, pduHighresResult)}, false, "shorter than the 12-byte header"},
		{"bad DPTR", [][]byte{badOff}, false, "value block offset"},
		{"truncated result", [][]byte{buildPDU(pduHighresResult, words(1, 0, 0, 0, 0, 1))}, false, "truncated at numval"},
		{"huge numpmid", [][]byte{buildPDU(pduHighresResult, words(0x7fffffff, 0, 0, 0, 0))}, false, "numpmid"},
		{"wrong type", [][]byte{buildPDU(pduDesc, words(1, 2, 3, 4, 5))}, false, "DESC PDU: received in reply to HIGHRES_FETCH"},
		{"ERROR 0", [][]byte{errorPDU(0)}, false, "code 0"},
		{"short ERROR", [][]byte{buildPDU(pduError, nil)}, false, "truncated at code"},
		{"silence", nil, false, "timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := fakePMCD(t, func(f *fakeConn) {
				f.handshake(fullFeatures)
				f.expect(pduProfile)
				f.expect(pduHighresFetch)
				f.write(tc.reply...)
				if tc.close {
					f.c.Close()
				}
			})
			// 2 s: long enough for the fake server's goroutine to answer
			// on a loaded machine (300 ms timed out under perf in CI-like
			// load), short enough for the "silence" case.
			c, err := Dial(spec, WithTimeout(2*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			_, _, err = c.Fetch([]pmapi.PMID{1, 2, 3})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch: %v, want an error containing %q", err, tc.want)
			}
			if !c.Lost(err) {
				t.Errorf("Lost(%v) = false", err)
			}
			if d := time.Since(start); d > 6*time.Second {
				t.Errorf("took %v", d)
			}
			// Later requests fail at once as lost.
			if _, err := c.Desc(1); !c.Lost(err) || !errors.Is(err, ErrNotConnected) {
				t.Errorf("Desc after loss: %v", err)
			}
			t.Log(err)
		})
	}
}

func TestFakeReconnect(t *testing.T) {
	want := sampleResult()
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		switch f.n {
		case 0:
			f.expect(pduProfile)
			f.expect(pduHighresFetch)
			f.write(encodeResult(want, true))
			f.expect(pduHighresFetch)
			f.c.Close() // pmcd goes away
		case 1:
			f.expect(pduProfile)
			f.expect(pduHighresFetch)
			f.write(errorPDU(1), encodeResult(want, true))
		}
	})
	c := dialFake(t, spec)
	ids := []pmapi.PMID{1, 2, 3, 4, 5, 6}
	if _, _, err := c.Fetch(ids); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.Fetch(ids)
	if err == nil || !c.Lost(err) {
		t.Fatalf("Fetch after pmcd closed: %v, lost %v", err, c.Lost(err))
	}
	if err := c.Reconnect(); err != nil {
		t.Fatalf("Reconnect: %v", err)
	}
	res, changes, err := c.Fetch(ids)
	if err != nil || changes != 1 {
		t.Fatalf("Fetch after Reconnect: %d, %v", changes, err)
	}
	checkResult(t, res, want)
}

func TestFakeLookups(t *testing.T) {
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		body := f.expect(pduPMNSNames)
		// nstrbytes, numstatus, numnames, {len, name}.
		if want := words(4+2, 0, 2, 3); string(body[:16]) != string(want) || string(body[16:20]) != "a.b~" {
			t.Errorf("PMNS_NAMES body % x", body)
		}
		f.write(buildPDU(pduPMNSIDs, words(1, 2, 0x0f000800, 0xffffffff)))
		body = f.expect(pduPMNSChild)
		if string(body) != string(append(words(1, 6), "kernel~~"...)) {
			t.Errorf("PMNS_CHILD body % x", body)
		}
		f.write(namesPDU([]string{"all", "uname"}, []int32{1, 0}))
		f.expect(pduPMNSIDs)
		f.write(namesPDU([]string{"x.y", "x.z"}, nil))
		body = f.expect(pduDescIDs)
		if string(body) != string(words(0xffffffff, 2, 1, 2)) {
			t.Errorf("DESC_IDS body % x", body)
		}
		f.write(buildPDU(pduDescs, words(2, 1, 1, 0xffffffff, 3, 0, 0xffffffff, 0, 0, 0, 0)))
		body = f.expect(pduInstanceReq)
		if string(body) != string(words(0x0f000002, 0, 0, 0xffffffff, 0)) {
			t.Errorf("INSTANCE_REQ body % x", body)
		}
		f.write(buildPDU(pduInstance, append(append(words(0x0f000002, 2, 1, 8), "1 minute"...), append(words(5, 5), "5 min~~~"...)...)))
		body = f.expect(pduTextReq)
		if string(body) != string(words(0x0f000800, 1|4)) {
			t.Errorf("TEXT_REQ body % x", body)
		}
		f.write(buildPDU(pduText, append(words(0x0008000f, 4), "load"...)))
		f.expect(pduLabelReq)
		json := `{"agent":"linux"}`
		lab := append(words(60, 2, 0, 1, 0xffffffff, 1, 52, uint32(len(json)), 0x00020502, 0x00090007), json...)
		f.write(buildPDU(pduLabel, lab))
	})
	c := dialFake(t, spec)
	ids, err := c.LookupNames([]string{"a.b", "c"})
	if err != nil || len(ids) != 2 || ids[0] != 0x0f000800 || ids[1] != pmapi.PMIDNull {
		t.Errorf("LookupNames = %v, %v", ids, err)
	}
	names, leaf, err := c.Children("kernel")
	if err != nil || len(names) != 2 || names[1] != "uname" || leaf[0] || !leaf[1] {
		t.Errorf("Children = %v %v %v", names, leaf, err)
	}
	names, err = c.NamesOf(1)
	if err != nil || strings.Join(names, ",") != "x.y,x.z" {
		t.Errorf("NamesOf = %v %v", names, err)
	}
	ds, err := c.Descs([]pmapi.PMID{1, 2})
	if err != nil || len(ds) != 2 || ds[0].Sem != pmapi.SemInstant || ds[1].PMID != pmapi.PMIDNull {
		t.Errorf("Descs = %+v %v", ds, err)
	}
	insts, inames, err := c.InDom(0x0f000002)
	if err != nil || len(insts) != 2 || insts[1] != 5 || inames[0] != "1 minute" || inames[1] != "5 min" {
		t.Errorf("InDom = %v %q %v", insts, inames, err)
	}
	text, err := c.Text(1|4, 0x0f000800)
	if err != nil || text != "load" {
		t.Errorf("Text = %q %v", text, err)
	}
	sets, err := c.Labels(archive.LabelDomain, 60)
	if err != nil || len(sets) != 1 || sets[0].JSON != `{"agent":"linux"}` || len(sets[0].Labels) != 1 ||
		sets[0].Labels[0] != (archive.LabelEntry{NameOff: 2, NameLen: 5, Flags: 2, ValueOff: 9, ValueLen: 7}) {
		t.Errorf("Labels = %+v %v", sets, err)
	}
	// Every PDU counted by type, the greeting too; DESCS (0x7017) is
	// past libpcp's PDU_MAX and not counted.
	var want PDUCounts
	for _, typ := range []uint32{pduCreds, pduPMNSNames, pduPMNSChild, pduPMNSIDs, pduDescIDs, pduInstanceReq, pduTextReq, pduLabelReq} {
		want.Sent[typ-pduError]++
	}
	for _, typ := range []uint32{pduError, pduPMNSIDs, pduPMNSNames, pduPMNSNames, pduInstance, pduText, pduLabel} {
		want.Received[typ-pduError]++
	}
	if got := c.PDUCounts(); got != want {
		t.Errorf("PDUCounts:\n got %v\nwant %v", got, want)
	}
}

func TestParseSpec(t *testing.T) {
	t.Setenv("PMCD_PORT", "")
	t.Setenv("PMCD_SOCKET", "/x/pmcd.socket")
	cases := []struct{ spec, want, host string }{
		{"", "unix:/x/pmcd.socket localhost:44321", ""},
		{"local:", "unix:/x/pmcd.socket localhost:44321", ""},
		{"local:/s", "unix:/s localhost:44321", ""},
		{"unix:", "unix:/x/pmcd.socket", ""},
		{"unix:/tmp/p.sock", "unix:/tmp/p.sock", ""},
		{"vm", "vm:44321", "vm"},
		{"vm:4000", "vm:4000", "vm"},
		{"pcp://vm:4000", "vm:4000", "vm"},
		{"10.0.0.1:4000,4001", "10.0.0.1:4000", "10.0.0.1"},
		{"[::1]:4000", "[::1]:4000", "::1"},
		{"[::1]", "[::1]:44321", "::1"},
		{"::1", "[::1]:44321", "::1"},
	}
	for _, tc := range cases {
		ts, host, err := parseSpec(tc.spec)
		if err != nil {
			t.Errorf("parseSpec(%q): %v", tc.spec, err)
			continue
		}
		var s []string
		for _, x := range ts {
			s = append(s, x.String())
		}
		if got := strings.Join(s, " "); got != tc.want || tc.host != "" && host != tc.host {
			t.Errorf("parseSpec(%q) = %q, %q; want %q, %q", tc.spec, got, host, tc.want, tc.host)
		}
	}
	for _, bad := range []string{"a@b", "a:b", "a:0", "[::1", "[::1]x", ":44321", "h?x=1"} {
		if _, _, err := parseSpec(bad); err == nil {
			t.Errorf("parseSpec(%q): no error", bad)
		}
	}
	t.Setenv("PMCD_PORT", "5000,5001")
	if ts, _, _ := parseSpec("vm"); ts[0].addr != "vm:5000" {
		t.Errorf("PMCD_PORT: %v", ts)
	}
}

func TestLocalFallback(t *testing.T) {
	// local: with no socket falls back to TCP on localhost.
	spec := fakePMCD(t, func(f *fakeConn) { f.handshake(fullFeatures) })
	_, port, _ := net.SplitHostPort(spec)
	t.Setenv("PMCD_PORT", port)
	c, err := Dial("local:"+t.TempDir()+"/no.socket", WithConnectTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !strings.HasPrefix(c.Addr(), "localhost:") {
		t.Errorf("Addr = %s", c.Addr())
	}
	// unix: does not fall back.
	if _, err := Dial("unix:" + t.TempDir() + "/no.socket"); err == nil || !isLost(err) {
		t.Errorf("Dial(unix:): %v", err)
	}
}

// isLost is Client.Lost for errors without a client at hand.
func isLost(err error) bool { var c Client; return c.Lost(err) }

func TestAppendResultPDU(t *testing.T) {
	r := sampleResult()
	r.Timestamp.Nsec = 910873000
	got, err := AppendResultPDU(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := encodeResult(r, false); !bytes.Equal(got, want) {
		t.Errorf("AppendResultPDU:\n% x\nwant\n% x", got, want)
	}
	var rb resultBuf
	res, err := rb.decode(got, pduResult)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, r)
	bad := &pmapi.Result{VSets: []pmapi.ValueSet{{PMID: 1, NumVal: 2, Values: []pmapi.Value{{}}}}}
	if _, err := AppendResultPDU(nil, bad); err == nil {
		t.Error("NumVal 2 with 1 value: no error")
	}
}

func TestFakeStore(t *testing.T) {
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduResult)
		f.write(errorPDU(0))
		f.expect(pduResult)
		f.write(errorPDU(int32(pmapi.ErrPermission)))
		f.expect(pduResult)
		f.write(buildPDU(pduDesc, words(1, 2, 3, 4, 5)))
	})
	c := dialFake(t, spec)
	r := sampleResult()
	if err := c.Store(r); err != nil {
		t.Errorf("Store: %v", err)
	}
	if err := c.Store(r); err != pmapi.ErrPermission {
		t.Errorf("Store: %v, want PM_ERR_PERMISSION", err)
	}
	if err := c.Store(r); err == nil || !c.Lost(err) {
		t.Errorf("Store answered by DESC: %v", err)
	}
}

// A state change before a reply other than a fetch's is kept for the next
// Fetch rather than taken for a protocol error.
func TestFakeStateChangeBeforeDesc(t *testing.T) {
	want := sampleResult()
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduDescReq)
		f.write(errorPDU(16), buildPDU(pduDesc, words(1, 2, 3, 4, 5)))
		f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(errorPDU(4), encodeResult(want, true))
	})
	c := dialFake(t, spec)
	if d, err := c.Desc(1); err != nil || d.PMID != 1 {
		t.Fatalf("Desc = %+v, %v", d, err)
	}
	_, changes, err := c.Fetch([]pmapi.PMID{1})
	if err != nil || changes != 16|4 {
		t.Fatalf("Fetch: changes %d, %v", changes, err)
	}
}

func TestFakeEmptyRequests(t *testing.T) {
	spec := fakePMCD(t, func(f *fakeConn) { f.handshake(fullFeatures) })
	c := dialFake(t, spec)
	if _, _, err := c.Fetch(nil); err != pmapi.ErrTooSmall {
		t.Errorf("Fetch(nil): %v", err)
	}
	if ds, err := c.Descs(nil); err != nil || len(ds) != 0 {
		t.Errorf("Descs(nil): %v %v", ds, err)
	}
	if ids, err := c.LookupNames(nil); err != nil || len(ids) != 0 {
		t.Errorf("LookupNames(nil): %v %v", ids, err)
	}
	if _, _, err := c.Fetch(make([]pmapi.PMID, 20000)); err == nil || c.Lost(err) {
		t.Errorf("Fetch of 20000 PMIDs: %v", err)
	}
}

func TestReconnectFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		f := &fakeConn{t: t, c: c}
		f.handshake(fullFeatures)
		c.Close()
	}()
	c := dialFake(t, addr)
	ln.Close() // pmcd is gone for good
	_, _, err = c.Fetch([]pmapi.PMID{1})
	if !c.Lost(err) {
		t.Fatalf("Fetch: %v", err)
	}
	err = c.Reconnect()
	if err == nil || !c.Lost(err) || !strings.Contains(err.Error(), "connecting to "+addr) {
		t.Fatalf("Reconnect: %v", err)
	}
	if _, err := c.Desc(1); !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Desc after a failed Reconnect: %v", err)
	}
	// local: names both attempts when both fail.
	_, port, _ := net.SplitHostPort(addr)
	t.Setenv("PMCD_PORT", port)
	_, err = Dial("local:"+t.TempDir()+"/no.socket", WithConnectTimeout(time.Second))
	if err == nil || !strings.Contains(err.Error(), "no.socket") || !strings.Contains(err.Error(), "localhost:"+port) {
		t.Errorf("Dial(local:): %v", err)
	}
	if Code(err) != pmapi.Error(-int32(syscall.ECONNREFUSED)) {
		t.Errorf("Code(%v) = %d, want -ECONNREFUSED", err, Code(err))
	}
	t.Log(err)
}

// Host's own fetch of pmcd.hostname keeps state changes for Fetch and
// leaves the last Fetch's Result alone.
func TestFakeHost(t *testing.T) {
	want := sampleResult()
	host := &pmapi.Result{VSets: []pmapi.ValueSet{{PMID: 0x00805400, NumVal: 1, ValFmt: pmapi.ValFmtDptr,
		Values: []pmapi.Value{{Inst: -1, BlockType: pmapi.TypeString, Block: []byte("pmcdhost\x00")}}}}}
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(encodeResult(want, true))
		f.expect(pduPMNSNames)
		f.write(buildPDU(pduPMNSIDs, words(1, 1, 0x00805400)))
		f.expect(pduHighresFetch)
		f.write(errorPDU(8), encodeResult(host, true))
		f.expect(pduHighresFetch)
		f.write(encodeResult(want, true))
	})
	c := dialFake(t, spec)
	res, _, err := c.Fetch([]pmapi.PMID{1})
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Host(); h != "pmcdhost" {
		t.Errorf("Host() = %q", h)
	}
	if h := c.Host(); h != "pmcdhost" { // remembered: no second exchange
		t.Errorf("Host() = %q", h)
	}
	checkResult(t, res, want) // still intact
	if _, changes, err := c.Fetch([]pmapi.PMID{1}); err != nil || changes != 8 {
		t.Errorf("Fetch after Host: changes %d, %v", changes, err)
	}
}

// TestFakePrefetch: Prefetch pipelines the requests and keeps the
// replies in order, a state change among them is kept for the next
// Fetch, pmcd's errors come back from the calls, and a connection lost
// mid-batch keeps the replies read before it.
func TestFakePrefetch(t *testing.T) {
	text := func(s string) []byte { return buildPDU(pduText, append(words(1, uint32(len(s))), s...)) }
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		// The whole batch comes before any reply.
		var idents []uint32
		for i := 0; i < 4; i++ {
			body := f.expect(pduTextReq)
			if len(body) == 8 {
				idents = append(idents, binary.BigEndian.Uint32(body))
			}
		}
		for _, id := range idents {
			switch id {
			case 2:
				f.write(errorPDU(int32(pmapi.ErrText)))
			case 3:
				f.write(errorPDU(16), text("three")) // a state change first
			default:
				f.write(text(fmt.Sprint("text ", id)))
			}
		}
		// The second batch: one reply, then the connection is lost.
		f.expect(pduTextReq)
		f.expect(pduTextReq)
		f.write(text("five"))
		f.c.Close()
	})
	c := dialFake(t, spec)
	var reqs []MetaRequest
	for id := uint32(1); id <= 4; id++ {
		reqs = append(reqs, MetaRequest{Kind: MetaText, Type: 1, Ident: id})
	}
	if err := c.Prefetch(reqs); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[uint32]string{1: "text 1", 3: "three", 4: "text 4"} {
		if got, err := c.Text(1, id); got != want || err != nil {
			t.Errorf("Text(%d) = %q, %v; want %q", id, got, err, want)
		}
	}
	if _, err := c.Text(1, 2); err != pmapi.ErrText {
		t.Errorf("Text(2): %v, want %v", err, pmapi.ErrText)
	}
	if c.changes != 16 {
		t.Errorf("state changes %d, want 16", c.changes)
	}
	err := c.Prefetch([]MetaRequest{{Kind: MetaText, Type: 1, Ident: 5}, {Kind: MetaText, Type: 1, Ident: 6}})
	if err == nil || !c.Lost(err) {
		t.Fatalf("Prefetch over a lost connection: %v", err)
	}
	if got, err := c.Text(1, 5); got != "five" || err != nil {
		t.Errorf("Text(5) = %q, %v", got, err)
	}
	if _, err := c.Text(1, 6); !c.Lost(err) || !errors.Is(err, ErrNotConnected) {
		t.Errorf("Text(6) after the loss: %v", err)
	}
	// Batched requests are counted one by one, as are the state change
	// and the error reply (ERROR is type 0, with the greeting: 3).
	n := c.PDUCounts()
	if n.Sent[pduTextReq-pduError] != 6 || n.Received[pduText-pduError] != 4 || n.Received[0] != 3 {
		t.Errorf("PDUCounts: %v", n)
	}
}

// TestFakeStartFinishFetch: a fetch left in flight. Its reply (after
// state changes) is read by FinishFetchPDU whether it came long before
// or comes later; every other request in between fails with
// ErrFetchInFlight and leaves the connection as it was; a connection
// lost with a fetch in flight is a lost-connection error at
// FinishFetchPDU, and Reconnect clears the flight.
func TestFakeStartFinishFetch(t *testing.T) {
	want := sampleResult()
	ids := make([]pmapi.PMID, len(want.VSets))
	for i, vs := range want.VSets {
		ids[i] = vs.PMID
	}
	late := make(chan struct{})
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		if f.n == 1 {
			f.expect(pduProfile)
			f.expect(pduHighresFetch)
			f.c.Close() // the connection is lost with the fetch in flight
			return
		}
		f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(errorPDU(1), encodeResult(want, true)) // at once
		f.expect(pduHighresFetch)
		<-late
		f.write(encodeResult(want, true)) // after FinishFetchPDU began to wait
		body := f.expect(pduDescReq)      // a request after the flight
		f.write(buildPDU(pduDesc, words(binary.BigEndian.Uint32(body), 3, 0xffffffff, 1, 0)))
	})
	c := dialFake(t, spec)
	if _, _, _, err := c.FinishFetchPDU(); err == nil {
		t.Errorf("FinishFetchPDU without StartFetch: no error")
	}
	if err := c.StartFetch(ids); err != nil {
		t.Fatal(err)
	}
	if !c.InFlight() {
		t.Errorf("InFlight false after StartFetch")
	}
	time.Sleep(50 * time.Millisecond) // the reply is there
	for name, call := range map[string]func() error{
		"Fetch":       func() error { _, _, err := c.Fetch(ids); return err },
		"StartFetch":  func() error { return c.StartFetch(ids) },
		"LookupNames": func() error { _, err := c.LookupNames([]string{"a"}); return err },
		"Desc":        func() error { _, err := c.Desc(ids[0]); return err },
		"Text":        func() error { _, err := c.Text(1, 2); return err },
		"Prefetch":    func() error { return c.Prefetch([]MetaRequest{{Kind: MetaText, Type: 1, Ident: 2}}) },
	} {
		if err := call(); !errors.Is(err, ErrFetchInFlight) || c.Lost(err) {
			t.Errorf("%s in flight: %v (lost %v)", name, err, c.Lost(err))
		}
	}
	pdu, typ, changes, err := c.FinishFetchPDU()
	if err != nil || changes != 1 || typ != pduHighresResult {
		t.Fatalf("FinishFetchPDU: typ %#x changes %d, %v", typ, changes, err)
	}
	res, err := c.DecodeResult(pdu, typ)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, want)
	if c.InFlight() {
		t.Errorf("InFlight after FinishFetchPDU")
	}

	// A reply that comes after FinishFetchPDU began: it waits.
	if err := c.StartFetch(ids); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(50 * time.Millisecond); close(late) }()
	if pdu, typ, changes, err = c.FinishFetchPDU(); err != nil || changes != 0 {
		t.Fatalf("late FinishFetchPDU: changes %d, %v", changes, err)
	}
	if res, err = c.DecodeResult(pdu, typ); err != nil {
		t.Fatal(err)
	}
	checkResult(t, res, want)
	if d, err := c.Desc(ids[0]); err != nil || d.PMID != ids[0] {
		t.Errorf("Desc after the flight: %+v, %v", d, err)
	}

	// Lost in flight (the second connection closes after the fetch).
	if err := c.Reconnect(); err != nil {
		t.Fatal(err)
	}
	if err := c.StartFetch(ids); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.FinishFetchPDU(); err == nil || !c.Lost(err) || c.InFlight() {
		t.Errorf("lost in flight: %v (lost %v, in flight %v)", err, c.Lost(err), c.InFlight())
	}
	if _, err := c.LookupNames([]string{"a"}); errors.Is(err, ErrFetchInFlight) || !c.Lost(err) {
		t.Errorf("after the loss: %v", err)
	}
}

package pmcd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// fakeAgent runs serve on the agent's end of a pipe and returns the
// pmcd's end.
func fakeAgent(t *testing.T, serve func(f *fakeConn)) net.Conn {
	t.Helper()
	ours, theirs := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer theirs.Close()
		serve(&fakeConn{t: t, c: theirs})
	}()
	t.Cleanup(func() {
		ours.Close()
		<-done
	})
	return ours
}

// credsPDU is an agent's opening CREDS: one CVERSION credential.
func credsPDU(version, flags uint32) []byte {
	return buildPDU(pduCreds, words(1, credsVersion<<24|version<<16|flags))
}

func TestAgentHandshakeAndRequests(t *testing.T) {
	desc := words(0x0f000001, uint32(pmapi.TypeU32), 0xffffffff, uint32(pmapi.SemCounter), 0)
	conn := fakeAgent(t, func(f *fakeConn) {
		// The agent asks for AUTH and CONTAINER; pmcd grants AUTH only.
		f.write(credsPDU(2, uint32(FeatureAuth|FeatureContainer)))
		body := f.expect(pduCreds)
		if want := words(1, credsVersion<<24|2<<16|uint32(FeatureAuth)); string(body) != string(want) {
			t.Errorf("pmcd's CREDS body % x, want % x", body, want)
		}
		body = f.expect(pduDescReq)
		if len(body) != 4 || binary.BigEndian.Uint32(body) != 0x0f000001 {
			t.Errorf("DESC_REQ body % x", body)
		}
		f.write(buildPDU(pduDesc, desc))
		f.expect(pduProfile)
		body = f.expect(pduFetch) // an agent is sent FETCH, not HIGHRES_FETCH
		if len(body) < 4 || binary.BigEndian.Uint32(body) != 0 {
			t.Errorf("FETCH body % x: context number not 0", body)
		}
		f.write(encodeResult(sampleResult(), false))
		f.expect(pduDescReq)
		f.write(errorPDU(int32(pmapi.ErrPMID)))
	})
	c, err := NewAgent(conn, WithTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Desc(0x0f000001)
	if err != nil {
		t.Fatal(err)
	}
	if d.PMID != 0x0f000001 || d.Type != pmapi.TypeU32 || d.Sem != pmapi.SemCounter {
		t.Errorf("Desc = %+v", d)
	}
	res, _, err := c.Fetch([]pmapi.PMID{0x0f000001})
	if err != nil {
		t.Fatal(err)
	}
	want := sampleResult()
	want.Timestamp.Nsec = want.Timestamp.Nsec / 1000 * 1000 // RESULT has microseconds
	checkResult(t, res, want)
	if _, err := c.Desc(0x0f000002); !errors.Is(err, pmapi.ErrPMID) {
		t.Errorf("Desc of an unknown PMID: %v, want PM_ERR_PMID", err)
	}
	if got := c.PDUCounts(); got.Sent[pduCreds-pduError] != 1 || got.Received[pduCreds-pduError] != 1 {
		t.Errorf("CREDS counted %d sent, %d received; want 1, 1", got.Sent[pduCreds-pduError], got.Received[pduCreds-pduError])
	}
}

func TestAgentHandshakeBad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		open  []byte
		check func(error) bool
	}{
		{"ERROR instead of CREDS", errorPDU(0), func(err error) bool { var de *DecodeError; return errors.As(err, &de) }},
		{"PDU version 1", credsPDU(1, 0), func(err error) bool { return errors.Is(err, pmapi.ErrIPC) }},
		{"no CVERSION credential", buildPDU(pduCreds, words(1, 2<<24|2<<16)), func(err error) bool { return errors.Is(err, pmapi.ErrIPC) }},
		{"credential count past the end", buildPDU(pduCreds, words(3, credsVersion<<24|2<<16)), func(err error) bool { var de *DecodeError; return errors.As(err, &de) }},
		{"closed", nil, func(err error) bool { var ce *ConnError; return errors.As(err, &ce) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := fakeAgent(t, func(f *fakeConn) {
				if tc.open != nil {
					f.write(tc.open)
				}
			})
			c, err := NewAgent(conn, WithConnectTimeout(2*time.Second))
			if err == nil {
				c.Close()
				t.Fatal("NewAgent succeeded")
			}
			if !tc.check(err) {
				t.Errorf("NewAgent: %v (%T)", err, err)
			}
		})
	}
}

// scripted is an agent that says b and records what it is told.
type scripted struct {
	io.Reader
	told bytes.Buffer
}

func (s *scripted) Write(p []byte) (int, error) { return s.told.Write(p) }
func (s *scripted) Close() error                { return nil }

// FuzzAgentHandshake feeds arbitrary bytes to NewAgent as the agent's
// opening: it must fail with a typed error, or succeed on a CREDS with a
// version-2 credential and answer with one CREDS; never panic.
func FuzzAgentHandshake(f *testing.F) {
	f.Add(credsPDU(2, uint32(FeatureAuth)))
	f.Add(credsPDU(1, 0))
	f.Add(buildPDU(pduCreds, words(2, 2<<24, credsVersion<<24|2<<16)))
	f.Add(errorPDU(0))
	f.Add([]byte{0, 0, 0, 12, 0, 0, 0x70, 0x0c})
	f.Fuzz(func(t *testing.T, b []byte) {
		agent := &scripted{Reader: bytes.NewReader(b)}
		c, err := NewAgent(agent)
		if err == nil {
			if c.version != pduVersion2 {
				t.Fatalf("accepted PDU version %d", c.version)
			}
			if told := agent.told.Bytes(); len(told) != 20 || binary.BigEndian.Uint32(told[4:]) != pduCreds {
				t.Fatalf("answered % x", told)
			}
			return
		}
		if agent.told.Len() != 0 {
			t.Fatalf("answered % x to a bad opening (%v)", agent.told.Bytes(), err)
		}
		var de *DecodeError
		var he *HandshakeError
		var ce *ConnError
		if !errors.As(err, &de) && !errors.As(err, &he) && !errors.As(err, &ce) {
			t.Fatalf("error of type %T: %v", err, err)
		}
	})
}

package pmcd

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestFakeProfile: SetProfile's PROFILE goes with the next fetch, once,
// byte for byte as the real pmlogger sends it (captured with strace for
// `log mandatory on once { kernel.all.load [ "1 minute" "15 minute" ]
// network.interface.in.bytes [ "lo" ] hinv.ncpu }`); the same profile is
// not sent again, and nil goes back to every instance.
func TestFakeProfile(t *testing.T) {
	// the body of the real pmlogger's PDU (after its 12-byte header)
	realBody := words(0, 0, 2, 0,
		0x0f000003, 1, 1, 0,
		0x0f000002, 1, 2, 0,
		0,
		1, 15)
	got := make(chan []byte, 4)
	spec := fakePMCD(t, func(f *fakeConn) {
		f.handshake(fullFeatures)
		f.expect(pduProfile) // every instance, at the first fetch
		f.expect(pduHighresFetch)
		f.write(encodeResult(sampleResult(), true))
		got <- f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(encodeResult(sampleResult(), true))
		f.expect(pduHighresFetch) // the same profile: not sent again
		f.write(encodeResult(sampleResult(), true))
		got <- f.expect(pduProfile)
		f.expect(pduHighresFetch)
		f.write(encodeResult(sampleResult(), true))
	})
	c := dialFake(t, spec)
	pmids := []pmapi.PMID{1}
	if _, _, err := c.Fetch(pmids); err != nil {
		t.Fatal(err)
	}
	c.SetProfile([]InDomProfile{{InDom: 0x0f000003, Insts: []int32{0}}, {InDom: 0x0f000002, Insts: []int32{1, 15}}})
	for i := 0; i < 2; i++ {
		if _, _, err := c.Fetch(pmids); err != nil {
			t.Fatal(err)
		}
	}
	if b := <-got; !bytes.Equal(b, realBody) {
		t.Errorf("PROFILE body\n% x\nthe real pmlogger's\n% x", b, realBody)
	}
	c.SetProfile(nil)
	if _, _, err := c.Fetch(pmids); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, words(0, 0, 0, 0)) {
		t.Errorf("PROFILE of every instance: % x", b)
	}
}

// TestFakeContainer: with $PCP_CONTAINER the client asks for the
// CONTAINER feature in CREDS and sends the name in an ATTR PDU, as libpcp
// does (pminfo --container=foo, captured with strace: CREDS flags 0x40,
// then ATTR 15 "foo", unpadded).
func TestFakeContainer(t *testing.T) {
	t.Setenv(ContainerEnv, "foo")
	attr := make(chan []byte, 1)
	spec := fakePMCD(t, func(f *fakeConn) {
		f.write(greeting(0, fullFeatures))
		body := f.expect(pduCreds)
		if len(body) != 8 || binary.BigEndian.Uint32(body[4:]) != 0x01020040 {
			t.Errorf("CREDS body % x, want the CONTAINER flag", body)
		}
		attr <- f.expect(pduAttr)
	})
	dialFake(t, spec)
	if b := <-attr; !bytes.Equal(b, []byte{0, 0, 0, 15, 'f', 'o', 'o'}) {
		t.Errorf("ATTR body % x", b)
	}
}

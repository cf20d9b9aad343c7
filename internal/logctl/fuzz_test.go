package logctl

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// FuzzServeConn feeds arbitrary client bytes, after the handshake, to a
// connection's serve loop: it must neither panic nor hang, and everything
// it writes must be whole PDUs.
func FuzzServeConn(f *testing.F) {
	for _, h := range []string{
		capCreds + capStatusReq + capQueryLoad + capQueryNCPU + capNewVolReq + capSyncReq + capLogMand,
		capCreds, capStatusReq, capQueryLoad, capLogMand,
		"00000004 00008002 00000000",
		"7fffffff 00008002 00000000",
		"0000001c 00008000 00000000 0000000d 00000000 00000000 7fffffff",
		"00000014 0000700c 00000000 00000001 01020000" + capStatusReq,
	} {
		f.Add(unhex(f, h))
	}
	f.Add(encodeControlRequest(logEnquire, 0, 0, []pmapi.PMID{loadPMID, ncpuPMID, 1}, [][]int32{{1, 5, 99}, nil, {-1}}))
	f.Fuzz(func(t *testing.T, in []byte) {
		h := newFake()
		h.errs[1] = pmapi.ErrPMID
		s := &Server{cfg: Config{PID: 1234, PDUTimeout: time.Second}, h: h, conns: map[net.Conn]bool{}}
		srv, cli := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			cs := &connState{s: s, c: srv, version: logPDUVersion3}
			cs.serve()
			srv.Close()
		}()
		var out bytes.Buffer
		rd := make(chan struct{})
		go func() { io.Copy(&out, cli); close(rd) }()
		cli.SetWriteDeadline(time.Now().Add(5 * time.Second))
		cli.Write(in)
		cli.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("serve hung")
		}
		<-rd
		b := out.Bytes()
		for len(b) > 0 {
			if len(b) < hdrLen {
				t.Fatalf("partial PDU header in output: %x", b)
			}
			n := int(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
			if n < hdrLen+4 || n > len(b) || n%4 != 0 {
				t.Fatalf("bad PDU length %d in output (%d bytes left)", n, len(b))
			}
			b = b[n:]
		}
	})
}

package logctl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// fakeHandler is a Handler with fixed answers.
type fakeHandler struct {
	mu      sync.Mutex
	status  Status
	vol     int
	syncs   int
	states  map[pmapi.PMID][]InstState
	errs    map[pmapi.PMID]error
	queries int
}

func newFake() *fakeHandler {
	return &fakeHandler{
		status: capturedStatus,
		states: map[pmapi.PMID][]InstState{
			loadPMID: {mandOn(1), mandOn(5), mandOn(15)},
			ncpuPMID: {mandOn(-1)},
		},
		errs: map[pmapi.PMID]error{},
	}
}

func (f *fakeHandler) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Volume = f.vol
	return st
}

func (f *fakeHandler) NewVolume() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vol++
	return f.vol, nil
}

func (f *fakeHandler) Sync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	return nil
}

func (f *fakeHandler) Query(pmids []pmapi.PMID, insts [][]int32) []MetricState {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries++
	out := make([]MetricState, len(pmids))
	for i, id := range pmids {
		out[i] = MetricState{PMID: id, Insts: f.states[id], Err: f.errs[id]}
	}
	return out
}

// startServer starts a Server for the fake on temporary directories and
// returns it with the directories.
func startServer(t *testing.T, h Handler, mod func(*Config)) (s *Server, tmpDir, runDir string) {
	t.Helper()
	tmpDir, runDir = t.TempDir(), t.TempDir()
	cfg := Config{
		PID: os.Getpid(), TmpDir: tmpDir, RunDir: runDir,
		Host: "vm", Archive: "/tmp/lc/xarch",
		PortBase: 44330,
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := Listen(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		s.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Serve did not return after Close")
		}
	})
	return s, tmpDir, runDir
}

// client is a raw protocol client for the tests.
type client struct {
	t *testing.T
	c net.Conn
}

func dial(t *testing.T, s *Server) *client {
	t.Helper()
	return dialAddr(t, "unix", s.SocketPath())
}

func dialAddr(t *testing.T, network, addr string) *client {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &client{t: t, c: c}
}

// dialServed dials until the server serves the connection (it notices an
// earlier client's close asynchronously, and turns new ones away until
// then) and does the handshake.
func dialServed(t *testing.T, s *Server) *client {
	t.Helper()
	return dialServedAddr(t, "unix", s.SocketPath())
}

func dialServedAddr(t *testing.T, network, addr string) *client {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	ack := encodeError(int32(os.Getpid()), 3)
	for {
		cl := dialAddr(t, network, addr)
		b := cl.read()
		if bytes.Equal(b, ack) {
			cl.write(unhex(t, capCreds))
			return cl
		}
		cl.c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("connection still refused: %x", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (cl *client) read() []byte {
	cl.t.Helper()
	var h [hdrLen]byte
	if _, err := io.ReadFull(cl.c, h[:]); err != nil {
		cl.t.Fatalf("reading reply: %v", err)
	}
	n := binary.BigEndian.Uint32(h[:])
	b := make([]byte, n)
	copy(b, h[:])
	if _, err := io.ReadFull(cl.c, b[hdrLen:]); err != nil {
		cl.t.Fatalf("reading reply: %v", err)
	}
	return b
}

func (cl *client) write(b []byte) {
	cl.t.Helper()
	if _, err := cl.c.Write(b); err != nil {
		cl.t.Fatalf("write: %v", err)
	}
}

// handshake reads the ACK and sends version 3 credentials.
func (cl *client) handshake() {
	cl.t.Helper()
	ack := cl.read()
	want := encodeError(int32(os.Getpid()), 3)
	if !bytes.Equal(ack, want) {
		cl.t.Fatalf("ack %x, want %x", ack, want)
	}
	cl.write(unhex(cl.t, capCreds))
}

func (cl *client) expectEOF() {
	cl.t.Helper()
	cl.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b [64]byte
	for {
		_, err := cl.c.Read(b[:])
		if err == nil {
			continue
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				cl.t.Fatalf("connection not closed by the server")
			}
		}
		return
	}
}

func TestServerFiles(t *testing.T) {
	s, tmpDir, runDir := startServer(t, newFake(), func(c *Config) { c.Note = "a note"; c.Primary = true })
	pid := strconv.Itoa(os.Getpid())
	mp := filepath.Join(tmpDir, "pmlogger", pid)
	b, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(s.Port()) + "\nvm\n/tmp/lc/xarch\na note\n"; string(b) != want {
		t.Errorf("map file %q, want %q", b, want)
	}
	if s.Port() < 44330 {
		t.Errorf("port %d", s.Port())
	}
	if fi, err := os.Stat(mp); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("map file mode: %v %v", fi.Mode(), err)
	}
	sock := filepath.Join(runDir, "pmlogger."+pid+".socket")
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o666 {
		t.Errorf("socket: %v %v", fi, err)
	}
	if l, err := os.Readlink(filepath.Join(tmpDir, "pmlogger", "primary")); err != nil || l != mp {
		t.Errorf("primary link -> %q, %v", l, err)
	}
	if l, err := os.Readlink(filepath.Join(runDir, "pmlogger.primary.socket")); err != nil || l != sock {
		t.Errorf("primary socket link -> %q, %v", l, err)
	}
	if b, err := os.ReadFile(filepath.Join(runDir, "pmlogger.pid")); err != nil || string(b) != pid {
		t.Errorf("primary pid file %q, %v; want %q", b, err, pid)
	}
	// A second primary while this one lives: the real tool's error.
	cfg2 := Config{PID: os.Getpid() + 1, TmpDir: tmpDir, RunDir: runDir, Host: "vm", Archive: "/tmp/lc/y", PortBase: 44330, Primary: true}
	_, err = Listen(cfg2, newFake())
	var pe *PrimaryExistsError
	if want := "there is already a primary pmlogger running, pid " + pid + " linkfile=" + filepath.Join(tmpDir, "pmlogger", "primary"); !errors.As(err, &pe) || err.Error() != want {
		t.Errorf("second primary: %v, want %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(tmpDir, "pmlogger", strconv.Itoa(os.Getpid()+1))); err == nil {
		t.Errorf("the refused second primary left its map file")
	}
	// TCP answers too, v4 and v6.
	cl := dialServedAddr(t, "tcp", "127.0.0.1:"+strconv.Itoa(s.Port()))
	cl.write(unhex(t, capSyncReq))
	if got := cl.read(); !bytes.Equal(got, unhex(t, capSyncRes)) {
		t.Errorf("sync over tcp4: %x", got)
	}
	cl.c.Close()
	if c6, err := net.Dial("tcp6", "[::1]:"+strconv.Itoa(s.Port())); err == nil {
		c6.Close()
		cl := dialServedAddr(t, "tcp6", "[::1]:"+strconv.Itoa(s.Port()))
		cl.write(unhex(t, capSyncReq))
		if got := cl.read(); !bytes.Equal(got, unhex(t, capSyncRes)) {
			t.Errorf("sync over tcp6: %x", got)
		}
		cl.c.Close()
	} else {
		t.Logf("no IPv6 loopback: %v", err)
	}
	s.Close()
	for _, p := range []string{mp, sock, filepath.Join(tmpDir, "pmlogger", "primary"), filepath.Join(runDir, "pmlogger.primary.socket"), filepath.Join(runDir, "pmlogger.pid")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left behind after Close", p)
		}
	}
}

func TestServerRequests(t *testing.T) {
	f := newFake()
	s, _, _ := startServer(t, f, nil)
	cl := dial(t, s)
	cl.handshake()

	cl.write(unhex(t, capStatusReq))
	if got, want := cl.read(), unhex(t, capStatus); !bytes.Equal(got, want) {
		t.Errorf("status\n%x\nwant\n%x", got, want)
	}
	cl.write(unhex(t, capQueryLoad))
	if got, want := cl.read(), unhex(t, capQueryLoadRes); !bytes.Equal(got, want) {
		t.Errorf("query\n%x\nwant\n%x", got, want)
	}
	cl.write(unhex(t, capQueryNCPU))
	if got, want := cl.read(), unhex(t, capQueryNCPURes); !bytes.Equal(got, want) {
		t.Errorf("query\n%x\nwant\n%x", got, want)
	}
	cl.write(unhex(t, capNewVolReq))
	if got, want := cl.read(), unhex(t, capNewVolRes); !bytes.Equal(got, want) {
		t.Errorf("new volume %x, want %x", got, want)
	}
	cl.write(unhex(t, capSyncReq))
	if got, want := cl.read(), unhex(t, capSyncRes); !bytes.Equal(got, want) {
		t.Errorf("sync %x, want %x", got, want)
	}
	cl.write(unhex(t, capLogMand))
	if got, want := cl.read(), encodeError(0, int32(pmapi.ErrPermission)); !bytes.Equal(got, want) {
		t.Errorf("log mandatory %x, want %x", got, want)
	}
	// still serving
	cl.write(unhex(t, capSyncReq))
	if got, want := cl.read(), unhex(t, capSyncRes); !bytes.Equal(got, want) {
		t.Errorf("sync after refusal %x, want %x", got, want)
	}
	if f.syncs != 2 || f.vol != 1 {
		t.Errorf("handler saw %d syncs, volume %d", f.syncs, f.vol)
	}
}

func TestServerOneClientAtATime(t *testing.T) {
	s, _, _ := startServer(t, newFake(), nil)
	first := dial(t, s)
	first.handshake()
	second := dial(t, s)
	if got, want := second.read(), unhex(t, capBusy); !bytes.Equal(got, want) {
		t.Errorf("second client got %x, want %x", got, want)
	}
	second.expectEOF()
	first.write(unhex(t, capSyncReq))
	first.read()
	first.c.Close()
	// Now a new one is served (retry: the server notices the close
	// asynchronously).
	deadline := time.Now().Add(10 * time.Second)
	for {
		cl := dial(t, s)
		b := cl.read()
		if bytes.Equal(b, encodeError(int32(os.Getpid()), 3)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("third client still refused: %x", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServerBadClients(t *testing.T) {
	s, _, _ := startServer(t, newFake(), nil)
	ipc := encodeError(0, int32(pmapi.ErrIPC))
	cases := []struct {
		name  string
		send  string
		reply []byte // nil: just closed
	}{
		{"short length", "00000004 00008002 00000000", ipc},
		{"oversized", "7fffffff 00008002 00000000", ipc},
		{"negative length", "ffffffff 00008002 00000000", ipc},
		{"unknown type", "00000010 00001234 00000000 00000000", ipc},
		{"bad request", "00000010 00008002 00000000 00000063", ipc},
		{"short request", "0000000c 00008002 00000000", ipc},
		{"bad control", "0000001c 00008000 00000000 00000063 00000000 00000000 00000000", ipc},
		{"truncated control", "00000020 00008000 00000000 0000000d 00000000 00000000 00000005 0f000800", ipc},
		{"bad version", "00000014 0000700c 00000000 00000001 01090000", ipc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl := dialServed(t, s)
			cl.write(unhex(t, tc.send))
			if got := cl.read(); !bytes.Equal(got, tc.reply) {
				t.Errorf("reply %x, want %x", got, tc.reply)
			}
			cl.expectEOF()
			cl.c.Close()
		})
	}
}

func TestServerDisconnectMidPDU(t *testing.T) {
	s, _, _ := startServer(t, newFake(), func(c *Config) { c.PDUTimeout = 200 * time.Millisecond })
	// Disconnect half way through a PDU.
	cl := dial(t, s)
	cl.handshake()
	cl.write(unhex(t, capQueryLoad)[:20])
	cl.c.Close()

	// Stall half way through a PDU: the server gives up after PDUTimeout.
	stall := dial(t, s)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b := stall.read()
		if bytes.Equal(b, encodeError(int32(os.Getpid()), 3)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refused: %x", b)
		}
		stall = dial(t, s)
	}
	stall.write(unhex(t, capCreds))
	stall.write(unhex(t, capQueryLoad)[:7])
	stall.expectEOF()

	// And the next connection works.
	deadline = time.Now().Add(10 * time.Second)
	for {
		cl := dial(t, s)
		b := cl.read()
		if bytes.Equal(b, encodeError(int32(os.Getpid()), 3)) {
			cl.write(unhex(t, capCreds))
			cl.write(unhex(t, capStatusReq))
			if got, want := cl.read(), unhex(t, capStatus); !bytes.Equal(got, want) {
				t.Errorf("status after a broken client\n%x\nwant\n%x", got, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("refused: %x", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCloseWithIdleClient(t *testing.T) {
	s, _, _ := startServer(t, newFake(), nil)
	cl := dial(t, s)
	cl.handshake()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung with an idle client connected")
	}
	cl.expectEOF()
}

func TestDefaultPortBase(t *testing.T) {
	// Hold a port from 4330 up (a real pmlogger may hold 4330 already):
	// the server must take a later one.
	s1, _, _ := startServer(t, newFake(), func(c *Config) { c.PortBase = 0 })
	if s1.Port() < DefaultPortBase {
		t.Fatalf("port %d below %d", s1.Port(), DefaultPortBase)
	}
	s2, _, _ := startServer(t, newFake(), func(c *Config) { c.PortBase = 0 })
	if s2.Port() <= s1.Port() {
		t.Errorf("second server on port %d, first on %d", s2.Port(), s1.Port())
	}
}

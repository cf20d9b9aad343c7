package logctl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Status is what a status request reports (the real pmlogger's
// __pmLoggerStatus).
type Status struct {
	Start    time.Time // when the archive starts (its label time); zero: logging not started
	Last     time.Time // the last record's timestamp (zero: none written yet)
	Now      time.Time
	Volume   int    // current data volume number
	Size     int64  // bytes in the current data volume
	PMCDHost string // host the metrics come from, as the archive label has it
	FQDN     string // its fully qualified name (PMCDHost when unknown)
	TZ       string // the archive label's timezone
	LoggerTZ string // pmlogger's own $TZ

	// Zoneinfo and LoggerZoneinfo are the version 3 status PDU's zoneinfo
	// strings ("": absent, as the real pmlogger 6.0.3 sends them; pmlc
	// prints neither).
	Zoneinfo       string
	LoggerZoneinfo string
}

// InstState is how one instance of a metric is logged.
type InstState struct {
	Inst      int32         // -1 (PM_IN_NULL) for a metric without instances
	Mandatory bool          // mandatory, else advisory
	On        bool          // logging on (else off / maybe)
	Maybe     bool          // advisory maybe (mandatory maybe is "maybe" too)
	InLog     bool          // a value of it is in the archive
	Available bool          // pmcd has it
	Interval  time.Duration // logging interval (0: once)
}

// MetricState is the answer for one PMID of a query.
type MetricState struct {
	PMID  pmapi.PMID
	Insts []InstState // empty: the metric is not being logged
	Err   error       // a per-metric error to report instead (may be nil)
}

// Handler is the recorder behind the port. The Server calls it from its
// connection goroutines, one call at a time (Server serialises the calls).
//
// To answer as the real pmlogger does for a metric it does not log, Query
// should report pmcd's current instances of it (or Inst -1 for a metric
// without instances) with the zero InstState, which pmlc prints as
// "adv  off nl"; an empty Insts for an all-instances query makes pmlc
// print "(no instances)". A requested instance missing from Insts is
// answered with the zero state. Err is sent as the metric's numval, and
// pmlc prints its text (use a pmapi.Error; other errors go out as
// PM_ERR_GENERIC). NewVolume's and Sync's errors likewise.
type Handler interface {
	Status() Status
	NewVolume() (volume int, err error)
	Sync() error
	// Query reports how each PMID is logged, in the order asked; only the
	// instances in insts[i] when insts[i] is non-empty (pmlc query with an
	// instance list), else all that are logged.
	Query(pmids []pmapi.PMID, insts [][]int32) []MetricState
}

// DefaultPortBase is the first TCP port tried (pmlogger's PORT_BASE).
const DefaultPortBase = 4330

// DefaultPDUTimeout bounds how long the rest of a PDU may take to arrive
// once its first byte has (the real pmlogger reads with a timeout too).
const DefaultPDUTimeout = 10 * time.Second

// Config says where a Server listens.
type Config struct {
	PID     int    // the pmlogger's process id (names the socket and map file)
	TmpDir  string // $PCP_TMP_DIR (map file in TmpDir/pmlogger/PID)
	RunDir  string // $PCP_RUN_DIR (unix socket RunDir/pmlogger.PID.socket)
	Host    string // the map file's second line
	Archive string // absolute archive base name, third line
	Note    string // -m note, fourth line ("" : none, as the real one writes without -m)
	Primary bool   // -P: also the "primary" links

	// PortBase is the first TCP port tried (0: DefaultPortBase, 4330, as
	// $PMLOGGER_PORT would set it for the real one).
	PortBase int
	// NoTCP skips the TCP listeners (unix socket and map file only; the
	// map file then says port 0).
	NoTCP bool
	// PDUTimeout overrides DefaultPDUTimeout (negative: none).
	PDUTimeout time.Duration
	// Logf, when set, receives one line per refused or failed connection.
	Logf func(format string, args ...any)
}

// Server answers pmlc on pmlogger's control port.
type Server struct {
	cfg  Config
	h    Handler
	port int

	lns []net.Listener

	socketPath, mapPath, primaryMap, primarySock, primaryPID string

	hmu sync.Mutex // serialises Handler calls

	mu      sync.Mutex
	closed  bool
	busy    net.Conn // the one client being served
	conns   map[net.Conn]bool
	wg      sync.WaitGroup
	started bool
}

// Listen opens the TCP port and the unix socket and writes the map file
// (and primary links). Port() is the TCP port (pmcd.pmlogger.port's value).
func Listen(cfg Config, h Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("logctl: nil Handler")
	}
	if cfg.PID <= 0 {
		return nil, fmt.Errorf("logctl: bad pid %d", cfg.PID)
	}
	if cfg.TmpDir == "" || cfg.RunDir == "" {
		return nil, errors.New("logctl: TmpDir and RunDir are required")
	}
	s := &Server{cfg: cfg, h: h, conns: map[net.Conn]bool{}}
	ok := false
	defer func() {
		if !ok {
			s.closeListeners()
			s.removeFiles()
		}
	}()
	if !cfg.NoTCP {
		if err := s.listenTCP(); err != nil {
			return nil, err
		}
	}
	if err := s.listenUnix(); err != nil {
		return nil, err
	}
	if err := s.writeMap(); err != nil {
		return nil, err
	}
	if cfg.Primary {
		if err := s.makePrimary(); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

func (s *Server) listenTCP() error {
	base := s.cfg.PortBase
	if base <= 0 {
		base = DefaultPortBase
	}
	for port := base; port <= 65535; port++ {
		l4, err := net.Listen("tcp4", "0.0.0.0:"+strconv.Itoa(port))
		if err != nil {
			if isAddrInUse(err) {
				continue
			}
			return fmt.Errorf("logctl: listen tcp4 port %d: %w", port, err)
		}
		l6, err := net.Listen("tcp6", "[::]:"+strconv.Itoa(port))
		if err != nil {
			if isAddrInUse(err) {
				l4.Close()
				continue
			}
			// no IPv6 here: serve v4 only, as the real one carries on
			// when its v6 socket cannot be made.
			l6 = nil
		}
		s.port = port
		s.lns = append(s.lns, l4)
		if l6 != nil {
			s.lns = append(s.lns, l6)
		}
		return nil
	}
	return errors.New("logctl: no free TCP port")
}

func (s *Server) listenUnix() error {
	path := filepath.Join(s.cfg.RunDir, "pmlogger."+strconv.Itoa(s.cfg.PID)+".socket")
	os.Remove(path) // a stale one from an earlier process with our pid
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("logctl: %w", err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	s.socketPath = path
	s.lns = append(s.lns, l)
	if err := os.Chmod(path, 0o666); err != nil {
		return fmt.Errorf("logctl: %w", err)
	}
	return nil
}

func (s *Server) writeMap() error {
	dir := filepath.Join(s.cfg.TmpDir, "pmlogger")
	if err := os.Mkdir(dir, 0o777); err == nil {
		os.Chmod(dir, 0o777|os.ModeSticky)
	} else if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("logctl: creating port file dir: %w", err)
	}
	path := filepath.Join(dir, strconv.Itoa(s.cfg.PID))
	os.Remove(path)
	text := strconv.Itoa(s.port) + "\n" + s.cfg.Host + "\n" + s.cfg.Archive + "\n"
	if s.cfg.Note != "" {
		text += s.cfg.Note + "\n"
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("logctl: port map file: %w", err)
	}
	s.mapPath = path
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("logctl: port map file: %w", err)
	}
	return f.Close()
}

// linkPID returns the pid a primary link points at (the first run of
// digits after its target's last /), or -1.
func linkPID(link string) int {
	t, err := os.Readlink(link)
	if err != nil {
		return -1
	}
	t = t[strings.LastIndexByte(t, '/')+1:]
	i := strings.IndexAny(t, "0123456789")
	if i < 0 {
		return -1
	}
	j := i
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(t[i:j])
	return n
}

func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func (s *Server) makePrimary() error {
	link := filepath.Join(s.cfg.TmpDir, "pmlogger", "primary")
	if fi, err := os.Lstat(link); err == nil {
		if fi.Mode()&os.ModeSymlink == 0 {
			os.Remove(link) // legacy hard link
		} else if pid := linkPID(link); pid >= 0 && !processExists(pid) {
			os.Remove(link)
			os.Remove(filepath.Join(s.cfg.TmpDir, "pmlogger", strconv.Itoa(pid)))
		}
	}
	if _, err := os.Lstat(link); err == nil {
		return &PrimaryExistsError{PID: linkPID(link), Link: link}
	}
	if err := os.Symlink(s.mapPath, link); err != nil {
		return fmt.Errorf("logctl: creating primary logger symbolic link: %w", err)
	}
	s.primaryMap = link

	sock := filepath.Join(s.cfg.RunDir, "pmlogger.primary.socket")
	if fi, err := os.Lstat(sock); err == nil {
		if fi.Mode()&os.ModeSocket != 0 {
			os.Remove(sock)
		} else if t, err := os.Readlink(sock); err == nil {
			if pid := linkPID(sock); pid >= 0 && !processExists(pid) {
				os.Remove(sock)
				os.Remove(t)
			}
		}
	}
	if _, err := os.Lstat(sock); err == nil {
		return &PrimaryExistsError{PID: linkPID(sock), Link: sock}
	}
	if err := os.Symlink(s.socketPath, sock); err != nil {
		return fmt.Errorf("logctl: creating primary logger socket symbolic link: %w", err)
	}
	s.primarySock = sock
	// The primary's pid file (the digits, no newline, read-only), as
	// the real one writes it for the service manager.
	pidFile := filepath.Join(s.cfg.RunDir, "pmlogger.pid")
	os.Remove(pidFile)
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(s.cfg.PID)), 0o444); err != nil {
		return fmt.Errorf("logctl: primary pid file: %w", err)
	}
	s.primaryPID = pidFile
	return nil
}

// PrimaryExistsError is Listen's error for Config.Primary when another
// live pmlogger is the primary one.
type PrimaryExistsError struct {
	PID  int    // the primary's pid (-1: unknown)
	Link string // the link that says so
}

// Error is the real pmlogger's text (after its "pmlogger: ERROR: ").
func (e *PrimaryExistsError) Error() string {
	return fmt.Sprintf("there is already a primary pmlogger running, pid %d linkfile=%s", e.PID, e.Link)
}

// Port is the TCP control port (0 with NoTCP).
func (s *Server) Port() int { return s.port }

// SocketPath is the unix socket's path.
func (s *Server) SocketPath() string { return s.socketPath }

// MapPath is the port map file's path.
func (s *Server) MapPath() string { return s.mapPath }

// Serve accepts and answers connections until Close; it returns nil after
// Close.
func (s *Server) Serve() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	if s.started {
		s.mu.Unlock()
		return errors.New("logctl: Serve called twice")
	}
	s.started = true
	lns := s.lns
	s.mu.Unlock()

	errc := make(chan error, len(lns))
	for _, l := range lns {
		go func(l net.Listener) { errc <- s.acceptLoop(l) }(l)
	}
	var first error
	for range lns {
		if err := <-errc; err != nil && first == nil {
			first = err
			s.closeListeners() // one listener failing stops them all
		}
	}
	s.wg.Wait()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil
	}
	return first
}

func (s *Server) acceptLoop(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
				errors.Is(err, syscall.ECONNABORTED) {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return nil
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handle(c)
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

func (s *Server) forget(c net.Conn) {
	c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	if s.busy == c {
		s.busy = nil
	}
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) handle(c net.Conn) {
	defer s.forget(c)
	// Only one client at a time: others get -EADDRINUSE, as from the
	// real one.
	s.mu.Lock()
	if s.busy != nil {
		s.mu.Unlock()
		c.Write(encodeError(0, codeAddrInUse))
		s.logf("control port: refused a second client (one is connected)")
		return
	}
	s.busy = c
	s.mu.Unlock()

	if uc, ok := c.(*net.UnixConn); ok {
		if err := checkPeer(uc); err != nil {
			c.Write(encodeError(0, codePermission))
			s.logf("control port: %v", err)
			return
		}
	}
	// The ACK carries our pid (checked by the client) and the version.
	if _, err := c.Write(encodeError(int32(s.cfg.PID), logPDUVersion3)); err != nil {
		return
	}
	cs := &connState{s: s, c: c, version: logPDUVersion3}
	cs.serve()
}

// connState is one client connection.
type connState struct {
	s       *Server
	c       net.Conn
	version int
	hdr     [hdrLen]byte
	buf     []byte
}

// readPDU reads one PDU. No deadline applies while waiting for its first
// byte; the rest must come within the PDU timeout.
func (cs *connState) readPDU() (typ int32, body []byte, err error) {
	if _, err := io.ReadFull(cs.c, cs.hdr[:1]); err != nil {
		return 0, nil, err
	}
	timeout := cs.s.cfg.PDUTimeout
	if timeout == 0 {
		timeout = DefaultPDUTimeout
	}
	if timeout > 0 {
		cs.c.SetReadDeadline(time.Now().Add(timeout))
		defer cs.c.SetReadDeadline(time.Time{})
	}
	if _, err := io.ReadFull(cs.c, cs.hdr[1:]); err != nil {
		return 0, nil, err
	}
	n := int32(binary.BigEndian.Uint32(cs.hdr[0:]))
	typ = int32(binary.BigEndian.Uint32(cs.hdr[4:]))
	if n < hdrLen || n > MaxPDU {
		return 0, nil, malformed("PDU length %d", n)
	}
	if cap(cs.buf) < int(n)-hdrLen {
		cs.buf = make([]byte, int(n)-hdrLen)
	}
	body = cs.buf[:int(n)-hdrLen]
	if _, err := io.ReadFull(cs.c, body); err != nil {
		return 0, nil, err
	}
	return typ, body, nil
}

func (cs *connState) send(b []byte) error {
	_, err := cs.c.Write(b)
	return err
}

func (cs *connState) serve() {
	for {
		typ, body, err := cs.readPDU()
		if err != nil {
			if errors.Is(err, errMalformed) {
				cs.send(encodeError(0, codeIPC))
				cs.s.logf("control port: %v", err)
			}
			return
		}
		if err := cs.dispatch(typ, body); err != nil {
			// the client isn't playing by the rules
			cs.send(encodeError(0, codeIPC))
			cs.s.logf("control port: %v", err)
			return
		}
	}
}

// dispatch answers one PDU; an error ends the connection (after an IPC
// error PDU).
func (cs *connState) dispatch(typ int32, body []byte) error {
	switch typ {
	case pduCreds:
		v, err := decodeCreds(body)
		if err != nil {
			return err
		}
		switch v {
		case 0:
		case logPDUVersion2, logPDUVersion3:
			cs.version = v
		default:
			return fmt.Errorf("unsupported control protocol version %d", v)
		}
		return nil
	case pduLogRequest:
		rt, err := decodeLogRequest(body)
		if err != nil {
			return err
		}
		return cs.request(rt)
	case pduLogControl:
		req, err := decodeLogControl(body)
		if err != nil {
			return err
		}
		return cs.control(req)
	default:
		return fmt.Errorf("bad PDU type %#x", uint32(typ))
	}
}

func (cs *connState) request(rt int32) error {
	h := cs.s.h
	switch rt {
	case reqStatus:
		cs.s.hmu.Lock()
		st := h.Status()
		cs.s.hmu.Unlock()
		return cs.send(encodeStatus(st, cs.version))
	case reqNewVolume:
		cs.s.hmu.Lock()
		vol, err := h.NewVolume()
		cs.s.hmu.Unlock()
		code := int32(vol)
		if err != nil {
			code = errorCode(err)
		}
		return cs.send(encodeError(0, code))
	case reqSync:
		cs.s.hmu.Lock()
		err := h.Sync()
		cs.s.hmu.Unlock()
		var code int32
		if err != nil {
			code = errorCode(err)
		}
		return cs.send(encodeError(0, code))
	case reqQAOff:
		return cs.send(encodeError(0, 0))
	case reqQASleepy:
		return cs.send(encodeError(0, codePermission))
	default:
		return fmt.Errorf("bad request type %d", rt)
	}
}

func (cs *connState) control(req *controlReq) error {
	switch req.Control {
	case logMandatory, logAdvisory:
		cs.s.logf("control port: refused a request to change logging (control %d state %d delta %d, %d metrics)",
			req.Control, req.State, req.Delta, len(req.PMIDs))
		return cs.send(encodeError(0, codePermission))
	case logEnquire:
	default:
		return fmt.Errorf("bad control PDU type %d", req.Control)
	}
	cs.s.hmu.Lock()
	states := cs.s.h.Query(req.PMIDs, req.Insts)
	cs.s.hmu.Unlock()
	return cs.send(encodeQueryResult(req, states))
}

func (s *Server) closeListeners() {
	for _, l := range s.lns {
		l.Close()
	}
}

func (s *Server) removeFiles() {
	if s.primaryMap != "" && linkPID(s.primaryMap) == s.cfg.PID {
		os.Remove(s.primaryMap)
	}
	if s.mapPath != "" {
		os.Remove(s.mapPath)
	}
	if s.primarySock != "" {
		os.Remove(s.primarySock)
	}
	if s.primaryPID != "" {
		os.Remove(s.primaryPID)
	}
	if s.socketPath != "" {
		os.Remove(s.socketPath)
	}
}

// Close stops listening, closes connections, removes the socket, map file
// and links. It waits for the connection goroutines, so one inside a
// Handler call must be able to finish it: do not call Close while holding
// a lock the Handler's methods take.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.closeListeners()
	s.wg.Wait()
	s.removeFiles()
	return nil
}

package pmcd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/source"
)

// DefaultPort is pmcd's well-known TCP port, used when a spec names none
// and $PMCD_PORT is not set.
const DefaultPort = 44321

// Default timeouts, those of libpcp ($PMCD_CONNECT_TIMEOUT and
// $PMCD_REQUEST_TIMEOUT override them, in seconds, as they do for libpcp).
const (
	DefaultConnectTimeout = 5 * time.Second
	DefaultTimeout        = 10 * time.Second
)

// maxRequest is the largest PDU pmcd accepts from a client.
const maxRequest = 65536

type config struct {
	connectTimeout time.Duration
	timeout        time.Duration
	maxPDU         int
	container      string // the container attribute ("" none)
}

// ContainerEnv is the environment variable naming the container a pmcd
// context is for, as libpcp reads it when it connects (the tools'
// --container sets it).
const ContainerEnv = "PCP_CONTAINER"

// An Option changes how Dial connects and how the Client talks to pmcd.
type Option func(*config)

// WithConnectTimeout bounds connecting and the handshake (0: no limit).
func WithConnectTimeout(d time.Duration) Option { return func(c *config) { c.connectTimeout = d } }

// WithTimeout bounds each request: sending it and reading the whole reply,
// including any state-change notices before a fetch's result (0: no limit).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxPDU sets the largest PDU accepted from pmcd (default
// DefaultMaxPDU); a longer one is an error, and the connection is dropped.
func WithMaxPDU(n int) Option {
	return func(c *config) {
		if n >= hdrLen {
			c.maxPDU = n
		}
	}
}

func envSeconds(name string, def time.Duration) time.Duration {
	if v := os.Getenv(name); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Second))
		}
	}
	return def
}

// ConnError is a failure of the connection to pmcd: it could not be made,
// or reading or writing failed, or it was already lost or closed. The
// Client has dropped the connection; Lost reports true for these errors.
type ConnError struct {
	Op  string // what was being done, e.g. "HIGHRES_FETCH: reading reply"
	Err error
}

func (e *ConnError) Error() string { return "pmcd: " + e.Op + ": " + e.Err.Error() }
func (e *ConnError) Unwrap() error { return e.Err }

// ErrFetchInFlight is returned by a request made between StartFetch and
// FinishFetchPDU: pmcd answers in order, so the fetch's reply must be
// read first. The connection is left as it was.
var ErrFetchInFlight = errors.New("pmcd: a fetch started by StartFetch has not been finished")

// ErrNotConnected is the cause in a ConnError for a request made while the
// connection is lost or closed.
var ErrNotConnected = errors.New("not connected")

// target is one address to try.
type target struct{ network, addr string }

func (t target) String() string {
	if t.network == "unix" {
		return "unix:" + t.addr
	}
	return t.addr
}

// Client is a connection to one pmcd. Its methods must be called from one
// goroutine at a time. It implements source.Source and source.Reconnector.
//
// Errors: a pmcd ERROR reply is returned as the bare pmapi.Error it
// carries (so err == pmapi.ErrName works); a broken connection is a
// *ConnError; a malformed PDU is a *DecodeError (and the connection is
// dropped, since the byte stream can no longer be trusted); other errors
// (bad arguments) leave the connection as it was.
type Client struct {
	cfg      config
	spec     string
	targets  []target
	specHost string

	conn     pduConn
	addr     target // the target conn is connected to
	lostErr  error  // why conn is nil
	features Features
	version  int
	profiled bool
	profile  []InDomProfile // the profile of the next fetches (SetProfile)
	sentProf []InDomProfile // the one pmcd has, once profiled
	changes  uint32         // state changes seen outside a fetch, for the next Fetch
	// flight: the fetch StartFetch sent whose reply FinishFetchPDU has
	// not read (req 0: none).
	flight flight
	host   string
	pid    uint32

	wbuf    []byte
	pend    []byte                     // bytes read past the last PDU (the start of the next)
	rbuf    []byte                     // PDU buffer of Fetch: its Result's blocks alias it
	sbuf    []byte                     // PDU buffer of everything else
	rb      resultBuf                  // Fetch's Result
	pre     map[MetaRequest]metaResult // Prefetch's replies, each for one use
	bbuf    []byte                     // Prefetch's requests
	hostRB  resultBuf                  // Host's private fetch
	hostIDs []pmapi.PMID
	counts  PDUCounts
}

var (
	_ source.Source      = (*Client)(nil)
	_ source.Reconnector = (*Client)(nil)
)

// pduConn is the connection a Client talks over: a net.Conn during the
// handshake (and for tests on net.Pipe), then, on Linux, the client's
// own rawConn on the same socket.
type pduConn interface {
	io.Reader
	io.Writer
	io.Closer
	SetDeadline(time.Time) error
}

// Dial connects to the pmcd named by spec and completes the handshake:
//
//   - "host" or "host:port" (a DNS name, an IPv4 address, or an IPv6
//     address, bracketed when a port follows: "[::1]:44321"); the port
//     defaults to $PMCD_PORT (its first entry) or 44321. A "pcp://" prefix
//     is allowed.
//   - "local:": pmcd's unix socket ($PMCD_SOCKET, or pmcd.socket in
//     $PCP_RUN_DIR, from the environment or $PCP_CONF / /etc/pcp.conf, else
//     /run/pcp), falling back to TCP on localhost as libpcp does;
//     "local:/path" names the socket.
//   - "unix:" or "unix:/path": the unix socket only.
//
// An empty spec is pmapi.ErrNotHost, as pmNewContext(PM_CONTEXT_HOST, "")
// is (`pminfo -h ""`).
//
// Proxies ("host@proxy") and connection attributes ("host?attr") are not
// supported, nor are TLS and SASL (pmcd offers them; the client asks for
// neither).
func Dial(spec string, opts ...Option) (*Client, error) {
	if spec == "" {
		return nil, pmapi.ErrNotHost
	}
	cfg := config{
		connectTimeout: envSeconds("PMCD_CONNECT_TIMEOUT", DefaultConnectTimeout),
		timeout:        envSeconds("PMCD_REQUEST_TIMEOUT", DefaultTimeout),
		maxPDU:         DefaultMaxPDU,
		container:      os.Getenv(ContainerEnv),
	}
	for _, o := range opts {
		o(&cfg)
	}
	targets, host, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, spec: spec, targets: targets, specHost: host, pid: uint32(os.Getpid())}
	if err := c.connect(); err != nil {
		return nil, err
	}
	return c, nil
}

// newClientOn completes the handshake on an open connection (tests use it
// with net.Pipe). The Client cannot reconnect.
func newClientOn(conn net.Conn, opts ...Option) (*Client, error) {
	cfg := config{connectTimeout: DefaultConnectTimeout, timeout: DefaultTimeout, maxPDU: DefaultMaxPDU}
	for _, o := range opts {
		o(&cfg)
	}
	c := &Client{cfg: cfg, spec: "pipe", specHost: "localhost", pid: uint32(os.Getpid())}
	t := target{"pipe", "pipe"}
	if err := c.handshake(conn, t); err != nil {
		return nil, err
	}
	c.conn, c.addr = conn, t
	return c, nil
}

// parseSpec turns a host spec into the addresses to try and the host
// name to fall back on.
func parseSpec(spec string) ([]target, string, error) {
	s := strings.TrimSpace(spec)
	port := defaultPort()
	switch {
	case s == "" || strings.HasPrefix(s, "local:"):
		path := strings.TrimPrefix(s, "local:")
		if path == "" {
			path = DefaultSocket()
		}
		return []target{{"unix", path}, {"tcp", net.JoinHostPort("localhost", strconv.Itoa(port))}}, localHostname(), nil
	case strings.HasPrefix(s, "unix:"):
		path := strings.TrimPrefix(s, "unix:")
		if path == "" {
			path = DefaultSocket()
		}
		return []target{{"unix", path}}, localHostname(), nil
	}
	s = strings.TrimPrefix(s, "pcp://")
	if strings.ContainsAny(s, "@?/") {
		return nil, "", fmt.Errorf("pmcd: host spec %q: proxies, attributes and paths are not supported", spec)
	}
	host, portStr := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return nil, "", fmt.Errorf("pmcd: host spec %q: missing ']'", spec)
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return nil, "", fmt.Errorf("pmcd: host spec %q: unexpected %q after ']'", spec, rest)
			}
			portStr = rest[1:]
		}
	case strings.Count(s, ":") == 1:
		host, portStr, _ = strings.Cut(s, ":")
	}
	if host == "" {
		return nil, "", fmt.Errorf("pmcd: host spec %q: no host name", spec)
	}
	if portStr != "" {
		// libpcp accepts a list of ports; the first is used here.
		first, _, _ := strings.Cut(portStr, ",")
		p, err := strconv.Atoi(first)
		if err != nil || p <= 0 || p > 65535 {
			return nil, "", fmt.Errorf("pmcd: host spec %q: bad port %q", spec, first)
		}
		port = p
	}
	return []target{{"tcp", net.JoinHostPort(host, strconv.Itoa(port))}}, host, nil
}

func defaultPort() int {
	if v := os.Getenv("PMCD_PORT"); v != "" {
		first, _, _ := strings.Cut(v, ",")
		if p, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && p > 0 && p <= 65535 {
			return p
		}
	}
	return DefaultPort
}

func localHostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "localhost"
}

// DefaultSocket is the path of pmcd's unix socket: $PMCD_SOCKET, or
// pmcd.socket in $PCP_RUN_DIR (from the environment, or from the PCP
// configuration file $PCP_CONF, default /etc/pcp.conf), or
// /run/pcp/pmcd.socket.
func DefaultSocket() string {
	if p := os.Getenv("PMCD_SOCKET"); p != "" {
		return p
	}
	return filepath.Join(pcpconf.Get("PCP_RUN_DIR", "/run/pcp"), "pmcd.socket")
}

// connect dials the targets in turn, stopping at the first that completes
// the handshake.
func (c *Client) connect() error {
	if len(c.targets) == 0 {
		return &ConnError{Op: "connecting to " + describeSpec(c.spec), Err: errors.New("no address to connect to")}
	}
	var errs attemptErrors
	for _, t := range c.targets {
		conn, err := c.dialOne(t)
		if err == nil {
			c.conn, c.addr, c.lostErr, c.profiled = conn, t, nil, false
			return nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return &ConnError{Op: "connecting to " + describeSpec(c.spec), Err: errs}
}

// attemptErrors are the failures of each address tried, in order.
type attemptErrors []error

func (e attemptErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = strings.TrimPrefix(err.Error(), "pmcd: connecting to ")
	}
	return strings.Join(s, "; ")
}

// Unwrap gives the last attempt's error first: it is the one libpcp
// reports (the TCP fallback of local:).
func (e attemptErrors) Unwrap() []error {
	r := make([]error, len(e))
	for i, err := range e {
		r[len(e)-1-i] = err
	}
	return r
}

func describeSpec(spec string) string {
	if spec == "" {
		return "local:"
	}
	return spec
}

// dialOne connects to t and completes the handshake through Go's net
// package (connect timeout, name resolution), then takes the socket over
// (rawConn) for the requests.
func (c *Client) dialOne(t target) (pduConn, error) {
	d := net.Dialer{Timeout: c.cfg.connectTimeout}
	conn, err := d.Dial(t.network, t.addr)
	if err != nil {
		return nil, &ConnError{Op: "connecting to " + t.String(), Err: err}
	}
	if err := c.handshake(conn, t); err != nil {
		conn.Close()
		return nil, err
	}
	if rc := newRawConn(conn); rc != nil {
		return rc, nil
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// HandshakeError is pmcd refusing a connection, or a handshake this
// client cannot complete. Code is the PCP error (translated from the PCP
// 1.x code pmcd uses in the handshake).
type HandshakeError struct {
	Addr   string
	Code   pmapi.Error
	Detail string
}

func (e *HandshakeError) Error() string {
	msg := "pmcd: handshake with " + e.Addr + ": "
	if e.Detail != "" {
		msg += e.Detail + ": "
	}
	return msg + e.Code.Error()
}

// Unwrap gives the PCP error code.
func (e *HandshakeError) Unwrap() error { return e.Code }

// handshake reads pmcd's opening ERROR PDU and sends CREDS.
func (c *Client) handshake(conn net.Conn, t target) error {
	if c.cfg.connectTimeout > 0 {
		conn.SetDeadline(time.Now().Add(c.cfg.connectTimeout))
	}
	c.pend = c.pend[:0]
	typ, pdu, err := readPDU(conn, &c.pend, &c.sbuf, c.cfg.maxPDU)
	if err != nil {
		return wrapReadErr(err, "handshake with "+t.String()+": reading pmcd's greeting")
	}
	countPDU(&c.counts.Received, typ)
	if typ != pduError {
		return &DecodeError{PDU: pduName(typ), Detail: "received instead of the ERROR PDU that opens the handshake"}
	}
	code, datum, ext, err := decodeError(pdu)
	if err != nil {
		return err
	}
	code = xlateErr1To2(code)
	if !ext {
		// A short (16-byte) greeting is not a version-2 pmcd.
		return &HandshakeError{Addr: t.String(), Code: pmapi.ErrIPC, Detail: fmt.Sprintf("16-byte greeting (code %d), not a PDU version 2 pmcd", code)}
	}
	if code != 0 {
		return &HandshakeError{Addr: t.String(), Code: pmapi.Error(code), Detail: "connection refused by pmcd"}
	}
	version := int(datum >> 24)
	features := Features(datum & 0xffff)
	if version != pduVersion2 {
		return &HandshakeError{Addr: t.String(), Code: pmapi.ErrIPC, Detail: fmt.Sprintf("unsupported PDU version %d", version)}
	}
	if features&FeatureCertReqd != 0 {
		return &HandshakeError{Addr: t.String(), Code: pmapi.ErrNeedClientCert, Detail: "pmcd requires a TLS client certificate"}
	}
	// CREDS: one credential word, CVERSION, the PDU version, the flags
	// asked for (CREDS_REQD is echoed, CONTAINER asked for a container
	// when pmcd offers it; no TLS or SASL).
	flags := uint32(features & FeatureCredsReqd)
	container := c.cfg.container != "" && features&FeatureContainer != 0
	if container {
		flags |= uint32(FeatureContainer)
	}
	b := startPDU(c.wbuf, pduCreds, c.pid)
	b = appendU32(b, 1)
	b = appendU32(b, credsVersion<<24|pduVersion2<<16|flags)
	c.wbuf = finishPDU(b)
	c.counts.countSent(c.wbuf)
	if _, err := conn.Write(c.wbuf); err != nil {
		return &ConnError{Op: "handshake with " + t.String() + ": sending CREDS", Err: err}
	}
	if container {
		// ATTR: PCP_ATTR_CONTAINER and the name, unpadded (as
		// libpcp's __pmSendAttr sends it); pmcd does not answer.
		b = startPDU(c.wbuf, pduAttr, 0)
		b = appendU32(b, attrContainer)
		b = append(b, c.cfg.container...)
		c.wbuf = finishPDU(b)
		c.counts.countSent(c.wbuf)
		if _, err := conn.Write(c.wbuf); err != nil {
			return &ConnError{Op: "handshake with " + t.String() + ": sending ATTR", Err: err}
		}
	}
	c.features, c.version = features, version
	return nil
}

// readPDU reads one whole PDU into *buf (grown as needed, reused). Each
// read asks for as much as the buffer holds, so a PDU that has arrived
// whole takes one read; bytes read past its end (the next PDU, as when
// pmcd sends a state-change notice and then a result) are kept in *pend,
// where the next call starts.
func readPDU(r io.Reader, pend *[]byte, buf *[]byte, maxPDU int) (uint32, []byte, error) {
	b := *buf
	if size := max(256, len(*pend)); cap(b) < size {
		b = make([]byte, size)
	}
	b = b[:cap(b)]
	have := copy(b, *pend)
	*pend = (*pend)[:0]
	*buf = b[:0]
	// fill reads until at least need bytes are in b (ReadFull's errors:
	// io.EOF when none came, io.ErrUnexpectedEOF when some did).
	fill := func(need int) error {
		start := have
		for have < need {
			n, err := r.Read(b[have:])
			have += n
			if err != nil && have < need {
				if err == io.EOF && have > start {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
		}
		return nil
	}
	if err := fill(hdrLen); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(b)
	typ := binary.BigEndian.Uint32(b[4:])
	if n < hdrLen {
		return typ, nil, &DecodeError{PDU: pduName(typ), Detail: fmt.Sprintf("length %d is shorter than the %d-byte header", n, hdrLen)}
	}
	if uint64(n) > uint64(maxPDU) {
		return typ, nil, &DecodeError{PDU: pduName(typ), Detail: fmt.Sprintf("length %d is over the %d-byte limit", n, maxPDU)}
	}
	if cap(b) < int(n) {
		nb := make([]byte, max(int(n), 2*cap(b)))
		copy(nb, b[:have])
		b = nb
		*buf = b[:0]
	}
	if err := fill(int(n)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return typ, nil, fmt.Errorf("%s PDU of %d bytes: %w", pduName(typ), n, err)
	}
	if have > int(n) {
		*pend = append(*pend, b[n:have]...)
	}
	*buf = b[:n]
	return typ, b[:n], nil
}

// wrapReadErr turns a readPDU error into a ConnError (I/O) or leaves a
// DecodeError as it is.
func wrapReadErr(err error, op string) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("connection closed by pmcd (%w)", err)
	}
	return &ConnError{Op: op, Err: err}
}

// ---------------------------------------------------------------------------
// Requests.

// drop closes the connection after err, which it returns.
func (c *Client) drop(err error) error {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	c.pend = c.pend[:0]
	c.flight = flight{}
	c.lostErr = err
	return err
}

func (c *Client) ready(op string) error {
	if c.InFlight() {
		return ErrFetchInFlight
	}
	if c.conn == nil {
		cause := c.lostErr
		if cause == nil {
			cause = ErrNotConnected
		} else {
			cause = fmt.Errorf("%w (lost: %v)", ErrNotConnected, cause)
		}
		return &ConnError{Op: op, Err: cause}
	}
	return nil
}

// send starts a request: it sets the request's deadline and writes pdu.
func (c *Client) send(pdu []byte, op string) error {
	if c.cfg.timeout > 0 {
		c.conn.SetDeadline(time.Now().Add(c.cfg.timeout))
	}
	c.counts.countSent(pdu)
	if _, err := c.conn.Write(pdu); err != nil {
		return c.drop(&ConnError{Op: op + ": sending request", Err: err})
	}
	return nil
}

// recv reads the next reply PDU into *buf.
func (c *Client) recv(buf *[]byte, op string) (uint32, []byte, error) {
	typ, pdu, err := readPDU(c.conn, &c.pend, buf, c.cfg.maxPDU)
	if err != nil {
		return 0, nil, c.drop(wrapReadErr(err, op+": reading reply"))
	}
	countPDU(&c.counts.Received, typ)
	return typ, pdu, nil
}

// call sends the request in c.wbuf and reads one reply into c.sbuf. An
// ERROR reply with a negative code is returned as that pmapi.Error; a
// reply of a type other than want is a DecodeError.
func (c *Client) call(req uint32, want uint32) ([]byte, error) {
	if err := c.send(c.wbuf, pduName(req)); err != nil {
		return nil, err
	}
	return c.reply(req, want)
}

// reply reads the reply to a request of type req (see call).
func (c *Client) reply(req uint32, want uint32) ([]byte, error) {
	op := pduName(req)
	for {
		typ, pdu, err := c.recv(&c.sbuf, op)
		if err != nil {
			return nil, err
		}
		if typ == pduError && len(pdu) >= hdrLen+4 {
			if code := int32(binary.BigEndian.Uint32(pdu[hdrLen:])); code > 0 {
				// pmcd sends state changes before fetch results; should
				// one come before another reply, keep it for Fetch.
				c.changes |= uint32(code)
				continue
			}
		}
		return c.checkReply(req, want, typ, pdu)
	}
}

func (c *Client) checkReply(req, want, typ uint32, pdu []byte) ([]byte, error) {
	if typ == want {
		return pdu, nil
	}
	if typ == pduError {
		code, _, _, err := decodeError(pdu)
		if err != nil {
			return nil, c.drop(err)
		}
		if code < 0 {
			return nil, pmapi.Error(code)
		}
		return nil, c.drop(&DecodeError{PDU: "ERROR", Detail: fmt.Sprintf("code %d in reply to %s", code, pduName(req))})
	}
	return nil, c.drop(&DecodeError{PDU: pduName(typ), Detail: fmt.Sprintf("received in reply to %s (expected %s)", pduName(req), pduName(want))})
}

// decoded drops the connection if a reply could not be decoded.
func (c *Client) decoded(err error) error {
	if err != nil {
		return c.drop(err)
	}
	return nil
}

// PDUCounts returns the PDUs the client has sent and received so far,
// over every connection it made.
func (c *Client) PDUCounts() PDUCounts { return c.counts }

// Features returns the feature bits pmcd offered in the handshake.
func (c *Client) Features() Features { return c.features }

// Addr describes the address connected to ("unix:/run/pcp/pmcd.socket",
// "localhost:44321").
func (c *Client) Addr() string { return c.addr.String() }

// Host returns pmcd's answer for pmcd.hostname, fetched once and
// remembered, or, when that fails, the host named in the spec (the local
// host name for local: and unix:). It does not disturb the Result of the
// last Fetch.
func (c *Client) Host() string {
	if c.host != "" {
		return c.host
	}
	if h := c.fetchHostname(); h != "" {
		c.host = h
		return h
	}
	return c.specHost
}

func (c *Client) fetchHostname() string {
	ids, err := c.LookupNames([]string{"pmcd.hostname"})
	if err != nil || len(ids) != 1 || ids[0] == pmapi.PMIDNull {
		return ""
	}
	c.hostIDs = append(c.hostIDs[:0], ids[0])
	res, changes, err := c.fetch(c.hostIDs, &c.sbuf, &c.hostRB)
	c.changes |= changes // they belong to the caller's next Fetch
	if err != nil || len(res.VSets) != 1 || len(res.VSets[0].Values) != 1 {
		return ""
	}
	v := res.VSets[0].Values[0]
	if v.BlockType != pmapi.TypeString {
		return ""
	}
	s := v.Block
	for len(s) > 0 && s[len(s)-1] == 0 {
		s = s[:len(s)-1]
	}
	return string(s)
}

// LookupNames returns one PMID per name, pmapi.PMIDNull for a name pmcd
// does not know or that is not a leaf (PMNS_NAMES → PMNS_IDS). Long lists
// are sent in several requests to stay under pmcd's 64 KiB request limit.
func (c *Client) LookupNames(names []string) ([]pmapi.PMID, error) {
	out := make([]pmapi.PMID, 0, len(names))
	for len(names) > 0 {
		n, size := 0, hdrLen+12
		for n < len(names) {
			sz := 4 + (len(names[n])+3)&^3
			if size+sz > maxRequest && n > 0 {
				break
			}
			size += sz
			n++
		}
		if size > maxRequest {
			return nil, fmt.Errorf("pmcd: PMNS_NAMES: name of %d bytes is too long for one request", len(names[0]))
		}
		ids, err := c.lookupBatch(names[:n])
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
		names = names[n:]
	}
	return out, nil
}

func (c *Client) lookupBatch(names []string) ([]pmapi.PMID, error) {
	if err := c.ready("PMNS_NAMES"); err != nil {
		return nil, err
	}
	strBytes := 0
	for _, n := range names {
		strBytes += len(n) + 1
	}
	b := startPDU(c.wbuf, pduPMNSNames, 0)
	b = appendU32(b, uint32(strBytes))
	b = appendU32(b, 0)
	b = appendU32(b, uint32(len(names)))
	for _, n := range names {
		b = appendU32(b, uint32(len(n)))
		b = appendStr(b, n)
	}
	c.wbuf = finishPDU(b)
	pdu, err := c.call(pduPMNSNames, pduPMNSIDs)
	if err != nil {
		if err == pmapi.ErrName || err == pmapi.ErrNonLeaf {
			// None of the names is a known leaf.
			ids := make([]pmapi.PMID, len(names))
			for i := range ids {
				ids[i] = pmapi.PMIDNull
			}
			return ids, nil
		}
		return nil, err
	}
	_, ids, err := decodeIDs(pdu)
	if err == nil && len(ids) != len(names) {
		err = &DecodeError{PDU: "PMNS_IDS", Detail: fmt.Sprintf("%d PMIDs for %d names", len(ids), len(names))}
	}
	if err != nil {
		return nil, c.drop(err)
	}
	return ids, nil
}

// nameReq sends a PMNS_TRAVERSE or PMNS_CHILD request for name and
// decodes the PMNS_NAMES reply.
func (c *Client) nameReq(req uint32, subtype uint32, name string) ([]string, []int32, error) {
	op := pduName(req)
	if err := c.ready(op); err != nil {
		return nil, nil, err
	}
	if hdrLen+8+len(name)+3 > maxRequest {
		return nil, nil, fmt.Errorf("pmcd: %s: name of %d bytes is too long", op, len(name))
	}
	b := startPDU(c.wbuf, req, 0)
	b = appendU32(b, subtype)
	b = appendU32(b, uint32(len(name)))
	b = appendStr(b, name)
	c.wbuf = finishPDU(b)
	pdu, err := c.call(req, pduPMNSNames)
	if err != nil {
		return nil, nil, err
	}
	names, status, err := decodeNames(pdu)
	if err != nil {
		return nil, nil, c.drop(err)
	}
	return names, status, nil
}

// Traverse returns the leaf names at or below name in pmcd's order; a leaf
// returns itself, "" the whole namespace. An unknown name is
// pmapi.ErrName.
func (c *Client) Traverse(name string) ([]string, error) {
	names, _, err := c.nameReq(pduPMNSTraverse, 0, name)
	return names, err
}

// Children returns the names of the children of a namespace node ("" for
// the root) and whether each is a leaf. A leaf has no children. An
// unknown name is pmapi.ErrName.
func (c *Client) Children(name string) (names []string, leaf []bool, err error) {
	names, status, err := c.nameReq(pduPMNSChild, 1, name)
	if err != nil {
		return nil, nil, err
	}
	leaf = make([]bool, len(names))
	for i := range leaf {
		leaf[i] = status == nil || status[i] == 0
	}
	return names, leaf, nil
}

// NamesOf returns every name of pmid (PMNS_IDS → PMNS_NAMES).
func (c *Client) NamesOf(pmid pmapi.PMID) ([]string, error) {
	if r, ok := c.prefetched(MetaRequest{Kind: MetaNames, Ident: uint32(pmid)}); ok {
		return r.names, r.err
	}
	if err := c.ready("PMNS_IDS"); err != nil {
		return nil, err
	}
	c.wbuf = encodeMeta(c.wbuf, MetaRequest{Kind: MetaNames, Ident: uint32(pmid)})
	pdu, err := c.call(pduPMNSIDs, pduPMNSNames)
	r := c.metaReply(MetaNames, pdu, err)
	return r.names, r.err
}

// Desc returns the descriptor of pmid (DESC_REQ → DESC).
func (c *Client) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if err := c.ready("DESC_REQ"); err != nil {
		return pmapi.Desc{}, err
	}
	b := startPDU(c.wbuf, pduDescReq, 0)
	b = appendU32(b, uint32(pmid))
	c.wbuf = finishPDU(b)
	pdu, err := c.call(pduDescReq, pduDesc)
	if err != nil {
		return pmapi.Desc{}, err
	}
	d, err := decodeDesc(pdu)
	return d, c.decoded(err)
}

// Descs returns the descriptors of pmids in one exchange (DESC_IDS →
// DESCS) when pmcd has the DESCS feature, else one DESC_REQ per PMID. A
// PMID pmcd has no descriptor for gets a Desc whose PMID is
// pmapi.PMIDNull (pmcd's own answer in DESCS).
func (c *Client) Descs(pmids []pmapi.PMID) ([]pmapi.Desc, error) {
	if len(pmids) == 0 {
		return []pmapi.Desc{}, nil // pmcd would answer PM_ERR_IPC
	}
	if c.features&FeatureDescs == 0 || hdrLen+8+4*len(pmids) > maxRequest {
		out := make([]pmapi.Desc, len(pmids))
		for i, id := range pmids {
			d, err := c.Desc(id)
			var pe pmapi.Error
			if errors.As(err, &pe) && c.conn != nil {
				d, err = pmapi.Desc{PMID: pmapi.PMIDNull}, nil
			}
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	if err := c.ready("DESC_IDS"); err != nil {
		return nil, err
	}
	b := startPDU(c.wbuf, pduDescIDs, 0)
	b = appendU32(b, 0xffffffff)
	b = appendU32(b, uint32(len(pmids)))
	for _, id := range pmids {
		b = appendU32(b, uint32(id))
	}
	c.wbuf = finishPDU(b)
	pdu, err := c.call(pduDescIDs, pduDescs)
	if err != nil {
		return nil, err
	}
	ds, err := decodeDescs(pdu)
	if err == nil && len(ds) != len(pmids) {
		err = &DecodeError{PDU: "DESCS", Detail: fmt.Sprintf("%d descriptors for %d PMIDs", len(ds), len(pmids))}
	}
	if err != nil {
		return nil, c.drop(err)
	}
	return ds, nil
}

// instanceReq sends INSTANCE_REQ for indom (inst -1 and name "" for all
// instances) and decodes the INSTANCE reply.
func (c *Client) instanceReq(indom pmapi.InDom, inst int32, name string) ([]int32, []string, error) {
	if err := c.ready("INSTANCE_REQ"); err != nil {
		return nil, nil, err
	}
	if hdrLen+20+len(name)+3 > maxRequest {
		return nil, nil, fmt.Errorf("pmcd: INSTANCE_REQ: instance name of %d bytes is too long", len(name))
	}
	b := startPDU(c.wbuf, pduInstanceReq, 0)
	b = appendU32(b, uint32(indom))
	b = appendU32(b, 0) // timestamp, unused live
	b = appendU32(b, 0)
	b = appendU32(b, uint32(inst))
	b = appendU32(b, uint32(len(name)))
	b = appendStr(b, name)
	c.wbuf = finishPDU(b)
	pdu, err := c.call(pduInstanceReq, pduInstance)
	if err != nil {
		return nil, nil, err
	}
	_, insts, names, err := decodeInstance(pdu)
	if err != nil {
		return nil, nil, c.drop(err)
	}
	return insts, names, nil
}

// InDom returns the instances of indom as they are now, in pmcd's order.
func (c *Client) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	return c.instanceReq(indom, -1, "")
}

// InstName returns the external name of instance inst of indom.
func (c *Client) InstName(indom pmapi.InDom, inst int32) (string, error) {
	_, names, err := c.instanceReq(indom, inst, "")
	if err != nil {
		return "", err
	}
	if len(names) != 1 {
		return "", c.drop(&DecodeError{PDU: "INSTANCE", Detail: fmt.Sprintf("%d instances in reply to a lookup of one", len(names))})
	}
	return names[0], nil
}

// InstID returns the instance id of the instance of indom named name.
func (c *Client) InstID(indom pmapi.InDom, name string) (int32, error) {
	insts, _, err := c.instanceReq(indom, -1, name)
	if err != nil {
		return 0, err
	}
	if len(insts) != 1 {
		return 0, c.drop(&DecodeError{PDU: "INSTANCE", Detail: fmt.Sprintf("%d instances in reply to a lookup of one", len(insts))})
	}
	return insts[0], nil
}

// Labels returns the label sets of one type (archive.LabelContext,
// LabelDomain, LabelInDom, LabelCluster, LabelItem or LabelInstances) for
// ident: PM_ID_NULL for the context, a domain number, an indom, or a PMID
// (for cluster and item). No labels (or a pmcd without the LABELS
// feature) is an empty slice and a nil error. Each label's Flags carry
// the type bit and the compound/optional bits as pmcd sent them.
func (c *Client) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	if c.features&FeatureLabels == 0 && c.conn != nil {
		return []archive.LabelSet{}, nil
	}
	if r, ok := c.prefetched(MetaRequest{Kind: MetaLabels, Type: typ, Ident: ident}); ok {
		return r.sets, r.err
	}
	if err := c.ready("LABEL_REQ"); err != nil {
		return nil, err
	}
	c.wbuf = encodeMeta(c.wbuf, MetaRequest{Kind: MetaLabels, Type: typ, Ident: ident})
	pdu, err := c.call(pduLabelReq, pduLabel)
	r := c.metaReply(MetaLabels, pdu, err)
	return r.sets, r.err
}

// Text returns help text: typ is archive.TextOneLine or TextHelp or-ed
// with archive.TextPMID or TextInDom. pmcd answers pmapi.ErrText when
// there is none; it may also answer with an empty text, returned as ""
// and a nil error. (pmcd's TEXT reply carries a wrongly swapped ident, so
// it is not checked: replies are matched by order.)
func (c *Client) Text(typ uint32, ident uint32) (string, error) {
	if r, ok := c.prefetched(MetaRequest{Kind: MetaText, Type: typ, Ident: ident}); ok {
		return r.text, r.err
	}
	if err := c.ready("TEXT_REQ"); err != nil {
		return "", err
	}
	c.wbuf = encodeMeta(c.wbuf, MetaRequest{Kind: MetaText, Type: typ, Ident: ident})
	pdu, err := c.call(pduTextReq, pduText)
	r := c.metaReply(MetaText, pdu, err)
	return r.text, r.err
}

// InDomProfile restricts the instances pmcd returns for an instance
// domain to Insts (SetProfile).
type InDomProfile struct {
	InDom pmapi.InDom
	Insts []int32
}

// SetProfile sets the instance profile of the fetches that follow, as
// pmDelProfile and pmAddProfile set libpcp's: every instance, but for the
// instance domains of p, whose values pmcd returns only for the
// instances listed. It is sent with the next fetch, when it differs from
// the profile pmcd has (PROFILE, as libpcp sends it when its profile
// changed). nil is every instance of every domain. p is kept: the
// caller must not change it.
func (c *Client) SetProfile(p []InDomProfile) { c.profile = p }

func sameProfile(a, b []InDomProfile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].InDom != b[i].InDom || !slices.Equal(a[i].Insts, b[i].Insts) {
			return false
		}
	}
	return true
}

// sendProfile sends the PROFILE of c.profile (no reply): include every
// instance, with an entry per restricted instance domain (exclude all
// but its instances), then the instances of each entry.
func (c *Client) sendProfile() error {
	b := startPDU(c.wbuf, pduProfile, 0)
	b = appendU32(b, 0) // context number
	b = appendU32(b, profileIncludeAll)
	b = appendU32(b, uint32(len(c.profile)))
	b = appendU32(b, 0)
	for _, p := range c.profile {
		b = appendU32(b, uint32(p.InDom))
		b = appendU32(b, profileExclude)
		b = appendU32(b, uint32(len(p.Insts)))
		b = appendU32(b, 0)
	}
	for _, p := range c.profile {
		for _, in := range p.Insts {
			b = appendU32(b, uint32(in))
		}
	}
	c.wbuf = finishPDU(b)
	if err := c.send(c.wbuf, "PROFILE"); err != nil {
		return err
	}
	c.profiled, c.sentProf = true, c.profile
	return nil
}

// Fetch fetches the current values of pmids, all instances, with
// HIGHRES_FETCH (or FETCH when pmcd lacks the HIGHRES feature; the
// timestamp then has microsecond precision). The include-all PROFILE is
// sent first on each new connection. The Result, and the value blocks it
// holds (which alias the client's PDU buffer), stay valid until the next
// Fetch; they can be passed to archive.Writer.PutResult as they are. A
// PMID pmcd cannot supply has a value set whose NumVal is a negative
// pmapi.Error. The state-change codes pmcd sent before the result
// (PMCD_ADD_AGENT 1, RESTART_AGENT 2, DROP_AGENT 4, LABEL_CHANGE 8,
// NAMES_CHANGE 16) are or-ed into changes. An empty pmids is
// pmapi.ErrTooSmall, as in libpcp (pmcd itself would answer PM_ERR_IPC).
func (c *Client) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	return c.fetch(pmids, &c.rbuf, &c.rb)
}

func (c *Client) fetch(pmids []pmapi.PMID, buf *[]byte, rb *resultBuf) (*pmapi.Result, uint32, error) {
	pdu, typ, changes, err := c.fetchPDU(pmids, buf)
	if err != nil {
		return nil, changes, err
	}
	res, err := rb.decode(pdu, typ)
	if err != nil {
		return nil, changes, c.drop(err)
	}
	return res, changes, nil
}

// FetchPDU is Fetch without the decoding: it returns the reply, a
// RESULT or HIGHRES_RESULT PDU of type typ (header included, valid until
// c's next call), not checked beyond its header. The caller must either
// pass it to DecodeResult or prove it well formed itself (as a PDU of
// the same shape as one DecodeResult accepted).
func (c *Client) FetchPDU(pmids []pmapi.PMID) (pdu []byte, typ uint32, changes uint32, err error) {
	return c.fetchPDU(pmids, &c.rbuf)
}

// DecodeResult decodes a PDU from FetchPDU, as Fetch would have: an
// error drops the connection.
func (c *Client) DecodeResult(pdu []byte, typ uint32) (*pmapi.Result, error) {
	res, err := c.rb.decode(pdu, typ)
	if err != nil {
		return nil, c.drop(err)
	}
	return res, nil
}

func (c *Client) fetchPDU(pmids []pmapi.PMID, buf *[]byte) ([]byte, uint32, uint32, error) {
	if err := c.StartFetch(pmids); err != nil {
		return nil, 0, 0, err
	}
	return c.finishFetch(buf)
}

// flight is a fetch sent and not yet answered (req 0: none).
type flight struct {
	req, want uint32
	changes   uint32 // state changes seen before it was sent
}

// StartFetch sends the fetch FetchPDU would send (the PROFILE first on a
// new connection) and returns without waiting for the reply, which
// FinishFetchPDU reads. Until then every other request fails with
// ErrFetchInFlight. A recorder that samples often sends each sample's
// fetch at its time and reads the reply at the next sample's time, when
// it has long been there: one wake-up per sample instead of two (the
// timer's and the reply's). Errors are FetchPDU's; after one nothing is
// in flight.
func (c *Client) StartFetch(pmids []pmapi.PMID) error {
	req, want := uint32(pduHighresFetch), uint32(pduHighresResult)
	if c.features&FeatureHighres == 0 {
		req, want = pduFetch, pduResult
	}
	op := pduName(req)
	if err := c.ready(op); err != nil {
		return err
	}
	if len(pmids) == 0 {
		// As libpcp's pmFetch; pmcd would answer PM_ERR_IPC.
		return pmapi.ErrTooSmall
	}
	if n := hdrLen + 16 + 4*len(pmids); n > maxRequest {
		return fmt.Errorf("pmcd: %s of %d PMIDs (%d bytes) is over pmcd's %d-byte request limit", op, len(pmids), n, maxRequest)
	}
	if !c.profiled || !sameProfile(c.profile, c.sentProf) {
		if err := c.sendProfile(); err != nil {
			return err
		}
	}
	b := startPDU(c.wbuf, req, 0)
	b = appendU32(b, 0) // context number
	b = appendU32(b, 0) // unused timestamp
	b = appendU32(b, 0)
	b = appendU32(b, uint32(len(pmids)))
	for _, id := range pmids {
		b = appendU32(b, uint32(id))
	}
	c.wbuf = finishPDU(b)
	if err := c.send(c.wbuf, op); err != nil {
		return err
	}
	c.flight = flight{req: req, want: want, changes: c.changes}
	c.changes = 0
	return nil
}

// FinishFetchPDU reads the reply to the fetch StartFetch sent, waiting
// for it (until the request's deadline) if it is not there yet, and
// returns what FetchPDU would have. The reply is tried before any wait.
// Without a fetch in flight it fails.
func (c *Client) FinishFetchPDU() (pdu []byte, typ uint32, changes uint32, err error) {
	if !c.InFlight() {
		return nil, 0, 0, errors.New("pmcd: FinishFetchPDU without StartFetch")
	}
	if rc, ok := c.conn.(*rawConn); ok {
		rc.replySent()
	}
	return c.finishFetch(&c.rbuf)
}

// InFlight reports whether a fetch StartFetch sent awaits FinishFetchPDU.
func (c *Client) InFlight() bool { return c.flight.req != 0 }

// finishFetch reads the reply to the fetch in flight into *buf.
func (c *Client) finishFetch(buf *[]byte) ([]byte, uint32, uint32, error) {
	f := c.flight
	c.flight = flight{}
	op := pduName(f.req)
	changes := f.changes
	for {
		typ, pdu, err := c.recv(buf, op)
		if err != nil {
			return nil, 0, changes, err
		}
		if typ == pduError {
			code, _, _, err := decodeError(pdu)
			if err != nil {
				return nil, 0, changes, c.drop(err)
			}
			if code > 0 {
				// A state change; the result follows.
				changes |= uint32(code)
				continue
			}
		}
		if _, err := c.checkReply(f.req, f.want, typ, pdu); err != nil {
			return nil, 0, changes, err
		}
		return pdu, typ, changes, nil
	}
}

// Lost reports whether err (from one of c's methods) means the connection
// to pmcd is gone: an I/O failure, a malformed PDU, or a request made
// while disconnected. Reconnect re-establishes it.
func (c *Client) Lost(err error) bool {
	if err == nil {
		return false
	}
	var ce *ConnError
	var de *DecodeError
	var he *HandshakeError
	return errors.As(err, &ce) || errors.As(err, &de) || errors.As(err, &he) || c.conn == nil
}

// Reconnect drops the connection, if any, and connects again to the same
// spec: the handshake, and the PROFILE again before the next fetch.
func (c *Client) Reconnect() error {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	c.pend = c.pend[:0]
	c.flight = flight{}
	clear(c.pre)
	if err := c.connect(); err != nil {
		c.lostErr = err
		return err
	}
	return nil
}

// Close closes the connection. Later requests fail with a ConnError until
// Reconnect.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	c.pend = c.pend[:0]
	c.flight = flight{}
	clear(c.pre)
	c.lostErr = errors.New("closed")
	return err
}

// Code maps an error from the client to the PCP error code libpcp would
// report for it: a pmapi.Error as it is (including one inside a
// HandshakeError), a system error as its negated errno, a timeout as
// pmapi.ErrTimeout, any other connection or PDU failure as pmapi.ErrIPC.
// nil gives 0.
func Code(err error) pmapi.Error {
	if err == nil {
		return 0
	}
	var pe pmapi.Error
	if errors.As(err, &pe) {
		return pe
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return pmapi.Error(-int32(errno))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return pmapi.ErrTimeout
	}
	return pmapi.ErrIPC
}

// Store asks pmcd to change metric values (pmStore): a RESULT PDU, as
// libpcp sends it (microsecond timestamp, usually zero), answered by ERROR
// 0 on success. Values are sent as r holds them: Insitu words, or blocks
// with BlockType for ValFmtDptr/ValFmtSptr sets. pmlogger uses it to set
// pmcd.client.whoami for its own connection.
func (c *Client) Store(r *pmapi.Result) error {
	if err := c.ready("RESULT"); err != nil {
		return err
	}
	b, err := AppendResultPDU(c.wbuf[:0], r)
	if err != nil {
		return err
	}
	if len(b) > maxRequest {
		return fmt.Errorf("pmcd: RESULT: store of %d bytes is over pmcd's %d-byte request limit", len(b), maxRequest)
	}
	c.wbuf = b
	if err := c.send(c.wbuf, "RESULT"); err != nil {
		return err
	}
	typ, pdu, err := c.recv(&c.sbuf, "RESULT")
	if err != nil {
		return err
	}
	if typ != pduError {
		return c.drop(&DecodeError{PDU: pduName(typ), Detail: "received in reply to RESULT (expected ERROR)"})
	}
	code, _, _, err := decodeError(pdu)
	if err != nil {
		return c.drop(err)
	}
	if code < 0 {
		return pmapi.Error(code)
	}
	return nil
}

// AppendResultPDU appends r to b encoded as a RESULT PDU, as libpcp
// sends one to store values and as pmcd answers a FETCH (sec:i32,
// usec:i32, numpmid, value sets, then the value blocks, each pointed at
// by its offset in words from the PDU start). DecodeResultPDU reads it
// back; test sources use the pair to serve fetches as pmcd would.
func AppendResultPDU(b []byte, r *pmapi.Result) ([]byte, error) {
	b = startPDU(b, pduResult, 0)
	b = appendU32(b, uint32(int32(r.Timestamp.Sec)))
	b = appendU32(b, uint32(r.Timestamp.Nsec/1000))
	b = appendU32(b, uint32(len(r.VSets)))
	size := len(b)
	for _, vs := range r.VSets {
		size += 8
		if vs.NumVal > 0 {
			if int(vs.NumVal) != len(vs.Values) {
				return b, fmt.Errorf("pmcd: RESULT: PMID %s: NumVal %d with %d values", vs.PMID, vs.NumVal, len(vs.Values))
			}
			size += 4 + 8*len(vs.Values)
		}
	}
	blockOff := size
	for _, vs := range r.VSets {
		b = appendU32(b, uint32(vs.PMID))
		if vs.NumVal <= 0 {
			b = appendU32(b, uint32(vs.NumVal))
			continue
		}
		b = appendU32(b, uint32(vs.NumVal))
		b = appendU32(b, uint32(vs.ValFmt))
		for _, v := range vs.Values {
			b = appendU32(b, uint32(v.Inst))
			switch vs.ValFmt {
			case pmapi.ValFmtInsitu:
				b = appendU32(b, uint32(v.Insitu))
			case pmapi.ValFmtDptr, pmapi.ValFmtSptr:
				if len(v.Block)+4 > 0xffffff {
					return b, fmt.Errorf("pmcd: RESULT: PMID %s: value block of %d bytes is too long", vs.PMID, len(v.Block))
				}
				b = appendU32(b, uint32(blockOff/4))
				blockOff += (len(v.Block) + 4 + 3) &^ 3
			default:
				return b, fmt.Errorf("pmcd: RESULT: PMID %s: bad valfmt %d", vs.PMID, vs.ValFmt)
			}
		}
	}
	for _, vs := range r.VSets {
		if vs.NumVal <= 0 || vs.ValFmt == pmapi.ValFmtInsitu {
			continue
		}
		for _, v := range vs.Values {
			b = appendU32(b, uint32(v.BlockType)<<24|uint32(len(v.Block)+4))
			b = appendStr(b, string(v.Block))
		}
	}
	return finishPDU(b), nil
}

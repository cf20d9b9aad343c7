package pmcd

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// NewAgent talks to a PMDA over a connection to it (a daemon PMDA's
// stdout to read, its stdin to write), as pmcd talks to the agents it
// starts: the agent opens with a CREDS PDU carrying its PDU version and
// flags, and pmcd answers with its own (PDU version 2, and PDU_FLAG_AUTH
// if the agent asked for it).
//
// The Client then sends an agent what pmcd forwards to one: DESC_REQ,
// INSTANCE_REQ, TEXT_REQ, LABEL_REQ, PROFILE and FETCH, and the PMNS
// requests for names below the agent's dynamic namespace roots, one name
// at a time (LookupNames with one name; an agent answers PM_ERR_IPC to
// more). Descs, Host and Reconnect are pmcd's alone and must not be used.
// Requests carry context number 0.
//
// Features are the flags the agent asked for in its CREDS, with
// FeatureLabels.
//
// conn's SetDeadline, when it has one (an *os.File pipe does), bounds
// the handshake and each request as for pmcd.
func NewAgent(conn io.ReadWriteCloser, opts ...Option) (*Client, error) {
	cfg := config{connectTimeout: DefaultConnectTimeout, timeout: envSeconds("PMCD_REQUEST_TIMEOUT", DefaultTimeout), maxPDU: DefaultMaxPDU}
	for _, o := range opts {
		o(&cfg)
	}
	pc, ok := conn.(pduConn)
	if !ok {
		pc = noDeadline{conn}
	}
	c := &Client{cfg: cfg, spec: "agent", specHost: "localhost", pid: uint32(os.Getpid())}
	if err := c.agentHandshake(pc); err != nil {
		return nil, err
	}
	c.conn, c.addr = pc, target{"pipe", "agent"}
	return c, nil
}

// noDeadline is a connection without deadlines.
type noDeadline struct{ io.ReadWriteCloser }

func (noDeadline) SetDeadline(time.Time) error { return nil }

// agentHandshake reads the agent's CREDS and answers with pmcd's.
func (c *Client) agentHandshake(conn pduConn) error {
	if c.cfg.connectTimeout > 0 {
		conn.SetDeadline(time.Now().Add(c.cfg.connectTimeout))
		defer conn.SetDeadline(time.Time{})
	}
	typ, pdu, err := readPDU(conn, &c.pend, &c.sbuf, c.cfg.maxPDU)
	if err != nil {
		return wrapReadErr(err, "handshake with agent: reading its CREDS")
	}
	countPDU(&c.counts.Received, typ)
	if typ != pduCreds {
		return &DecodeError{PDU: pduName(typ), Detail: "received instead of the CREDS PDU that opens an agent's handshake"}
	}
	r := newReader(pdu, typ)
	n := r.count("numcred", 4)
	var flags uint32
	version := -1
	for i := 0; i < n; i++ {
		w := r.u32("credential")
		if w>>24 == credsVersion {
			version, flags = int(w>>16&0xff), w&0xffff
		}
	}
	if r.err != nil {
		return r.err
	}
	if version != pduVersion2 {
		return &HandshakeError{Addr: "agent", Code: pmapi.ErrIPC, Detail: fmt.Sprintf("agent's PDU version %d", version)}
	}
	b := startPDU(c.wbuf, pduCreds, c.pid)
	b = appendU32(b, 1)
	b = appendU32(b, credsVersion<<24|pduVersion2<<16|flags&uint32(FeatureAuth))
	c.wbuf = finishPDU(b)
	c.counts.countSent(c.wbuf)
	if _, err := conn.Write(c.wbuf); err != nil {
		return &ConnError{Op: "handshake with agent: sending CREDS", Err: err}
	}
	// An agent is asked for labels (PDU_FLAG_LABELS is pmcd's to
	// offer; an agent without them answers with an error).
	c.version, c.features = version, Features(flags)|FeatureLabels
	return nil
}

// Connection attributes an ATTR PDU carries (PCP_ATTR_* in libpcp).
const (
	AttrUserID    = 11 // PCP_ATTR_USERID: the client's uid, in decimal
	AttrGroupID   = 12 // PCP_ATTR_GROUPID: its gid
	AttrProcessID = 14 // PCP_ATTR_PROCESSID: its pid
	AttrContainer = attrContainer
)

// SendAttr sends one connection attribute (an ATTR PDU; there is no
// reply). pmcd sends an agent that asked for PDU_FLAG_AUTH (see
// Features) the attributes of each client, with the terminating NUL of
// the value, as this does: the proc PMDA, for one, lets a client see the
// processes its uid may see.
func (c *Client) SendAttr(key uint32, value string) error {
	if err := c.ready("ATTR"); err != nil {
		return err
	}
	b := startPDU(c.wbuf, pduAttr, 0)
	b = appendU32(b, key)
	b = append(b, value...)
	b = append(b, 0)
	c.wbuf = finishPDU(b)
	return c.send(c.wbuf, "ATTR")
}

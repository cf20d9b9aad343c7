// Package pmcd is a client of the Performance Co-Pilot metrics collector
// daemon, pmcd, written in Go: it speaks pmcd's PDU protocol itself over
// TCP or pmcd's unix socket, with no libpcp and no cgo.
//
// Dial connects and completes pmcd's server-first handshake (pmcd opens
// with an ERROR PDU carrying its PDU version and feature bits; the client
// answers with CREDS). The Client then offers the PMAPI operations a
// logger needs, each one request and one reply:
//
//	LookupNames   PMNS_NAMES    → PMNS_IDS
//	NamesOf       PMNS_IDS      → PMNS_NAMES
//	Children      PMNS_CHILD    → PMNS_NAMES
//	Traverse      PMNS_TRAVERSE → PMNS_NAMES
//	Desc, Descs   DESC_REQ → DESC, DESC_IDS → DESCS
//	InDom, ...    INSTANCE_REQ  → INSTANCE
//	Labels        LABEL_REQ     → LABEL
//	Text          TEXT_REQ      → TEXT
//	Fetch         [PROFILE] HIGHRES_FETCH → HIGHRES_RESULT (or FETCH → RESULT)
//	Store         RESULT        → ERROR 0
//
// Prefetch sends many NamesOf, Labels and Text requests back to back
// (pmcd answers them in order) and keeps the replies for the calls that
// follow, so that a recorder's start-up takes a few round trips instead
// of hundreds.
//
// Any request may be answered by an ERROR PDU instead; its code is
// returned as a pmapi.Error. Before a fetch's result pmcd may send ERROR
// PDUs with positive codes, state-change flags, which Fetch returns (any
// seen before another reply are kept and returned by the next Fetch).
//
// Fetch decodes the result into a pmapi.Result whose slices, and whose
// value blocks (which alias the PDU), are reused by the next Fetch, so a
// steady fetch loop does not allocate. The Result is in the form
// archive.Writer.PutResult writes: insitu values in Value.Insitu, pointer
// values as Value.Block (the payload of the value block, without its
// header) with its type in Value.BlockType.
//
// Every PDU from pmcd is checked before use: a PDU that is truncated,
// longer than the limit (DefaultMaxPDU, see WithMaxPDU), shorter than its
// header or otherwise malformed gives a *DecodeError naming the PDU type
// and the fault, and the connection is dropped. Reads and writes have
// deadlines (WithTimeout, WithConnectTimeout).
//
// On Linux the client connects and completes the handshake through Go's
// net package, then drives the socket itself (rawconn_linux.go): a
// request is one sendto, its reply one ppoll (whose timeout is the
// request deadline) and usually one read of the whole PDU, with no
// network poller, timers or goroutine wake-ups in between. A fetch loop
// costs a fraction of the CPU it does through net.Conn
// (docs/benchmarks.md, section "pmlogger"). A Client implements
// source.Source and source.Reconnector: after an error for which Lost
// reports true, Reconnect dials again and redoes the handshake; the
// profile is sent again before the next fetch.
//
// docs/pmcd-protocol.md records what was learned from the real pmcd.
package pmcd

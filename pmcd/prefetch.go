package pmcd

import (
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// MetaKind is the kind of a MetaRequest.
type MetaKind uint8

// The requests Prefetch can send ahead.
const (
	MetaNames  MetaKind = iota + 1 // NamesOf(pmapi.PMID(Ident))
	MetaLabels                     // Labels(Type, Ident)
	MetaText                       // Text(Type, Ident)
)

// A MetaRequest is one NamesOf, Labels or Text call, for Prefetch.
type MetaRequest struct {
	Kind  MetaKind
	Type  uint32 // label or text type (not for MetaNames)
	Ident uint32 // the PMID for MetaNames
}

type metaResult struct {
	names []string
	sets  []archive.LabelSet
	text  string
	err   error
}

// prefetchBatch is how many requests Prefetch writes at once before it
// reads their replies: few enough that the requests always fit in the
// socket buffer, so that neither side can block writing while the
// other does.
const prefetchBatch = 64

// Prefetch sends the requests to pmcd back to back, in batches, and
// keeps the replies: the next NamesOf, Labels or Text call with the
// same arguments returns its reply (or error) as the call would have,
// without a round trip of its own. pmcd answers requests in order, one
// reply each, so a batch costs one write and a few reads instead of a
// write, a wait and a read per request. A recorder that is about to
// write the metadata of many metrics uses it. Replies not used are
// dropped by the next Prefetch (Prefetch(nil) drops them), Reconnect
// and Close.
//
// The error is for the connection (the Client has dropped it): the
// replies read before the failure are kept, the calls for the others
// fail as they would have.
func (c *Client) Prefetch(reqs []MetaRequest) error {
	if c.pre == nil {
		c.pre = map[MetaRequest]metaResult{}
	}
	clear(c.pre)
	batch := make([]MetaRequest, 0, prefetchBatch)
	for len(reqs) > 0 {
		if err := c.ready("prefetch"); err != nil {
			return err
		}
		batch = batch[:0]
		c.bbuf = c.bbuf[:0]
		for len(reqs) > 0 && len(batch) < prefetchBatch {
			r := reqs[0]
			reqs = reqs[1:]
			if _, dup := c.pre[r]; dup || containsMeta(batch, r) {
				continue
			}
			if r.Kind == MetaLabels && c.features&FeatureLabels == 0 {
				continue // Labels answers these itself
			}
			if r.Kind != MetaNames && r.Kind != MetaLabels && r.Kind != MetaText {
				continue
			}
			c.wbuf = encodeMeta(c.wbuf, r)
			c.bbuf = append(c.bbuf, c.wbuf...)
			batch = append(batch, r)
		}
		if len(batch) == 0 {
			continue
		}
		if err := c.send(c.bbuf, "prefetch"); err != nil {
			return err
		}
		for i, r := range batch {
			if i > 0 && c.cfg.timeout > 0 {
				// Each reply has the time a request has.
				c.conn.SetDeadline(time.Now().Add(c.cfg.timeout))
			}
			req, want := metaPDUs(r.Kind)
			pdu, err := c.reply(req, want)
			res := c.metaReply(r.Kind, pdu, err)
			if c.conn == nil {
				return res.err
			}
			c.pre[r] = res
		}
	}
	return nil
}

func containsMeta(list []MetaRequest, r MetaRequest) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

// prefetched takes the reply Prefetch kept for r, if any.
func (c *Client) prefetched(r MetaRequest) (metaResult, bool) {
	if len(c.pre) == 0 {
		return metaResult{}, false
	}
	res, ok := c.pre[r]
	if ok {
		delete(c.pre, r)
	}
	return res, ok
}

// metaPDUs are the request and reply PDU types of a kind.
func metaPDUs(k MetaKind) (req, want uint32) {
	switch k {
	case MetaNames:
		return pduPMNSIDs, pduPMNSNames
	case MetaLabels:
		return pduLabelReq, pduLabel
	default:
		return pduTextReq, pduText
	}
}

// encodeMeta encodes r's request PDU in b[:0].
func encodeMeta(b []byte, r MetaRequest) []byte {
	switch r.Kind {
	case MetaNames:
		b = startPDU(b, pduPMNSIDs, 0)
		b = appendU32(b, 0)
		b = appendU32(b, 1)
		b = appendU32(b, r.Ident)
	case MetaLabels:
		b = startPDU(b, pduLabelReq, 0)
		b = appendU32(b, r.Ident)
		b = appendU32(b, r.Type)
	default:
		b = startPDU(b, pduTextReq, 0)
		b = appendU32(b, r.Ident)
		b = appendU32(b, r.Type)
	}
	return finishPDU(b)
}

// metaReply turns the reply to a request of kind k (from call or reply)
// into what NamesOf, Labels or Text return.
func (c *Client) metaReply(k MetaKind, pdu []byte, err error) metaResult {
	if err != nil {
		if k == MetaLabels && err == pmapi.ErrNoLabels {
			return metaResult{sets: []archive.LabelSet{}}
		}
		return metaResult{err: err}
	}
	var r metaResult
	switch k {
	case MetaNames:
		r.names, _, err = decodeNames(pdu)
	case MetaLabels:
		_, _, r.sets, err = decodeLabels(pdu)
	default:
		_, r.text, err = decodeText(pdu)
	}
	if err != nil {
		return metaResult{err: c.drop(err)}
	}
	return r
}

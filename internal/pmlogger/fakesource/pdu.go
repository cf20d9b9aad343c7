package fakesource

import (
	"encoding/binary"
	"errors"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
)

// PDUSource serves the fake source's fetches as pmcd's client does:
// replies as RESULT PDUs (FetchPDU, DecodeResult), and fetches that can
// be left in flight (StartFetch, FinishFetchPDU), so that the logger
// takes its fast path and defers replies as it does with a real pmcd.
// The sample is taken by StartFetch; FinishFetchPDU hands over its
// reply, or its error. Like the pmcd client, it refuses a request made
// with a fetch in flight (ErrInFlight).
type PDUSource struct {
	*Source
	pdu      []byte
	changes  uint32
	err      error
	inflight bool
}

// ErrInFlight is the error of a request made between StartFetch and
// FinishFetchPDU.
var ErrInFlight = errors.New("fakesource: a fetch is in flight")

// NewPDU wraps s.
func NewPDU(s *Source) *PDUSource { return &PDUSource{Source: s} }

// FetchPDU fetches pmids and returns the reply as a RESULT PDU.
func (p *PDUSource) FetchPDU(pmids []pmapi.PMID) ([]byte, uint32, uint32, error) {
	if err := p.StartFetch(pmids); err != nil {
		return nil, 0, 0, err
	}
	return p.FinishFetchPDU()
}

// StartFetch takes the sample and keeps its reply for FinishFetchPDU.
func (p *PDUSource) StartFetch(pmids []pmapi.PMID) error {
	if p.inflight {
		return ErrInFlight
	}
	res, changes, err := p.Source.Fetch(pmids)
	p.changes, p.err = changes, err
	if err == nil {
		p.pdu, p.err = pmcd.AppendResultPDU(p.pdu[:0], res)
	}
	p.inflight = true
	return nil
}

// FinishFetchPDU returns the reply of the fetch StartFetch took.
func (p *PDUSource) FinishFetchPDU() ([]byte, uint32, uint32, error) {
	if !p.inflight {
		return nil, 0, 0, errors.New("fakesource: FinishFetchPDU without StartFetch")
	}
	p.inflight = false
	if p.err != nil {
		return nil, 0, p.changes, p.err
	}
	return p.pdu, binary.BigEndian.Uint32(p.pdu[4:]), p.changes, nil // the header's type
}

// DecodeResult decodes a PDU from FetchPDU or FinishFetchPDU.
func (p *PDUSource) DecodeResult(pdu []byte, typ uint32) (*pmapi.Result, error) {
	return pmcd.DecodeResultPDU(pdu, typ)
}

// Fetch fetches pmids (not with a fetch in flight).
func (p *PDUSource) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	if p.inflight {
		return nil, 0, ErrInFlight
	}
	return p.Source.Fetch(pmids)
}

// The metadata requests, refused with a fetch in flight.

func (p *PDUSource) LookupNames(names []string) ([]pmapi.PMID, error) {
	if p.inflight {
		return nil, ErrInFlight
	}
	return p.Source.LookupNames(names)
}

func (p *PDUSource) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if p.inflight {
		return pmapi.Desc{}, ErrInFlight
	}
	return p.Source.Desc(pmid)
}

func (p *PDUSource) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	if p.inflight {
		return nil, nil, ErrInFlight
	}
	return p.Source.InDom(indom)
}

// Reconnect drops the fetch in flight, as the pmcd client does.
func (p *PDUSource) Reconnect() error {
	p.inflight = false
	return p.Source.Reconnect()
}

func (p *PDUSource) Traverse(name string) ([]string, error) {
	if p.inflight {
		return nil, ErrInFlight
	}
	return p.Source.Traverse(name)
}

func (p *PDUSource) NamesOf(pmid pmapi.PMID) ([]string, error) {
	if p.inflight {
		return nil, ErrInFlight
	}
	return p.Source.NamesOf(pmid)
}

func (p *PDUSource) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	if p.inflight {
		return nil, ErrInFlight
	}
	return p.Source.Labels(typ, ident)
}

func (p *PDUSource) Text(typ uint32, ident uint32) (string, error) {
	if p.inflight {
		return "", ErrInFlight
	}
	return p.Source.Text(typ, ident)
}

package pmlogger

import (
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/source"
)

// nsSource is a source whose names come from a PMNS file (-n), as
// pmLoadASCIINameSpace makes libpcp resolve them locally: names are
// looked up, traversed and found by PMID in the file; descriptors,
// values and the rest come from the source. A PMID of the file that the
// source does not have is the source's error when it is described (a
// warning for that metric, the others logged).
type nsSource struct {
	source.Source
	ns *pmns.Namespace
}

// LookupNames resolves names in the file.
func (s *nsSource) LookupNames(names []string) ([]pmapi.PMID, error) {
	out := make([]pmapi.PMID, len(names))
	for i, n := range names {
		out[i] = pmapi.PMIDNull
		if p, ok := s.ns.Lookup(n); ok {
			out[i] = p
		}
	}
	return out, nil
}

// Traverse lists the file's leaves at or below name.
func (s *nsSource) Traverse(name string) ([]string, error) {
	names := s.ns.Traverse(name)
	if len(names) == 0 {
		return nil, pmapi.ErrName
	}
	return names, nil
}

// NamesOf names a PMID from the file.
func (s *nsSource) NamesOf(pmid pmapi.PMID) ([]string, error) {
	names := s.ns.Names(pmid)
	if len(names) == 0 {
		return nil, pmapi.ErrPMID
	}
	return names, nil
}

// Descs keeps the source's batched descriptor lookups (descBatcher).
func (s *nsSource) Descs(pmids []pmapi.PMID) ([]pmapi.Desc, error) {
	if b, ok := s.Source.(descBatcher); ok {
		return b.Descs(pmids)
	}
	out := make([]pmapi.Desc, len(pmids))
	for i, p := range pmids {
		d, err := s.Source.Desc(p)
		if err != nil {
			d = pmapi.Desc{PMID: pmapi.PMIDNull}
		}
		out[i] = d
	}
	return out, nil
}

// Prefetch sends the source's requests ahead (metaPrefetcher), but for
// names, which the file answers.
func (s *nsSource) Prefetch(reqs []pmcd.MetaRequest) error {
	pf, ok := s.Source.(metaPrefetcher)
	if !ok {
		return nil
	}
	out := make([]pmcd.MetaRequest, 0, len(reqs))
	for _, r := range reqs {
		if r.Kind != pmcd.MetaNames {
			out = append(out, r)
		}
	}
	return pf.Prefetch(out)
}

// Lost passes a Reconnector's answer through.
func (s *nsSource) Lost(err error) bool {
	if rc, ok := s.Source.(source.Reconnector); ok {
		return rc.Lost(err)
	}
	return false
}

// Reconnect passes through to the source's Reconnector.
func (s *nsSource) Reconnect() error {
	if rc, ok := s.Source.(source.Reconnector); ok {
		return rc.Reconnect()
	}
	return pmapi.ErrIPC
}

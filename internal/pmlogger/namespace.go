package pmlogger

import (
	"errors"

	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/source"
)

// wrapped is a source wrapped in another (DerivedSource, nsSource): what
// the wrapper does not answer goes to it, reconnection included.
type wrapped struct{ source.Source }

// Unwrap is the wrapped source (source.Wrapper).
func (w wrapped) Unwrap() source.Source { return w.Source }

// Lost passes a Reconnector's answer through.
func (w wrapped) Lost(err error) bool {
	if rc, ok := w.Source.(source.Reconnector); ok {
		return rc.Lost(err)
	}
	return false
}

// Reconnect passes through to the source's Reconnector.
func (w wrapped) Reconnect() error {
	if rc, ok := w.Source.(source.Reconnector); ok {
		return rc.Reconnect()
	}
	return errors.New("pmlogger: the source cannot reconnect")
}

// SetProfile passes the instance profile to a source that takes one.
func (w wrapped) SetProfile(p []pmcd.InDomProfile) {
	if pr, ok := w.Source.(profiler); ok {
		pr.SetProfile(p)
	}
}

// prefetchBut sends ahead, when the source can (a metaPrefetcher), the
// requests but those the wrapper answers itself (answered).
func (w wrapped) prefetchBut(reqs []pmcd.MetaRequest, answered func(pmcd.MetaRequest) bool) error {
	pf, ok := w.Source.(metaPrefetcher)
	if !ok {
		return nil
	}
	out := make([]pmcd.MetaRequest, 0, len(reqs))
	for _, r := range reqs {
		if !answered(r) {
			out = append(out, r)
		}
	}
	return pf.Prefetch(out)
}

// sourceDescs is pmcd.Client.Descs of src: in one exchange when src can
// (a descBatcher), else one lookup per PMID; a PMID that cannot be
// described gets a descriptor with PMIDNull.
func sourceDescs(src source.Source, pmids []pmapi.PMID) ([]pmapi.Desc, error) {
	if b, ok := src.(descBatcher); ok {
		return b.Descs(pmids)
	}
	out := make([]pmapi.Desc, len(pmids))
	for i, p := range pmids {
		d, err := src.Desc(p)
		if err != nil {
			d = pmapi.Desc{PMID: pmapi.PMIDNull}
		}
		out[i] = d
	}
	return out, nil
}

// nsSource is a source whose names come from a PMNS file (-n), as
// pmLoadASCIINameSpace makes libpcp resolve them locally: names are
// looked up, traversed and found by PMID in the file; descriptors,
// values and the rest come from the source. A PMID of the file that the
// source does not have is the source's error when it is described (a
// warning for that metric, the others logged).
type nsSource struct {
	wrapped
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
	return sourceDescs(s.Source, pmids)
}

// Prefetch sends the source's requests ahead (metaPrefetcher), but for
// names, which the file answers.
func (s *nsSource) Prefetch(reqs []pmcd.MetaRequest) error {
	return s.prefetchBut(reqs, func(r pmcd.MetaRequest) bool { return r.Kind == pmcd.MetaNames })
}

// Package source defines where a recorder gets live metrics from: a pmcd
// (package pmcd), pcpkit's built-in /proc collector (package collector),
// or a fake used by tests. pmlogger records from any Source.
package source

import (
	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// Source is a live metrics source with the PMAPI operations a logger
// needs. Methods are called from one goroutine at a time.
type Source interface {
	// Host is the host name to record in the archive label and in
	// pmcd.pmlogger.host (pmcd's answer for pmcd.hostname, or the
	// local host name).
	Host() string

	// LookupNames returns one PMID per name, pmapi.PMIDNull for a name
	// the source does not know. The error is for the exchange itself.
	LookupNames(names []string) ([]pmapi.PMID, error)

	// Traverse returns the leaf names at or below name, in the source's
	// order; a leaf returns itself. An unknown name is pmapi.ErrName.
	Traverse(name string) ([]string, error)

	// NamesOf returns every name of a PMID.
	NamesOf(pmid pmapi.PMID) ([]string, error)

	// Desc returns the descriptor of a PMID.
	Desc(pmid pmapi.PMID) (pmapi.Desc, error)

	// InDom returns the instances of an instance domain as they are now:
	// ids and external names, in the source's order.
	InDom(indom pmapi.InDom) (insts []int32, names []string, err error)

	// Labels returns the label sets of one type (archive.LabelContext,
	// LabelDomain, LabelInDom, LabelCluster, LabelItem, LabelInstances)
	// for ident (PM_ID_NULL, a domain, an indom or a PMID). No labels is
	// an empty slice and a nil error.
	Labels(typ uint32, ident uint32) ([]archive.LabelSet, error)

	// Text returns help text; typ is archive.TextOneLine or TextHelp
	// or-ed with archive.TextPMID or TextInDom. An unknown ident is
	// pmapi.ErrText; a known one without that kind of text may be ""
	// with a nil error (pmcd answers so, and pmlogger stores the empty
	// text).
	Text(typ uint32, ident uint32) (string, error)

	// Fetch fetches the current values of pmids (all instances). The
	// Result and its value blocks stay valid only until the next call.
	// A PMID the source cannot supply has a value set whose NumVal is a
	// negative pmapi.Error. State-change flags that pmcd sent before the
	// result (PMCD_ADD_AGENT 1, RESTART_AGENT 2, DROP_AGENT 4,
	// LABEL_CHANGE 8, NAMES_CHANGE 16) are returned in changes.
	Fetch(pmids []pmapi.PMID) (res *pmapi.Result, changes uint32, err error)

	// Close releases the source.
	Close() error
}

// Reconnector is implemented by sources whose connection can be lost
// (pmcd). After a Fetch error for which Lost reports true, the logger
// calls Reconnect with back-off until it succeeds, then writes a <mark>.
type Reconnector interface {
	Lost(err error) bool
	Reconnect() error
}

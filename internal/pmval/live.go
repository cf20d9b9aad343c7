package pmval

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/metricspec"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/local"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// Live mode: pmval -h HOST, HOST:metric, or no source at all (pmcd on
// "local:"). The values come from a pmcd through the pure-Go client of
// package pmcd, and are reported as PCP 6.0.3's pmval reports a host
// context: no timestamps, no archive lines in the header, the first
// fetch at once and each later one an interval after the previous
// line was printed (pmval sleeps for the interval between fetches, it
// does not keep a schedule). Counters are rates between two successive
// fetches over the time between pmcd's timestamps of them, so a counter
// needs one fetch more than the lines it prints.
//
// Derived metrics ($PCP_DERIVED_CONFIG, --derived) are evaluated as
// libpcp evaluates them in a host context: a name pmcd's PMNS (or -n's)
// does not have is looked up among them, their operands are bound
// against pmcd's metrics (pmLookupName, pmLookupDesc), and each fetch
// asks pmcd for the metric (which pmcd answers with an error) and its
// operands, then computes the metric from those (source.Derived, as
// pmlogger and pminfo do; delta() and rate() from the previous fetch,
// over the time between pmcd's timestamps).

// liveConn is where live mode's metrics come from: a pmcd
// (*pmcd.Client) or a local context's PMDAs (*local.Source).
type liveConn interface {
	source.Source
	InstID(indom pmapi.InDom, name string) (int32, error)
	InstName(indom pmapi.InDom, inst int32) (string, error)
	Store(res *pmapi.Result) error
}

// liveSource is the metric source of live mode: one pmcd, or a local
// context.
type liveSource struct {
	c liveConn
	// profile, when -i (or the metric specification) names instances,
	// holds them: pmval's pmAddProfile, applied to each fetch here
	// since the client always fetches every instance.
	profile map[int32]bool

	d   *source.Derived // the derived metrics, bound against pmcd's metrics (-n's names)
	req [1]pmapi.PMID
}

// fetch fetches pmid's current values. The value set is a copy, which
// stays valid after the next fetch (the client reuses its buffers and
// the report loop keeps the previous fetch for rates).
func (s *liveSource) fetch(pmid pmapi.PMID) (*pmapi.Result, error) {
	s.req[0] = pmid
	// the metric, then the operands of a derived one
	res, _, err := s.d.Fetch(s.req[:])
	if err != nil {
		return nil, err
	}
	if len(res.VSets) != 1 {
		return nil, pmapi.ErrIPC
	}
	vs := res.VSets[0]
	out := &pmapi.Result{Timestamp: res.Timestamp, VSets: []pmapi.ValueSet{{PMID: vs.PMID, NumVal: vs.NumVal, ValFmt: vs.ValFmt}}}
	if vs.NumVal > 0 {
		vals := make([]pmapi.Value, 0, len(vs.Values))
		for _, v := range vs.Values {
			if s.profile != nil && !s.profile[v.Inst] {
				continue
			}
			if v.Block != nil {
				v.Block = bytes.Clone(v.Block)
			}
			vals = append(vals, v)
		}
		out.VSets[0].Values = vals
		out.VSets[0].NumVal = int32(len(vals))
	}
	return out, nil
}

// fetchErrText is libpcp's text for a failed fetch: pmcd's own error, a
// timeout, or, for a connection that broke (pmcd went away), an IPC
// failure.
func fetchErrText(err error) string {
	var code pmapi.Error
	if errors.As(err, &code) {
		return code.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return pmapi.ErrTimeout.Error()
	}
	return pmapi.ErrIPC.Error()
}

// openLive connects to the pmcd named by host and sets the run up as
// pmval does for a host context: the context's host name, the reporting
// zone's note, the metric and its instances, and a -x filter.
func (t *tool) openLive(spec *metricspec.Spec, host string) {
	o := t.o
	var c liveConn
	if o.local {
		c = t.openLocal()
	} else {
		pc, err := pmcd.Dial(host)
		if err != nil {
			t.fail("pmval: Cannot connect to PMCD on host \"%s\": %s\n", host, pmcd.DialErrorText(err))
		}
		c = pc
	}
	t.live = &liveSource{c: c, d: source.NewDerived(c, t.processRegistry(), source.DerivedOptions{Namespace: t.o.ns})}
	t.source = host
	t.host = c.Host()
	if t.host == "" {
		t.fail("pmval: Cannot evaluate context host name: %s\n", pmapi.Error(0).Error())
	}
	// pmGetContextOptions for a host: the zone's note (the zone itself
	// is not used, live reports have no timestamps).
	switch {
	case o.hostzone:
		t.zone = pcptime.LocalZone()
		fmt.Fprintf(t.out, "Note: timezone set to local timezone of host \"%s\"\n\n", t.host)
	case o.tzSet:
		t.zone = pcptime.LoadZone(o.tz)
		fmt.Fprintf(t.out, "Note: timezone set to \"TZ=%s\"\n\n", o.tz)
	default:
		t.zone = pcptime.LocalZone()
	}
	if !o.intervalSet || o.intervalSec == 0 && o.intervalNsec == 0 {
		o.intervalSec, o.intervalNsec = 1, 0
	}
	t.samples = o.samples
	if t.samples == 0 && !o.noSamples {
		t.samples = -1
	}
	if o.finish != nil {
		// -T: the window runs from now; the number of samples is
		// computed from it as for an archive, and a fetch stamped past
		// its end ends the report.
		now := time.Now()
		w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{End: o.finish}, pmapi.Timestamp{Sec: now.Unix(), Nsec: int32(now.Nanosecond())}, pmapi.Timestamp{Sec: getopt.UnknownEndSec}, t.zone)
		if perr != nil {
			t.fail("pmval: invalid time window.\n%s\n", perr.Message())
		}
		t.origin, t.finish, t.liveEnd = w.Origin, w.End, true
	}
	t.initLiveMetric(spec)
	t.initLiveInstances(spec)
	if o.filter != nil {
		t.storeFilter(*o.filter)
	}
}

// openLocal starts a local context (-L) over the PMDAs of -K's table
// (pmcd.conf's DSO PMDAs without -K).
func (t *tool) openLocal() *local.Source {
	ns, err := local.DefaultNamespace(pcpconf.VarDir())
	if err != nil {
		t.fail("pmval: Cannot establish local context: %s\n", archive.ErrText(pmapi.ErrPMNS))
	}
	table := t.o.localTable
	if table == nil {
		table = &pmctx.LocalTable{}
	}
	return local.New(table.PMDAs(), ns, t.errw)
}

// initLiveMetric looks the metric up (in the -n namespace when given,
// else in pmcd's), then among the derived metrics, and gets its
// descriptor from pmcd (a derived metric's from its expression).
func (t *tool) initLiveMetric(spec *metricspec.Spec) {
	c := t.live.c
	t.metric = spec.Metric
	var pmid pmapi.PMID
	var lerr error = pmapi.ErrName
	if t.o.ns != nil {
		if p, ok := t.o.ns.Lookup(spec.Metric); ok {
			pmid, lerr = p, nil
		} else if len(t.o.ns.Traverse(spec.Metric)) > 0 {
			lerr = pmapi.ErrNonLeaf
		}
	} else {
		ids, err := c.LookupNames([]string{spec.Metric})
		switch {
		case err != nil:
			lerr = err
		case len(ids) == 1 && ids[0] != pmapi.PMIDNull:
			pmid, lerr = ids[0], nil
		default:
			// pmcd answers PMID_NULL for a name that is not a leaf
			// too: tell the two apart as libpcp does.
			if leaves, err := c.Traverse(spec.Metric); err == nil && len(leaves) > 0 {
				lerr = pmapi.ErrNonLeaf
			}
		}
	}
	if errors.Is(lerr, pmapi.ErrName) || errors.Is(lerr, pmapi.ErrNonLeaf) {
		// libpcp's pmLookupName: a name the PMNS lacks may be derived
		if p, ok := t.lookupDerived(spec.Metric); ok {
			pmid, lerr = p, nil
		}
	}
	if lerr != nil {
		t.fail("pmval: pmLookupName(%s): %s\n", spec.Metric, archive.ErrText(lerr))
	}
	var d pmapi.Desc
	if dp, ok := t.derivedDesc(spec.Metric, pmid); ok {
		d = *dp
	} else {
		var err error
		if d, err = c.Desc(pmid); err != nil {
			t.fail("pmval: pmLookupDesc: %s\n", archive.ErrText(err))
		}
	}
	t.pmid, t.desc = pmid, d
	if d.InDom == pmapi.InDomNull && len(spec.Insts) > 0 {
		t.fail("pmval: %s: singular metrics do not have instances\n", spec.Metric)
	}
	if d.Type == pmapi.TypeEvent || d.Type == pmapi.TypeHighresEvent {
		t.events = true
	}
	t.setScale()
}

// initLiveInstances sets up the instances to report: those named with
// -i (or in the metric specification), else those pmcd has now.
func (t *tool) initLiveInstances(spec *metricspec.Spec) {
	ids := t.namedInstances(spec, func(n string) (int32, error) { return t.live.c.InstID(t.desc.InDom, n) })
	if t.desc.InDom == pmapi.InDomNull {
		return
	}
	if ids != nil {
		t.live.profile = ids
	} else {
		t.pairs = t.livePairs()
	}
	sort.Slice(t.pairs, func(i, j int) bool { return t.pairs[i].id < t.pairs[j].id })
}

// livePairs is the instance domain as pmcd has it now (pmGetInDom); a
// failure stops pmval.
func (t *tool) livePairs() []instPair {
	insts, names, err := t.live.c.InDom(t.desc.InDom)
	if err != nil {
		t.fail("pmval: pmGetInDom(%s): %s\n", t.desc.InDom, archive.ErrText(err))
	}
	out := make([]instPair, len(insts))
	for k, id := range insts {
		out[k] = instPair{id, names[k]}
	}
	return out
}

// storeFilter is -x: the value is stored to the metric (each instance
// reported, or the singular value) before fetching, as pmval's
// initfilters does; an event metric's filter is a string.
func (t *tool) storeFilter(text string) {
	typ := t.desc.Type
	if t.events {
		typ = pmapi.TypeString
	}
	v, err := pmapi.ParseValue(text, typ)
	if err != nil {
		switch {
		case errors.Is(err, strconv.ErrRange):
			t.fail("pmval: filter value \"%s\" is out of range for metric data type (PM_TYPE_%s)\n", text, typeStr(typ))
		case errors.Is(err, pmapi.ErrType):
			t.fail("pmval: filter \"%s\" incompatible with metric type (PM_TYPE_%s)\n", text, typeStr(typ))
		default:
			t.fail("pmval: failed to convert value \"%s\": %s\n", text, archive.ErrText(err))
		}
	}
	vs := pmapi.ValueSet{PMID: t.pmid}
	if len(t.pairs) == 0 {
		v.Inst = pmapi.InstNull
		vs.Values = []pmapi.Value{v}
	} else {
		for _, p := range t.pairs {
			v.Inst = p.id
			vs.Values = append(vs.Values, v)
		}
	}
	vs.NumVal = int32(len(vs.Values))
	if v.Block != nil {
		vs.ValFmt = pmapi.ValFmtDptr
	}
	if err := t.live.c.Store(&pmapi.Result{VSets: []pmapi.ValueSet{vs}}); err != nil {
		t.fail("pmval: store value \"%s\" failed: %s\n", text, archive.ErrText(err))
	}
}

// paramNameDesc is the first name and the descriptor of an event
// parameter, from the archive's metadata or from pmcd; ok false when
// there is no name, known false when there is no descriptor.
func (t *tool) paramNameDesc(pmid pmapi.PMID) (name string, d pmapi.Desc, ok, known bool) {
	if t.live != nil {
		names, err := t.live.c.NamesOf(pmid)
		if err != nil || len(names) == 0 {
			return "", d, false, false
		}
		d, err := t.live.c.Desc(pmid)
		return names[0], d, true, err == nil
	}
	meta := t.c.Meta()
	names := meta.Names(pmid)
	if len(names) == 0 {
		return "", d, false, false
	}
	dp, known := meta.Desc(pmid)
	if known {
		d = *dp
	}
	return names[0], d, true, known
}

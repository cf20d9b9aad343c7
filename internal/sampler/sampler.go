// Package sampler produces the samples PCP 6.0.3's pmrep reports for an
// archive: the metrics and columns it resolves from metric
// specifications, and, for each sample, every column's value as libpcp's
// fetchgroups convert it. pmreplay prints them as pmrep's CSV (or JSON
// Lines); pcp2arrow writes them as Parquet. Both are writers of one
// Sampler, so the rows they write are the rows pmrep prints.
//
// It does what pmrep does for an archive: the metrics are the leaves
// under the names given, in PMNS traversal order, each once; the columns
// are their instances as pmGetInDomArchive lists them; values come from
// one interpolated fetch of all the metrics per sample (PM_MODE_INTERP
// from the window's origin at the interval), through the conversions of
// libpcp's fetchgroups: counters as rates per second (none for the first
// sample, nor where the counter went backwards or an instance was
// missing from the sample before), values with units through a double,
// an instance only while pmGetInDom (as the fetchgroup caches it) names
// it.
package sampler

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/replay"
)

// Options are pmrep's options that decide which samples there are and
// what their values are.
type Options struct {
	Prog                  string // the tool's name, which error messages begin with
	Archive               string // -a: a base name, a directory, a list
	Interval              string // -t, pmParseInterval's format; "" is 1 second
	Start, Finish, Origin *string
	Samples               int // -s; -1: not given
	HostZone              bool
	TZ                    *string // -Z
	Raw                   bool    // -r: counters not converted to rates
	RawPrefer             bool    // -R: as -r, for the metrics whose Spec has no Type
	Align                 *string // -A
	Metrics               []string
	// Specs are the settings of metric specifications beyond their names
	// (pmrep's compact form, and metricsets), by their names in Metrics;
	// a leaf has the settings of the first specification that names it,
	// or its own when it is one.
	Specs map[string]*Spec
	// Derived are the derived metrics of -e (pmrep's list: definitions
	// "name=expression" and configuration files, "/..." or "./...",
	// separated by ";"), registered before the metrics are resolved.
	Derived string
	Filter  // -i, -j, -n, -J, -8, -9
	Scales  // -q, -Q, -b, -B, -y, -Y
	// SkipInvalid leaves out the metrics pmrep refuses (unknown names,
	// types it cannot report, not in the archive, bad derivations,
	// scales it cannot convert to) instead of failing: what reporting
	// every metric of an archive, or the same metrics of many archives,
	// needs. ErrNoMetrics when none is left.
	SkipInvalid bool
	Stderr      io.Writer // the derived metrics' warnings
}

// Column is one column of the report: an instance of a metric (or its
// one value).
type Column struct {
	Inst int32 // pmapi.InstNull for a singular metric
	Name string
}

// Metric is one metric of the report.
type Metric struct {
	Name  string
	PMID  pmapi.PMID
	Desc  pmapi.Desc
	Cols  []Column
	OType pmapi.Type // the type values are converted to
	// Vals are the values of the last sample, by column, after the
	// filters (-j, -J, -8, -9).
	Vals []Value
	fg   []Value          // the fetchgroup's values (Vals without filters)
	live []*regexp.Regexp // -j: the instance filters
	src  []int            // -i naming an instance twice: see sources
	spec *Spec            // its specification's settings (nil: none)
	lim  int              // its value limit (-8, -9)
	conv conversion       // the fetchgroup's conversion of its values
	// the instances of its last value set that were all in their
	// instance domain's cache, as filled the knownGen-th time
	known    []int32
	knownGen uint64
}

// Kind says which field of a Value holds it.
type Kind byte

// The kinds of values.
const (
	KindDouble   Kind = 'f' // F; float values too (exactly as floats)
	KindSigned   Kind = 'i' // I
	KindUnsigned Kind = 'u' // U
	KindString   Kind = 's' // S
)

// Value is one column's value in a sample. OK false: none (pmrep prints
// an empty field).
type Value struct {
	OK   bool
	Kind Kind
	F    float64
	I    int64
	U    uint64
	S    string
}

// Sampler replays an archive as pmrep does. Open it, then call Next for
// each sample; Metrics hold the sample's values.
type Sampler struct {
	o       *Options
	c       *replay.Context
	Zone    *pcptime.Zone // the time zone of -z, -Z or the local one
	Metrics []*Metric
	pmids   []pmapi.PMID
	origin  pmapi.Timestamp
	delta   int64
	left    int // samples left; -1: until the end
	started bool
	wrap    bool
	// filtering: Vals are the fetchgroup's values filtered (-j, -J, -8,
	// -9) or with columns repeated (-i)
	filtering bool
	// the fetchgroup's pmGetInDom cache, by instance domain
	indoms map[pmapi.InDom]*indomCache
	gens   uint64 // the instance domain caches filled so far
	prev   *pmapi.Result
	reg    *derive.Registry // the derived metrics
}

type indomCache struct {
	refreshed bool
	insts     map[int32]bool
	gen       uint64 // which filling of insts (Sampler.gens)
}

// ParseOption applies pmrep's option short (-t, -S, -T, -O, -s, -z,
// -Z, -r, -R, -A, -e, the filters' -i, -j, -n, -J, -8, -9 and the
// scales' -q, -Q, -b, -B, -y, -Y) with its
// argument arg to o. It returns false for any other
// option, and a complaint (without the tool's name, nor a newline) for a
// bad argument.
func (o *Options) ParseOption(short rune, arg string) (ok bool, complaint string) {
	switch short {
	case 't':
		o.Interval = arg
	case 'S':
		o.Start = &arg
	case 'T':
		o.Finish = &arg
	case 'O':
		o.Origin = &arg
	case 's':
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return true, fmt.Sprintf("-s requires a non-negative integer: %q", arg)
		}
		o.Samples = n
	case 'z':
		o.HostZone = true
	case 'Z':
		o.TZ = &arg
	case 'r':
		o.Raw = true
	case 'R':
		o.RawPrefer = true
	case 'A':
		o.Align = &arg
	case 'e':
		o.Derived += ";" + arg
	case 'q', 'Q', 'b', 'B', 'y', 'Y':
		o.Scales.parseOption(short, arg)
	default:
		return o.Filter.parseOption(short, arg)
	}
	return true, ""
}

// ErrNoMetrics is pmrep's complaint when no metric is left to report.
var ErrNoMetrics = errors.New("No compatible metrics found.\n")

// Open opens o.Archive and resolves the time window, the interval and the
// metrics as pmrep does. Its errors are pmrep's messages (ending in a
// newline).
func Open(o *Options) (*Sampler, error) {
	c, err := replay.Open(o.Archive)
	if err != nil {
		return nil, fmt.Errorf("Cannot open archive %s: %s\n", o.Archive, archive.ErrText(err))
	}
	// a sample reads its fetch and the one before (rates): the fetch
	// before that is done with, its memory filled again
	c.SetReuseAfter(2)
	r := &Sampler{o: o, c: c, indoms: map[pmapi.InDom]*indomCache{}, left: -1}
	fail := func(err error) (*Sampler, error) {
		c.Close()
		return nil, err
	}
	lab := c.Label()
	switch {
	case o.HostZone:
		r.Zone = pcptime.LoadZone(lab.TZ)
	case o.TZ != nil:
		r.Zone = pcptime.LoadZone(*o.TZ)
	default:
		r.Zone = pcptime.LocalZone()
	}
	end, err := c.End()
	if err != nil {
		end = lab.Start
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.Finish, Align: o.Align, Origin: o.Origin}, lab.Start, end, r.Zone)
	if perr != nil {
		return fail(fmt.Errorf("%s: invalid time window.\n%s\n", o.Prog, perr.Message()))
	}
	r.origin = w.Origin
	sec, nsec := int64(1), int64(0)
	if o.Interval != "" {
		var perr error
		sec, nsec, _, perr = pcptime.ParseInterval(o.Interval)
		if perr != nil {
			return fail(fmt.Errorf("%s: -t argument not in pmParseInterval(3) format:\n%s\n", o.Prog, perr.(*pcptime.ParseError).Message()))
		}
	}
	r.delta = sec*1e9 + nsec
	if r.delta <= 0 {
		return fail(errors.New("Interval must be greater than zero.\n"))
	}
	interval := tvReal(pmapi.Timestamp{Sec: sec, Nsec: int32(nsec)})
	switch {
	case o.Finish != nil:
		// pmrep: the samples that fit from the origin to the end
		runtime := tvReal(w.End) - tvReal(w.Origin)
		if o.Samples > 0 {
			// pmrep sets the interval to the window over the samples,
			// as the text of the Python float, which libpcp parses
			// again (pmParseInterval) into a timeval: microseconds
			r.left = max(2, o.Samples)
			step := runtime / float64(r.left-1)
			switch {
			case step == 0:
				// pmrep 6.0.3 fails here with a Python TypeError
				return fail(errors.New("Interval must be greater than zero.\n"))
			case step > 0:
				if sec, nsec, _, err := pcptime.ParseInterval(strconv.FormatFloat(step, 'g', -1, 64)); err == nil {
					r.delta = sec*1e9 + nsec
				} else {
					r.delta = int64(math.Round(step * 1e9))
				}
				r.delta -= r.delta % 1000
			}
			// (a negative step, a window ending before it starts,
			// does not parse: the interval stays)
		} else {
			r.left = int(runtime/interval + 1)
		}
	case o.Samples > 0:
		// (-s 0 is no limit, as not giving it)
		r.left = o.Samples
	}
	// In the environment, even empty, as libpcp and pmrep test it.
	_, r.wrap = os.LookupEnv("PCP_COUNTER_WRAP")
	c.SetWrap(r.wrap)
	// A sample reads its fetch and the one before (rates): the fetch
	// before that one is done with, its memory filled again.
	c.SetReuseAfter(2)
	// The process's derived metrics ($PCP_DERIVED_CONFIG, else the
	// system's), as libpcp makes them available in pmrep's context.
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	r.reg = derive.NewProcessRegistry(stderr)
	if err := r.registerDerived(stderr); err != nil {
		return fail(err)
	}
	c.UseDerived(r.reg, derive.EvalOptions{})
	if err := r.addMetrics(); err != nil {
		return fail(err)
	}
	if err := r.prepareFilters(); err != nil {
		return fail(err)
	}
	if err := r.prepareUnits(); err != nil {
		return fail(err)
	}
	return r, nil
}

// registerDerived registers the derived metrics of -e as pmrep does:
// each definition whose name the archive does not have, each
// configuration file loaded.
func (r *Sampler) registerDerived(stderr io.Writer) error {
	for _, d := range strings.Split(r.o.Derived, ";") {
		switch {
		case d == "":
		case strings.HasPrefix(d, "/") || strings.HasPrefix(d, "."):
			if _, err := r.reg.LoadConfig(d, stderr); err != nil {
				return fmt.Errorf("Failed to load derived metric definitions from file '%s':\n%s.\n", d, archive.ErrText(err))
			}
		default:
			name, expr, ok := strings.Cut(d, "=")
			if !ok {
				return errors.New("Failed to register derived metric:\nInvalid syntax (expected metric=expression).\n")
			}
			name, expr = strings.TrimSpace(name), strings.TrimSpace(expr)
			if _, err := r.c.LookupName(name); err == nil {
				continue // an archive's metric: kept
			}
			if _, ok := r.reg.Lookup(name); ok {
				continue // a derived metric already
			}
			if msg, err := r.reg.RegisterMetric(name, expr); err != nil {
				return fmt.Errorf("Failed to register derived metric:\n%s %s.\n", pmapi.ErrConv.Error(), msg)
			}
		}
	}
	return nil
}

// Close closes the archive.
func (r *Sampler) Close() error { return r.c.Close() }

// Meta is the archive's metadata (its label sets among them).
func (r *Sampler) Meta() *archive.Meta { return r.c.Meta() }

// Label is the archive's label (its host name, time zone).
func (r *Sampler) Label() *archive.Label { return r.c.Label() }

// Next fetches the next sample and converts its values into Metrics'
// Vals. It returns the sample's time, and false at the end of the
// samples (the archive's or the -s/-T limit). Its errors are messages
// ending in a newline.
func (r *Sampler) Next() (pmapi.Timestamp, bool, error) {
	if !r.started {
		r.started = true
		if err := r.c.SetMode(replay.Interp, r.origin, r.delta); err != nil {
			return pmapi.Timestamp{}, false, fmt.Errorf("%s: %s\n", r.o.Prog, archive.ErrText(err))
		}
	}
	if r.left == 0 {
		return pmapi.Timestamp{}, false, nil
	}
	res, err := r.c.Fetch(r.pmids)
	if errors.Is(err, pmapi.ErrEOL) {
		r.left = 0
		return pmapi.Timestamp{}, false, nil
	}
	if err != nil {
		return pmapi.Timestamp{}, false, fmt.Errorf("%s: %s\n", r.o.Prog, archive.ErrText(err))
	}
	if r.left > 0 {
		r.left--
	}
	r.sample(res)
	r.prev = res
	if r.filtering {
		r.filter()
	}
	return res.Timestamp, true, nil
}

// tvReal is a time as pmrep's Python sees it: a timeval (microseconds)
// turned into seconds by pmtimevalToReal.
func tvReal(t pmapi.Timestamp) float64 {
	t.Nsec -= t.Nsec % 1000
	return pcptime.ToReal(t)
}

// addMetrics resolves the metric specifications as pmrep does.
func (r *Sampler) addMetrics() error {
	meta := r.c.Meta()
	seen := map[pmapi.PMID]bool{}
	anon := map[string]bool{}
	// The archive's names with the derived metrics' grafted in (libpcp's
	// anonymous event.flags and event.missed among them), as
	// pmTraversePMNS walks them.
	var derived []string
	for _, m := range r.reg.Metrics() {
		derived = append(derived, m.Name)
	}
	tree := pmns.NewGrafted(meta.Traverse(""), derived)
	for _, spec := range r.o.Metrics {
		leaves := tree.Traverse(spec)
		if len(leaves) == 0 {
			if r.o.SkipInvalid {
				continue
			}
			return fmt.Errorf("Invalid metric %s (PM_ERR_NAME Unknown metric name).\n", spec)
		}
		for _, name := range leaves {
			sp := r.o.Specs[spec]
			if own, ok := r.o.Specs[name]; ok || slices.Contains(r.o.Metrics, name) {
				sp = own
			}
			if err := r.addLeaf(name, sp, seen, anon); err != nil && !r.o.SkipInvalid {
				return err
			}
		}
	}
	if len(r.Metrics) == 0 {
		return ErrNoMetrics
	}
	return nil
}

// addLeaf adds the metric name (a leaf of a specification) unless it is
// there already (seen: by PMID; anon: libpcp's anonymous metrics, by
// name), or returns pmrep's complaint about it.
func (r *Sampler) addLeaf(name string, sp *Spec, seen map[pmapi.PMID]bool, anon map[string]bool) error {
	meta := r.c.Meta()
	pmid, err := r.c.LookupName(name)
	if dm, ok := r.reg.Lookup(name); ok && dm.Anon && pmid == dm.PMID {
		// an anonymous metric: never in an archive
		if !anon[name] {
			anon[name] = true
			r.Metrics = append(r.Metrics, &Metric{Name: name, PMID: pmapi.PMIDNull,
				Desc: pmapi.Desc{PMID: pmapi.PMIDNull, Type: pmapi.TypeU32, InDom: pmapi.InDomNull, Sem: pmapi.SemDiscrete},
				Cols: []Column{{Inst: pmapi.InstNull}}})
			m := r.Metrics[len(r.Metrics)-1]
			m.Vals = make([]Value, 1)
			m.fg = m.Vals
			r.pmids = append(r.pmids, pmapi.PMIDNull)
		}
		return nil
	}
	if err != nil {
		return invalidMetric(name, pmapi.ErrName)
	}
	if seen[pmid] {
		return nil
	}
	d, err := r.c.Desc(pmid)
	if err != nil {
		if derive.IsDerived(pmid) {
			return invalidMetric(name, pmapi.ErrBadDerive)
		}
		return fmt.Errorf("Invalid metric %s (PM_ERR_PMID_LOG Metric not defined in the PCP archive log).\n", name)
	}
	switch d.Type {
	case pmapi.Type32, pmapi.TypeU32, pmapi.Type64, pmapi.TypeU64, pmapi.TypeFloat, pmapi.TypeDouble, pmapi.TypeString:
	default:
		return fmt.Errorf("Invalid metric %s (PM_ERR_TYPE Unknown or illegal metric type).\n", name)
	}
	seen[pmid] = true
	m := &Metric{Name: name, PMID: pmid, Desc: d, spec: sp}
	if d.InDom == pmapi.InDomNull {
		m.Cols = []Column{{Inst: pmapi.InstNull}}
	} else {
		hist := meta.InDomHistory(d.InDom)
		if len(hist) == 0 {
			return fmt.Errorf("Invalid metric %s (PM_ERR_INDOM_LOG Instance domain identifier not defined in the PCP archive log).\n", name)
		}
		for _, p := range unionPairs(hist) {
			m.Cols = append(m.Cols, Column{Inst: p.id, Name: p.name})
		}
		if len(m.Cols) == 0 {
			m.Cols = []Column{{Inst: pmapi.InstNull}}
		}
	}
	m.Vals = make([]Value, len(m.Cols))
	m.fg = m.Vals
	r.Metrics = append(r.Metrics, m)
	r.pmids = append(r.pmids, pmid)
	return nil
}

// invalidMetric is pmrep's message for a metric it cannot report:
// "Invalid metric NAME (PM_ERR_... text)." and a newline.
func invalidMetric(name string, code pmapi.Error) error {
	return fmt.Errorf("%s", "Invalid metric "+name+" ("+code.Name()+" "+code.Error()+").\n")
}

type instPair struct {
	id   int32
	name string
}

// unionPairs lists the instances of an instance domain over the whole
// archive as pmGetInDomArchive does: the snapshots newest first, each in
// instance order, every instance once.
func unionPairs(hist []archive.InDomSnapshot) []instPair {
	var out []instPair
	seen := map[int32]bool{}
	for i := len(hist) - 1; i >= 0; i-- {
		s := &hist[i]
		idx := make([]int, len(s.Insts))
		for k := range idx {
			idx[k] = k
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case s.Insts[a] < s.Insts[b]:
				return -1
			case s.Insts[a] > s.Insts[b]:
				return 1
			}
			return 0
		})
		for _, k := range idx {
			if !seen[s.Insts[k]] {
				seen[s.Insts[k]] = true
				out = append(out, instPair{s.Insts[k], s.Names[k]})
			}
		}
	}
	return out
}

// sample computes the values of every column from a fetch, as pmrep's
// fetchgroup items do. The items are walked last metric first (the
// fetchgroup links each new item in at the head of its list), which
// decides which of them refreshes an instance domain cache they share.
func (r *Sampler) sample(res *pmapi.Result) {
	for k := len(r.Metrics) - 1; k >= 0; k-- {
		m := r.Metrics[k]
		vs := &res.VSets[k]
		if vs.NumVal == 0 && m.Desc.Sem == pmapi.SemDiscrete {
			// the fetchgroup preserves discrete values while a
			// sample has none
			continue
		}
		for i := range m.fg {
			m.fg[i] = Value{}
		}
		if vs.NumVal < 0 {
			continue
		}
		var cache *indomCache
		if m.Desc.InDom != pmapi.InDomNull {
			if c, all := r.indomCache(m, vs); !all {
				cache = c
			}
		}
		for j := range vs.Values {
			v := &vs.Values[j]
			if cache != nil && !cache.insts[v.Inst] {
				continue // no name: a transient instance, skipped
			}
			col := j
			if m.src != nil || col >= len(m.Cols) || m.Cols[col].Inst != v.Inst && m.Desc.InDom != pmapi.InDomNull {
				// (the j-th value is most often the j-th column's)
				col = m.column(v.Inst)
			}
			if col < 0 {
				continue
			}
			if m.fg[col].OK {
				continue // the first of one instance is reported
			}
			r.convert(&m.fg[col], m, k, v, res)
		}
	}
}

// column is the column of instance inst, -1 if none.
func (m *Metric) column(inst int32) int {
	if m.Desc.InDom == pmapi.InDomNull {
		return 0
	}
	for i := range m.Cols {
		if m.Cols[i].Inst == inst {
			return i
		}
	}
	return -1
}

// indomCache is the fetchgroup's cache of pmGetInDom, one for each
// instance domain, shared by the metrics of that domain (libpcp 6.0.3's
// fetchgroup keeps one table of them). It is filled the first time an
// item of the domain looks at a fetch, values or none (a discrete
// metric's empty sample returns before that), and again whenever a fetch
// holds an instance it does not know, or after pmGetInDom failed; each
// time with the instance domain as of the context's time after the fetch
// (the next sample's), the latest one at or before it, an error when
// none is.
//
// It also says whether every instance of vs is in the cache. The
// instances of m's last value set found all there are noted (m.known):
// a value set with the same ones is not looked up again, value by value,
// until the cache is filled again.
func (r *Sampler) indomCache(m *Metric, vs *pmapi.ValueSet) (c *indomCache, all bool) {
	indom := m.Desc.InDom
	c = r.indoms[indom]
	if c == nil {
		c = &indomCache{}
		r.indoms[indom] = c
	}
	if c.refreshed {
		if m.knownGen == c.gen && sameInsts(vs.Values, m.known) {
			return c, true
		}
		for _, v := range vs.Values {
			if !c.insts[v.Inst] {
				c.refreshed = false
				break
			}
		}
		if c.refreshed {
			m.known, m.knownGen = m.known[:0], c.gen
			for _, v := range vs.Values {
				m.known = append(m.known, v.Inst)
			}
			return c, true
		}
	}
	c.insts = map[int32]bool{}
	r.gens++
	c.gen = r.gens
	t := r.c.Origin()
	s, ok := r.c.Meta().InDomAt(indom, t)
	// PM_ERR_INDOM_LOG before the first: asked again next time
	c.refreshed = ok && !t.Before(s.Stamp)
	if c.refreshed {
		for _, id := range s.Insts {
			c.insts[id] = true
		}
	}
	return c, false
}

// sameInsts says whether vals are of the instances insts, in order.
func sameInsts(vals []pmapi.Value, insts []int32) bool {
	if len(vals) != len(insts) {
		return false
	}
	for i := range vals {
		if vals[i].Inst != insts[i] {
			return false
		}
	}
	return true
}

// convert sets dst to the fetchgroup's value of v (metric m, k-th in
// the fetch). (In place: a Value returned was copied through the stack,
// field by field then whole, which stalled the copy.)
func (r *Sampler) convert(dst *Value, m *Metric, k int, v *pmapi.Value, res *pmapi.Result) {
	typ := m.Desc.Type
	if typ == pmapi.TypeString {
		if v.Block == nil {
			*dst = Value{}
			return
		}
		b := v.Block
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		*dst = Value{OK: true, Kind: KindString, S: string(b)}
		return
	}
	if c := &m.conv; !c.rate && m.OType == typ && (!c.unit || c.scaleOK && c.factor == 1 && c.mult == 1) {
		// no conversion, or to the metric's own units (pmrep's raw
		// values)
		if extract(dst, v, typ) {
			if c.unit && dst.OK {
				// the value went through a double (rescale, stuff)
				switch typ {
				case pmapi.Type64:
					stuff(dst, float64(dst.I), typ)
				case pmapi.TypeU64:
					stuff(dst, float64(dst.U), typ)
				}
			}
			return
		}
	}
	x, err := v.Float64(typ)
	if err != nil {
		*dst = Value{}
		return
	}
	if m.conv.rate {
		if r.prev == nil {
			*dst = Value{} // PM_ERR_AGAIN
			return
		}
		pv := &r.prev.VSets[k]
		if pv.NumVal < 0 {
			*dst = Value{}
			return
		}
		var p *pmapi.Value
		for j := range pv.Values {
			if m.Desc.InDom == pmapi.InDomNull || pv.Values[j].Inst == v.Inst {
				p = &pv.Values[j]
				break
			}
		}
		if p == nil {
			*dst = Value{}
			return
		}
		px, err := p.Float64(typ)
		if err != nil {
			*dst = Value{}
			return
		}
		dt := pcptime.Sub(res.Timestamp, r.prev.Timestamp)
		if dt < 1e-9 {
			dt = 1e-9
		}
		d := x - px
		if d < 0 {
			if !r.wrap {
				*dst = Value{}
				return
			}
			switch typ {
			case pmapi.Type32, pmapi.TypeU32:
				d += float64(math.MaxUint32) + 1
			case pmapi.Type64, pmapi.TypeU64:
				d += float64(math.MaxUint64) + 1
			}
		}
		x = d / dt
	}
	if m.conv.rate || m.conv.unit {
		x, ok := m.rescale(x)
		if !ok {
			*dst = Value{}
			return
		}
		stuff(dst, x, m.OType)
		return
	}
	if m.OType != typ {
		stuff(dst, x, m.OType)
		return
	}
	// pmExtractValue to the metric's own type
	switch typ {
	case pmapi.Type32:
		*dst = Value{OK: true, Kind: KindSigned, I: int64(v.Insitu)}
		return
	case pmapi.TypeU32:
		*dst = Value{OK: true, Kind: KindUnsigned, U: uint64(uint32(v.Insitu))}
		return
	case pmapi.Type64:
		if len(v.Block) < 8 {
			*dst = Value{}
			return
		}
		*dst = Value{OK: true, Kind: KindSigned, I: int64(v.HostUint64())}
		return
	case pmapi.TypeU64:
		if len(v.Block) < 8 {
			*dst = Value{}
			return
		}
		*dst = Value{OK: true, Kind: KindUnsigned, U: v.HostUint64()}
		return
	}
	*dst = Value{OK: true, Kind: KindDouble, F: x}
}

// extract sets dst to pmExtractValue of v to its own numeric type typ,
// what convert's general path gives where no conversion applies, without
// the double it makes on the way; false for another type (dst as it
// was).
func extract(dst *Value, v *pmapi.Value, typ pmapi.Type) bool {
	if v.Block == nil {
		switch typ {
		case pmapi.Type32:
			*dst = Value{OK: true, Kind: KindSigned, I: int64(v.Insitu)}
			return true
		case pmapi.TypeU32:
			*dst = Value{OK: true, Kind: KindUnsigned, U: uint64(uint32(v.Insitu))}
			return true
		case pmapi.TypeFloat:
			*dst = Value{OK: true, Kind: KindDouble, F: float64(math.Float32frombits(uint32(v.Insitu)))}
			return true
		case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
			*dst = Value{}
			return true // (pmapi.ErrConv)
		}
		return false
	}
	ok := v.BlockType == typ || v.BlockType == 0
	switch typ {
	case pmapi.Type64:
		if ok && len(v.Block) == 8 {
			*dst = Value{OK: true, Kind: KindSigned, I: int64(v.HostUint64())}
			return true
		}
	case pmapi.TypeU64:
		if ok && len(v.Block) == 8 {
			*dst = Value{OK: true, Kind: KindUnsigned, U: v.HostUint64()}
			return true
		}
	case pmapi.TypeDouble:
		if ok && len(v.Block) == 8 {
			*dst = Value{OK: true, Kind: KindDouble, F: math.Float64frombits(v.HostUint64())}
			return true
		}
	case pmapi.TypeFloat:
		if ok && len(v.Block) == 4 {
			*dst = Value{OK: true, Kind: KindDouble, F: float64(math.Float32frombits(v.HostUint32()))}
			return true
		}
	case pmapi.Type32, pmapi.TypeU32:
	default:
		return false
	}
	*dst = Value{}
	return true // (pmapi.ErrConv)
}

// stuff sets dst to __pmStuffDoubleValue of x: a double to the output
// type, nothing when it does not fit.
func stuff(dst *Value, x float64, typ pmapi.Type) {
	switch typ {
	case pmapi.Type32:
		if x > math.MaxInt32 || x < math.MinInt32 {
			*dst = Value{}
		} else {
			*dst = Value{OK: true, Kind: KindSigned, I: int64(int32(x))}
		}
	case pmapi.TypeU32:
		if x > math.MaxUint32 || x < 0 {
			*dst = Value{}
		} else {
			*dst = Value{OK: true, Kind: KindUnsigned, U: uint64(uint32(x))}
		}
	case pmapi.Type64:
		if x > 9223372036854775807 || x < -9223372036854775808 {
			*dst = Value{}
		} else {
			*dst = Value{OK: true, Kind: KindSigned, I: int64(x)}
		}
	case pmapi.TypeU64:
		if x > 18446744073709551615 || x < 0 {
			*dst = Value{}
		} else {
			*dst = Value{OK: true, Kind: KindUnsigned, U: toUint64(x)}
		}
	case pmapi.TypeFloat:
		if math.Abs(x) > math.MaxFloat32 {
			*dst = Value{}
		} else {
			*dst = Value{OK: true, Kind: KindDouble, F: float64(float32(x))}
		}
	default:
		*dst = Value{OK: true, Kind: KindDouble, F: x}
	}
}

// toUint64 is C's (uint64_t)double on x86-64.
func toUint64(x float64) uint64 {
	if x >= 9223372036854775808 {
		return uint64(int64(x-9223372036854775808)) ^ (1 << 63)
	}
	return uint64(int64(x))
}

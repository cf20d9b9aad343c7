package loggerconf

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/pmapi"
)

// Namespace is what Resolve needs from a metrics source: the name
// space, descriptors and instance domains. source.Source satisfies it.
type Namespace interface {
	// LookupNames returns one PMID per name, pmapi.PMIDNull for a
	// name the source does not know.
	LookupNames(names []string) ([]pmapi.PMID, error)
	// Traverse returns the leaf names at or below name, in the
	// source's order; a leaf returns itself. An unknown name is
	// pmapi.ErrName.
	Traverse(name string) ([]string, error)
	// Desc returns the descriptor of a PMID.
	Desc(pmid pmapi.PMID) (pmapi.Desc, error)
	// InDom returns the instance ids and external names of an
	// instance domain.
	InDom(indom pmapi.InDom) (insts []int32, names []string, err error)
}

// Group is one of pmlogger's tasks: the metrics that share a logging
// state and interval. When State is On the logger fetches the group's
// metrics together (one record per fetch) every Delta, or once.
type Group struct {
	Mandatory bool          // mandatory on, off or maybe
	State     State         // On, Off or Maybe
	Once      bool          // On with Delta 0
	Delta     time.Duration // whole msec; 0 for once, off and maybe
	Metrics   []GroupMetric // PMIDs in descending order, each with the instances asked for
	// Fetches split Metrics as pmlogger's fetch optimiser does (see
	// Fetch): one record each per tick, in this order.
	Fetches []Fetch
}

// GroupMetric is one metric of a group.
type GroupMetric struct {
	PMID pmapi.PMID
	Name string // the name it was first configured by in this group
	Desc pmapi.Desc
	// Instances are the instance ids to log, in the order they were
	// configured; nil means all instances.
	Instances []int32
}

// Logged reports whether the group is one pmlogger fetches and logs.
func (g *Group) Logged() bool { return g.State == On && len(g.Metrics) > 0 }

// Resolved is the outcome of Resolve.
type Resolved struct {
	// Groups are pmlogger's tasks in its task-list order (order of
	// first appearance in the file) that kept at least one metric,
	// including "off" and "maybe" ones (see Group.Logged). pmlogger
	// schedules the "once" groups first, then the others 20 msec
	// later.
	Groups []*Group

	// Warnings is the text pmlogger writes while it looks the
	// configuration up ("Warning [FILE, line N]" blocks and their
	// "Reason:" lines), each line ending in a newline. It goes to
	// the log file (stderr under -C).
	Warnings string
}

// LoggedGroups returns the groups that are logged (State On).
func (r *Resolved) LoggedGroups() []*Group {
	var gs []*Group
	for _, g := range r.Groups {
		if g.Logged() {
			gs = append(gs, g)
		}
	}
	return gs
}

// task mirrors pmlogger's task_t.
type task struct {
	mand, on, maybe bool
	delta           time.Duration
	names           []string
	pmids           []pmapi.PMID
	descs           []pmapi.Desc
	reqs            []*request
	numValid        int
	removed         bool
}

// request mirrors optreq_t: one metric with all or some instances.
type request struct {
	t     *task
	pmid  pmapi.PMID
	name  string
	desc  pmapi.Desc
	all   bool
	insts []int32
}

type resolver struct {
	ns     Namespace
	tasks  []*task
	hash   map[pmapi.PMID][]*request // newest first, as __pmHashAdd chains
	w      strings.Builder
	indoms map[pmapi.InDom]indomCache
	pmids  map[string]pmapi.PMID // names looked up so far
	descs  map[pmapi.PMID]descResult
	cur    *task
	ms     *MetricSpec
}

type descResult struct {
	desc pmapi.Desc
	err  error
}

type indomCache struct {
	ids   []int32
	names []string
	err   error
}

// Resolve looks the configuration up as pmlogger's grammar actions do:
// it expands non-leaf names, checks instances, applies the
// mandatory/advisory precedence rules between groups, and returns the
// groups with the warnings pmlogger prints. It also reproduces the
// diagnostic of pmlogger's first-pass name lookup ("cache_bind(): ...").
//
// The namespace is consulted in the same order pmlogger consults pmcd.
func Resolve(cfg *Config, ns Namespace) (*Resolved, error) {
	r := &resolver{ns: ns, hash: map[pmapi.PMID][]*request{}, indoms: map[pmapi.InDom]indomCache{},
		pmids: map[string]pmapi.PMID{}, descs: map[pmapi.PMID]descResult{}}
	if err := r.cacheBind(cfg.ListNames); err != nil {
		return nil, err
	}
	for i := range cfg.Statements {
		st := &cfg.Statements[i]
		r.cur = r.findTask(st)
		for j := range st.Metrics {
			r.ms = &st.Metrics[j]
			if err := r.metric(); err != nil {
				return nil, err
			}
		}
	}
	res := &Resolved{Warnings: r.w.String()}
	for _, t := range r.tasks {
		if t.removed || t.numValid == 0 {
			continue
		}
		g := &Group{Mandatory: t.mand || t.maybe, Delta: t.delta}
		switch {
		case t.on:
			g.State = On
			g.Once = t.delta == 0
		case t.maybe:
			g.State = Maybe
		default:
			g.State = Off
		}
		idx := map[pmapi.PMID]int{}
		for _, rq := range t.reqs {
			k, ok := idx[rq.pmid]
			if !ok {
				k = len(g.Metrics)
				idx[rq.pmid] = k
				g.Metrics = append(g.Metrics, GroupMetric{PMID: rq.pmid, Name: rq.name, Desc: rq.desc, Instances: []int32{}})
			}
			gm := &g.Metrics[k]
			if rq.all || gm.Instances == nil {
				gm.Instances = nil
				continue
			}
			for _, in := range rq.insts {
				if !containsInt32(gm.Instances, in) {
					gm.Instances = append(gm.Instances, in)
				}
			}
		}
		if len(g.Metrics) == 0 {
			continue
		}
		sort.SliceStable(g.Metrics, func(a, b int) bool { return g.Metrics[a].PMID > g.Metrics[b].PMID })
		g.Fetches = planFetches(t.reqs)
		res.Groups = append(res.Groups, g)
	}
	return res, nil
}

func containsInt32(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// cacheBind reproduces pass0.c's lookup of the names in { } lists: a
// single unknown name makes pmLookupName fail and pmlogger says so.
func (r *resolver) cacheBind(names []string) error {
	if len(names) != 1 {
		return nil
	}
	pmids, err := r.ns.LookupNames(names)
	if err != nil {
		return err
	}
	if len(pmids) == 1 && pmids[0] != pmapi.PMIDNull {
		return nil
	}
	if leaves, err := r.ns.Traverse(names[0]); err == nil && len(leaves) > 0 {
		return nil // PM_ERR_NONLEAF: not reported
	}
	fmt.Fprintf(&r.w, "cache_bind(): pmLookupName(1, ...): %s\n", pmapi.ErrName.Error())
	return nil
}

func (r *resolver) findTask(st *Statement) *task {
	mand := st.Mandatory && st.State != Maybe
	on := st.State == On
	maybe := st.State == Maybe
	for _, t := range r.tasks {
		if t.removed {
			continue
		}
		if t.mand == mand && t.on == on && t.maybe == maybe && t.delta == st.Delta {
			return t
		}
	}
	t := &task{mand: mand, on: on, maybe: maybe, delta: st.Delta}
	r.tasks = append(r.tasks, t)
	return t
}

// cTrunc is pmsprintf into a buffer of size bytes: at most size-1 bytes
// of s are kept.
func cTrunc(s string, size int) string {
	if len(s) >= size {
		return s[:size-1]
	}
	return s
}

// warn is yywarn. Messages built in activate_cached_metric's 1024-byte
// buffer are truncated to fit it.
func (r *resolver) warn(msg string) {
	msg = cTrunc(msg, 1024)
	fmt.Fprintf(&r.w, "Warning [%s, line %d]\n%s\n", r.ms.File, r.ms.Line, msg)
}

func errText(err error) string {
	var pe pmapi.Error
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

func (t *task) nameIndex(name string) int {
	for i, n := range t.names {
		if n == name {
			return i
		}
	}
	return -1
}

func (r *resolver) metric() error {
	name := r.ms.Name
	if idx := r.cur.nameIndex(name); idx >= 0 {
		return r.activate(name, idx)
	}
	leaves, err := r.ns.Traverse(name)
	if err != nil {
		r.warn(cTrunc(fmt.Sprintf("Problem with lookup for metric \"%s\" ... logging not activated", name), 256))
		fmt.Fprintf(&r.w, "Reason: %s\n", errText(err))
		return nil
	}
	if err := r.lookup(leaves); err != nil {
		return err
	}
	for _, leaf := range leaves {
		if err := r.activate(leaf, r.cur.nameIndex(leaf)); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) indom(in pmapi.InDom) indomCache {
	if c, ok := r.indoms[in]; ok {
		return c
	}
	var c indomCache
	if in == pmapi.InDomNull {
		c.err = pmapi.Error(-12361) // PM_ERR_INDOM
	} else {
		c.ids, c.names, c.err = r.ns.InDom(in)
	}
	r.indoms[in] = c
	return c
}

// lookupInDom is pmLookupInDom against a PMDA: the full external name,
// or the part before the first space.
func lookupInDom(c indomCache, name string) (int32, bool) {
	for i, n := range c.names {
		if n == name {
			return c.ids[i], true
		}
	}
	for i, n := range c.names {
		if first, _, _ := strings.Cut(n, " "); first == name {
			return c.ids[i], true
		}
	}
	return 0, false
}

// lookup asks the namespace for the PMIDs of the names not seen yet, in
// one request (pmlogger's name cache does the same).
func (r *resolver) lookup(names []string) error {
	var todo []string
	for _, n := range names {
		if _, ok := r.pmids[n]; !ok {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	pmids, err := r.ns.LookupNames(todo)
	if err != nil {
		return err
	}
	for i, n := range todo {
		p := pmapi.PMIDNull
		if i < len(pmids) {
			p = pmids[i]
		}
		r.pmids[n] = p
	}
	return nil
}

func (r *resolver) desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	if d, ok := r.descs[pmid]; ok {
		return d.desc, d.err
	}
	d, err := r.ns.Desc(pmid)
	r.descs[pmid] = descResult{d, err}
	return d, err
}

func (r *resolver) activate(name string, idx int) error {
	t := r.cur
	var pmid pmapi.PMID
	var desc pmapi.Desc
	if idx < 0 {
		if err := r.lookup([]string{name}); err != nil {
			return err
		}
		pmid = r.pmids[name]
		if pmid == pmapi.PMIDNull {
			r.warn(fmt.Sprintf("Metric \"%s\" is unknown ... not logged", name))
			fmt.Fprintf(&r.w, "Reason: %s\n", pmapi.ErrName.Error())
			return nil
		}
		var err error
		desc, err = r.desc(pmid)
		if err != nil {
			r.warn(fmt.Sprintf("Description unavailable for metric \"%s\" ... not logged", name))
			fmt.Fprintf(&r.w, "Reason: %s\n", errText(err))
			return nil
		}
		t.names = append(t.names, name)
		t.pmids = append(t.pmids, pmid)
		t.descs = append(t.descs, desc)
	} else {
		pmid, desc = t.pmids[idx], t.descs[idx]
	}
	rq := &request{t: t, pmid: pmid, name: name, desc: desc}
	skip := false
	if insts := r.ms.Instances; len(insts) > 0 {
		numInst := len(insts)
		c := r.indom(desc.InDom)
		for _, in := range insts {
			var id int32
			ext := "(null)"
			if !in.IsID {
				ext = in.Name
				v, ok := lookupInDom(c, in.Name)
				if c.err != nil || !ok {
					r.warn(fmt.Sprintf("Instance \"%s\" is not defined for the metric \"%s\"", in.Name, name))
					numInst--
					continue
				}
				id = v
			} else {
				id = in.ID
				if c.err != nil || !containsInt32(c.ids, id) {
					r.warn(fmt.Sprintf("Instance \"%d\" is not defined for the metric \"%s\"", id, name))
					numInst--
					continue
				}
			}
			sts := r.chkOne(t, pmid, id)
			switch {
			case sts < 0:
				r.warn(fmt.Sprintf("Incompatible request for metric \"%s\" and instance \"%s\"", name, ext))
				r.w.WriteString(chkEmess[-sts] + "\n")
				numInst--
			case sts == 0:
				rq.insts = append(rq.insts, id)
			default:
				// already logged by this group: pmlogger 6.0.3 drops
				// just this instance (a real recording of "[1]" then
				// "[1 5]" logs both)
				numInst--
			}
		}
		if numInst == 0 {
			skip = true
		}
	} else {
		rq.all = true
		if r.chkAll(t, pmid) < 0 {
			r.warn(fmt.Sprintf("Incompatible request for metric \"%s\"", name))
			skip = true
		}
	}
	if !skip {
		t.reqs = append(t.reqs, rq)
		r.hash[pmid] = append([]*request{rq}, r.hash[pmid]...)
		t.numValid++
	}
	return nil
}

var chkEmess = []string{
	"No error",
	"Request for (advisory) ON conflicts with current (mandatory) ON state",
	"Request for (advisory) OFF conflicts with current (mandatory) ON state",
	"Request for (advisory) ON conflicts with current (mandatory) OFF state",
	"Request for (advisory) OFF conflicts with current (mandatory) OFF state",
}

// findReq is findoptreq: the newest request for pmid that covers inst
// (all instances, or inst in its list).
func (r *resolver) findReq(pmid pmapi.PMID, inst int32) *request {
	for _, rq := range r.hash[pmid] {
		if rq.all || containsInt32(rq.insts, inst) {
			return rq
		}
	}
	return nil
}

// conflict is the precedence rule of checks.c: a mandatory group
// refuses advisory requests; anything else overrides.
func conflict(old, t *task) int {
	if old.mand && !t.mand && !t.maybe {
		switch {
		case old.on && t.on:
			return -1
		case old.on:
			return -2
		case t.on:
			return -3
		default:
			return -4
		}
	}
	return 0
}

func (r *resolver) chkOne(t *task, pmid pmapi.PMID, inst int32) int {
	rq := r.findReq(pmid, inst)
	if rq == nil {
		return 0
	}
	if rq.t == t {
		return 1
	}
	if c := conflict(rq.t, t); c < 0 {
		return c
	}
	r.undo(rq, inst)
	return 0
}

func (r *resolver) chkAll(t *task, pmid pmapi.PMID) int {
	// pmlogger 6.0.3 refuses an advisory request for all instances
	// when any other group logs the metric mandatorily (checked with
	// the real tool: the newest request alone does not decide).
	for _, rq := range r.hash[pmid] {
		if rq.t == t {
			continue
		}
		if c := conflict(rq.t, t); c < 0 {
			return c
		}
	}
	return 0
}

// undo takes inst away from an older request (checks.c undo); a request
// for all instances keeps it (pmlogger's own TODO).
func (r *resolver) undo(rq *request, inst int32) {
	if rq.all {
		return
	}
	k := 0
	for _, v := range rq.insts {
		if v != inst {
			rq.insts[k] = v
			k++
		}
	}
	rq.insts = rq.insts[:k]
	if len(rq.insts) > 0 {
		return
	}
	ot := rq.t
	for i, x := range ot.reqs {
		if x == rq {
			ot.reqs = append(ot.reqs[:i:i], ot.reqs[i+1:]...)
			break
		}
	}
	if len(ot.reqs) == 0 {
		ot.removed = true
	}
	chain := r.hash[rq.pmid]
	for i, x := range chain {
		if x == rq {
			r.hash[rq.pmid] = append(chain[:i:i], chain[i+1:]...)
			break
		}
	}
}

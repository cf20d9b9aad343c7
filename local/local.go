// Package local is a local context (PM_CONTEXT_LOCAL, the tools' -L):
// metrics served by PMDAs the tool runs itself, with no pmcd.
//
// libpcp's local context loads each PMDA of its table (the "dso" lines of
// pmcd.conf, as -K changes them) into the tool as a shared object and
// calls it directly. A Go program without cgo cannot load a C shared
// object, so a Source runs each PMDA's daemon instead, the program pmcd
// would start for it: the DSO DIR/pmda_NAME.so with init routine
// NAME_init is the PMDA DIR/pmdaNAME, started with "-d DOMAIN" (the
// domain of the table) and "-l -" (its log on its stderr), and spoken to
// over its stdin and stdout as pmcd speaks to a pipe agent
// (pmcd.NewAgent). A PMDA is started the first time a request for its
// domain comes, and stopped by Close.
//
// The names are those of the PMNS file ($PMNS_DEFAULT, else
// $PCP_VAR_DIR/pmns/root) as in libpcp's local context; below a dynamic
// subtree root ("DOMAIN:*:*") the PMDA of that domain is asked. Requests
// for a domain the table has no PMDA for fail with PM_ERR_NOAGENT, as
// libpcp's local context does.
//
// What differs from a loaded DSO: the PMDA is a separate process, so it
// runs with the identity it chooses (a daemon PMDA started by root may
// switch to the pcp user), its messages reach the tool's stderr without
// its log's header and footer, and a PMDA without a daemon (pmcd's own,
// or a DSO whose init routine is not NAME_init) is not available.
package local

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/source"
)

// PMDA is one entry of the local context's table: a DSO PMDA as pmcd.conf
// or -K names it.
type PMDA struct {
	Domain int    // the PMDA's domain
	Path   string // its shared object, DIR/pmda_NAME.so
	Init   string // its init routine, NAME_init
}

// Name is the PMDA's name, NAME of its DSO DIR/pmda_NAME.so (the file
// name without ".so" if it has no "pmda_" prefix).
func (p PMDA) Name() string {
	name := strings.TrimSuffix(filepath.Base(p.Path), ".so")
	if n, ok := strings.CutPrefix(name, "pmda_"); ok {
		return n
	}
	return name
}

// Daemon is the program that serves p as a pipe agent: DIR/pmdaNAME for
// DIR/pmda_NAME.so with init routine NAME_init; "" if p has no such name.
func (p PMDA) Daemon() string {
	dir, file := filepath.Split(p.Path)
	name, ok := strings.CutPrefix(file, "pmda_")
	if !ok {
		return ""
	}
	name = strings.TrimSuffix(name, ".so")
	if name == "" || p.Init != "" && p.Init != name+"_init" {
		return ""
	}
	return filepath.Join(dir, "pmda"+name)
}

// Source is a local context. It implements source.Source; its methods
// must be called from one goroutine at a time.
type Source struct {
	ns     *pmns.Namespace
	table  map[int]PMDA
	agents map[int]*agent
	stderr io.Writer
	res    pmapi.Result
	host   string
}

var _ source.Source = (*Source)(nil)

// agent is a running PMDA, or why it could not be started.
type agent struct {
	c    *pmcd.Client
	cmd  *exec.Cmd
	in   *os.File // the PMDA's stdin (our end)
	logs sync.WaitGroup
	err  error
}

// New makes a local context over the PMDAs of table (a later entry for a
// domain replaces an earlier one) with the names of ns. Each DSO is
// looked for as libpcp's __pmConnectLocal looks for it: PATH.so, then
// PATH (relative to the working directory); one found in neither place
// is left out with libpcp's warning on stderr. The PMDAs' messages go to
// stderr too.
func New(table []PMDA, ns *pmns.Namespace, stderr io.Writer) *Source {
	s := &Source{ns: ns, table: map[int]PMDA{}, agents: map[int]*agent{}, stderr: stderr}
	for _, p := range table {
		found := false
		for _, path := range []string{p.Path + ".so", p.Path} {
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				if abs, err := filepath.Abs(path); err == nil {
					path = abs
				}
				p.Path, found = path, true
				break
			}
		}
		if !found {
			fmt.Fprintf(stderr, "__pmConnectLocal: Warning: cannot find DSO at \"%s.so\" or \"%s\"\n", p.Path, p.Path)
			continue
		}
		s.table[p.Domain] = p
	}
	return s
}

// DefaultNamespace loads the PMNS a local context uses: $PMNS_DEFAULT,
// else $PCP_VAR_DIR/pmns/root.
func DefaultNamespace(varDir string) (*pmns.Namespace, error) {
	path := os.Getenv("PMNS_DEFAULT")
	if path == "" {
		path = filepath.Join(varDir, "pmns", "root")
	}
	return pmns.Load(path)
}

// agentFor returns the running PMDA of domain, starting it the first
// time; the error is PM_ERR_NOAGENT for a domain without one.
func (s *Source) agentFor(domain int) (*pmcd.Client, error) {
	if a, ok := s.agents[domain]; ok {
		return a.c, a.err
	}
	a := &agent{}
	s.agents[domain] = a
	p, ok := s.table[domain]
	if !ok {
		a.err = pmapi.ErrNoAgent
		return nil, a.err
	}
	a.err = s.start(a, p)
	if a.err != nil {
		fmt.Fprintf(s.stderr, "local context: cannot run a PMDA for the DSO %s (domain %d): %v\n", p.Path, domain, a.err)
		a.err = pmapi.ErrNoAgent
	}
	return a.c, a.err
}

// start runs p's daemon and completes the agent handshake.
func (s *Source) start(a *agent, p PMDA) error {
	prog := p.Daemon()
	if prog == "" {
		return fmt.Errorf("no daemon PMDA for the DSO with init routine %q", p.Init)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	logR, logW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return err
	}
	cmd := exec.Command(prog, "-d", strconv.Itoa(p.Domain), "-l", "-")
	cmd.Dir = filepath.Dir(prog)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, logW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	logW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		logR.Close()
		return err
	}
	a.cmd, a.in = cmd, inW
	a.logs.Add(1)
	go func() {
		defer a.logs.Done()
		copyLog(s.stderr, logR)
		logR.Close()
	}()
	c, err := pmcd.NewAgent(pipeConn{outR, inW})
	if err != nil {
		a.stop()
		return err
	}
	a.c = c
	if c.Features()&pmcd.FeatureAuth != 0 {
		// What pmcd sends for a client on its unix socket: the PMDA
		// serves the tool with the tool's identity, as a DSO would.
		for _, at := range []struct {
			key uint32
			val int
		}{{pmcd.AttrUserID, os.Getuid()}, {pmcd.AttrGroupID, os.Getgid()}, {pmcd.AttrProcessID, os.Getpid()}} {
			if err := c.SendAttr(at.key, strconv.Itoa(at.val)); err != nil {
				a.stop()
				return err
			}
		}
	}
	return nil
}

// stop closes the PMDA's stdin (it exits at the end of its input), and
// waits for it, killing it if it has not gone in a few seconds.
func (a *agent) stop() {
	if a.cmd == nil {
		return
	}
	if a.c != nil {
		a.c.Close()
	} else {
		a.in.Close()
	}
	done := make(chan struct{})
	go func() {
		a.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
	a.logs.Wait()
	a.cmd = nil
}

// pipeConn is the connection to a PMDA: its stdout and its stdin.
type pipeConn struct{ r, w *os.File }

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipeConn) Close() error {
	werr := p.w.Close()
	if err := p.r.Close(); err != nil {
		return err
	}
	return werr
}

func (p pipeConn) SetDeadline(t time.Time) error {
	p.r.SetDeadline(t)
	p.w.SetDeadline(t)
	return nil
}

// copyLog copies a PMDA's log lines to w without the header and footer
// pmOpenLog writes around them ("Log for pmdaNAME on HOST started ..."
// and the empty line after it; the empty line before "Log finished ...").
func copyLog(w io.Writer, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	afterHeader, blank := false, false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Log for ") && strings.Contains(line, " started "):
			afterHeader = true
			continue
		case line == "" && afterHeader:
			afterHeader = false
			continue
		case strings.HasPrefix(line, "Log finished "):
			blank = false
			continue
		}
		afterHeader = false
		if blank {
			io.WriteString(w, "\n")
			blank = false
		}
		if line == "" {
			blank = true
			continue
		}
		io.WriteString(w, line+"\n")
	}
	if blank {
		io.WriteString(w, "\n")
	}
}

// Close stops every PMDA started.
func (s *Source) Close() error {
	for _, a := range s.agents {
		a.stop()
	}
	return nil
}

// Host is the local host's name.
func (s *Source) Host() string {
	if s.host == "" {
		s.host, _ = os.Hostname()
		if s.host == "" {
			s.host = "localhost"
		}
	}
	return s.host
}

// dynamicRoot is the domain of the dynamic subtree root at or above name
// ("a.b.c" looks at "a.b.c", "a.b", "a"), or -1.
func (s *Source) dynamicRoot(name string) int {
	for n := name; n != ""; {
		if id, ok := s.ns.Lookup(n); ok && id.Domain() == dynamicDomain {
			return int(id.Cluster())
		}
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	return -1
}

// dynamicDomain is DYNAMIC_PMID, the domain of a dynamic subtree root's
// PMID (511.DOMAIN.0).
const dynamicDomain = 511

// LookupNames is pmLookupName: the PMNS's PMID, or the PMDA's for a name
// below a dynamic subtree root.
func (s *Source) LookupNames(names []string) ([]pmapi.PMID, error) {
	ids := make([]pmapi.PMID, len(names))
	for i, name := range names {
		ids[i] = pmapi.PMIDNull
		if id, ok := s.ns.Lookup(name); ok && id.Domain() != dynamicDomain {
			ids[i] = id
			continue
		}
		d := s.dynamicRoot(name)
		if d < 0 {
			continue
		}
		c, err := s.agentFor(d)
		if err != nil {
			continue
		}
		got, err := c.LookupNames([]string{name})
		if err == nil && len(got) == 1 {
			ids[i] = got[0]
		}
	}
	return ids, nil
}

// Traverse is pmTraversePMNS: the PMNS's leaves at or below name, with
// each dynamic subtree root replaced by its PMDA's names below it. As in
// libpcp, a dynamic subtree whose PMDA is not there (PM_ERR_NOAGENT) or
// fails stops the traversal: the names before it are returned with the
// error.
func (s *Source) Traverse(name string) ([]string, error) {
	names := s.ns.Traverse(name)
	if names == nil {
		d := s.dynamicRoot(name)
		if d < 0 {
			return nil, pmapi.ErrName
		}
		c, err := s.agentFor(d)
		if err != nil {
			return nil, pmapi.ErrName
		}
		return c.Traverse(name)
	}
	var out []string
	for _, n := range names {
		id, _ := s.ns.Lookup(n)
		if id.Domain() != dynamicDomain {
			out = append(out, n)
			continue
		}
		c, err := s.agentFor(int(id.Cluster()))
		if err != nil {
			return out, err
		}
		below, err := c.Traverse(n)
		if err != nil {
			return out, err
		}
		out = append(out, below...)
	}
	return out, nil
}

// NamesOf is pmNameAll: the PMNS's names of pmid, else its PMDA's (for
// a metric below a dynamic subtree root).
func (s *Source) NamesOf(pmid pmapi.PMID) ([]string, error) {
	if names := s.ns.Names(pmid); len(names) > 0 {
		return names, nil
	}
	c, err := s.agentFor(int(pmid.Domain()))
	if err != nil {
		return nil, pmapi.ErrPMID
	}
	return c.NamesOf(pmid)
}

// Desc is pmLookupDesc, answered by the PMDA of pmid's domain.
func (s *Source) Desc(pmid pmapi.PMID) (pmapi.Desc, error) {
	c, err := s.agentFor(int(pmid.Domain()))
	if err != nil {
		return pmapi.Desc{}, err
	}
	return c.Desc(pmid)
}

// InDom is pmGetInDom, answered by the PMDA of indom's domain.
func (s *Source) InDom(indom pmapi.InDom) ([]int32, []string, error) {
	c, err := s.agentFor(int(indom.Domain()))
	if err != nil {
		return nil, nil, err
	}
	return c.InDom(indom)
}

// Labels is pmGetLabels for one type: the context labels pmcd would give
// the tool on its unix socket (collector.ContextLabels), else the
// answer of the PMDA of ident's domain, whose domain labels get the
// "agent" label libpcp adds (NAME of its DSO pmda_NAME.so).
func (s *Source) Labels(typ uint32, ident uint32) ([]archive.LabelSet, error) {
	var domain int
	switch typ {
	case archive.LabelContext:
		return []archive.LabelSet{collector.ContextLabels("/", s.Host(), os.Getuid(), os.Getgid())}, nil
	case archive.LabelDomain:
		domain = int(ident)
	case archive.LabelInDom, archive.LabelInstances:
		domain = int(pmapi.InDom(ident).Domain())
	default:
		domain = int(pmapi.PMID(ident).Domain())
	}
	c, err := s.agentFor(domain)
	if err != nil {
		return nil, err
	}
	sets, err := c.Labels(typ, ident)
	if err != nil || typ != archive.LabelDomain {
		return sets, err
	}
	return []archive.LabelSet{withAgent(sets, s.table[domain].Name())}, nil
}

// withAgent is a PMDA's domain label set with the label {"agent":name}
// added, the labels sorted by name.
func withAgent(sets []archive.LabelSet, name string) archive.LabelSet {
	var pairs []archive.LabelPair
	if len(sets) > 0 {
		pairs = sets[0].Pairs()
	}
	if !slices.ContainsFunc(pairs, func(p archive.LabelPair) bool { return p.Name == "agent" }) {
		pairs = append(pairs, archive.LabelPair{Name: "agent", Value: strconv.Quote(name), Flags: archive.LabelDomain})
	}
	slices.SortStableFunc(pairs, func(a, b archive.LabelPair) int { return strings.Compare(a.Name, b.Name) })
	return archive.MakeLabelSet(pmapi.InstNull, pairs...)
}

// Text is pmLookupText or pmLookupInDomText, answered by the PMDA of
// ident's domain.
func (s *Source) Text(typ uint32, ident uint32) (string, error) {
	domain := int(pmapi.PMID(ident).Domain())
	if typ&archive.TextInDom != 0 {
		domain = int(pmapi.InDom(ident).Domain())
	}
	c, err := s.agentFor(domain)
	if err != nil {
		return "", err
	}
	return c.Text(typ, ident)
}

// Fetch is pmFetch: each PMDA is asked for the metrics of its domain,
// and the value sets are put back in the order of pmids, stamped with the
// time of the fetch. A metric whose domain has no PMDA has NumVal
// PM_ERR_NOAGENT.
func (s *Source) Fetch(pmids []pmapi.PMID) (*pmapi.Result, uint32, error) {
	if len(pmids) == 0 {
		return nil, 0, pmapi.ErrTooSmall
	}
	s.res.VSets = append(s.res.VSets[:0], make([]pmapi.ValueSet, len(pmids))...)
	var changes uint32
	done := make([]bool, len(pmids))
	for i, id := range pmids {
		if done[i] {
			continue
		}
		domain := id.Domain()
		var batch []pmapi.PMID
		var at []int
		for j := i; j < len(pmids); j++ {
			if !done[j] && pmids[j].Domain() == domain {
				batch = append(batch, pmids[j])
				at = append(at, j)
				done[j] = true
			}
		}
		c, err := s.agentFor(int(domain))
		var res *pmapi.Result
		if err == nil {
			var ch uint32
			res, ch, err = c.Fetch(batch)
			changes |= ch
		}
		for k, j := range at {
			vs := &s.res.VSets[j]
			vs.PMID = pmids[j]
			if err != nil || res == nil || k >= len(res.VSets) {
				vs.NumVal = int32(errCode(err))
				continue
			}
			*vs = res.VSets[k]
			// The PMDA's result is reused by its next fetch.
			vs.Values = append([]pmapi.Value(nil), vs.Values...)
			for v := range vs.Values {
				if b := vs.Values[v].Block; b != nil {
					vs.Values[v].Block = append([]byte(nil), b...)
				}
			}
		}
	}
	now := time.Now()
	s.res.Timestamp = pmapi.Timestamp{Sec: now.Unix(), Nsec: int32(now.Nanosecond())}
	return &s.res, changes, nil
}

// errCode is the PCP error code of a failed fetch for a value set.
func errCode(err error) pmapi.Error {
	if e, ok := err.(pmapi.Error); ok {
		return e
	}
	return pmapi.ErrIPC
}

// InstID is pmLookupInDom, answered by the PMDA of indom's domain.
func (s *Source) InstID(indom pmapi.InDom, name string) (int32, error) {
	c, err := s.agentFor(int(indom.Domain()))
	if err != nil {
		return 0, err
	}
	return c.InstID(indom, name)
}

// InstName is pmNameInDom, answered by the PMDA of indom's domain.
func (s *Source) InstName(indom pmapi.InDom, inst int32) (string, error) {
	c, err := s.agentFor(int(indom.Domain()))
	if err != nil {
		return "", err
	}
	return c.InstName(indom, inst)
}

// Store is pmStore: each PMDA is sent the value sets of its domain; the
// error is the first PMDA's refusal.
func (s *Source) Store(res *pmapi.Result) error {
	var first error
	done := make([]bool, len(res.VSets))
	for i := range res.VSets {
		if done[i] {
			continue
		}
		domain := res.VSets[i].PMID.Domain()
		part := &pmapi.Result{Timestamp: res.Timestamp}
		for j := i; j < len(res.VSets); j++ {
			if !done[j] && res.VSets[j].PMID.Domain() == domain {
				part.VSets = append(part.VSets, res.VSets[j])
				done[j] = true
			}
		}
		c, err := s.agentFor(int(domain))
		if err == nil {
			err = c.Store(part)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Package pmstore implements pmstore: it changes the value of a
// performance metric (pmStore), as PCP 6.0.3's pmstore does, in a pmcd
// (-h HOST, or the local pmcd by default) or a local context (-L, -K;
// package local). It fetches the metric's current values (of the
// instances -i names, or all of them), stores the new value in each,
// and prints each instance's old and new value (the new one fetched
// again with -F). cmd/pmstore is a thin wrapper around Main.
package pmstore

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pmapi"
)

// shortOpts is pmstore's option string (PCP 6.0.3); "+" is its
// PM_OPTFLAG_POSIX: the metric ends the options, so a value may start
// with "-".
const shortOpts = "+D:Ffh:K:Li:n:V?"

// longOpts is pmstore's long option table, in the real tool's order.
var longOpts = []getopt.Long{
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "local-PMDA", Short: 'L'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
	{Name: "fetch", Short: 'F'},
	{Name: "force", Short: 'f'},
	{Name: "insts", HasArg: true, Short: 'i'},
}

const usage = `Usage: pmstore [options] metricname value

General options:
  -h HOST, --host=HOST  metrics source is PMCD on host
  -L, --local-PMDA      metrics source is local connection to a PMDA
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit

Value options:
  -F, --fetch           perform pmFetch after pmStore to confirm value
  -f, --force           store the value even if there is no current value set
  -i INSTS, --insts=INSTS
                        restrict store to comma-separated list of instances
`

// storer is what a live source offers beyond source.Source for a store:
// a pmcd client and a local context both do.
type storer interface {
	InstID(indom pmapi.InDom, name string) (int32, error)
	InstName(indom pmapi.InDom, inst int32) (string, error)
	Store(res *pmapi.Result) error
}

// tool holds one run's state.
type tool struct {
	*pmctx.Session
	fetch, force bool
	insts        []string // -i's names
}

// Main runs pmstore with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	t := &tool{Session: pmctx.NewSession("pmstore", stdout, stderr)}
	return t.Run(func() int { return t.run(args) })
}

// option handles one of pmstore's own options.
func (t *tool) option(o *pmctx.Opts, opt getopt.Opt) {
	switch opt.Short {
	case 'F':
		t.fetch = true
	case 'f':
		t.force = true
	case 'i':
		// strtok(", \t\n"): empty fields are skipped
		t.insts = append(t.insts, strings.FieldsFunc(opt.Arg, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\t' || r == '\n'
		})...)
	default:
		o.Errors++
	}
}

// exit1 prints a message on stdout (as pmstore prints most of its
// complaints) and stops with status 1.
func (t *tool) exit1(format string, a ...any) int {
	fmt.Fprintf(t.Out, format, a...)
	return 1
}

func (t *tool) run(args []string) int {
	p := &pmctx.Parser{Prog: "pmstore", Short: shortOpts, Longs: longOpts, Claimed: "F"}
	o, operands := p.Parse(args, t.Errw, t.option)
	t.Opts = o
	if o.Errors > 0 || len(operands) != 2 || o.Exit {
		return t.Usage(args, usage, "")
	}
	if o.Kind == pmctx.KindArchive {
		// pmstore takes no archive: $PCP_ARCHIVE leaves it on the
		// local pmcd, as the real one is
		o.Kind, o.Hosts = pmctx.KindHost, nil
	}
	t.Open(false)
	defer t.C.Close()
	st, ok := t.Live.(storer)
	if !ok {
		t.Fail("pmstore: Cannot store values in this context: %s\n", archive.ErrText(pmapi.ErrNotHost))
	}
	name, text := operands[0], operands[1]

	pmid, err := t.C.LookupName(name)
	if errors.Is(err, pmapi.ErrName) && t.C.Traverse(name, func(string) {}) == nil {
		// a name with leaves below it: libpcp's pmLookupName tells it
		// from an unknown one
		err = pmapi.ErrNonLeaf
	}
	if err != nil {
		return t.exit1("%s: pmLookupName: %s\n", name, archive.ErrText(err))
	}
	desc, err := t.C.Desc(pmid)
	if err != nil {
		return t.exit1("%s: pmLookupDesc: %s\n", name, archive.ErrText(err))
	}
	switch desc.Type {
	case pmapi.TypeAggregate, pmapi.TypeAggregateStat:
		t.Fail("pmstore: Cannot modify values for PM_TYPE_AGGREGATE metrics\n")
	case pmapi.TypeEvent, pmapi.TypeHighresEvent:
		t.Fail("pmstore: Cannot modify values for event type metrics\n")
	}
	var profile map[int32]bool
	if t.insts != nil {
		profile = map[int32]bool{}
		for _, n := range t.insts {
			id, err := st.InstID(desc.InDom, n)
			if err != nil {
				return t.exit1("pmLookupInDom %s[%s]: %s\n", name, n, archive.ErrText(err))
			}
			profile[id] = true
		}
	}

	old, err := t.fetchValues(pmid, profile)
	if err != nil {
		return t.exit1("%s: pre pmFetch: %s\n", name, archive.ErrText(err))
	}
	if old.NumVal < 0 {
		return t.exit1("%s: Error: %s\n", name, archive.ErrText(pmapi.Error(old.NumVal)))
	}
	nv := t.atom(text, desc.Type)
	store := pmapi.ValueSet{PMID: pmid}
	for _, v := range old.Values {
		nv.Inst = v.Inst
		store.Values = append(store.Values, nv)
	}
	forced := false
	if len(old.Values) == 0 {
		if !t.force {
			return t.exit1("%s: No value(s) available!\n", name)
		}
		// no current value: one is made up, for no instance
		nv.Inst = pmapi.InstNull
		store.Values = []pmapi.Value{nv}
		forced = true
	}
	store.NumVal = int32(len(store.Values))
	if nv.Block != nil {
		store.ValFmt = pmapi.ValFmtDptr
	}
	if err := st.Store(&pmapi.Result{VSets: []pmapi.ValueSet{store}}); err != nil {
		return t.exit1("%s: new value=\"%s\" pmStore: %s\n", name, text, archive.ErrText(err))
	}
	shown := store
	if t.fetch {
		if shown, err = t.fetchValues(pmid, profile); err != nil {
			return t.exit1("%s: post pmFetch: %s\n", name, archive.ErrText(err))
		}
	}
	var line []byte
	for i := range shown.Values {
		nv := &shown.Values[i]
		line = append(line[:0], name...)
		if desc.InDom != pmapi.InDomNull {
			if in, err := st.InstName(desc.InDom, nv.Inst); err == nil {
				line = fmt.Appendf(line, " inst [%d or \"%s\"]", nv.Inst, in)
			} else {
				line = fmt.Appendf(line, " inst [%d]", nv.Inst)
			}
		}
		line = append(line, " old value="...)
		switch {
		case forced:
			line = append(line, `"(none)"`...)
		case i < len(old.Values):
			line = pmctx.AppendValue(line, desc.Type, old.ValFmt, &old.Values[i], t.Zone)
		}
		line = append(line, " new value="...)
		line = pmctx.AppendValue(line, desc.Type, shown.ValFmt, nv, t.Zone)
		line = append(line, '\n')
		t.Out.Write(line)
	}
	return 0
}

// fetchValues fetches pmid's values (those of the instances in profile
// when it is not nil), copied: they outlive the next fetch.
func (t *tool) fetchValues(pmid pmapi.PMID, profile map[int32]bool) (pmapi.ValueSet, error) {
	res, err := t.C.Fetch([]pmapi.PMID{pmid})
	if err != nil {
		return pmapi.ValueSet{}, err
	}
	if len(res.VSets) != 1 {
		return pmapi.ValueSet{}, pmapi.ErrIPC
	}
	vs := res.VSets[0]
	out := pmapi.ValueSet{PMID: vs.PMID, NumVal: vs.NumVal, ValFmt: vs.ValFmt}
	for _, v := range vs.Values {
		if profile != nil && !profile[v.Inst] {
			continue
		}
		if v.Block != nil {
			v.Block = append([]byte(nil), v.Block...)
		}
		out.Values = append(out.Values, v)
	}
	if vs.NumVal >= 0 {
		out.NumVal = int32(len(out.Values))
	}
	return out, nil
}

// atom converts the value's text to the metric's type (__pmStringValue),
// or stops with pmstore's message on stderr.
func (t *tool) atom(text string, typ pmapi.Type) pmapi.Value {
	v, err := pmapi.ParseValue(text, typ)
	switch {
	case err == nil:
		return v
	case err == strconv.ErrRange:
		t.Fail("The value \"%s\" is out of range for the data type (PM_TYPE_%s)\n", text, typ)
	case err == pmapi.ErrType:
		t.Fail("The value \"%s\" is incompatible with the data type (PM_TYPE_%s)\n", text, typ)
	}
	t.Fail("pmstore: cannot convert string value \"%s\": %s\n", text, archive.ErrText(err))
	return v
}

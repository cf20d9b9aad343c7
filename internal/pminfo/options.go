package pminfo

import (
	"slices"
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmctx"
)

// shortOpts is pminfo's option string (PCP 6.0.3); -C is accepted and
// does nothing.
const shortOpts = "a:b:c:CdD:Ffh:IK:lLMmN:n:O:stTvVxzZ:?"

// shortOpts638 is pminfo 6.3.8's option string: -r name=expr.
const shortOpts638 = "a:b:c:CdD:Ffh:IK:lLMmN:n:O:r:stTvVxzZ:?"

// longOpts638 is pminfo 6.3.8's long option table: --register after
// --derived.
var longOpts638 = func() []getopt.Long {
	at := slices.IndexFunc(longOpts, func(l getopt.Long) bool { return l.Name == "derived" }) + 1
	return slices.Insert(slices.Clone(longOpts), at, getopt.Long{Name: "register", HasArg: true, Short: 'r'})
}()

// The -c lines of pminfo 6.0.3's usage message, and 6.3.8's, with -r.
const (
	usageDerived603 = `                        load derived metric definitions from FILE(s)
`
	usageDerived638 = `                        load global derived metric definitions from FILE(s)
  -r name=expr, --register=name=expr
                        register a per-context derived metric
`
)

// options are the option string, the long option table and the usage
// message of the pminfo of the PCP version pcpkit behaves as.
func options() (string, []getopt.Long, string) {
	if pcpconf.Version() == pcpconf.Version638 {
		return shortOpts638, longOpts638, strings.Replace(usage, usageDerived603, usageDerived638, 1)
	}
	return shortOpts, longOpts, usage
}

// longOpts is pminfo's long option table, in the real tool's order (it
// decides abbreviations and ambiguities).
var longOpts = []getopt.Long{
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "container", HasArg: true, Short: pmctx.OptContainer},
	{Name: "local-PMDA", Short: 'L'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "uniqnames", HasArg: true, Short: 'N'},
	{Name: "origin", HasArg: true, Short: 'O'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
	{Name: "batch", HasArg: true, Short: 'b'},
	{Name: "desc", Short: 'd'},
	{Name: "fetch", Short: 'f'},
	{Name: "fetchall", Short: 'F'},
	{Name: "fullindom", Short: 'I'},
	{Name: "labels", Short: 'l'},
	{Name: "pmid", Short: 'm'},
	{Name: "fullpmid", Short: 'M'},
	{Name: "series", Short: 's'},
	{Name: "oneline", Short: 't'},
	{Name: "helptext", Short: 'T'},
	{Name: "derived", HasArg: true, Short: 'c'},
	{Name: "events", Short: 'x'},
	{Name: "verify", Short: 'v'},
	// pcpkit's own, matched only in full: the real tool's
	// abbreviations and messages stay as they are.
	{Name: "json", Short: pmctx.OptJSON, Exact: true},
}

const usage = `Usage: pminfo [options] [metricname | pmid | indom]...

General options:
  -a FILE, --archive=FILE
                        metrics source is a PCP log archive
  -h HOST, --host=HOST  metrics source is PMCD on host
  --container=NAME      specify an individual container to be queried
  -L, --local-PMDA      metrics source is local connection to a PMDA
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -N FILE, --uniqnames=FILE
                        like -n but only one name allowed for each PMID
  -O TIME, --origin=TIME
                        initial sample time within the time window
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit

Protocol options:
  -b N, --batch=N       fetch N metrics at a time for -f and -v [128]
  -d, --desc            get and print metric description
  -f, --fetch           fetch and print values for all instances
  -F, --fetchall        fetch and print values for non-enumerable indoms
  -I, --fullindom       print InDom in verbose format
  -l, --labels          print InDom, metric and instance labels
  -m, --pmid            print PMID
  -M, --fullpmid        print PMID in verbose format
  -s, --series          print source, metric, instance series identifiers
  -t, --oneline         get and display (terse) oneline text
  -T, --helptext        get and display (verbose) help text

Metrics options:
  -c FILE, --derived=FILE
                        load derived metric definitions from FILE(s)
  -x, --events          unpack and report on any fetched event records
  -v, --verify          verify mode, be quiet and only report errors
`

// flags are pminfo's report options.
type flags struct {
	mid, fullmid, fulliid, desc, label, series  bool
	oneline, help, value, force, verify, events bool
	needContext, needPMID                       bool
	batch                                       int
	json                                        bool
}

// option handles one of pminfo's own options.
func (t *tool) option(o *pmctx.Opts, opt getopt.Opt) {
	f := &t.f
	switch opt.Short {
	case 'b':
		n, end := cnum.Strtol(opt.Arg)
		f.batch = int(int32(n))
		if end != len(opt.Arg) {
			o.Printf("%s: -b requires numeric argument\n", o.Prog)
			o.Errors++
		}
	case 'c':
		t.loadDerived(o, opt.Arg)
	case 'r':
		t.register = append(t.register, opt.Arg)
		f.needContext = true
	case 'd':
		f.desc, f.needContext, f.needPMID = true, true, true
	case 'F':
		f.force, f.value, f.needContext, f.needPMID = true, true, true, true
	case 'f':
		f.value, f.needContext, f.needPMID = true, true, true
	case 'l':
		f.label, f.needContext, f.needPMID = true, true, true
	case 'M':
		f.fullmid, f.mid, f.needPMID = true, true, true
	case 'I':
		f.fulliid, f.desc, f.needContext, f.needPMID = true, true, true, true
	case 'm':
		f.mid, f.needPMID = true, true
	case 's':
		f.series, f.needContext, f.needPMID = true, true, true
	case 't':
		f.oneline, f.needContext, f.needPMID = true, true, true
	case 'T':
		f.help, f.needContext, f.needPMID = true, true, true
	case 'v':
		f.verify, f.needContext, f.needPMID = true, true, true
	case 'x':
		f.events, f.value, f.needContext, f.needPMID = true, true, true, true
	case pmctx.OptJSON:
		f.json = true
	}
}

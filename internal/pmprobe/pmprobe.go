// Package pmprobe implements pmprobe: for each metric, the number of
// values available (or the error), optionally with the instances' numbers
// or names (-i, -I) or the values (-v), exactly as PCP 6.0.3's pmprobe
// prints them, from a set of archives (-a), a pmcd (-h HOST, or the local
// pmcd by default) or pcpkit's built-in collector (-h @), with derived
// metrics (--derived, $PCP_DERIVED_CONFIG). cmd/pmprobe is a thin wrapper
// around Main.
//
// A local context (-L, -K) runs the PMDAs of libpcp's DSO table as the
// tool's children (package local); -V then counts no PDUs, as libpcp's
// local context exchanges none. -V's counts of PDUs are those pcpkit's client exchanges with pmcd,
// which are libpcp's (an archive's are all zero). One bug of the real
// pmprobe is not reproduced: with -b 1, a name whose lookup fails makes
// it print a line with no name and leave out a later name (`pmprobe -b 1
// -F nosuch hinv.ncpu nosuch.too hinv.ndisk` has no line for hinv.ndisk).
package pmprobe

import (
	"fmt"
	"io"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pmapi"
)

// shortOpts is pmprobe's option string (PCP 6.0.3). -e is accepted by
// getopt and then refused; -d, which the manual and the usage message
// give for the version, is not in it (only --version works).
const shortOpts = "a:b:D:efh:IiK:Ln:FO:VvZ:z?"

// longOpts is pmprobe's long option table, in the real tool's order.
var longOpts = []getopt.Long{
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "container", HasArg: true, Short: pmctx.OptContainer},
	{Name: "derived", HasArg: true, Short: pmctx.OptDerived},
	{Name: "local-PMDA", Short: 'L'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "origin", HasArg: true, Short: 'O'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "version", Short: 'd'},
	{Name: "help", Short: '?'},
	{Name: "batch", HasArg: true, Short: 'b'},
	{Name: "force", Short: 'f'},
	{Name: "faster", Short: 'F'},
	{Name: "external", Short: 'I'},
	{Name: "internal", Short: 'i'},
	{Name: "verbose", Short: 'V'},
	{Name: "values", Short: 'v'},
}

const usage = `Usage: pmprobe [options] [metricname ...]

General options:
  -a FILE, --archive=FILE
                        metrics source is a PCP log archive
  -h HOST, --host=HOST  metrics source is PMCD on host
  --container=NAME      specify an individual container to be queried
  --derived=FILE        load derived metric definitions from FILE(s)
  -L, --local-PMDA      metrics source is local connection to a PMDA
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -O TIME, --origin=TIME
                        initial sample time within the time window
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -d, --version         display version number and exit
  -?, --help            show this usage message and exit

Protocol options:
  -b N, --batch=N       fetch at most N metrics at a time [128]

Reporting options:
  -f, --force           report all pmGetIndom or pmGetInDomArchive instances
  -F, --faster          assume given metric names are PMNS leaf nodes
  -I, --external        list external instance names
  -i, --internal        list internal instance numbers
  -V, --verbose         report PDU operations (verbose)
  -v, --values          list metric values
`

// tool holds one run's state.
type tool struct {
	*pmctx.Session

	force, faster, internal, external, values, verbose bool
	batch                                              int

	names []string

	// pmGetInDom (or pmGetInDomArchive) of the instance domain asked for
	// last
	lastInDom pmapi.InDom
	insts     []int32
	instNames []string
	instErr   error

	line []byte // a value line's bytes, reused
}

// Main runs pmprobe with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	t := &tool{Session: pmctx.NewSession("pmprobe", stdout, stderr), batch: 128, lastInDom: pmapi.InDomNull}
	return t.Run(func() int { return t.run(args) })
}

// loadDerived is --derived=FILE (pmGetOptions' pmLoadDerivedConfig): a
// file that cannot be read is an option error.
func (t *tool) loadDerived(o *pmctx.Opts, path string) {
	if err := t.LoadDerived(o, path); err != nil {
		o.Printf("%s: pmLoadDerivedConfig failed: %s\n", o.Prog, archive.ErrText(err))
		o.Errors++
	}
}

// option handles one of pmprobe's own options.
func (t *tool) option(o *pmctx.Opts, opt getopt.Opt) {
	switch opt.Short {
	case 'b':
		n, end := cnum.Strtol(opt.Arg)
		t.batch = int(int32(n))
		if end != len(opt.Arg) {
			o.Printf("%s: -b requires numeric argument\n", o.Prog)
			o.Errors++
		}
	case 'f':
		t.force = true
	case 'i':
		if t.values {
			o.Printf("%s: at most one of -i and -v allowed\n", o.Prog)
			o.Errors++
		}
		t.internal = true
	case 'I':
		if t.values {
			o.Printf("%s: at most one of -I and -v allowed\n", o.Prog)
			o.Errors++
		}
		t.external = true
	case 'F':
		t.faster = true
	case 'd':
		o.Printf("%s", version.Banner(o.Prog))
		o.Exit = true
	case 'V':
		t.verbose = true
	case 'v':
		if t.internal || t.external {
			o.Printf("%s: at most one of -v and (-i or -I) allowed\n", o.Prog)
			o.Errors++
		}
		t.values = true
	default:
		o.Errors++
	}
}

func (t *tool) run(args []string) int {
	p := &pmctx.Parser{Prog: "pmprobe", Short: shortOpts, Longs: longOpts, Claimed: "V", Derived: t.loadDerived}
	o, operands := p.Parse(args, t.Errw, t.option)
	t.Opts = o
	if o.Errors > 0 || o.Exit {
		return t.Usage(args, usage, CLI.Extensions())
	}
	t.Open(false)
	defer t.C.Close()

	if len(operands) == 0 {
		t.C.Traverse("", t.dometric)
	} else if t.faster {
		for _, a := range operands {
			t.dometric(a)
		}
	} else {
		for _, a := range operands {
			if err := t.C.Traverse(a, t.dometric); err != nil {
				fmt.Fprintf(t.Out, "%s %d %s\n", a, pmctx.ErrCode(err), archive.ErrText(err))
			}
		}
	}
	names, pmids := t.lookup(t.names)
	t.report(names, pmids)
	if t.verbose {
		t.pduCounts()
	}
	return 0
}

// dometric collects a name.
func (t *tool) dometric(name string) {
	t.names = append(t.names, name)
}

// lookup is pmLookupName over the names, in batches that keep each
// request under the 64 KiB a pmcd accepts (and at most batch+1 names):
// when a batch's lookup fails, its names without a PMID are reported
// with that error and dropped.
func (t *tool) lookup(names []string) ([]string, []pmapi.PMID) {
	var keptNames []string
	var keptIDs []pmapi.PMID
	const ceiling = 1024 * 64 // PDU_CHUNK * 64
	for i := 0; i < len(names); {
		b, bytes := 0, 0
		for ; i+b < len(names); b++ {
			l := len(names[i+b]) + 32
			if b > t.batch || l+bytes >= ceiling {
				b--
				break
			}
			bytes += l
		}
		if b <= 0 {
			// libpcp's loop would stop here for good (a batch size
			// below 1 looks nothing up)
			break
		}
		batch := names[i : i+b]
		ids, _, err := t.C.LookupNames(batch)
		if err != nil {
			for k, n := range batch {
				if ids == nil || ids[k] == pmapi.PMIDNull {
					fmt.Fprintf(t.Out, "%s %d %s\n", n, pmctx.ErrCode(err), archive.ErrText(err))
					continue
				}
				keptNames, keptIDs = append(keptNames, n), append(keptIDs, ids[k])
			}
		} else {
			keptNames = append(keptNames, batch...)
			keptIDs = append(keptIDs, ids...)
		}
		i += b
	}
	return keptNames, keptIDs
}

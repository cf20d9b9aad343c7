// Package pmprobe implements pmprobe: for each metric, the number of
// values available (or the error), optionally with the instances' numbers
// or names (-i, -I) or the values (-v), exactly as PCP 6.0.3's pmprobe
// prints them, from a set of archives (-a), a pmcd (-h HOST, or the local
// pmcd by default) or pcpkit's built-in collector (-h @), with derived
// metrics (--derived, $PCP_DERIVED_CONFIG). cmd/pmprobe is a thin wrapper
// around Main.
//
// A local context (-L) is not supported ("Operation not supported"), and
// -V's counts of PDUs are those of pcpkit's client (an archive's are all
// zero, as the real tool's are).
package pmprobe

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
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

// extras is what --help (spelled in full) adds after the usage message.
const extras = `
pcpkit extras:
  -h @                  metrics source is pcpkit's built-in collector
                        (the linux PMDA's metrics from /proc and /sys,
                        no pmcd needed)
`

// tool holds one run's state.
type tool struct {
	o    *pmctx.Opts
	out  *bufio.Writer
	errw io.Writer
	reg  *derive.Registry
	c    *pmctx.Context
	zone *pcptime.Zone // the reporting zone (for event timestamps)

	force, faster, internal, external, values, verbose bool
	batch                                              int

	names []string

	// pmGetInDom (or pmGetInDomArchive) of the instance domain asked for
	// last
	lastInDom pmapi.InDom
	insts     []int32
	instNames []string
	instErr   error
}

// errExit stops a run with an exit status.
type errExit int

// Main runs pmprobe with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) (status int) {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	t := &tool{out: out, errw: stderr, batch: 128, lastInDom: pmapi.InDomNull}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(errExit); ok {
				status = int(e)
				return
			}
			panic(r)
		}
	}()
	return t.run(args)
}

func (t *tool) fail(format string, a ...any) {
	t.out.Flush()
	fmt.Fprintf(t.errw, format, a...)
	panic(errExit(1))
}

// registry is the process's derived metrics, set up the first time they
// are needed (with $PCP_DERIVED_CONFIG, whose messages are printed then).
func (t *tool) registry() *derive.Registry {
	if t.reg == nil {
		var msgs strings.Builder
		t.reg = derive.NewProcessRegistry(&msgs)
		t.flushMessages(msgs.String())
	}
	return t.reg
}

// flushMessages writes messages libpcp prints with pmprintf and pmflush,
// with whatever pmprintf collected before.
func (t *tool) flushMessages(msgs string) {
	if msgs == "" {
		return
	}
	t.out.Flush()
	if t.o != nil {
		t.o.Flush()
	}
	io.WriteString(t.errw, msgs)
}

// loadDerived is --derived=FILE (pmGetOptions' pmLoadDerivedConfig): a
// file that cannot be read is an option error.
func (t *tool) loadDerived(o *pmctx.Opts, path string) {
	t.o = o
	var msgs strings.Builder
	_, err := t.registry().LoadConfig(path, &msgs)
	t.flushMessages(msgs.String())
	if err != nil {
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
		o.Printf("%s version %s\n", o.Prog, pmctx.Version)
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
	o, operands := p.Parse(args, t.errw, t.option)
	t.o = o
	if o.Errors > 0 || o.Exit {
		o.Usage(usage)
		if o.Exit {
			return 0
		}
		if !o.RuntimeErr {
			for _, a := range args {
				if a == "--" {
					break
				}
				if a == "--help" {
					io.WriteString(t.errw, extras)
					break
				}
			}
		}
		return 1
	}
	t.open()
	defer t.c.Close()

	if len(operands) == 0 {
		t.c.Traverse("", t.dometric)
	} else if t.faster {
		for _, a := range operands {
			t.dometric(a)
		}
	} else {
		for _, a := range operands {
			if err := t.c.Traverse(a, t.dometric); err != nil {
				code := pmctx.ErrCode(err)
				fmt.Fprintf(t.out, "%s %d %s\n", a, code, archive.ErrText(err))
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

// open creates the context and, for an archive, finishes the options
// that need it.
func (t *tool) open() {
	o := t.o
	reg := t.registry()
	switch o.Kind {
	case pmctx.KindArchive:
		c, err := pmctx.OpenArchive(o.Archives, reg, o.NS, t.messageWriter())
		if err != nil {
			t.fail("%s: Cannot open archive \"%s\": %s\n", o.Prog, o.Archives, archive.ErrText(err))
		}
		t.c = c
		t.contextOptions()
	case pmctx.KindLocal:
		t.fail("%s: Cannot make standalone connection on localhost: %s\n", o.Prog, archive.ErrText(syscall.ENOTSUP))
	default:
		host := "local:"
		if len(o.Hosts) > 0 {
			host = o.Hosts[0]
		}
		var src source.Source
		var err error
		if host == "@" {
			src, err = collector.New()
		} else {
			src, err = pmcd.Dial(host)
		}
		if err != nil {
			t.fail("%s: Cannot connect to PMCD on host \"%s\": %s\n", o.Prog, host, pmctx.DialErrText(err))
		}
		t.c = pmctx.OpenSource(src, reg, o.NS, t.messageWriter())
		t.zone = pcptime.LocalZone()
	}
}

func (t *tool) messageWriter() io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		t.out.Flush()
		return t.errw.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// contextOptions is pmGetContextOptions for an archive: the zone's note
// and the origin of -O.
func (t *tool) contextOptions() {
	o := t.o
	rc := t.c.Archive()
	lab := rc.Label()
	zone := pcptime.LocalZone()
	defer func() { t.zone = zone }()
	switch {
	case o.HostZone:
		zone = pcptime.LoadZone(lab.TZ)
		fmt.Fprintf(t.out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", t.c.Host())
	case o.TZSet:
		zone = pcptime.LoadZone(o.TZ)
		fmt.Fprintf(t.out, "Note: timezone set to \"TZ=%s\"\n\n", o.TZ)
	}
	if o.Origin == nil && o.Start == nil && o.Finish == nil && o.Align == nil {
		return
	}
	end, err := rc.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: 0x7fffffff}
		t.out.Flush()
		fmt.Fprintf(t.errw, "%s: Cannot locate end of archive %s: %s\n", o.Prog, o.Archives, archive.ErrText(err))
		fmt.Fprintf(t.errw, "\nWARNING: This archive is sufficiently damaged that it may not be possible to\n")
		fmt.Fprintf(t.errw, "         produce complete information.  Continuing and hoping for the best.\n\n")
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.Finish, Align: o.Align, Origin: o.Origin}, lab.Start, end, zone)
	if perr != nil {
		o.Printf("%s: invalid time window.\n%s\n", o.Prog, perr.Message())
		t.out.Flush()
		o.Flush()
		panic(errExit(1))
	}
	t.c.SetOrigin(w.Origin)
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
		ids, _, err := t.c.LookupNames(batch)
		if err != nil {
			for k, n := range batch {
				if ids == nil || ids[k] == pmapi.PMIDNull {
					fmt.Fprintf(t.out, "%s %d %s\n", n, pmctx.ErrCode(err), archive.ErrText(err))
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

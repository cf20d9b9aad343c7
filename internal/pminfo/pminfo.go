// Package pminfo implements pminfo: it reports the names, identifiers,
// descriptors, help text, labels, series identifiers and values of
// performance metrics exactly as PCP 6.0.3's pminfo does, from a set of
// archives (-a), a pmcd (-h HOST, or the local pmcd by default) or
// pcpkit's built-in collector (-h @), with derived metrics (-c,
// $PCP_DERIVED_CONFIG). --json (pcpkit's) prints one JSON object per
// metric instead (json.go). cmd/pminfo is a thin wrapper around Main.
//
// A local context (-L, DSO PMDAs loaded into the process) is not
// supported: pminfo reports "Operation not supported" for it.
package pminfo

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// tool holds one run's state.
type tool struct {
	f    flags
	o    *pmctx.Opts
	out  *bufio.Writer
	errw io.Writer
	reg  *derive.Registry // the process's derived metrics
	c    *pmctx.Context
	zone *pcptime.Zone

	// the batch of names waiting for report
	names   []string
	pdusize int

	cache cache
	json  *jsonOut

	flagsPMID, missedPMID pmapi.PMID // event.flags, event.missed (0: not looked up)
}

// errExit stops a run with an exit status.
type errExit int

// Main runs pminfo with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) (status int) {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	t := &tool{out: out, errw: stderr}
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

// fail writes a message on stderr (after what stdout holds) and stops
// with status 1.
func (t *tool) fail(format string, a ...any) {
	t.out.Flush()
	fmt.Fprintf(t.errw, format, a...)
	panic(errExit(1))
}

// stderr writes a message on stderr after flushing stdout, as a C
// program's unbuffered stderr does not wait for stdout.
func (t *tool) stderr(format string, a ...any) {
	t.out.Flush()
	fmt.Fprintf(t.errw, format, a...)
}

// registry is the process's derived metrics, set up (with
// $PCP_DERIVED_CONFIG, whose errors are printed now) the first time they
// are needed, as libpcp's __dminit.
func (t *tool) registry() *derive.Registry {
	if t.reg == nil {
		var msgs strings.Builder
		t.reg = derive.NewProcessRegistry(&msgs)
		t.flushMessages(msgs.String())
	}
	return t.reg
}

// flushMessages writes messages libpcp prints with pmprintf and pmflush:
// whatever pmprintf collected before goes out with them.
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

// loadDerived is -c FILE: pmLoadDerivedConfig; a failure is reported
// and pminfo goes on.
func (t *tool) loadDerived(o *pmctx.Opts, path string) {
	t.o = o
	reg := t.registry()
	var msgs strings.Builder
	_, err := reg.LoadConfig(path, &msgs)
	t.flushMessages(msgs.String())
	if err != nil {
		t.stderr("%s: derived configuration(s) error: %s\n", o.Prog, archive.ErrText(err))
	}
}

func (t *tool) run(args []string) int {
	t.f.batch = 128
	p := &pmctx.Parser{Prog: "pminfo", Short: shortOpts, Longs: longOpts, Claimed: "stT"}
	o, operands := p.Parse(args, t.errw, t.option)
	t.o = o
	if o.Errors > 0 || o.Exit {
		status := 1
		if o.Exit {
			status = 0
		}
		o.Usage(usage)
		if o.Errors > 0 && !o.Exit && !o.RuntimeErr && helpInFull(args) {
			io.WriteString(t.errw, extras)
		}
		return status
	}
	f := &t.f
	if o.Kind != pmctx.KindNone {
		f.needContext = true
	}
	if o.Kind == pmctx.KindArchive {
		// one metric per batch, each fetched from the start (pminfo's
		// own comment: "so metric will be found if it is in the
		// archive")
		f.batch = 1
	}
	if o.Kind == pmctx.KindHost {
		t.pdusize = 5 * 4
	}
	if f.verify {
		f.desc, f.mid, f.fullmid, f.help, f.oneline, f.value, f.force, f.label = false, false, false, false, false, false, false, false
	}
	if !o.NSFlag {
		f.needContext = true
	}
	if f.json {
		t.startJSON()
	}
	if f.needContext {
		t.open()
	} else {
		// no context: the names come from the -n file alone
		t.c = pmctx.OpenNamespace(o.NS, t.registry())
	}
	defer t.c.Close()

	status := 0
	if len(operands) == 0 {
		if err := t.c.Traverse("", t.dometric); err != nil {
			t.stderr("Error: %s\n", archive.ErrText(err))
			status = 1
		}
	}
	for _, a := range operands {
		var err error
		if a != "" && a[0] >= '0' && a[0] <= '9' {
			err = t.dodigit(a)
		} else {
			err = t.c.Traverse(a, t.dometric)
		}
		if err != nil {
			t.stderr("Error: %s: %s\n", a, archive.ErrText(err))
			status = 1
		}
	}
	t.report()
	t.endJSON()
	return status
}

// helpInFull reports whether --help was spelled out, which adds pcpkit's
// extras to the usage message.
func helpInFull(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" {
			return true
		}
	}
	return false
}

// open creates the context (pmNewContext) and, for an archive, finishes
// the options that need it (pmTrimNameSpace, pmGetContextOptions).
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
		if o.NSFlag {
			c.TrimNamespace()
		}
		t.contextOptions()
	case pmctx.KindLocal:
		t.fail("%s: Cannot make standalone connection on localhost: %s\n", o.Prog, archive.ErrText(syscall.ENOTSUP))
	default:
		host := "local:"
		if len(o.Hosts) > 0 {
			host = o.Hosts[0]
		}
		src, err := dial(host)
		if err != nil {
			t.fail("%s: Cannot connect to PMCD on host \"%s\": %s\n", o.Prog, host, pmctx.DialErrText(err))
		}
		t.c = pmctx.OpenSource(src, reg, o.NS, t.messageWriter())
		t.zone = pcptime.LocalZone()
	}
}

// dial connects to a pmcd, or makes the built-in collector for "@".
func dial(host string) (source.Source, error) {
	if host == "@" {
		return collector.New()
	}
	return pmcd.Dial(host)
}

// messageWriter is where the derived metrics' semantic errors go: stderr,
// after stdout's pending output.
func (t *tool) messageWriter() io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		t.out.Flush()
		return t.errw.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// contextOptions is pmGetContextOptions for an archive: the reporting
// zone (with its note on stdout) and the origin of -O.
func (t *tool) contextOptions() {
	o := t.o
	rc := t.c.Archive()
	lab := rc.Label()
	t.zone = pcptime.LocalZone()
	switch {
	case o.HostZone:
		t.zone = pcptime.LoadZone(lab.TZ)
		fmt.Fprintf(t.out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", t.c.Host())
	case o.TZSet:
		t.zone = pcptime.LoadZone(o.TZ)
		fmt.Fprintf(t.out, "Note: timezone set to \"TZ=%s\"\n\n", o.TZ)
	}
	if o.Origin == nil && o.Start == nil && o.Finish == nil && o.Align == nil {
		return
	}
	end, err := rc.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: 0x7fffffff}
		t.stderr("%s: Cannot locate end of archive %s: %s\n", o.Prog, o.Archives, archive.ErrText(err))
		t.stderr("\nWARNING: This archive is sufficiently damaged that it may not be possible to\n")
		t.stderr("         produce complete information.  Continuing and hoping for the best.\n\n")
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.Finish, Align: o.Align, Origin: o.Origin}, lab.Start, end, t.zone)
	if perr != nil {
		o.Printf("%s: invalid time window.\n%s\n", o.Prog, perr.Message())
		t.out.Flush()
		o.Flush()
		panic(errExit(1))
	}
	t.c.SetOrigin(w.Origin)
}

// dodigit handles an operand that starts with a digit: a PMID
// ("domain.cluster.item", reported under its name) or an instance domain
// ("domain.serial", reported directly), as sscanf("%u.%u.%u") and
// sscanf("%u.%u") read them.
func (t *tool) dodigit(arg string) error {
	nums, n := scanDotted(arg, 3)
	switch n {
	case 3:
		pmid := pmapi.NewPMID(nums[0], nums[1], nums[2])
		names, err := t.c.NameAll(pmid)
		if err != nil {
			return err
		}
		return t.c.Traverse(names[0], t.dometric)
	case 2:
		t.doindom(pmapi.NewInDom(nums[0], nums[1]))
		return nil
	}
	return pmapi.ErrName
}

// scanDotted reads up to max numbers separated by dots as sscanf's %u
// does (white space, a sign, digits; a negative number wraps), and
// returns how many it read.
func scanDotted(s string, max int) ([]uint32, int) {
	var out []uint32
	i := 0
	for len(out) < max {
		if len(out) > 0 {
			if i >= len(s) || s[i] != '.' {
				break
			}
			i++
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] >= '\t' && s[j] <= '\r') {
			j++
		}
		neg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			neg = s[j] == '-'
			j++
		}
		k := j
		var v uint64
		over := false
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			d := uint64(s[k] - '0')
			if v > (1<<64-1-d)/10 {
				over = true
			}
			v = v*10 + d
			k++
		}
		if k == j {
			break
		}
		if over {
			v = 1<<64 - 1
		}
		if neg && !over {
			v = -v
		}
		out = append(out, uint32(v))
		i = k
	}
	return out, len(out)
}

// dometric is the traversal callback: the name joins the batch, which is
// reported when full (or, live, when the names would overflow a PDU).
func (t *tool) dometric(name string) {
	if name == "" {
		t.out.WriteString("PMNS appears to be empty!\n")
		return
	}
	t.names = append(t.names, name)
	if t.o.Kind == pmctx.KindHost {
		t.pdusize += 4 + (len(name)+3)&^3
		if t.pdusize > 63*1024 {
			t.f.batch = len(t.names)
		}
	}
	if len(t.names) >= t.f.batch {
		t.report()
	}
}

package pmctx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/pmns"
)

// Kind is the kind of a PMAPI context.
type Kind int

// The kinds of context (PM_CONTEXT_*); KindNone until one is chosen.
const (
	KindNone Kind = iota
	KindArchive
	KindHost
	KindLocal
)

// Codes of the long-only options the tools share (getopt.Long.Short).
const (
	OptContainer = 1000 + iota // --container
	OptDerived                 // --derived (pmGetOptions' PMOPT_DERIVED)
	OptJSON                    // pcpkit's --json
)

// Opts is what pmGetOptions makes of a command line (libpcp's pmOptions):
// the options every PMAPI tool shares. Messages libpcp prints at once
// (getopt's complaints, a PMNS file's errors) go to the stderr given to
// Parse; those it collects with pmprintf wait in Pending, printed before
// the usage message or by Flush.
type Opts struct {
	Prog       string
	Archives   string   // the -a names joined by commas, duplicates dropped
	ArchiveSet bool     // an -a was given (its name may be empty: `-a ''`)
	Hosts      []string // -h
	LFlag      bool     // -L
	Kind       Kind     // the context to create (after the options)

	NS     *pmns.Namespace // -n or -N
	NSFlag bool

	Origin               *string // -O
	Start, Finish, Align *string // from the environment only
	TZ                   string  // -Z
	TZSet                bool
	HostZone             bool // -z

	Errors     int
	Exit       bool // -V: print the version and exit 0
	RuntimeErr bool // no usage message after the errors

	Local *LocalTable // -K

	Pending strings.Builder // pmprintf's buffer
	stderr  io.Writer
}

// Printf is pmprintf: the message waits in Pending.
func (o *Opts) Printf(format string, a ...any) {
	fmt.Fprintf(&o.Pending, format, a...)
}

// Flush is pmflush: the pending messages go to stderr.
func (o *Opts) Flush() {
	io.WriteString(o.stderr, o.Pending.String())
	o.Pending.Reset()
}

// standard reports whether pmGetOptions itself handles the option code c
// (when the tool does not claim it).
func standard(c rune) bool {
	switch c {
	case 'A', 'a', 'D', 'g', 'H', 'h', 'K', 'L', 'N', 'n', 'O', 'p', 'S', 's', 'T', 't', 'V', 'Z', 'z', '?',
		OptContainer, OptDerived:
		return true
	}
	return false
}

// Parser runs pmGetOptions for one tool.
type Parser struct {
	Prog  string
	Short string        // the tool's short option string
	Longs []getopt.Long // the tool's long option table, in its order
	// Claimed are the option letters the tool's override function takes
	// from pmGetOptions (pminfo's -s, -t, -T; pmprobe's -V).
	Claimed string
	// Derived loads --derived=FILE (PMOPT_DERIVED) into the process's
	// derived metrics; nil when the tool has no such option.
	Derived func(o *Opts, path string)
	// Done is PM_OPTFLAG_DONE: Parse does not end the options; the tool
	// names its archive (AddArchive) and then calls End itself, as
	// pmlogcheck does with its operand.
	Done bool
}

// Parse parses args (without the program name) as pmGetOptions does,
// the environment first (PCP_ARCHIVE, PCP_HOST, PCP_NAMESPACE, ...), then
// the command line, handing each option that is not a standard one (or
// that the tool claims) to tool, in order. It ends as __pmEndOptions does,
// choosing the kind of context and checking the combinations. It returns
// the options and the operands.
func (p *Parser) Parse(args []string, stderr io.Writer, tool func(o *Opts, opt getopt.Opt)) (*Opts, []string) {
	o := &Opts{Prog: p.Prog, stderr: stderr}
	p.fromEnv(o)
	evs, operands := getopt.ParseEvents(args, p.Short, p.Longs)
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(stderr, "%s: %s\n", p.Prog, ev.Err)
			o.Errors++
			continue
		}
		c := ev.Short
		if strings.ContainsRune(p.Claimed, c) || !standard(c) {
			tool(o, ev.Opt)
			continue
		}
		p.standardOpt(o, c, ev.Arg)
	}
	if !p.Done {
		o.end()
	}
	return o, operands
}

// standardOpt handles one of pmGetOptions' own options.
func (p *Parser) standardOpt(o *Opts, c rune, arg string) {
	switch c {
	case 'A':
		o.Align = &arg
	case 'a':
		o.addArchive(arg)
	case 'D':
		if !getopt.ValidDebug(arg) {
			o.Printf("%s: unrecognized debug options specification (%s)\n", o.Prog, arg)
			o.Errors++
		}
	case 'h':
		o.addHost(arg)
	case 'K':
		if o.Local == nil {
			o.Local = &LocalTable{}
		}
		if msg := o.Local.Spec(arg); msg != "" {
			o.Printf("%s: pmSpecLocalPMDA failed: %s\n", o.Prog, msg)
			o.Errors++
		}
	case 'L':
		o.setLocal()
	case 'N':
		o.setNamespace(arg, false)
	case 'n':
		o.setNamespace(arg, true)
	case 'O':
		o.Origin = &arg
	case 'S':
		o.Start = &arg
	case 'T':
		o.Finish = &arg
	case 'V':
		o.Exit = true
		o.Printf("%s", version.Banner(o.Prog))
	case 'Z':
		o.setTimeZone(arg)
	case 'z':
		o.setHostZone()
	case '?':
		o.Errors++
	case OptContainer:
		// The container of the pmcd context, as libpcp takes it
		// (archives ignore it).
		os.Setenv(pmcd.ContainerEnv, arg)
	case OptDerived:
		if p.Derived != nil {
			p.Derived(o, arg)
		}
	}
}

// Version is the PCP version the tools report.
const Version = "6.0.3"

// AddArchive is __pmAddOptArchive: the archive named after the options
// (with Parser.Done).
func (o *Opts) AddArchive(name string) { o.addArchive(name) }

// End is __pmEndOptions, for a tool that parsed with Parser.Done.
func (o *Opts) End() { o.end() }

// addArchive is libpcp's addArchive: one context for all the archives,
// their names joined by commas, a name already in the list dropped.
func (o *Opts) addArchive(arg string) {
	if len(o.Hosts) > 0 {
		o.Printf("%s: only one host or archive allowed\n", o.Prog)
		o.Errors++
		return
	}
	if !o.ArchiveSet {
		o.Archives, o.ArchiveSet = arg, true
		return
	}
	if i := strings.Index(o.Archives, arg); i >= 0 && (i == 0 || o.Archives[i-1] == ',') {
		if e := i + len(arg); e == len(o.Archives) || o.Archives[e] == ',' {
			return
		}
	}
	o.Archives += "," + arg
}

func (o *Opts) addHost(arg string) {
	switch {
	case len(o.Hosts) > 0:
		o.Printf("%s: too many hosts requested: %s\n", o.Prog, arg)
		o.Errors++
	case o.ArchiveSet:
		o.Printf("%s: only one host or archive allowed\n", o.Prog)
		o.Errors++
	default:
		o.Hosts = append(o.Hosts, arg)
	}
}

func (o *Opts) setLocal() {
	if o.Kind != KindNone {
		o.Printf("%s: at most one of -a, -h and -L allowed\n", o.Prog)
		o.Errors++
		return
	}
	o.LFlag = true
}

// setNamespace is -n (dupOK) and -N: the PMNS file is loaded at once; its
// errors are printed now, the tool's line about them later, and the run
// ends without a usage message.
func (o *Opts) setNamespace(path string, dupOK bool) {
	var ns *pmns.Namespace
	var err error
	if dupOK {
		ns, err = pmns.Load(path)
	} else {
		ns, err = pmns.LoadUnique(path)
	}
	if err != nil {
		reason := err.Error()
		var le *pmns.LoadError
		if errors.As(err, &le) {
			io.WriteString(o.stderr, le.Messages)
			reason = le.Reason
		}
		o.Printf("%s: Cannot load namespace from \"%s\": %s\n", o.Prog, path, reason)
		o.RuntimeErr = true
		o.Errors++
		return
	}
	o.NS, o.NSFlag = ns, true
}

func (o *Opts) setTimeZone(tz string) {
	if o.HostZone {
		o.Printf("%s: at most one of -Z and -z allowed\n", o.Prog)
		o.Errors++
		return
	}
	o.TZ, o.TZSet = tz, true
}

func (o *Opts) setHostZone() {
	if o.TZSet {
		o.Printf("%s: at most one of -Z and -z allowed\n", o.Prog)
		o.Errors++
		return
	}
	o.HostZone = true
}

// fromEnv is __pmStartOptions: the PCP_* variables that stand for
// options (getopt.FromEnv), in the order of the environment. Those of
// options pminfo and pmprobe have no use for (-D, -g, -p, -s, -t: no
// debug output, no time control, no samples) are left out.
func (p *Parser) fromEnv(o *Opts) {
	for _, opt := range getopt.FromEnv(os.Environ()) {
		if strings.ContainsRune("AahKLnNOSTZz", opt.Short) {
			p.standardOpt(o, opt.Short, opt.Arg)
		}
	}
}

// end is __pmEndOptions: the kind of context, and the checks that need
// it. An origin with no source names the local host's pmlogger archives.
func (o *Opts) end() {
	if o.Kind == KindNone {
		switch {
		case o.LFlag:
			o.Kind = KindLocal
		case len(o.Hosts) > 0 && !o.ArchiveSet:
			o.Kind = KindHost
		case o.ArchiveSet && len(o.Hosts) == 0:
			o.Kind = KindArchive
		case o.Origin != nil:
			o.Kind = KindArchive
			o.addArchive(defaultArchivePath())
		}
	}
	if (o.Start != nil || o.Align != nil || o.Origin != nil) && o.Kind != KindArchive {
		o.Printf("%s: time window options are supported for archives only\n", o.Prog)
		o.Errors++
	}
	if o.HostZone && o.Kind != KindArchive && o.Kind != KindHost {
		o.Printf("%s: use of timezone from metric source requires a source\n", o.Prog)
		o.Errors++
	}
}

// defaultArchivePath is __pmAddOptArchivePath: the directory of this
// host's archives under $PCP_LOG_DIR.
func defaultArchivePath() string {
	logdir := pcpconf.Get("PCP_LOG_DIR", "/var/log/pcp")
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	for _, sub := range []string{"pmlogger", "pmmgr"} {
		dir := logdir + "/" + sub + "/" + host
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
	}
	return logdir + "/pmlogger/" + host
}

// Usage writes the pending messages and, unless the errors are run-time
// ones or -V was given, the usage message (pmUsageMessage, see
// UsageText).
func (o *Opts) Usage(usage string) {
	if !o.RuntimeErr && !o.Exit {
		o.Pending.WriteString(UsageText(usage))
	}
	o.Flush()
}

// archiveText603 and archiveText638 are the text of libpcp's standard -a
// option (PMOPT_ARCHIVE) in PCP 6.0.3 and in PCP 6.3.8.
const (
	archiveText603 = "metrics source is a PCP log archive"
	archiveText638 = "metrics source is a PCP archive"
)

// UsageText is a tool's usage message, written with PCP 6.0.3's texts of
// libpcp's standard options, as the libpcp of the PCP version pcpkit
// behaves as (pcpconf.Version) prints it: 6.3.8 names an archive "a PCP
// archive", not "a PCP log archive".
func UsageText(usage string) string {
	if pcpconf.Version() == pcpconf.Version638 {
		return strings.Replace(usage, archiveText603, archiveText638, 1)
	}
	return usage
}

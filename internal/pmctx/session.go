package pmctx

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/local"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

// Session is one run of a tool (pminfo, pmprobe): its buffered standard
// output and its standard error, the process's derived metrics, the
// options, the context and the reporting zone.
//
// Standard output is buffered as C's stdio buffers the real tool's: in
// blocks of 4 KiB (a file's or a pipe's block size) written when full and
// at exit, so that under 2>&1 a message on stderr comes before the
// output still buffered (the real tools never flush stdout); on a
// terminal, by lines (what was printed is out before a message).
type Session struct {
	Prog string
	Out  *bufio.Writer
	Errw io.Writer
	tty  bool // stdout is a terminal
	Opts *Opts
	C    *Context
	// Live is the live source C was opened on (a pmcd client or the
	// built-in collector); nil for an archive.
	Live source.Source
	Zone *pcptime.Zone // the reporting zone (-Z, -z, else $TZ)
	reg  *derive.Registry
}

// exit stops a session with an exit status (Fail).
type exit int

// NewSession starts a session writing to stdout and stderr.
func NewSession(prog string, stdout, stderr io.Writer) *Session {
	tty := false
	if f, ok := stdout.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	size := stdioBlock
	if tty {
		size = 64 << 10
	}
	return &Session{Prog: prog, Out: bufio.NewWriterSize(stdout, size), Errw: stderr, tty: tty, Zone: pcptime.LocalZone()}
}

// stdioBlock is the size of a C stdio buffer on a file or a pipe.
const stdioBlock = 4096

// beforeStderr is what C's stdio has written of stdout when a message
// goes to stderr: on a terminal every line printed; otherwise nothing
// more (full blocks are written as they fill).
func (s *Session) beforeStderr() {
	if s.tty {
		s.Out.Flush()
	}
}

// Run runs the tool's body and returns its exit status, or the one Fail
// stopped it with; standard output is flushed.
func (s *Session) Run(body func() int) (status int) {
	defer s.Out.Flush()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(exit)
			if !ok {
				panic(r)
			}
			status = int(e)
		}
	}()
	return body()
}

// Fail writes a message on stderr (after what stdout holds) and stops the
// session with status 1.
func (s *Session) Fail(format string, a ...any) {
	s.Stderr(format, a...)
	panic(exit(1))
}

// Stderr writes a message on stderr at once, as a C program's
// unbuffered stderr does (stdout as its stdio has it: beforeStderr).
func (s *Session) Stderr(format string, a ...any) {
	s.beforeStderr()
	fmt.Fprintf(s.Errw, format, a...)
}

// messages is where libpcp's messages about derived metrics go: stderr,
// at once.
func (s *Session) messages() io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		s.beforeStderr()
		return s.Errw.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// Registry is the process's derived metrics, set up (with
// $PCP_DERIVED_CONFIG, whose messages are printed then) the first time
// they are needed, as libpcp's __dminit does.
func (s *Session) Registry() *derive.Registry {
	if s.reg == nil {
		var msgs strings.Builder
		s.reg = derive.NewProcessRegistry(&msgs)
		s.flushMessages(msgs.String())
	}
	return s.reg
}

// flushMessages writes messages libpcp prints with pmprintf and pmflush:
// what pmprintf collected before goes out with them.
func (s *Session) flushMessages(msgs string) {
	if msgs == "" {
		return
	}
	s.beforeStderr()
	if s.Opts != nil {
		s.Opts.Flush()
	}
	io.WriteString(s.Errw, msgs)
}

// LoadDerived is pmLoadDerivedConfig(path) during the options (o): the
// definitions' errors are printed as they are found; the error is for a
// file or directory that cannot be read.
func (s *Session) LoadDerived(o *Opts, path string) error {
	s.Opts = o
	var msgs strings.Builder
	_, err := s.Registry().LoadConfig(path, &msgs)
	s.flushMessages(msgs.String())
	return err
}

// Open creates the context the options name (pmNewContext), or stops
// with the real tools' message: an archive (whose -n namespace is trimmed
// to it when trim is set: pmTrimNameSpace), a pmcd, the built-in
// collector ("-h @"); a local context is not supported. For an archive it
// then finishes the options that need one (pmGetContextOptions).
func (s *Session) Open(trim bool) {
	o := s.Opts
	reg := s.Registry()
	switch o.Kind {
	case KindArchive:
		c, err := OpenArchive(o.Archives, reg, o.NS, s.messages())
		if err != nil {
			s.Fail("%s: Cannot open archive \"%s\": %s\n", o.Prog, o.Archives, archive.ErrText(err))
		}
		s.C = c
		if trim && o.NSFlag {
			c.TrimNamespace()
		}
		s.contextOptions()
	case KindLocal:
		ns, err := local.DefaultNamespace(pcpconf.VarDir())
		if err != nil {
			s.Fail("%s: Cannot make standalone connection on localhost: %s\n", o.Prog, archive.ErrText(pmapi.ErrPMNS))
		}
		if o.Local == nil {
			o.Local = &LocalTable{}
		}
		src := local.New(o.Local.PMDAs(), ns, s.messages())
		s.Live = src
		s.C = OpenLocal(src, reg, o.NS, s.messages())
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
			s.Fail("%s: Cannot connect to PMCD on host \"%s\": %s\n", o.Prog, host, pmcd.DialErrorText(err))
		}
		s.Live = src
		s.C = OpenSource(src, reg, o.NS, s.messages())
	}
}

// contextOptions is pmGetContextOptions for an archive: the reporting
// zone (with its note on stdout) and the origin of -O.
func (s *Session) contextOptions() {
	o := s.Opts
	rc := s.C.Archive()
	lab := rc.Label()
	if z := o.ArchiveZone(lab, s.C.Host(), s.Out); z != nil {
		s.Zone = z
	}
	if o.Origin == nil && o.Start == nil && o.Finish == nil && o.Align == nil {
		return
	}
	end, err := rc.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: 0x7fffffff}
		s.Stderr("%s: Cannot locate end of archive %s: %s\n", o.Prog, o.Archives, archive.ErrText(err))
		s.Stderr("\nWARNING: This archive is sufficiently damaged that it may not be possible to\n")
		s.Stderr("         produce complete information.  Continuing and hoping for the best.\n\n")
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.Finish, Align: o.Align, Origin: o.Origin}, lab.Start, end, s.Zone)
	if perr != nil {
		o.Printf("%s: invalid time window.\n%s\n", o.Prog, perr.Message())
		s.beforeStderr()
		o.Flush()
		panic(exit(1))
	}
	s.C.SetOrigin(w.Origin)
}

// ArchiveZone is the reporting zone pmGetContextOptions sets for an
// archive with label lab from host: the archive's with -z, -Z's zone,
// each with its note on out; nil (the local zone stays) without either.
func (o *Opts) ArchiveZone(lab *archive.Label, host string, out io.Writer) *pcptime.Zone {
	switch {
	case o.HostZone:
		fmt.Fprintf(out, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", host)
		return pcptime.LoadZone(lab.TZ)
	case o.TZSet:
		fmt.Fprintf(out, "Note: timezone set to \"TZ=%s\"\n\n", o.TZ)
		return pcptime.LoadZone(o.TZ)
	}
	return nil
}

// Usage ends a run whose options had errors (or -V): the pending
// messages, then the usage message unless the errors were run-time ones
// or -V was given, then extras when --help was spelled out in full. It
// returns the exit status.
func (s *Session) Usage(args []string, usage, extras string) int {
	o := s.Opts
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
				io.WriteString(s.Errw, extras)
				break
			}
		}
	}
	return 1
}

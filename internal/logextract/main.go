package logextract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/sizearg"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

const shortOpts = "c:D:dfmS:s:T:V:v:wX:xZ:z?"

var longOpts = []getopt.Long{
	{Name: "config", HasArg: true, Short: 'c'},
	{Name: "desperate", Short: 'd'},
	{Name: "first", Short: 'f'},
	{Name: "mark", Short: 'm'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "samples", HasArg: true, Short: 's'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "outputversion", HasArg: true, Short: 'V'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "help", Short: '?'},
}

// optSync is the code of --sync.
const optSync = 1000

// optVersion is the code of --version, pcpkit's: the real pmlogextract
// has none (its -V is the output archive's format version).
const optVersion = 1001

const usage = `Usage: pmlogextract [options] input-archive output-archive

Options:
  -c FILE, --config=FILE
                        file to load configuration from
  -d, --desperate       desperate, save output after fatal error
  -f, --first           use timezone from first archive [default is last]
  -m, --mark            ignore prologue/epilogue records and <mark> between archives
  -S TIME, --start=TIME start of the time window
  -s NUM, --samples=NUM terminate after NUM log records have been written
  -T TIME, --finish=TIME
                        end of the time window
  -V VERSION, --outputversion=VERSION
                        output archive version
  -v SAMPLES            switch log volumes after this many samples
  -w                    ignore day/month/year
  -x                    skip metrics with mismatched metadata
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -?, --help            show this usage message and exit
`

// usageText is the usage message of the real pmlogextract of the PCP
// version pcpkit behaves as: 6.3.8's -v takes a SIZE.
func usageText() string {
	if pcpconf.Version() == pcpconf.Version638 {
		return strings.Replace(usage, "-v SAMPLES            switch log volumes after this many samples",
			"-v SIZE               switch log volumes after size has been accumulated", 1)
	}
	return usage
}

// Main runs pmlogextract with args (without the program name), writing
// to stdout and stderr, and returns the exit status, with the real
// tool's options (-D's debug output aside). Two pcpkit extras, not in the
// real tool (whose usage message
// is kept as it is): --sync makes every record durable before the next
// is written; -X ALGO or --compress[=ALGO] compresses each finished data
// volume and the metadata file, with xz (the default of --compress) or
// zstd, as pmlogger_daily compresses an archive (the index stays plain).
func Main(args []string, stdout, stderr io.Writer) int {
	out := newCStdout(stdout)
	defer out.Flush()
	return run(args, out, stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	const prog = "pmlogextract"
	args, extras := splitExtras(args)
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	for _, x := range extras {
		evs = append(evs, getopt.Event{Opt: x})
	}
	o := &Options{Stdout: stdout, Stderr: stderr, progName: prog}
	bad := false
	var tz string
	hostzone, desperate := false, false
	for _, op := range evs {
		if op.Err != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, op.Err)
			bad = true
			continue
		}
		switch op.Short {
		case 'D':
			// libpcp's debug options: accepted, and nothing printed
			if !getopt.ValidDebug(op.Arg) {
				fmt.Fprintf(stderr, "%s: unrecognized debug options specification (%s)\n", prog, op.Arg)
				bad = true
			}
		case 'c':
			o.Config = op.Arg
		case 'd':
			desperate = true
		case 'f':
			o.FirstTZ = true
		case 'm':
			o.AlwaysMark = true
		case 'S':
			s := op.Arg
			o.Start = &s
		case 'T':
			s := op.Arg
			o.End = &s
		case 's':
			n, err := strconv.Atoi(op.Arg)
			if err != nil || n < 0 {
				fmt.Fprintf(stderr, "%s: -s requires numeric argument\n", prog)
				bad = true
			}
			o.Samples = n
		case 'v':
			if pcpconf.Version() == pcpconf.Version638 {
				// PCP 6.3's -v SIZE: records, bytes or a time span
				l, shown, ok := sizearg.Parse(op.Arg)
				if !ok {
					fmt.Fprintf(stderr, "%s: illegal size argument '%s' for volume size\n", prog, shown)
					bad = true
				}
				o.VolSamples, o.VolBytes, o.VolSpan = int(l.Samples), l.Bytes, l.Duration
				continue
			}
			n, err := strconv.Atoi(op.Arg)
			if err != nil || n < 0 {
				fmt.Fprintf(stderr, "%s: -v requires numeric argument\n", prog)
				bad = true
			}
			o.VolSamples = n
		case 'V':
			n, err := strconv.Atoi(op.Arg)
			if err != nil {
				fmt.Fprintf(stderr, "%s: -V requires numeric argument\n", prog)
				bad = true
			}
			if n != 2 && n != 3 {
				fmt.Fprintf(stderr, "%s: -V value must be 2 or 3\n", prog)
				bad = true
			}
			o.Version = n
		case 'w':
			o.Daily = true
		case 'x':
			o.SkipMismatched = true
		case 'Z':
			tz = op.Arg
		case 'z':
			hostzone = true
		case '?':
			bad = true
		case optSync:
			o.SyncEveryRecord = true
		case optVersion:
			io.WriteString(stderr, version.Banner(prog))
			return 0
		case 'X':
			if op.Arg != "xz" && op.Arg != "zstd" {
				name := "-X"
				if op.Name != "" {
					name = "--" + op.Name
				}
				fmt.Fprintf(stderr, "%s: %s value must be xz or zstd\n", prog, name)
				bad = true
			}
			o.Compress = op.Arg
		}
	}
	if hostzone && tz != "" {
		fmt.Fprintf(stderr, "%s: at most one of -Z and/or -z allowed\n", prog)
		bad = true
	}
	if o.Daily && (o.Start == nil || o.End == nil) {
		fmt.Fprintf(stderr, "%s: Warning: -w flag requires that both -S and -T are specified.\nIgnoring -w flag.\n", prog)
		o.Daily = false
	}
	if !bad && len(operands) < 2 {
		fmt.Fprintf(stderr, "%s: Error: insufficient arguments\n", prog)
		bad = true
	}
	if bad {
		fmt.Fprint(stderr, usageText()+CLI.Help(args))
		return 1
	}
	o.Desperate = desperate
	o.Inputs = operands[:len(operands)-1]
	o.Output = operands[len(operands)-1]
	expanded, err := expandInputs(o.Inputs)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	o.Names, o.Inputs = o.Inputs, expanded
	switch {
	case hostzone:
		for _, in := range o.Inputs {
			if tz, host, err := labelZone(in); err == nil {
				o.Zone = pcptime.LoadZone(tz)
				fmt.Fprintf(stdout, "Note: timezone set to local timezone of host \"%s\" from archive\n\n", host)
				break
			}
		}
	case tz != "":
		o.Zone = pcptime.LoadZone(tz)
		fmt.Fprintf(stdout, "Note: timezone set to \"TZ=%s\"\n\n", tz)
	}
	if err := Extract(o); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Msg: "Error: " + err.Error()}
		}
		if e.NoPrefix {
			fmt.Fprintf(stderr, "%s\n", e.Msg)
		} else {
			fmt.Fprintf(stderr, "%s: %s\n", prog, e.Msg)
		}
		if e.Usage {
			fmt.Fprint(stderr, usageText()+CLI.Help(args))
		}
		if e.NotCreated {
			fmt.Fprintf(stderr, "Archive \"%s\" not created.\n", o.Output)
		}
		return 1
	}
	return 0
}

// splitExtras takes pcpkit's long options out of args: --sync, and
// --compress[=ALGO] (--compress alone is xz; the option parser knows no
// optional arguments). They are matched only when spelled in full, so
// the abbreviations of the real tool's long options, and their
// ambiguities, stay the real tool's ("--c" is still --config). Option
// arguments are passed over, and nothing after "--" is touched.
func splitExtras(args []string) (rest []string, extras []getopt.Opt) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), extras
		}
		switch {
		case a == "--version":
			extras = append(extras, getopt.Opt{Short: optVersion, Name: "version"})
			continue
		case a == "--sync":
			extras = append(extras, getopt.Opt{Short: optSync, Name: "sync"})
			continue
		case a == "--compress":
			extras = append(extras, getopt.Opt{Short: 'X', Name: "compress", Arg: "xz"})
			continue
		case strings.HasPrefix(a, "--compress="):
			extras = append(extras, getopt.Opt{Short: 'X', Name: "compress", Arg: strings.TrimPrefix(a, "--compress=")})
			continue
		}
		rest = append(rest, a)
		// A short option taking an argument in the next word.
		if len(a) >= 2 && a[0] == '-' && a[1] != '-' {
			for k := 1; k < len(a); k++ {
				if j := strings.IndexByte(shortOpts, a[k]); j >= 0 && a[k] != ':' && j+1 < len(shortOpts) && shortOpts[j+1] == ':' {
					if k == len(a)-1 && i+1 < len(args) {
						i++
						rest = append(rest, args[i])
					}
					break
				}
			}
		}
		// A long option (or an abbreviation of one) taking an argument
		// in the next word.
		if name, ok := strings.CutPrefix(a, "--"); ok && name != "" && !strings.Contains(name, "=") {
			var match *getopt.Long
			n := 0
			for k := range longOpts {
				l := &longOpts[k]
				if l.Name == name {
					match, n = l, 1
					break
				}
				if strings.HasPrefix(l.Name, name) {
					match = l
					n++
				}
			}
			if n == 1 && match.HasArg && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
		}
	}
	return rest, extras
}

// expandInputs resolves each input argument to one archive. An argument
// may be a comma-separated list of archives or a directory of archives
// (a libpcp multi-archive context); the real tool then reads only the
// context's first archive (the earliest), so that one is taken.
func expandInputs(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, arg := range in {
		var names []string
		for _, name := range strings.Split(arg, ",") {
			if name == "" {
				continue
			}
			st, err := os.Stat(name)
			if err != nil || !st.IsDir() {
				names = append(names, name)
				continue
			}
			ents, err := os.ReadDir(name)
			if err != nil {
				return nil, err
			}
			for _, e := range ents {
				if base, ok := testenvArchiveBase(e.Name()); ok {
					names = append(names, filepath.Join(name, base))
				}
			}
		}
		if len(names) <= 1 {
			out = append(out, names...)
			if len(names) == 0 {
				out = append(out, arg)
			}
			continue
		}
		best, bestStart := names[0], pmapi.Timestamp{}
		found := false
		for _, n := range names {
			a, err := archive.Open(n)
			if err != nil {
				continue
			}
			st := a.Label().Start
			a.Close()
			if !found || st.Before(bestStart) {
				best, bestStart, found = n, st, true
			}
		}
		out = append(out, best)
	}
	return out, nil
}

// testenvArchiveBase returns the archive base name of a metadata file
// name ("x.meta" or "x.meta.xz" and the like give "x", true).
func testenvArchiveBase(name string) (string, bool) {
	for _, suf := range []string{".xz", ".lzma", ".bz2", ".bz", ".gz", ".Z", ".z", ".zst"} {
		if strings.HasSuffix(name, ".meta"+suf) {
			name = strings.TrimSuffix(name, suf)
			break
		}
	}
	if base, ok := strings.CutSuffix(name, ".meta"); ok && base != "" {
		return base, true
	}
	return "", false
}

// labelZone returns the time zone and host in the label of archive name.
func labelZone(name string) (string, string, error) {
	a, err := archive.Open(name)
	if err != nil {
		return "", "", err
	}
	defer a.Close()
	return a.Label().TZ, a.Label().Hostname, nil
}

// cStdout is the real tool's stdout as C's stdio buffers it: by lines on
// a terminal, otherwise in blocks of 4 KiB (a pipe's or a file's block
// size) written when full and at exit. The real tool never flushes it,
// so under 2>&1 its notes follow the warnings written on stderr since.
type cStdout struct {
	w    io.Writer
	buf  []byte
	line bool // line buffered: a terminal
}

const stdioBlock = 4096

func newCStdout(w io.Writer) *cStdout {
	c := &cStdout{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			c.line = true
		}
	}
	return c
}

func (c *cStdout) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), stdioBlock-len(c.buf))
		c.buf = append(c.buf, p[:n]...)
		p = p[n:]
		if len(c.buf) == stdioBlock {
			if err := c.Flush(); err != nil {
				return total - len(p), err
			}
		}
	}
	if c.line && bytes.IndexByte(c.buf, '\n') >= 0 {
		return total, c.Flush()
	}
	return total, nil
}

// Flush writes what is buffered.
func (c *cStdout) Flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// Package logcheck implements pmlogcheck: it checks the files of a PCP
// archive for damage in the passes PCP 6.0.3's pmlogcheck makes, with its
// report lines, their order and its exit status. cmd/pmlogcheck is a thin
// wrapper around Main.
//
//   - Pass 0 frames every file of the archive (the length words around
//     each record, the labels, the size of the index entries, the type of
//     each metadata record): a damaged file stops the check there.
//   - Pass 1 checks the temporal index, pass 2 the metric descriptors,
//     pass 3 (not with -m) the data records: timestamps that go back,
//     value formats that change, counters that go backwards (a "wrap";
//     not reported with -w).
//
// Passes 1 to 3 read the archive through package archive, as the real tool
// reads it through libpcp. Everything is reported on standard error; the
// note of -z or -Z goes to standard output.
//
// `--repair OUTPUT` is a pcpkit extension: it writes the readable part of
// the archive as a new archive (repair.go).
package logcheck

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
)

// shortOpts is pmlogcheck's option string (PCP 6.0.3).
const shortOpts = "D:lmn:S:T:vwZ:z?"

// optRepair is the code of the long-only --repair option.
const optRepair = 2000

// longOpts is pmlogcheck's long option table, in the real tool's order,
// and pcpkit's --repair.
var longOpts = []getopt.Long{
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "label", Short: 'l'},
	{Name: "metadataonly", Short: 'm'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "verbose", Short: 'v'},
	{Name: "nowrap", Short: 'w'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "help", Short: '?'},
	{Name: "repair", HasArg: true, Short: optRepair},
}

const usage = `Usage: pmlogcheck [options] archive

Options:
  -l, --label           print the archive label
  -m, --metadataonly    skip checking log data volumes
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -S TIME, --start=TIME start of the time window
  -T TIME, --finish=TIME
                        end of the time window
  -v, --verbose         verbose output
  -w, --nowrap          suppress counter wrap warnings
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -?, --help            show this usage message and exit
`

// Pass statuses (STS_*): a fatal one stops the check after pass 0.
const (
	stsOK      = 0
	stsWarning = -1
	stsFatal   = -2
)

// File states after pass 0 (STATE_*).
const (
	stateMissing = iota
	stateOK
	stateBad
)

// options are pmlogcheck's own options.
type options struct {
	label    bool
	metaOnly bool
	verbose  bool
	noWrap   bool
	repair   string
}

// checker holds one run's state.
type checker struct {
	opt  options
	out  *bufio.Writer // standard output: the zone's note
	errw *bufio.Writer // standard error: the report

	opts *pmctx.Opts
	v638 bool // behave as PCP 6.3.8's pmlogcheck (pcpconf.Version)
	zone *pcptime.Zone

	path     string // the archive as named on the command line
	dir      string // its directory ("." when none)
	base     string // its base name, without directory or suffix
	archname string // dir/base, or base alone in "."

	indexState, metaState, logState int

	a              *archive.Archive
	start, finish  pmapi.Timestamp // the time window
	dayFlag        bool            // stamps with the date: the window spans over a day
	results, marks int
	vol            int         // pass 3's volume for its reports
	val            pmapi.Value // pass 3's value being read
	byPos          []posMetric // pass 3's metrics by position in the last record
	names          nameSource
	startSet       bool
	badIndex       bool // pass 1 found a damaged index entry
	stop           bool // the error ends the run (PCP 6.3.8's list of archives)
	fetchFailed    bool // pass 3 met a record it could not read, behaving as PCP 6.3.8
}

// nameSource answers pmNameAll: the archive's names, or those of -n.
type nameSource interface {
	Names(pmid pmapi.PMID) []string
}

// Main runs pmlogcheck with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--version" {
		// pcpkit's: the real pmlogcheck has no --version.
		io.WriteString(stderr, version.Banner("pmlogcheck"))
		return 0
	}
	c := &checker{
		out:  bufio.NewWriterSize(stdout, 4<<10),
		errw: bufio.NewWriterSize(stderr, 64<<10),
		zone: pcptime.LocalZone(),
		v638: pcpconf.Version() == pcpconf.Version638,
	}
	defer c.out.Flush()
	defer c.errw.Flush()
	return c.run(args)
}

// errf writes to standard error.
func (c *checker) errf(format string, a ...any) {
	fmt.Fprintf(c.errw, format, a...)
}

// option handles one of pmlogcheck's own options.
func (c *checker) option(o *pmctx.Opts, opt getopt.Opt) {
	switch opt.Short {
	case 'l':
		c.opt.label = true
	case 'm':
		c.opt.metaOnly = true
	case 'v':
		c.opt.verbose = true
	case 'w':
		c.opt.noWrap = true
	case optRepair:
		c.opt.repair = opt.Arg
	default:
		o.Errors++
	}
}

func (c *checker) run(args []string) int {
	p := &pmctx.Parser{Prog: "pmlogcheck", Short: shortOpts, Longs: longOpts, Done: true}
	o, operands := p.Parse(args, c.errw, c.option)
	c.opts = o
	if o.Errors == 0 && len(operands) == 0 {
		o.Printf("Error: no archive specified\n\n")
		o.Errors++
	}
	if o.Errors > 0 {
		if c.v638 {
			// PCP 6.3.8 checks a list of archives
			o.Usage(strings.Replace(usage, "archive\n", "archive ...\n", 1))
		} else {
			o.Usage(usage)
		}
		if !o.RuntimeErr {
			CLI.WriteExtensions(c.errw, args)
		}
		return 1
	}
	o.AddArchive(operands[0])
	o.End()
	if !c.v638 {
		return c.checkArchive(operands[0])
	}
	return c.checkAll(operands)
}

// checkAll is PCP 6.3.8's pmlogcheck with its list of archives: each
// checked in turn (an archive named twice once, with a note), the counts
// of -v running on over the list, the exit status 1 when any check
// failed. An archive with no files, or a value pass 3 cannot read, ends
// the run there.
func (c *checker) checkAll(names []string) int {
	status := 0
	done := map[string]bool{}
	for _, name := range names {
		c.setNames(name)
		key := filepath.Join(c.dir, c.base)
		if done[key] {
			c.errf("%s: skip, already checked this archive\n", name)
			continue
		}
		done[key] = true
		*c = checker{opt: c.opt, out: c.out, errw: c.errw, opts: c.opts, v638: c.v638, zone: c.zone, results: c.results, marks: c.marks}
		if c.checkArchive(name) != 0 {
			status = 1
		}
		if c.stop {
			return 1
		}
	}
	return status
}

// checkArchive checks the archive name: pass 0 on its files, then passes 1 to 3
// through package archive. It returns the exit status.
func (c *checker) checkArchive(name string) int {
	c.names = nil
	c.setNames(name)

	if c.opt.verbose {
		c.errf("Scanning for components of archive \"%s\"\n", c.path)
	}
	files, err := c.scan()
	if err != nil || len(files) == 0 {
		c.errf("pmlogcheck: no PCP archive files match \"%s\"\n", c.path)
		c.stop = true
		return 1
	}
	sts := stsOK
	for _, f := range files {
		if c.pass0(f) == stsFatal {
			sts = stsFatal
		}
	}
	if c.metaState == stateMissing {
		c.errf("%s/%s.meta: missing metadata file\n", c.dir, c.base)
		sts = stsFatal
	}
	if c.logState == stateMissing {
		c.errf("%s/%s.0 (or similar): missing log file \n", c.dir, c.base)
		sts = stsFatal
	}
	if sts == stsFatal {
		if c.opt.verbose {
			c.errf("Due to earlier errors, cannot continue ... bye\n")
		}
		return c.repaired(1)
	}

	a, err := archive.Open(c.path)
	if err != nil {
		c.errf("pmlogcheck: cannot open archive \"%s\": %s\n", c.path, archive.ErrText(err))
		c.errf("Checking abandoned.\n")
		return c.repaired(1)
	}
	defer a.Close()
	c.a = a
	if c.names == nil {
		c.names = a.Meta()
	}
	if rc := c.contextOptions(); rc != 0 {
		return rc
	}
	if c.opt.label {
		c.dumpLabel()
	}
	c.pass1()
	c.pass2()
	if !c.opt.metaOnly {
		if rc := c.pass3(); rc != 0 {
			c.stop = true
			return c.repaired(rc)
		}
	}
	if c.opt.verbose && c.results > 0 {
		c.errf("Processed %d pmResult records\n", c.results)
		if c.marks > 0 {
			c.errf("Processed %d <mark> records\n", c.marks)
		}
	}
	if c.fetchFailed {
		return c.repaired(1)
	}
	return c.repaired(0)
}

// repaired ends a run with the check's exit status, after --repair when
// it was asked for.
func (c *checker) repaired(status int) int {
	if c.opt.repair == "" {
		return status
	}
	return c.repair(status)
}

// setNames works out the archive's directory and base name from its name
// on the command line: a file of the archive (x.meta, x.index, x.0,
// x.0.xz) stands for the archive; any other name is the base name itself.
func (c *checker) setNames(name string) {
	c.path = name
	c.dir = filepath.Dir(name)
	c.base = filepath.Base(name)
	if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
		c.base = archive.BaseName(c.base)
	}
	if c.dir == "." {
		c.archname = c.base
	} else {
		c.archname = c.dir + "/" + c.base
	}
	if c.opts.NSFlag {
		c.names = c.opts.NS
	}
}

// scan lists the archive's files in the order of their directory, as
// scandir(3) without a sort does: x.meta, x.index and x.N, each perhaps
// compressed; PCP 6.3.8 sorts them (sortComponents). The paths are
// relative to the directory given, without a "./" when that is the
// current one.
func (c *checker) scan() ([]string, error) {
	d, err := os.Open(c.dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, n := range names {
		if !c.isComponent(n) {
			continue
		}
		if c.dir == "." {
			files = append(files, n)
		} else {
			files = append(files, c.dir+"/"+n)
		}
	}
	if c.v638 {
		sortComponents(files)
	}
	return files, nil
}

// sortComponents puts an archive's files in the order PCP 6.3.8's
// pmlogcheck checks them: the index, the metadata, then the volumes by
// number (x.2 before x.10).
func sortComponents(files []string) {
	rank := func(f string) (int, int) {
		n, _ := archive.SplitCompressed(f)
		switch fileKind(f) {
		case isIndex:
			return 0, 0
		case isMeta:
			return 1, 0
		}
		vol, _ := strconv.Atoi(n[strings.LastIndexByte(n, '.')+1:])
		return 2, vol
	}
	slices.SortStableFunc(files, func(a, b string) int {
		ka, va := rank(a)
		kb, vb := rank(b)
		if ka != kb {
			return cmp.Compare(ka, kb)
		}
		return cmp.Compare(va, vb)
	})
}

// isComponent reports whether the file name n is one of the archive's.
func (c *checker) isComponent(n string) bool {
	rest, ok := strings.CutPrefix(n, c.base+".")
	if !ok {
		return false
	}
	rest, _ = archive.SplitCompressed(rest)
	if rest == "meta" || rest == "index" {
		return true
	}
	if rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}

// contextOptions is pmGetContextOptions: the reporting zone (its note on
// standard output) and the time window of -S and -T.
func (c *checker) contextOptions() int {
	o := c.opts
	lab := c.a.Label()
	if z := o.ArchiveZone(lab, lab.Hostname, c.out); z != nil {
		c.zone = z
	}
	end, err := c.a.End()
	if err != nil {
		end = pmapi.Timestamp{Sec: getopt.UnknownEndSec}
		c.errw.WriteString(getopt.UnknownEnd("pmlogcheck", c.path, archive.ErrText(err)))
	}
	c.start, c.finish = lab.Start, end
	if o.Start == nil && o.Finish == nil {
		return 0
	}
	w, _, perr := pcptime.ParseWindowSpec(pcptime.WindowSpec{Start: o.Start, End: o.Finish}, lab.Start, end, c.zone)
	if perr != nil {
		o.Printf("pmlogcheck: invalid time window.\n%s\n", perr.Message())
		o.Flush()
		return 1
	}
	c.start, c.finish = w.Start, w.End
	c.startSet = o.Start != nil
	return 0
}

// dumpLabel is -l: the label and the time window, on standard error.
func (c *checker) dumpLabel() {
	l := c.a.Label()
	c.errf("Log Label (Log Format Version %d)\n", l.Version)
	c.errf("Performance metrics from host %s\n", l.Hostname)
	b := pcptime.AppendCtimeStamp([]byte("  commencing "), c.zone.Civil(l.Start.Sec), int64(l.Start.Nsec), 3)
	c.errw.Write(append(b, '\n'))
	if c.finish.Sec == getopt.UnknownEndSec {
		c.errf("  ending     UNKNOWN\n")
		return
	}
	b = pcptime.AppendCtimeStamp([]byte("  ending     "), c.zone.Civil(c.finish.Sec), int64(c.finish.Nsec), 3)
	c.errw.Write(append(b, '\n'))
}

// Package dumplog implements pmdumplog: it prints an archive's label,
// metadata, temporal index and records exactly as PCP 6.0.3's pmdumplog
// does. cmd/pmdumplog is a thin wrapper around Main.
package dumplog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
)

// Version is the version the real tool reports, which scripts parse.
const Version = "6.0.3"

const shortOpts = "aD:dehIilLmMn:rS:sT:tv:xZ:z?"

var longOpts = []getopt.Long{
	{Name: "all", Short: 'a'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "descs", Short: 'd'},
	{Name: "labelsets", Short: 'e'},
	{Name: "helptext", Short: 'h'},
	{Name: "on-disk-insts", Short: 'I'},
	{Name: "insts", Short: 'i'},
	{Name: "label", Short: 'l'},
	{Name: "markrecs", Short: 'M'},
	{Name: "metrics", Short: 'm'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "reverse", Short: 'r'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "sizes", Short: 's'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
	{Name: "json", Short: 1000},
}

const usage = `Usage: pmdumplog [options] [archive [metricname ...]]

Options:
  -a, --all             dump everything
  -d, --descs           dump metric descriptions
  -e, --labelsets       dump all metric label metadata
  -h, --helptext        dump all metric help text
  -I, --on-disk-insts   dump on-disk instance domain descriptions
  -i, --insts           dump instance domain descriptions
  -L                    more verbose form of archive label dump
  -l, --label           dump the archive label
  -M, --markrecs        report <mark> records
  -m, --metrics         dump values of the metrics (default)
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -r, --reverse         process archive in reverse chronological order
  -S TIME, --start=TIME start of the time window
  -s, --sizes           report size of data records in archive
  -T TIME, --finish=TIME
                        end of the time window
  -t                    dump the temporal index
  -v FILE               verbose hex dump of a physical file in raw format
  -x                    include date, usec (-xx) and Epoch (-xxx) in reported timestamps
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit
`

// options are pmdumplog's flags.
type options struct {
	descs, labelsets, help, ondisk, insts bool
	label, verboseLabel, marks, metrics   bool
	reverse, sizes, index, hostzone, json bool
	xflag                                 int
	tz, start, finish, raw, namespace     string
	rawSet, startSet, finishSet           bool
}

// nameSpace answers name lookups: the archive's own namespace, or the one
// loaded with -n.
type nameSpace interface {
	Lookup(name string) (pmapi.PMID, bool)
	Names(pmid pmapi.PMID) []string
	Traverse(name string) []string
}

// dumper holds the state of one run.
type dumper struct {
	opt  options
	out  *bufio.Writer
	errw io.Writer
	a    *archive.Archive
	ns   nameSpace
	hdr  map[pmapi.PMID][]byte // value-set headers, per PMID
	// --json: each metric's fields, per PMID; a value's text
	jsonMetrics map[pmapi.PMID]*jsonMetric
	jsonPos     []*jsonMetric // the metric last seen at each value-set position
	scratch     []byte
	z           *pcptime.Zone
	ver         int
	start       pmapi.Timestamp // label start
	buf         []byte
	pmids       []pmapi.PMID // selected metrics, command-line order (nil = all)
	sel         map[pmapi.PMID]bool
	winLo       pmapi.Timestamp
	winHi       pmapi.Timestamp
	window      bool
}

// Main runs pmdumplog with args (without the program name), writing to
// stdout and stderr, and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	d := &dumper{out: out, errw: stderr}
	return d.run(args)
}

func (d *dumper) fail(format string, a ...any) int {
	d.out.Flush()
	fmt.Fprintf(d.errw, "pmdumplog: "+format+"\n", a...)
	return 1
}

func (d *dumper) run(args []string) int {
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	o := &d.opt
	sections, bad := false, false
	nopts := 0
	for _, op := range evs {
		if op.Err != "" {
			// a bad option: reported in its turn, the usage at the end
			fmt.Fprintf(d.errw, "pmdumplog: %s\n", op.Err)
			bad = true
			continue
		}
		nopts++
		switch op.Short {
		case 'a':
			o.descs, o.verboseLabel, o.label, o.metrics, o.insts, o.sizes, o.index = true, true, true, true, true, true, true
			sections = true
		case 'D':
			// libpcp's debug options: accepted, and nothing printed
			if !getopt.ValidDebug(op.Arg) {
				fmt.Fprintf(d.errw, "pmdumplog: unrecognized debug options specification (%s)\n", op.Arg)
				bad = true
			}
		case 'd':
			o.descs, sections = true, true
		case 'e':
			o.labelsets, sections = true, true
		case 'h':
			o.help, sections = true, true
		case 'I':
			o.ondisk, sections = true, true
		case 'i':
			o.insts, sections = true, true
		case 'L':
			o.verboseLabel, o.label, sections = true, true, true
		case 'l':
			o.label, sections = true, true
		case 'M':
			o.marks = true
		case 'm':
			o.metrics, sections = true, true
		case 'n':
			o.namespace = op.Arg
		case 'r':
			o.reverse = true
		case 'S':
			o.start, o.startSet = op.Arg, true
		case 's':
			o.sizes = true
		case 'T':
			o.finish, o.finishSet = op.Arg, true
		case 't':
			o.index, sections = true, true
		case 'v':
			o.raw, o.rawSet = op.Arg, true
		case 'x':
			o.xflag++
		case 'Z':
			o.tz = op.Arg
		case 'z':
			o.hostzone = true
		case 'V':
			io.WriteString(d.errw, version.Banner("pmdumplog"))
			return 0
		case '?':
			bad = true // the usage, after the other options' complaints
		case 1000:
			o.json = true
		}
	}
	if o.hostzone && o.tz != "" {
		fmt.Fprintf(d.errw, "pmdumplog: at most one of -Z and -z allowed\n")
		bad = true
	}
	if bad {
		fmt.Fprint(d.errw, usage+CLI.Help(args))
		return 1
	}
	if o.rawSet {
		if len(operands) > 0 || nopts > 1 {
			fmt.Fprint(d.errw, usage+CLI.Help(args))
			return 1
		}
		return d.rawDump(o.raw)
	}
	if len(operands) == 0 {
		fmt.Fprint(d.errw, usage+CLI.Help(args))
		return 1
	}
	if !sections {
		o.metrics = true
	}
	var altNS *pmns.Namespace
	if o.namespace != "" {
		ns, err := pmns.Load(o.namespace)
		if err != nil {
			var le *pmns.LoadError
			if errors.As(err, &le) {
				fmt.Fprint(d.errw, le.Messages)
				return d.fail("Cannot load namespace from %q: %s", o.namespace, le.Reason)
			}
			return d.fail("Cannot load namespace from %q: %v", o.namespace, err)
		}
		altNS = ns
	}
	name := operands[0]
	if strings.Contains(name, ",") {
		return d.fail("Multiple archives are not supported")
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return d.fail("Multiple archives are not supported")
	}
	a, err := archive.Open(name)
	if err != nil {
		return d.fail("Cannot open archive %q: %s", name, archive.ErrText(err))
	}
	defer a.Close()
	d.a, d.ver, d.start, d.ns = a, a.Version(), a.Label().Start, a.Meta()
	if altNS != nil {
		d.ns = altNS
	}
	if rc := d.setZone(); rc != 0 {
		return rc
	}
	if _, err := a.End(); err != nil {
		// pmGetContextOptions: the end is unknown, and said so.
		d.out.Flush()
		fmt.Fprint(d.errw, getopt.UnknownEnd("pmdumplog", name, archive.ErrText(err)))
	}
	if len(operands) > 1 {
		if rc := d.selectMetrics(operands[1:]); rc != 0 {
			return rc
		}
	}
	if o.json {
		return d.dumpJSON()
	}
	return d.dump()
}

func (d *dumper) selectMetrics(names []string) int {
	d.sel = map[pmapi.PMID]bool{}
	for _, n := range names {
		leaves := d.ns.Traverse(n)
		for _, full := range leaves {
			p, _ := d.ns.Lookup(full)
			if !d.sel[p] {
				d.pmids = append(d.pmids, p)
				d.sel[p] = true
			}
		}
		if len(leaves) == 0 {
			d.out.Flush()
			fmt.Fprintf(d.errw, "pmdumplog: pmLookupName(%s): %s\n", n, pmapi.ErrName.Error())
		}
	}
	if len(d.pmids) == 0 {
		d.out.Flush()
		fmt.Fprintf(d.errw, "No metric names can be translated, dump abandoned\n")
		return 1
	}
	return 0
}

func (d *dumper) flushBuf() {
	d.out.Write(d.buf)
	d.buf = d.buf[:0]
}

// stamp appends a record timestamp with the -x decorations, with the
// precision of the archive's version.
func (d *dumper) stamp(b []byte, t pmapi.Timestamp) []byte {
	return d.stampVer(b, t, d.ver)
}

// stampVer appends a timestamp with nanosecond (ver 3) or microsecond
// precision and the -x decorations.
func (d *dumper) stampVer(b []byte, t pmapi.Timestamp, ver int) []byte {
	return d.stampX(b, t, ver, d.opt.xflag)
}

// stampX appends a timestamp decorated for the given -x level.
func (d *dumper) stampX(b []byte, t pmapi.Timestamp, ver, xflag int) []byte {
	c := d.z.Civil(t.Sec)
	if xflag > 0 {
		b = append(pcptime.AppendCtimeDate(b, c), ' ')
	}
	b = pcptime.AppendClock(b, c)
	b = appendFrac(b, t.Nsec, ver)
	if xflag > 0 {
		b = append(b, ' ')
		b = fmt.Appendf(b, "%d", c.Year)
	}
	if xflag > 1 {
		if ver == 3 {
			b = fmt.Appendf(b, " (%.9f)", pcptime.Sub(t, d.start))
		} else {
			// Microsecond stamps are taken from a microsecond start.
			st := d.start
			st.Nsec -= st.Nsec % 1000
			b = fmt.Appendf(b, " (%.6f)", pcptime.Sub(t, st))
		}
	}
	if xflag > 2 {
		b = fmt.Appendf(b, " %d", uint64(t.Sec)) // printed as unsigned, as the real tool does
	}
	return b
}

func (d *dumper) dump() int {
	o := &d.opt
	if o.label {
		d.dumpLabel()
	}
	if o.descs {
		d.dumpDescs()
	}
	if o.labelsets {
		d.dumpLabelSets()
	}
	if o.help {
		d.dumpHelp()
	}
	if o.ondisk {
		d.dumpOnDisk()
	}
	if o.insts {
		d.dumpInDoms()
	}
	if o.index {
		d.dumpIndex()
	}
	if o.metrics {
		return d.dumpRecords()
	}
	return 0
}

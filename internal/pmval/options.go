package pmval

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/pmns"
)

// shortOpts is pmGetOptions' PMAPI_OPTIONS followed by pmval's own.
const shortOpts = "A:a:D:gh:n:O:p:S:s:T:t:VZ:z?" + "df:i:K:LrU:vw:x:X"

// Codes of the long-only options.
const (
	optContainer = 1000 + iota
	optDerived
	optReverse // pcpkit's --reverse
	optJSON    // pcpkit's --json
)

// longOpts is pmval's long option table, in the real tool's order (it
// decides abbreviations and ambiguities).
var longOpts = []getopt.Long{
	{Name: "align", HasArg: true, Short: 'A'},
	{Name: "archive", HasArg: true, Short: 'a'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "guimode", Short: 'g'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "origin", HasArg: true, Short: 'O'},
	{Name: "guiport", HasArg: true, Short: 'p'},
	{Name: "start", HasArg: true, Short: 'S'},
	{Name: "samples", HasArg: true, Short: 's'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "interval", HasArg: true, Short: 't'},
	{Name: "timezone", HasArg: true, Short: 'Z'},
	{Name: "hostzone", Short: 'z'},
	{Name: "version", Short: 'V'},
	{Name: "help", Short: '?'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "local-PMDA", Short: 'L'},
	{Name: "container", HasArg: true, Short: optContainer},
	{Name: "derived", HasArg: true, Short: optDerived},
	{Name: "delay", Short: 'd'},
	{Name: "precision", HasArg: true, Short: 'f'},
	{Name: "instances", HasArg: true, Short: 'i'},
	{Name: "raw", Short: 'r'},
	{Name: "nointerp", HasArg: true, Short: 'U'},
	{Name: "verbose", Short: 'v'},
	{Name: "width", HasArg: true, Short: 'w'},
	{Name: "filter", HasArg: true, Short: 'x'},
	{Name: "timestamp", Short: 'X'},
	// pcpkit's own, matched only in full (see docs/json.md and
	// docs/benchmarks.md): they leave pmval's abbreviations alone, and
	// the usage message stays the real tool's.
	{Name: "reverse", Short: optReverse, Exact: true},
	{Name: "json", Short: optJSON, Exact: true},
}

const usage = `Usage: pmval [options] metricname

General options:
  -A TIME, --align=TIME align sample times on natural boundaries
  -a FILE, --archive=FILE
                        metrics source is a PCP log archive
  -g, --guimode         start in GUI mode with new time control
  -h HOST, --host=HOST  metrics source is PMCD on host
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -O TIME, --origin=TIME
                        initial sample time within the time window
  -p N, --guiport=N     port for connection to existing time control
  -S TIME, --start=TIME start of the time window
  -s N, --samples=N     terminate after this many samples
  -T TIME, --finish=TIME
                        end of the time window
  -t DELTA, --interval=DELTA
                        sampling interval
  -Z TZ, --timezone=TZ  set reporting timezone
  -z, --hostzone        set reporting timezone to local time of metrics source
  -V, --version         display version number and exit
  -?, --help            show this usage message and exit
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -L, --local-PMDA      metrics source is local connection to a PMDA
  --container=NAME      specify an individual container to be queried
  --derived=FILE        load derived metric definitions from FILE(s)

Reporting options:
  -d, --delay           delay, pause between updates for archive replay
  -f N, --precision=N   fixed output format with N digits precision
  -i INST, --instances=INST
                        comma-separated metrics instance list
  -r, --raw             output raw counter values (no rate conversion)
  -U FILE, --nointerp=FILE
                        non-interpolated fetching; ignores interval
  -v, --verbose         increase diagnostic output
  -w N, --width=N       set the width of each column of output
  -x VALUE, --filter=VALUE
                        store to the metric before fetching (filter)
  -X, --timestamp       include date and microseconds in reported timestamps
`

// usageText is the usage message of the real pmval of the PCP version
// pcpkit behaves as (pmctx.UsageText).
func usageText() string { return pmctx.UsageText(usage) }

// options are pmval's settings after the command line.
type options struct {
	archives                     []string          // -a and -U, in order
	hosts                        []string          // -h
	local                        bool              // -L
	localTable                   *pmctx.LocalTable // -K
	gui                          bool              // -g or -p
	guiPort                      bool              // -p: connect to a running pmtime
	namespace                    string
	align, start, finish, origin *string
	samples                      int // -1: not given
	noSamples                    bool
	intervalSec, intervalNsec    int64
	intervalSet                  bool
	tz                           string
	tzSet, hostzone              bool
	pause, raw, rawArchive       bool
	verbose                      bool
	fixed                        int // -1: not given
	cols                         int // 0: not given
	instances                    []string
	instancesSet                 bool
	filter                       *string // -x
	xflag                        int
	version                      bool
	ns                           *pmns.Namespace // -n
	nsFailed                     bool
	errors                       int

	reverse bool // --reverse: interpolate backwards from the window's end
	json    bool // --json: JSON output (json.go)

	// derived holds the definitions --derived loaded (derived.go)
	derived *derive.Registry
}

// parse processes the command line as pmGetOptions and pmval's own
// option loop do. Messages libpcp prints at once (getopt's) go to stderr
// straight away; those it collects with pmprintf are returned in pending,
// to be printed before the usage message.
func parse(args []string, stderr *strings.Builder, pending *strings.Builder) (*options, []string) {
	o := &options{samples: -1, fixed: -1}
	evs, operands := getopt.ParseEvents(args, shortOpts, longOpts)
	// __pmStartOptions: the PCP_* variables first, as their options
	var env []getopt.Event
	for _, opt := range getopt.FromEnv(os.Environ()) {
		env = append(env, getopt.Event{Opt: opt})
	}
	evs = append(env, evs...)
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(stderr, "pmval: %s\n", ev.Err)
			o.errors++
			continue
		}
		arg := ev.Arg
		switch ev.Short {
		case 'A':
			o.align = &arg
		case 'a':
			if len(o.hosts) > 0 {
				fmt.Fprintf(pending, "pmval: only one host or archive allowed\n")
				o.errors++
				continue
			}
			o.archives = append(o.archives, arg)
		case 'D':
			if !getopt.ValidDebug(arg) {
				fmt.Fprintf(pending, "pmval: unrecognized debug options specification (%s)\n", arg)
				o.errors++
			}
		case 'g':
			o.gui = true
		case 'h':
			if len(o.archives) > 0 {
				fmt.Fprintf(pending, "pmval: only one host or archive allowed\n")
				o.errors++
				continue
			}
			o.hosts = append(o.hosts, arg)
		case 'n':
			o.namespace = arg
			ns, err := pmns.Load(arg)
			if err != nil {
				var le *pmns.LoadError
				if errors.As(err, &le) {
					stderr.WriteString(le.Messages)
					fmt.Fprintf(stderr, "pmval: Cannot load namespace from \"%s\": %s\n", arg, le.Reason)
				} else {
					fmt.Fprintf(stderr, "pmval: Cannot load namespace from \"%s\": %v\n", arg, err)
				}
				o.nsFailed = true
				continue
			}
			o.ns = ns
		case 'O':
			o.origin = &arg
		case 'p':
			if n, err := strconv.Atoi(arg); err != nil || n < 0 {
				fmt.Fprintf(pending, "pmval: -p requires a positive numeric argument\n")
				o.errors++
			} else {
				o.gui, o.guiPort = true, true
			}
		case 'S':
			o.start = &arg
		case 's':
			n, ok := cLong(arg)
			if !ok || n < 0 {
				fmt.Fprintf(pending, "pmval: -s requires a positive numeric argument\n")
				o.errors++
				continue
			}
			o.samples = int(int32(n))
			if cAtoi(arg) == 0 {
				o.noSamples = true
			}
		case 'T':
			o.finish = &arg
		case 't':
			sec, nsec, _, err := pcptime.ParseInterval(arg)
			if err != nil {
				fmt.Fprintf(pending, "pmval: -t argument not in pmParseHighResInterval(3) format:\n%s\n", err.(*pcptime.ParseError).Message())
				o.errors++
				continue
			}
			o.intervalSec, o.intervalNsec, o.intervalSet = sec, nsec, true
		case 'Z':
			if o.hostzone {
				fmt.Fprintf(pending, "pmval: at most one of -Z and -z allowed\n")
				o.errors++
				continue
			}
			o.tz, o.tzSet = arg, true
		case 'z':
			if o.tzSet {
				fmt.Fprintf(pending, "pmval: at most one of -Z and -z allowed\n")
				o.errors++
				continue
			}
			o.hostzone = true
		case 'V':
			o.version = true
			pending.WriteString(version.Banner("pmval"))
		case '?':
			o.errors++
		case optDerived:
			o.loadDerived(arg, stderr, pending)
		case optReverse:
			o.reverse = true
		case optJSON:
			o.json = true
		case optContainer:
			// The container of the pmcd context, as libpcp takes it
			// (archives ignore it).
			os.Setenv(pmcd.ContainerEnv, arg)
		case 'K':
			// the local context's PMDAs (they do not apply to
			// archives or hosts)
			if o.localTable == nil {
				o.localTable = &pmctx.LocalTable{}
			}
			if msg := o.localTable.Spec(arg); msg != "" {
				fmt.Fprintf(pending, "pmval: pmSpecLocalPMDA failed: %s\n", msg)
				o.errors++
			}
		case 'L':
			// A local context, whatever -a or -h say (they do not
			// conflict with it).
			o.local = true
		case 'd':
			o.pause = true
		case 'f':
			n, ok := cLong(arg)
			if !ok || n < 0 {
				fmt.Fprintf(pending, "pmval: -f requires +ve numeric argument\n")
				o.errors++
				continue
			}
			o.fixed = int(int32(n))
		case 'i':
			o.instancesSet = true
			o.instances = append(o.instances, splitInstances(arg)...)
		case 'r':
			o.raw = true
		case 'U':
			if len(o.hosts) > 0 {
				fmt.Fprintf(pending, "pmval: only one host or archive allowed\n")
				o.errors++
				continue
			}
			o.archives = append(o.archives, arg)
			o.rawArchive = true
		case 'v':
			o.verbose = true
		case 'w':
			n, ok := cLong(arg)
			if !ok || n < 1 {
				fmt.Fprintf(pending, "pmval: -w requires +ve numeric argument\n")
				o.errors++
				continue
			}
			o.cols = int(int32(n))
		case 'x':
			// stored to pmcd before fetching (live.go); archives
			// have no use for it
			o.filter = &arg
		case 'X':
			o.xflag++
		}
	}
	return o, operands
}

// cLong is strtol(s, &end, 10) with the whole string used.
func cLong(s string) (int64, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j || k != len(s) {
		return 0, k == j && len(s) == 0
	}
	n, err := strconv.ParseInt(s[i:k], 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// cAtoi is atoi(s): leading digits, 0 if none.
func cAtoi(s string) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n
}

// splitInstances splits an -i argument as pmval's getinstance does: on
// commas and white space, with names in single or double quotes kept
// whole.
func splitInstances(s string) []string {
	var out []string
	isSep := func(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' }
	i := 0
	for {
		for i < len(s) && isSep(s[i]) {
			i++
		}
		if i >= len(s) {
			return out
		}
		if s[i] == '"' || s[i] == '\'' {
			q := s[i]
			i++
			j := i
			for j < len(s) && s[j] != q {
				j++
			}
			out = append(out, s[i:j])
			if j < len(s) {
				j++ // the closing quote
			}
			if j < len(s) {
				j++ // the character after it is consumed too
			}
			i = j
			continue
		}
		j := i
		for j < len(s) && !isSep(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		if j < len(s) {
			j++
		}
		i = j
	}
}

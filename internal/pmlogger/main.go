package pmlogger

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/derive"
	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/logctl"
	"github.com/pcpkit/pcpkit/internal/loggerconf"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmctx"
	"github.com/pcpkit/pcpkit/internal/sizearg"
	"github.com/pcpkit/pcpkit/internal/version"
	"github.com/pcpkit/pcpkit/local"
	"github.com/pcpkit/pcpkit/pcptime"
	"github.com/pcpkit/pcpkit/pmapi"
	"github.com/pcpkit/pcpkit/pmns"
	"github.com/pcpkit/pcpkit/source"
)

// shortOpts is pmlogger 6.0.3's option string.
const shortOpts = "c:CD:fh:H:I:l:K:Lm:Nn:op:Prs:T:t:uU:v:V:x:y?"

// Codes of pcpkit's long-only options.
const (
	optBuiltin = 1000 + iota
	optDerived
	optSync
	optWriteLag
)

// DefaultWriteLag is --write-lag's default: groups logged more often
// than once a second have each record written at their next sample
// (Options.WriteLag, pipeline.go).
const DefaultWriteLag = time.Second

// longOpts is the real tool's table, in its order (abbreviations and
// ambiguity messages depend on it), then pcpkit's extensions, which
// match only when spelled in full.
var longOpts = []getopt.Long{
	{Name: "config", HasArg: true, Short: 'c'},
	{Name: "check", Short: 'C'},
	{Name: "debug", HasArg: true, Short: 'D'},
	{Name: "host", HasArg: true, Short: 'h'},
	{Name: "labelhost", HasArg: true, Short: 'H'},
	{Name: "pmlc-ipc-version", HasArg: true, Short: 'I'},
	{Name: "log", HasArg: true, Short: 'l'},
	{Name: "linger", Short: 'L'},
	{Name: "note", HasArg: true, Short: 'm'},
	{Name: "spec-local", HasArg: true, Short: 'K'},
	{Name: "local-PMDA", Short: 'o'},
	{Name: "namespace", HasArg: true, Short: 'n'},
	{Name: "notify", Short: 'N'},
	{Name: "PID", HasArg: true, Short: 'p'},
	{Name: "primary", Short: 'P'},
	{Name: "report", Short: 'r'},
	{Name: "size", HasArg: true, Short: 's'},
	{Name: "interval", HasArg: true, Short: 't'},
	{Name: "finish", HasArg: true, Short: 'T'},
	{Name: "username", HasArg: true, Short: 'U'},
	{Name: "volsize", HasArg: true, Short: 'v'},
	{Name: "version", HasArg: true, Short: 'V'},
	{Name: "help", Short: '?'},
	{Name: "builtin", Short: optBuiltin, Exact: true},
	{Name: "derived", HasArg: true, Short: optDerived, Exact: true},
	{Name: "sync", Short: optSync, Exact: true},
	{Name: "write-lag", HasArg: true, Short: optWriteLag, Exact: true},
}

// shortOpts638 and longOpts638 are pmlogger 6.3.8's: -d DIR (after -c
// in its table).
const shortOpts638 = "c:Cd:D:fh:H:I:l:K:Lm:Nn:op:Prs:T:t:uU:v:V:x:y?"

var longOpts638 = append([]getopt.Long{longOpts[0], {Name: "directory", HasArg: true, Short: 'd'}}, longOpts[1:]...)

// usage638 is what 6.3.8's usage message adds, after -c.
const usage638 = `  -d DIR, --directory=DIR
                        create archive in this directory
`

// options are the option string, the long option table and the usage
// message of the pmlogger of the PCP version pcpkit behaves as.
func options() (string, []getopt.Long, string) {
	if pcpconf.Version() == pcpconf.Version638 {
		at := strings.Index(usage, "  -C, --check")
		return shortOpts638, longOpts638, usage[:at] + usage638 + usage[at:]
	}
	return shortOpts, longOpts, usage
}

const usage = `Usage: pmlogger [options] archive

Options:
  -c FILE, --config=FILE
                        file to load configuration from
  -C, --check           parse configuration and exit
  -h HOST, --host=HOST  metrics source is PMCD on host
  -H LABELHOST, --labelhost=LABELHOST
                        override the hostname written into the label
  -I VERSION, --pmlc-ipc-version=VERSION
                        set IPC version for pmlc port [defaily LOG_PDU_VERSION]
  -l FILE, --log=FILE   redirect diagnostics and trace output
  -L, --linger          run even if not primary logger instance and nothing to log
  -m MSG, --note=MSG    descriptive note to be added to the port map file
  -K SPEC, --spec-local=SPEC
                        optional additional PMDA spec for local connection
  -o, --local-PMDA      metrics sourced without connecting to pmcd
  -n FILE, --namespace=FILE
                        use an alternative PMNS
  -N, --notify          notify service manager (if any) when started and ready
  -p PID, --PID=PID     Log specified metric for the lifetime of the pid
  -P, --primary         execute as primary logger instance
  -r, --report          report record sizes and archive growth rate
  -s SIZE, --size=SIZE  terminate after endsize has been accumulated
  -t DELTA, --interval=DELTA
                        default logging interval [default 60.0 seconds]
  -T TIME, --finish=TIME
                        end of the time window
  -u                    output is unbuffered [default now, so -u is a no-op]
  -U USER, --username=USER
                        in daemon mode, run as named user [default pcp]
  -v SIZE, --volsize=SIZE
                        switch log volumes after size has been accumulated
  -V NUM, --version=NUM version for archive (default and only version is 2)
  -x FD                 control file descriptor for running from pmRecordControl(3)
  -y                    set timezone for times to local time rather than from PMCD host
  -?, --help            show this usage message and exit
`

// Sources are the sources pmlogger can record from, passed in by its
// caller: cmd/pmlogger gives the pmcd client and the built-in collector;
// the tests give a fake.
type Sources struct {
	// DialPMCD connects to a pmcd ("local:", "host", "host:port",
	// "unix:"); nil: no pmcd client in the build.
	DialPMCD func(spec string) (source.Source, error)
	// Builtin starts the built-in /proc collector; nil: not in the
	// build (-h @ says so).
	Builtin func() (source.Source, error)
	// Local makes a local context (-o) over the PMDAs of libpcp's DSO
	// table as -K left it (package local), their messages to msgs; nil:
	// not in the build.
	Local func(pmdas []local.PMDA, msgs io.Writer) (source.Source, error)
	// Fake, when not nil, is recorded from whatever the options say,
	// with "fake:" for the log's "via" (tests only).
	Fake func() source.Source
	// Progress, when not nil, is called with the number of data
	// records written after each one.
	Progress func(records int)
}

// parseDelta parses an interval option's argument as pmParseInterval
// does; an error goes to pending with the real tool's message
// ("pmlogger: illegal -t argument" and the parser's explanation).
func parseDelta(arg, opt string, pending io.Writer) (time.Duration, bool) {
	sec, nsec, _, err := pcptime.ParseInterval(arg)
	if err != nil {
		msg := ""
		var pe *pcptime.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message()
		}
		fmt.Fprintf(pending, "pmlogger: illegal %s argument\n%s", opt, msg)
		return 0, false
	}
	return time.Duration(sec)*time.Second + time.Duration(nsec), true
}

// cliOptions are the command line's settings.
type cliOptions struct {
	config, host, labelHost, logFile string
	directory                        string // -d (PCP 6.3.8)
	logSet, check, report, sync      bool
	builtin, localTZ                 bool
	local                            bool              // -o
	localTable                       *pmctx.LocalTable // -K
	derived                          string
	writeLag                         time.Duration // --write-lag
	note                             string        // -m: the map file's note
	primary                          bool          // -P
	linger                           bool          // -L
	notify                           bool          // -N
	pid                              int           // -p (0: none)
	namespace                        string        // -n
	version                          int
	interval                         time.Duration
	end, vol                         Limit
	finish                           string
	finishSet                        bool
	errors                           int
}

// expandDirectory is pmlogger 6.3.8's -d DIR (do_dir): "" for none;
// else DIR as sh(1) echoes it in double quotes (its metacharacters
// expanded, LOCALHOSTNAME replaced by the host's name), newlines dropped,
// with a "/" after it, which must be an absolute path; its missing
// directories are made. The archive's base name is then that path and the
// archive operand. Failures are written to log.
func expandDirectory(arg string, log io.Writer) (string, bool) {
	if arg == "" {
		return "", true
	}
	cmd := exec.Command("/bin/sh", "-c", `echo "`+arg+`" | sed -e "s/LOCALHOSTNAME/`+"`hostname || echo localhost`"+`/"`)
	out, _ := cmd.Output()
	dir := strings.ReplaceAll(string(out), "\n", "") + "/"
	fail := func(err error) (string, bool) {
		fmt.Fprintf(log, "do_dir(%s, ...): failed: %s\n", arg, archive.ErrText(err))
		return "", false
	}
	if !strings.HasPrefix(dir, "/") {
		fmt.Fprintf(log, "pmlogger: expanded -d argument (%s) must be an absolute path\n", dir)
		return fail(pmapi.ErrGeneric)
	}
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, true
	}
	// each missing directory from the root down
	for i := 1; i < len(dir); i++ {
		if dir[i] != '/' {
			continue
		}
		sub := dir[:i]
		if st, err := os.Stat(sub); err == nil && st.IsDir() {
			continue
		}
		if err := os.Mkdir(sub, 0o777); err != nil {
			fmt.Fprintf(log, "do_dir(%s, ...): mkdir(%s, ...) failed: %s\n", arg, sub, archive.ErrText(err))
			return fail(err)
		}
	}
	return dir, true
}

// subSecond drops a duration under one second: pmlogger 6.0.3 arms its
// -s and -v timers only when tv_sec > 0.
func subSecond(l Limit) Limit {
	if l.Duration > 0 && l.Duration < time.Second {
		l.Duration = 0
	}
	return l
}

func (o *cliOptions) parse(args []string, stderr, pending *strings.Builder) []string {
	o.version = 2
	// pmGetOptionalConfig: the environment, else pcp.conf
	if v := pcpconf.Get("PCP_ARCHIVE_VERSION", ""); v != "" {
		if n, err := strconv.Atoi(v); err == nil && (n == 2 || n == 3) {
			o.version = n
		}
	}
	o.interval = 60 * time.Second
	if v, ok := os.LookupEnv("PMLOGGER_INTERVAL"); ok {
		// atoi(3): whole seconds, 0 for what is not a number
		n, _ := cnum.Strtol(v)
		o.interval = time.Duration(int32(n)) * time.Second
	}
	short, longs, _ := options()
	evs, operands := getopt.ParseEvents(args, short, longs)
	for _, ev := range evs {
		if ev.Err != "" {
			fmt.Fprintf(stderr, "pmlogger: %s\n", ev.Err)
			o.errors++
			continue
		}
		arg := ev.Arg
		switch ev.Short {
		case 'c':
			o.config = arg
		case 'd':
			o.directory = arg
		case 'C':
			o.check = true
		case 'h':
			o.host = arg
		case 'H':
			o.labelHost = arg
		case 'l':
			o.logFile, o.logSet = arg, true
		case 'r':
			o.report = true
		case 's', 'v':
			l, shown, ok := sizearg.Parse(arg)
			if !ok {
				what := map[rune]string{'s': "exit", 'v': "volume"}[ev.Short]
				fmt.Fprintf(pending, "pmlogger: illegal size argument '%s' for %s size\n", shown, what)
				o.errors++
				continue
			}
			if ev.Short == 's' {
				o.end = subSecond(l)
			} else {
				o.vol = subSecond(l)
			}
		case 't':
			if d, ok := parseDelta(arg, "-t", pending); ok {
				o.interval = d
			} else {
				o.errors++
			}
		case 'T':
			o.finish, o.finishSet = arg, true
		case 'V':
			n, err := strconv.Atoi(strings.TrimSpace(arg))
			if err != nil || (n != 2 && n != 3) {
				fmt.Fprintf(pending, "pmlogger: -V requires a version number of 2 or 3\n")
				o.errors++
				continue
			}
			o.version = n
		case 'x':
			if n, err := strconv.Atoi(arg); err != nil || n < 0 {
				fmt.Fprintf(pending, "pmlogger: -x requires a non-negative numeric argument\n")
				o.errors++
			}
		case 'y':
			o.localTZ = true
		case 'm':
			o.note = arg
		case 'P':
			o.primary = true
		case 'L':
			o.linger = true
		case 'n':
			o.namespace = arg
		case 'N':
			o.notify = true
		case 'p':
			n, k := cnum.Strtol(arg)
			switch {
			case k != len(arg):
				fmt.Fprintf(pending, "pmlogger: invalid process identifier (%s)\n", arg)
				o.errors++
			case !processExists(int(int32(n))):
				fmt.Fprintf(pending, "pmlogger: PID error - no such process (%d)\n", int32(n))
				o.errors++
			default:
				o.pid = int(int32(n))
			}
		case '?':
			o.errors++
		case optBuiltin:
			o.builtin = true
		case optDerived:
			o.derived = arg
		case optSync:
			o.sync = true
		case optWriteLag:
			if d, ok := parseDelta(arg, "--write-lag", pending); ok {
				o.writeLag = d
			} else {
				o.errors++
			}
		case 'o':
			o.local = true
		case 'K':
			if o.localTable == nil {
				o.localTable = &pmctx.LocalTable{}
			}
			if msg := o.localTable.Spec(arg); msg != "" {
				fmt.Fprintf(pending, "pmlogger: pmSpecLocalPMDA failed: %s\n", msg)
				o.errors++
			}
		default:
			// -D -f -I -u -U: accepted; see docs/pmlogger.md for
			// what pcpkit does with them.
		}
	}
	if o.errors == 0 && !o.check {
		switch {
		case len(operands) == 0:
			fmt.Fprintf(pending, "pmlogger: insufficient arguments\n")
			o.errors++
		case len(operands) > 1:
			fmt.Fprintf(pending, "pmlogger: too many arguments\n")
			o.errors++
		}
	}
	return operands
}

// Main runs the pmlogger command with args (without the program name)
// and returns its exit status. Signals (SIGHUP, SIGINT, SIGTERM) are
// handled while it records.
func Main(args []string, stdout, stderr io.Writer, srcs Sources) int {
	var errb, pending strings.Builder
	o := &cliOptions{writeLag: DefaultWriteLag}
	if len(args) == 1 && args[0] == "--version" {
		// pcpkit's: the real pmlogger's --version is -V, the
		// archive's format version, and wants an argument; alone it
		// is an error there.
		io.WriteString(stderr, version.Banner("pmlogger"))
		return 0
	}
	operands := o.parse(args, &errb, &pending)
	if o.errors > 0 {
		io.WriteString(stderr, errb.String())
		io.WriteString(stderr, pending.String())
		_, _, text := options()
		io.WriteString(stderr, text+CLI.Help(args))
		return 1
	}
	io.WriteString(stderr, errb.String())
	zone := pcptime.LocalZone()
	now := time.Now
	pid := os.Getpid()

	// The log file.
	var log io.Writer = stderr
	var logf *os.File
	header := !o.check
	if o.check && !o.logSet {
		header = false
	} else if o.logFile != "-" {
		name := o.logFile
		if !o.logSet {
			name = "pmlogger.log"
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "pmlogger: cannot open log \"%s\" for writing : %s\n", name, strerr(err))
			if header {
				fmt.Fprintf(stderr, "Log for pmlogger on %s started %s\n\n", localHost(), zctime(zone, now()))
				fmt.Fprintf(stderr, "pmlogger: Warning: log file (%s) creation failed\n", name)
				header = false
			}
		} else {
			logf = f
			log = f
			defer f.Close()
		}
	}
	if header {
		fmt.Fprintf(log, "Log for pmlogger on %s started %s\n\n", localHost(), zctime(zone, now()))
	}
	finished := func(status int) int {
		if !o.check {
			fmt.Fprintf(log, "\nLog finished %s\n", zctime(zone, now()))
		}
		if logf != nil {
			logf.Sync()
		}
		return status
	}
	fmt.Fprintf(log, "[%s] pmlogger(%d) Info: Start\n", zshort(zone, now()), pid)

	// -n: the names come from a PMNS file, loaded before connecting.
	var ns *pmns.Namespace
	if o.namespace != "" {
		var err error
		if ns, err = pmns.Load(o.namespace); err != nil {
			reason := err.Error()
			var le *pmns.LoadError
			if errors.As(err, &le) {
				io.WriteString(log, le.Messages)
				reason = le.Reason
			}
			fmt.Fprintf(log, "pmlogger: Cannot load namespace from \"%s\": %s\n", o.namespace, reason)
			return finished(1)
		}
	}

	// The source.
	src, via, err := srcs.open(o, log, stderr)
	if err != nil {
		fmt.Fprintf(log, "%v\n", err)
		return finished(1)
	}
	defer src.Close()
	if ns != nil {
		src = &nsSource{wrapped: wrapped{src}, ns: ns}
	}
	// The system's derived metrics ($PCP_DERIVED_CONFIG, or
	// $PCP_VAR_DIR/config/derived when it is unset), as libpcp loads
	// them, then --derived's.
	if spec := derive.StartupSpec(); spec != "" || o.derived != "" {
		reg, _, err := LoadDerived(spec, o.derived, log)
		if err != nil {
			fmt.Fprintf(log, "pmlogger: cannot load derived metrics from \"%s\": %s\n", o.derived, strerr(err))
			return finished(1)
		}
		src = NewDerivedSource(src, reg, log)
	}

	// The configuration: preprocessed, parsed and resolved as the real
	// tool does (package loggerconf writes its messages).
	cfgName := o.config
	var data []byte
	if o.config != "" {
		path, ok := loggerconf.ConfigPath(o.config, "")
		if !ok {
			fmt.Fprintf(log, "pmlogger: Cannot open config file \"%s\": No such file or directory\n", o.config)
			return finished(1)
		}
		cfgName = path
		data, err = os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(log, "pmlogger: Cannot open config file \"%s\": %s\n", o.config, strerr(err))
			return finished(1)
		}
	} else {
		data, _ = io.ReadAll(os.Stdin)
	}
	fmt.Fprintf(log, "preprocessor cmd: /usr/lib/pcp/bin/pmcpp -rs -I %s %s\n", loggerconf.DefaultIncludeDir, cfgName)
	exit, cfg, res, err := loggerconf.Check(log, data, cfgName, namespaceFor(src), loggerconf.CheckOptions{
		Options:      loggerconf.Options{DefaultInterval: o.interval},
		NotifyPrefix: loggerconf.NotifyPrefix(now(), pid),
	})
	if err != nil {
		fmt.Fprintf(log, "pmlogger: %s: %v\n", cfgName, err)
		return finished(1)
	}
	if exit != 0 {
		return finished(exit)
	}
	if o.check {
		return 0
	}
	if cfg.Access != nil && log != stderr {
		// Not in the log, which stays the real tool's.
		fmt.Fprintf(stderr, "pmlogger: the [access] section of %s is parsed but not enforced: any host may query the pmlc control port (pcpkit refuses every change of logging)\n", cfgName)
	}
	groups := GroupsFrom(res)
	states := LogStatesFrom(res)
	src = recordingSource(src, states)
	labelHost := o.labelHost
	if labelHost == "" {
		labelHost = src.Host()
	}
	primary := ""
	if o.primary {
		primary = "primary "
	}
	fmt.Fprintf(log, "Starting %slogger for host \"%s\" via \"%s\"\n", primary, labelHost, via)
	if len(cfg.Statements) == 0 && !o.primary && !o.linger {
		fmt.Fprintf(log, "Nothing to log, and not the primary logger instance ... good-bye\n")
		return finished(1)
	}

	dir, ok := expandDirectory(o.directory, log)
	if !ok {
		return finished(1)
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	defer signal.Stop(sigs)

	tz, zi := sourceZone(src)
	opts := Options{
		Archive:   dir + operands[0],
		Source:    src,
		Groups:    groups,
		Version:   o.version,
		LabelHost: labelHost,
		PMCDHost:  localFQDN(),
		TZ:        tz,
		Zoneinfo:  zi,
		Sync:      o.sync,
		WriteLag:  o.writeLag,
		End:       o.end,
		Volume:    o.vol,
		Report:    o.report,
		Log:       log,
		Zone:      zone,
		Signals:   sigs,
		Control: &logctl.Config{
			TmpDir:  pcpconf.Get("PCP_TMP_DIR", "/var/lib/pcp/tmp"),
			RunDir:  pcpconf.Get("PCP_RUN_DIR", "/run/pcp"),
			Host:    labelHost,
			Note:    o.note,
			Primary: o.primary,
		},
		LogStates: states,
	}
	opts.Progress = srcs.Progress
	if o.finishSet {
		t, perr := finishTime(o.finish, zone)
		if perr != nil {
			// The real tool parses -T once the archive's files are
			// created (still empty).
			if err := createEmpty(opts.Archive); err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) && errors.Is(err, os.ErrExist) {
					fmt.Fprintf(log, "%v\n", &existsError{path: pe.Path, host: labelHost, base: opts.Archive})
				} else {
					fmt.Fprintf(log, "%s\n", createMessage(err, labelHost, opts.Archive))
				}
				return finished(1)
			}
			fmt.Fprintf(log, "pmlogger: illegal -T argument\n%s", perr.Message())
			return finished(1)
		}
		opts.EndTime = t
	}
	if o.pid != 0 {
		opts.Alive = func() bool { return processExists(o.pid) }
	}
	lg, err := New(opts)
	if err != nil {
		fmt.Fprintf(log, "%v\n", err)
		return finished(1)
	}
	if err := lg.Start(); err != nil {
		var ee *existsError
		var pe *logctl.PrimaryExistsError
		if errors.As(err, &pe) {
			fmt.Fprintf(log, "Archive basename: %s\n", opts.Archive)
			fmt.Fprintf(log, "pmlogger: ERROR: %v\n", err)
		} else if errors.As(err, &ee) {
			fmt.Fprintf(log, "%v\n", err)
		} else {
			fmt.Fprintf(log, "%s\n", createMessage(err, labelHost, opts.Archive))
		}
		return finished(1)
	}
	fmt.Fprintf(log, "Archive basename: %s\n", opts.Archive)
	if o.notify {
		notifyServiceManager(fmt.Sprintf("READY=1\nMAINPID=%d", pid))
		defer notifyServiceManager("STOPPING=1")
	}
	stats, err := lg.Run()
	if err != nil {
		fmt.Fprintf(log, "%v\n", err)
		return finished(1)
	}
	fmt.Fprintf(log, "[%s] pmlogger(%d) Info: pmlogger: %s, exiting\n", zshort(zone, now()), pid, stats.Reason)
	return finished(0)
}

// recordingSource is the source the engine records from: src, or, when
// src is a DerivedSource and the configuration names no derived metric,
// the source it wraps, whose fetch replies the engine can take as they
// come (fastpath.go, pipeline.go) where the wrapper computes each result.
func recordingSource(src source.Source, states []LogState) source.Source {
	ds, ok := src.(*DerivedSource)
	if !ok {
		return src
	}
	for _, st := range states {
		if derive.IsDerived(st.PMID) {
			return src
		}
	}
	return ds.Source
}

// createMessage is the real tool's text for an archive that cannot be
// created.
func createMessage(err error, host, base string) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("__pmLogNewFile: failed to create \"%s\": %s\n__pmLogCreate(%s, %s, ...): %s",
			pe.Path, strerr(pe.Err), host, base, strerr(pe.Err))
	}
	return err.Error()
}

// open connects to the source the options name and returns it with the
// "via" text of the log.
func (srcs Sources) open(o *cliOptions, log, stderr io.Writer) (source.Source, string, error) {
	if srcs.Fake != nil {
		return srcs.Fake(), "fake:", nil
	}
	builtin := func() (source.Source, string, error) {
		if srcs.Builtin == nil {
			return nil, "", errors.New("pmlogger: the built-in collector is not available in this build")
		}
		s, err := srcs.Builtin()
		if err != nil {
			return nil, "", fmt.Errorf("pmlogger: Cannot start the built-in collector: %v", err)
		}
		return s, "@", nil
	}
	if o.builtin || o.host == "@" {
		return builtin()
	}
	if o.local {
		// -o: the PMDAs run by the logger itself, whatever -h says
		if srcs.Local == nil {
			return nil, "", errors.New("pmlogger: no local context in this build")
		}
		table := o.localTable
		if table == nil {
			table = &pmctx.LocalTable{}
		}
		// the PMDAs' messages go to the log, as a loaded DSO's go to
		// the real pmlogger's stderr, which is its log
		s, err := srcs.Local(table.PMDAs(), log)
		if err != nil {
			return nil, "", fmt.Errorf("pmlogger: Cannot make standalone connection on localhost: %s", strerr(err))
		}
		return s, "local context", nil
	}
	if srcs.DialPMCD == nil {
		return nil, "", errors.New("pmlogger: no pmcd client in this build")
	}
	spec := o.host
	if spec == "" {
		spec = "local:"
		if !pcpconf.Installed() {
			// No PCP here at all: nothing else to record from.
			msg := fmt.Sprintf("pmlogger: PCP is not installed (no %s): recording from the built-in collector", pcpconf.ConfPath())
			fmt.Fprintln(stderr, msg)
			if log != stderr {
				fmt.Fprintln(log, msg)
			}
			return builtin()
		}
	}
	s, err := srcs.DialPMCD(spec)
	if err != nil {
		return nil, "", fmt.Errorf("pmlogger: Cannot connect to PMCD on host \"%s\": %s", spec, strerr(err))
	}
	return s, spec, nil
}

// localFQDN is the value of pmcd.pmlogger.host: the name of the host
// pmlogger runs on, as the real tool finds it (whatever -h says): the
// host name's address, looked up in reverse (on this machine
// "localhost", the first name of 127.0.0.1 in /etc/hosts); the host
// name itself if that fails.
func localFQDN() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	addrs, err := net.LookupHost(h)
	if err != nil || len(addrs) == 0 {
		return h
	}
	names, err := net.LookupAddr(addrs[0])
	if err != nil || len(names) == 0 {
		return h
	}
	return strings.TrimSuffix(names[0], ".")
}

// sourceZone reads pmcd.timezone and pmcd.zoneinfo from the source (the
// label's $TZ and zoneinfo, as the real pmlogger takes them from pmcd),
// falling back on the local $TZ.
func sourceZone(src source.Source) (tz, zi string) {
	tz = os.Getenv("TZ")
	pmids, err := src.LookupNames([]string{"pmcd.timezone", "pmcd.zoneinfo"})
	if err == nil && len(pmids) == 2 {
		var ask []pmapi.PMID
		for _, p := range pmids {
			if p != pmapi.PMIDNull {
				ask = append(ask, p)
			}
		}
		if len(ask) > 0 {
			if res, _, err := src.Fetch(ask); err == nil && res != nil {
				for _, vs := range res.VSets {
					if vs.NumVal < 1 || len(vs.Values) < 1 || vs.Values[0].Block == nil {
						continue
					}
					s := string(vs.Values[0].Block)
					if i := strings.IndexByte(s, 0); i >= 0 {
						s = s[:i]
					}
					switch vs.PMID {
					case pmids[0]:
						tz = s
					case pmids[1]:
						zi = s
					}
				}
			}
		}
	}
	if tz == "" {
		tz = "UTC"
	}
	return tz, zi
}

// finishTime is the -T time, as pmlogger parses it (__pmParseTime from
// now, with the end of time as the end): an interval from now, or a
// time; the error is the parser's. A "-" form is taken by libpcp as a
// date (getdate(3): "-5sec" is 5 seconds ago), which is in the past:
// the run ends at once.
func finishTime(spec string, zone *pcptime.Zone) (time.Time, *pcptime.ParseError) {
	now := time.Now()
	start := pmapi.Timestamp{Sec: now.Unix()}
	end := pmapi.Timestamp{Sec: math.MaxInt32}
	if t := strings.TrimLeft(spec, " \t\n\v\f\r"); strings.HasPrefix(t, "-") {
		if _, _, perr := pcptime.ParseWindow("", "@"+t, "", "", start, end, zone); perr != nil {
			return time.Time{}, perr
		}
		return now, nil
	}
	w, _, perr := pcptime.ParseWindow("", spec, "", "", start, end, zone)
	if perr != nil {
		return time.Time{}, perr
	}
	// (the timer is set for the time from then, from now)
	return now.Add(time.Duration(w.End.Sec-start.Sec)*time.Second + time.Duration(w.End.Nsec)), nil
}

// createEmpty creates the files of an archive, empty, as __pmLogCreate
// leaves them until the first record.
func createEmpty(base string) error {
	for _, suffix := range []string{".index", ".meta", ".0"} {
		f, err := os.OpenFile(base+suffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	return nil
}

// processExists is libpcp's __pmProcessExists: kill(pid, 0) succeeds,
// or fails only for want of permission.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// notifyServiceManager sends msg to systemd's $NOTIFY_SOCKET (a unix
// datagram socket; "@" starts an abstract name), as sd_notify does;
// nothing when it is not set.
func notifyServiceManager(msg string) {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return
	}
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return
	}
	c.Write([]byte(msg))
	c.Close()
}

func localHost() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h
}

func zctime(z *pcptime.Zone, t time.Time) string {
	return string(pcptime.AppendCtime(nil, z.Civil(t.Unix())))
}

func zshort(z *pcptime.Zone, t time.Time) string {
	c := z.Civil(t.Unix())
	b := pcptime.AppendCtimeDate(nil, c)
	b = append(b, ' ')
	return string(pcptime.AppendClock(b, c))
}

// strerr is the C library's text for an error: strerror for an errno,
// else the error's own text.
func strerr(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		s := en.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe pmapi.Error
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return err.Error()
}

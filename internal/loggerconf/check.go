package loggerconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// CheckOptions control Check.
type CheckOptions struct {
	Options

	// NotifyPrefix is what pmlogger's pmNotifyErr writes before
	// "Error: ...": "[Sat Nov 21 09:16:04] pmlogger(6935) " (ctime
	// without the year, then the pid). The CLI fills it in.
	NotifyPrefix string

	// ResolveHost resolves an [access] host name as __pmGetAddrInfo
	// does; nil uses SystemResolveHost. (Numeric addresses and
	// wildcards are not passed to it.) "localhost" stands for this
	// host's name (os.Hostname), as in libpcp.
	ResolveHost func(host string) ([]net.IP, error)
}

// Check does what `pmlogger -C -c NAME` does after writing its
// "preprocessor cmd: ..." line: it preprocesses and parses src, looks
// the metrics up in ns, writes every diagnostic to w exactly as the
// real pmlogger does (pmcpp's errors, the first-pass lookup message,
// warnings, the fatal error) and, when the configuration is good,
// "Config parsed". It returns pmlogger's exit status (0 or 1), and the
// configuration and resolved groups when there is no fatal error.
//
// Without -C pmlogger writes the same lines to its log file (-l).
func Check(w io.Writer, src []byte, name string, ns Namespace, opts CheckOptions) (exit int, cfg *Config, res *Resolved, err error) {
	cfg, perr := Parse(bytes.NewReader(src), name, opts.Options)
	var pe *Error
	if perr != nil && !errors.As(perr, &pe) {
		return 1, nil, nil, perr
	}
	io.WriteString(w, cfg.PreprocessorErrors)
	res, err = Resolve(cfg, ns)
	if err != nil {
		return 1, nil, nil, err
	}
	io.WriteString(w, res.Warnings)
	if cfg.Access != nil {
		acl := &accessList{resolve: opts.ResolveHost, notify: func(level, msg string) {
			fmt.Fprintf(w, "%s%s: %s\n", opts.NotifyPrefix, level, msg)
		}}
		if acl.resolve == nil {
			acl.resolve = SystemResolveHost
		}
		for _, rule := range cfg.Access.Rules {
			specOps, denyOps := rule.Masks()
			for i, h := range rule.Hosts {
				if !acl.add(h, specOps, denyOps) {
					fmt.Fprintf(w, "error was on line %d\n", rule.HostLines[i])
					return 1, nil, nil, nil
				}
			}
		}
	}
	if pe != nil {
		io.WriteString(w, pe.Text())
		return 1, nil, nil, nil
	}
	io.WriteString(w, "Config parsed\n")
	return 0, cfg, res, nil
}

// NotifyPrefix is the prefix pmNotifyErr gives pmlogger's notices:
// "[Sat Nov 21 09:16:04] pmlogger(6935) " (local time as ctime writes
// it, without the year).
func NotifyPrefix(t time.Time, pid int) string {
	return fmt.Sprintf("[%s] pmlogger(%d) ", t.Format("Mon Jan _2 15:04:05"), pid)
}

// ConfigPath finds the configuration file named by -c as pmlogger does:
// the name as given if it exists, else the same name in
// $PCP_VAR_DIR/config/pmlogger (dir; "" for DefaultIncludeDir). The
// path found is also the name pmlogger reports in its messages. ok is
// false when neither exists; pmlogger then says
// `pmlogger: Cannot open config file "NAME": No such file or directory`
// and exits 1.
func ConfigPath(name, dir string) (path string, ok bool) {
	if _, err := os.Stat(name); err == nil {
		return name, true
	}
	if dir == "" {
		dir = DefaultIncludeDir
	}
	if !strings.HasPrefix(name, "/") {
		p := dir + "/" + name
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return name, false
}

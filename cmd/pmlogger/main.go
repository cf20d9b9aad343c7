// Command pmlogger records performance metrics from a live source (a
// pmcd, a local context's PMDAs with -o, or pcpkit's built-in /proc
// collector) into a PCP archive, with
// the options, configuration language, log file and archive layout of
// PCP 6.0.3's pmlogger. See pmlogger(1) and docs/pmlogger.md.
package main

import (
	"io"
	"os"
	"runtime"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmlogger"
	"github.com/pcpkit/pcpkit/local"
	"github.com/pcpkit/pcpkit/pmcd"
	"github.com/pcpkit/pcpkit/source"
)

func main() {
	// The recorder is one goroutine, waiting on pmcd's socket and
	// between samples: with a single P the runtime does not hand it
	// between threads at its wake-ups, which halved its CPU time per
	// sample when it waited through the netpoller and timers. Between
	// samples it parks on a timerfd with every P idle, so the runtime's
	// sysmon thread sleeps too (internal/pmlogger/wait_linux.go;
	// scripts/bench-pmlogger.sh). $GOMAXPROCS still overrides.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	// The real tool's getopt parsing (permutation, abbreviations, its
	// exact error messages) is reproduced by internal/getopt: every
	// argument goes to the tool as it is.
	os.Exit(pmlogger.Main(os.Args[1:], os.Stdout, os.Stderr, pmlogger.Sources{
		DialPMCD: func(spec string) (source.Source, error) { return pmcd.Dial(spec) },
		Builtin:  builtin,
		Local:    localContext,
	}))
}

// localContext is -o: the PMDAs run by the logger (package local), with
// the names of the default PMNS.
func localContext(pmdas []local.PMDA, msgs io.Writer) (source.Source, error) {
	ns, err := local.DefaultNamespace(pcpconf.VarDir())
	if err != nil {
		return nil, err
	}
	return local.New(pmdas, ns, msgs), nil
}

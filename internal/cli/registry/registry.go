// Package registry lists every pcpkit tool's command line (cli.Tool), for
// what works on all of them at once: the completion scripts (`make
// completions`) and the tests that run every binary. A new tool adds
// itself here. Nothing under cmd/ imports it.
package registry

import (
	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/dumplog"
	"github.com/pcpkit/pcpkit/internal/logcheck"
	"github.com/pcpkit/pcpkit/internal/logextract"
	"github.com/pcpkit/pcpkit/internal/logreduce"
	"github.com/pcpkit/pcpkit/internal/logrewrite"
	"github.com/pcpkit/pcpkit/internal/logsummary"
	"github.com/pcpkit/pcpkit/internal/pcp2arrow"
	"github.com/pcpkit/pcpkit/internal/pminfo"
	"github.com/pcpkit/pcpkit/internal/pmlogger"
	"github.com/pcpkit/pcpkit/internal/pmprobe"
	"github.com/pcpkit/pcpkit/internal/pmreplay"
	"github.com/pcpkit/pcpkit/internal/pmstore"
	"github.com/pcpkit/pcpkit/internal/pmval"
)

// Tools are the tools' command lines, by name.
var Tools = []*cli.Tool{
	&dumplog.CLI,
	&pminfo.CLI,
	&logcheck.CLI,
	&logextract.CLI,
	&logreduce.CLI,
	&logrewrite.CLI,
	&pmlogger.CLI,
	&logsummary.CLI,
	&pcp2arrow.CLI,
	&pmprobe.CLI,
	&pmstore.CLI,
	&pmreplay.CLI,
	&pmval.CLI,
}

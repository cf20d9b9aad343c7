package main

import (
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/internal/pmlogger"
	"github.com/pcpkit/pcpkit/source"
)

// The built-in collector reads Linux's /proc and /sys: elsewhere
// pmlogger records from a pmcd only ("-h @" says the collector is not
// in the build).
func init() {
	pmlogger.Builtin = func() (source.Source, error) { return collector.New() }
}

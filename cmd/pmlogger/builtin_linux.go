package main

import (
	"github.com/pcpkit/pcpkit/collector"
	"github.com/pcpkit/pcpkit/source"
)

// builtin starts the built-in collector, which reads Linux's /proc and
// /sys: elsewhere (builtin_other.go) pmlogger records from a pmcd only
// ("-h @" says the collector is not in the build).
var builtin = func() (source.Source, error) { return collector.New() }

//go:build !linux

package main

import "github.com/pcpkit/pcpkit/source"

// builtin is nil: the built-in collector reads Linux's /proc and /sys.
var builtin func() (source.Source, error)

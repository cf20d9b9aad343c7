//go:build !linux

package pmlogger

import "os"

// newWaiter returns the waiter for this system: Go timers.
func newWaiter(sigs <-chan os.Signal) waiter { return newTimerWaiter(sigs) }

//go:build !linux

package pmlogger

import "time"

// holdSleepMax is 0: the loop waits on Go timers (sleep_linux.go has
// the Linux wait for short intervals).
const holdSleepMax = 0

func sleepHolding(d time.Duration) { time.Sleep(d) }

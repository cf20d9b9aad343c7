package pmlogger

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/pmlogger/fakesource"
	"github.com/pcpkit/pcpkit/source"
)

// The crash test runs pmlogger as a process it can kill: the test binary
// itself, which TestMain turns into pmlogger recording from the fake
// source when fakeMainEnv is set (to the fake clock's step, a duration,
// or "real" for the wall clock). It prints the number of data records
// written after each one on stdout (the crash test's witness).
// fakePDUEnv set to 1 makes the fake serve its fetches as RESULT PDUs
// that can be left in flight (fakesource.PDUSource), as a pmcd does: the
// fast path and deferred replies are taken.
const (
	fakeMainEnv = "PCPKIT_PMLOGGER_TEST_FAKE"
	fakePDUEnv  = "PCPKIT_PMLOGGER_TEST_FAKE_PDU"
)

func TestMain(m *testing.M) {
	if step, ok := os.LookupEnv(fakeMainEnv); ok {
		d, err := time.ParseDuration(step)
		if err != nil {
			d = 0 // "real"
		}
		srcs := fakeSources(d, os.Getenv(fakePDUEnv) == "1")
		srcs.Progress = func(n int) { fmt.Fprintf(os.Stdout, "%d\n", n) }
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr, srcs))
	}
	os.Exit(m.Run())
}

// fakeSources are Sources recording from fakesource, whose clock moves
// step per fetch (0: the wall clock), serving PDUs when pdu is true.
func fakeSources(step time.Duration, pdu bool) Sources {
	return Sources{Fake: func() source.Source {
		f := fakesource.New(time.Now(), step)
		f.RealClock = step == 0
		if pdu {
			return fakesource.NewPDU(f)
		}
		return f
	}}
}

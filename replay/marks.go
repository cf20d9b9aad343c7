package replay

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/pcpkit/pcpkit/interp"
	"github.com/pcpkit/pcpkit/pcptime"
)

// IgnoreMarksEnv is the environment variable that makes interpolation
// look through <mark>s (PCPIntro(1)): set and empty (or a zero interval),
// every <mark>; set to an interval (pmParseInterval(3)), those
// whose records on either side lie at most that far apart.
const IgnoreMarksEnv = "PCP_IGNORE_MARK_RECORDS"

// ParseIgnoreMarks is the policy $PCP_IGNORE_MARK_RECORDS gives, as
// libpcp 6.0.3 reads it: unset (set false) or a value that is not an
// interval leaves <mark>s in place; the error is then the *ParseError
// libpcp prints in its warning (see MarkWarning).
func ParseIgnoreMarks(v string, set bool) (interp.MarkPolicy, error) {
	if !set {
		return interp.MarkPolicy{}, nil
	}
	if v == "" {
		return interp.MarkPolicy{Ignore: true}, nil
	}
	sec, nsec, _, err := pcptime.ParseInterval(v)
	if err != nil {
		return interp.MarkPolicy{}, err
	}
	return interp.MarkPolicy{Ignore: true, Gap: float64(sec) + float64(nsec)/1e9}, nil
}

// MarkWarning is libpcp's warning for a value of $PCP_IGNORE_MARK_RECORDS
// that ParseIgnoreMarks refused with err, from program prog.
func MarkWarning(prog string, err error) string {
	msg := err.Error() + "\n"
	if pe, ok := err.(*pcptime.ParseError); ok {
		msg = pe.Message()
	}
	return fmt.Sprintf("%s: Warning: bad $%s: not in pmParseInterval(3) format:\n%s\n", prog, IgnoreMarksEnv, msg)
}

// processMarks is the policy of the process: libpcp reads the variable
// once, when interpolation first meets a <mark> in any context, and
// warns about a bad value then, once.
var processMarks struct {
	sync.Mutex
	known  bool
	policy interp.MarkPolicy
}

// markPolicy is the process's policy, read from the environment the
// first time; a bad value is reported on w (standard error when nil) as
// coming from prog (the program's base name when "").
func markPolicy(w io.Writer, prog string) interp.MarkPolicy {
	processMarks.Lock()
	defer processMarks.Unlock()
	if !processMarks.known {
		processMarks.known = true
		v, set := os.LookupEnv(IgnoreMarksEnv)
		p, err := ParseIgnoreMarks(v, set)
		if err != nil {
			if w == nil {
				w = os.Stderr
			}
			if prog == "" {
				prog = filepath.Base(os.Args[0])
			}
			io.WriteString(w, MarkWarning(prog, err))
		}
		processMarks.policy = p
	}
	return processMarks.policy
}

// SetStderr sets where the context reports what libpcp prints on
// standard error while reading (the warning for a bad
// $PCP_IGNORE_MARK_RECORDS), and the program name it starts with: by
// default standard error and the base name of the program.
func (c *Context) SetStderr(w io.Writer, prog string) {
	c.stderr, c.prog = w, prog
}

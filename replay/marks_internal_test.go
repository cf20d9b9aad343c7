package replay

import (
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/interp"
)

// TestMarkPolicyOnce: the process reads $PCP_IGNORE_MARK_RECORDS once,
// and warns about a bad value once, on the writer of the context that
// meets the first <mark>.
func TestMarkPolicyOnce(t *testing.T) {
	reset := func() {
		processMarks.Lock()
		processMarks.known, processMarks.policy = false, interp.MarkPolicy{}
		processMarks.Unlock()
	}
	t.Cleanup(reset)
	for _, c := range []struct {
		v    string
		want interp.MarkPolicy
		warn string
	}{
		{"6", interp.MarkPolicy{Ignore: true, Gap: 6}, ""},
		{"", interp.MarkPolicy{Ignore: true}, ""},
		{"foobar", interp.MarkPolicy{}, "pmval: Warning: bad $PCP_IGNORE_MARK_RECORDS: not in pmParseInterval(3) format:\nfoobar\n^ -- unexpected value\n\n"},
	} {
		reset()
		t.Setenv(IgnoreMarksEnv, c.v)
		var w strings.Builder
		for i := 0; i < 3; i++ {
			if got := markPolicy(&w, "pmval"); got != c.want {
				t.Errorf("%q: policy %+v, want %+v", c.v, got, c.want)
			}
		}
		// the variable is not read again
		t.Setenv(IgnoreMarksEnv, "1min")
		if got := markPolicy(&w, "pmval"); got != c.want {
			t.Errorf("%q: policy %+v after a change, want %+v", c.v, got, c.want)
		}
		if w.String() != c.warn {
			t.Errorf("%q: warned %q, want %q", c.v, w.String(), c.warn)
		}
	}
}

package pminfo

import (
	"strings"
	"testing"
)

// TestHelpExtras checks that --help spelled out adds pcpkit's extras to
// the real tool's usage message, and that nothing else does (-?, an
// abbreviation, an error).
func TestHelpExtras(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		extras bool
	}{
		{[]string{"--help"}, true}, {[]string{"-?"}, false}, {[]string{"--he"}, false},
		{[]string{"--bogus"}, false},
	} {
		out, errs, rc := run(t, "", tc.args)
		if rc != 1 || out != "" || !strings.Contains(errs, usage) {
			t.Errorf("%v: rc %d, stdout %q, no usage message in stderr %q", tc.args, rc, out, errs)
		}
		if got := strings.HasSuffix(errs, usage+CLI.Extensions()); got != tc.extras {
			t.Errorf("%v: extras printed %v, want %v", tc.args, got, tc.extras)
		}
	}
}

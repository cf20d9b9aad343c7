package logreduce

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/dumplog"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestNearest638: behaving as PCP 6.3.8, an instantaneous metric's value
// in an output record is the nearer input record's (6.3.8's libpcp
// interpolates so), not the one before. The values are what the real
// pmlogreduce of 6.3.8 and of 6.0.3 wrote for -t 2 -S +1 -T -1 on
// pmcd-v3 (TestInterop638Reduce compares them live): mem.util.used was
// 1121800 0.98 s before the first output time, 1118456 20 ms after it.
func TestNearest638(t *testing.T) {
	for _, c := range []struct{ version, want string }{{"6.3.8", "value 1118456\n"}, {"6.0.3", "value 1121800\n"}} {
		testenv.Setenv(t, "PCPKIT_PCP_VERSION="+c.version)
		out := filepath.Join(t.TempDir(), "out")
		var o, e bytes.Buffer
		if rc := Main([]string{"-t", "2", "-S", "+1", "-T", "-1", testArchive(t, "pmcd-v3"), out}, &o, &e); rc != 0 {
			t.Fatalf("%s: exit %d: %s", c.version, rc, e.String())
		}
		o.Reset()
		dumplog.Main([]string{out, "mem.util.used"}, &o, &e)
		if first, _, _ := strings.Cut(strings.TrimLeft(o.String(), "\n"), "\n\n"); !strings.HasSuffix(first+"\n", c.want) {
			t.Errorf("%s: the first record's mem.util.used:\n%s\nwant %s", c.version, first, c.want)
		}
	}
}

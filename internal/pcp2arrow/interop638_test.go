package pcp2arrow

import (
	"path/filepath"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// pmrep638 returns DuckDB and the real pmrep of PCP 6.3.8, run in its
// chroot on copies of the directories of wideArchives (the arguments that
// name them are rewritten), and has pcpkit's pcp2arrow behave as 6.3.8
// for the rest of the test. (The chroot has no pcp2arrow of its own: it
// needs pyarrow, which Debian 13 does not package for it.)
func pmrep638(t *testing.T) (func(string) table, pmrepRun) {
	c := testenv.Real638(t)
	duck := duckDB(t)
	testenv.Setenv(t, "PCPKIT_PCP_VERSION=6.3.8")
	placed := map[string]string{}
	for _, a := range wideArchives(t) {
		if d := filepath.Dir(a); placed[d] == "" {
			placed[d] = c.PlaceDir(t, d)
		}
	}
	return duck, func(t *testing.T, args []string) ([]byte, []byte, int) {
		args = append([]string(nil), args...)
		for i, a := range args {
			if in, ok := placed[filepath.Dir(a)]; ok && i > 0 && args[i-1] == "-a" {
				args[i] = in + "/" + filepath.Base(a)
			}
		}
		return c.Run(t, "/", nil, "pmrep", args...)
	}
}

// TestInterop638WideDuckDB is TestInteropWideDuckDB against the pmrep
// -o csv of PCP 6.3.8, with pcpkit's pcp2arrow behaving as 6.3.8 (whose
// libpcp interpolates an instantaneous value from the nearer record).
func TestInterop638WideDuckDB(t *testing.T) {
	duck, pmrep := pmrep638(t)
	compareWideAll(t, duck, pmrep)
}

// TestInterop638LongDuckDB is TestInteropLongDuckDB against the pmrep
// -o csv of PCP 6.3.8.
func TestInterop638LongDuckDB(t *testing.T) {
	duck, pmrep := pmrep638(t)
	compareLongAll(t, duck, pmrep)
}

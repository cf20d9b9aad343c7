package registry_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// memoryLimitKB is the address-space limit the hostile-input runs get
// (`ulimit -v`, as batch schedulers set it): 1 GiB.
const memoryLimitKB = 1 << 20

// TestHostileInputsUnderMemoryLimit runs the shipped tools (built as make
// build builds them: static, no cgo) on damaged archives under a 1 GiB
// address-space limit: PCP's QA collection of bad archives (../shared,
// when present) and archives of testdata/archives damaged here
// (truncated, bytes flipped, lengths made huge). Every run must end by
// itself with status 0 or 1 and no Go runtime failure (a panic, "fatal
// error: out of memory"): glibc's malloc arenas made about one start in
// twenty die so when the tools linked it.
func TestHostileInputsUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tools some hundreds of times")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set the limit with")
	}
	dir, _ := buildTools(t)
	inputs := damagedArchives(t)
	if bad := filepath.Join(filepath.Dir(testenv.RepoRoot(t)), "shared", "pcp-qa-badarchives"); isDir(bad) {
		names, err := testenv.ListArchives(bad)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			inputs = append(inputs, filepath.Join(bad, n))
		}
	} else {
		t.Logf("no %s: only the archives damaged here", bad)
	}
	runs := 0
	for _, in := range inputs {
		out := filepath.Join(t.TempDir(), "out")
		for _, args := range [][]string{
			{"pmdumplog", "-a", in},
			{"pmlogsummary", "-a", in},
			{"pminfo", "-a", in, "-f"},
			{"pmprobe", "-a", in, "-v"},
			{"pmval", "-a", in, "-s", "5", "-t", "1", "hinv.ncpu"},
			{"pmlogextract", in, out},
		} {
			runs++
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd := exec.CommandContext(ctx, sh, append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$@"`, memoryLimitKB), "sh",
				filepath.Join(dir, args[0])}, args[1:]...)...)
			cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C", "PCP_DERIVED_CONFIG=")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = nil, &stderr
			err := cmd.Run()
			timedOut := ctx.Err() == context.DeadlineExceeded
			cancel()
			what := strings.Join(args, " ")
			if timedOut {
				t.Errorf("%s: still running after 60 s", what)
				continue
			}
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			e := stderr.String()
			if rc < 0 || rc > 1 || strings.Contains(e, "fatal error") || strings.Contains(e, "panic:") || strings.Contains(e, "goroutine ") {
				t.Errorf("%s: exit status %d under ulimit -v %d:\n%.2000s", what, rc, memoryLimitKB, e)
			}
		}
	}
	t.Logf("%d runs on %d damaged archives under ulimit -v %d", runs, len(inputs), memoryLimitKB)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// damagedArchives makes damaged copies of the archives of testdata/archives
// (seeded, the seed logged): each file in turn truncated, with bytes
// flipped, and with a 32-bit word (a length, a count) made huge.
func damagedArchives(t *testing.T) []string {
	t.Helper()
	src := testenv.ArchivesDir(t)
	names, err := testenv.ListArchives(src)
	if err != nil || len(names) == 0 {
		t.Fatalf("archives of %s: %v", src, err)
	}
	seed := time.Now().UnixNano()
	t.Logf("damage seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	var out []string
	for _, n := range names {
		files := map[string][]byte{}
		for _, ext := range []string{".meta", ".0", ".index"} {
			b, err := os.ReadFile(filepath.Join(src, n+ext))
			if err != nil {
				t.Fatal(err)
			}
			files[ext] = b
		}
		for _, ext := range []string{".meta", ".0", ".index"} {
			for _, how := range []string{"truncate", "flip", "huge"} {
				base := filepath.Join(dir, fmt.Sprintf("%s-%s%s", n, how, strings.TrimPrefix(ext, ".")))
				for e, b := range files {
					b = bytes.Clone(b)
					if e == ext && len(b) > 8 {
						switch how {
						case "truncate":
							b = b[:rng.Intn(len(b))]
						case "flip":
							for i := 0; i < 16; i++ {
								b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
							}
						case "huge":
							for i := 0; i < 4; i++ {
								off := rng.Intn(len(b)/4) * 4
								binary.BigEndian.PutUint32(b[off:], 0x7fffffff-uint32(rng.Intn(16)))
							}
						}
					}
					if err := os.WriteFile(base+e, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				out = append(out, base)
			}
		}
	}
	return out
}

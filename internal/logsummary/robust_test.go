package logsummary

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestNoPanicDamaged runs pmlogsummary on copies of the test archives with
// bytes of the data volume and metadata overwritten at random: it must
// print what it can and fail cleanly, never panic.
func TestNoPanicDamaged(t *testing.T) {
	src := testenv.ArchivesDir(t)
	dir := t.TempDir()
	r := rand.New(rand.NewSource(7))
	modes := [][]string{{"-a"}, {"-a", "-B", "3", "-i", "-I"}, {"-v", "-s", "-S", "+1"}, {"-l", "-x", "-y", "-T", "-2"},
		{"--json", "-a", "-i", "-I", "-B", "2"}, {"--csv", "-v", "-a"}, {"--each", "--json", "-j", "2", "-a"}}
	for _, a := range []string{"pmcd-v2", "pmcd-v3", "sample-v3"} {
		files := map[string][]byte{}
		for _, ext := range []string{".0", ".meta", ".index"} {
			b, err := os.ReadFile(filepath.Join(src, a+ext))
			if err != nil {
				t.Fatal(err)
			}
			files[ext] = b
		}
		for i := 0; i < 60; i++ {
			for ext, b := range files {
				c := bytes.Clone(b)
				if ext != ".index" || i%3 == 0 {
					for k := 0; k < 1+r.Intn(4); k++ {
						p := len(c)/4 + r.Intn(len(c)-len(c)/4)
						c[p] = byte(r.Intn(256))
					}
				}
				if i%5 == 4 && ext == ".0" {
					c = c[:len(c)-r.Intn(len(c)/2)]
				}
				os.WriteFile(filepath.Join(dir, "x"+ext), c, 0o644)
			}
			args := append(append([]string(nil), modes[i%len(modes)]...), "x")
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s damaged #%d, %v: panic: %v", a, i, args, p)
					}
				}()
				out, _, _ := run(t, dir, args)
				if slices.Contains(args, "--json") {
					for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
						if !json.Valid([]byte(l)) {
							t.Fatalf("%s damaged #%d, %v: not JSON: %s", a, i, args, l)
						}
					}
				}
			}()
		}
	}
}

// TestNoPanicArgs runs odd command lines.
func TestNoPanicArgs(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	for _, args := range [][]string{
		{"-B", "99999", "-y", "pmcd-v3", "hinv.ncpu"}, {"-p", "-5", "pmcd-v3"}, {"-p", "400", "pmcd-v3", "hinv.ncpu"},
		{"pmcd-v3", "["}, {"pmcd-v3", "]"}, {"pmcd-v3", `a["`}, {"pmcd-v3", `kernel.all.load["\`}, {"pmcd-v3", `\`},
		{"-S", "@", "pmcd-v3"}, {"-T", "", "pmcd-v3"}, {"-Z", "", "pmcd-v3"}, {"--=", "pmcd-v3"}, {"-", "-"},
		{",", "x"}, {",,", "x"}, {"pmcd-v3,", "hinv"},
	} {
		run(t, dir, args)
	}
}

// TestReadAheadSame checks that reading ahead in a goroutine (pass with
// s.pipeline, the default on more than one core) and reading in line (as
// --each's workers do) give the same output, with batches of every size,
// on every archive of testdata and ../shared (damaged ones included)
// in a few modes. The interop tests compare one of them with the real
// tool.
func TestReadAheadSame(t *testing.T) {
	oldMode, oldBytes := pipelineMode, batchBytes
	defer func() { pipelineMode, batchBytes = oldMode, oldBytes }()
	sets := [][2]string{}
	for _, a := range []string{"pmcd-v3", "pmcd-v2", "sample-v3", "pmcd-v3,sample-v3"} {
		sets = append(sets, [2]string{testenv.ArchivesDir(t), a})
	}
	root := filepath.Join(testenv.RepoRoot(t), "..", "shared")
	for _, set := range []string{"pcp-made-archives", "pcp-qa-archives"} {
		dir := filepath.Join(root, set)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		for _, a := range sharedArchives(t, dir) {
			sets = append(sets, [2]string{dir, a})
		}
	}
	for _, c := range sets {
		for _, mode := range [][]string{{"-a"}, {"-l", "-a", "-B", "3", "-S", "+1"}, {"-v", "-y", "-T", "-2"}} {
			args := append(append([]string{}, mode...), c[1])
			pipelineMode, batchBytes = 2, oldBytes
			want, wantErr, wantRC := run(t, c[0], args)
			for _, size := range []int{1, 300, 4096, oldBytes} {
				pipelineMode, batchBytes = 1, size
				out, errs, rc := run(t, c[0], args)
				if out != want || errs != wantErr || rc != wantRC {
					t.Errorf("%s %v, batches of %d bytes: read ahead differs from reading in line:\n%s%s(%d)\nin line:\n%s%s(%d)",
						c[1], mode, size, out, errs, rc, want, wantErr, wantRC)
				}
			}
		}
	}
}

package logsummary

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
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
	modes := [][]string{{"-a"}, {"-a", "-B", "3", "-i", "-I"}, {"-v", "-s", "-S", "+1"}, {"-l", "-x", "-y", "-T", "-2"}}
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
				run(t, dir, args)
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

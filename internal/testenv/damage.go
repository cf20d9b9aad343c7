package testenv

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damage makes damaged copies of the archive base (its .0, .meta and
// .index) in dir: each file truncated at six places and with a bit
// flipped at six places, each of its first three index entries zeroed,
// and each file missing. It returns the copies' names.
func damage(t testing.TB, base, dir string, rng *rand.Rand) []string {
	t.Helper()
	tag := filepath.Base(base)
	read := func(suf string) []byte {
		b, err := os.ReadFile(base + suf)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	orig := map[string][]byte{".0": read(".0"), ".meta": read(".meta"), ".index": read(".index")}
	var names []string
	write := func(name string, change func(files map[string][]byte)) {
		files := map[string][]byte{}
		for k, v := range orig {
			files[k] = append([]byte(nil), v...)
		}
		change(files)
		for suf, b := range files {
			if b == nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name+suf), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
	}
	for _, suf := range []string{".0", ".meta", ".index"} {
		size := len(orig[suf])
		for k := 0; k < 6; k++ {
			cut := 1 + rng.Intn(size-1)
			write(fmt.Sprintf("%s-trunc%s%d", tag, suf[1:], k), func(f map[string][]byte) { f[suf] = f[suf][:cut] })
		}
		for k := 0; k < 6; k++ {
			off, bit := rng.Intn(size), byte(1)<<rng.Intn(8)
			write(fmt.Sprintf("%s-flip%s%d", tag, suf[1:], k), func(f map[string][]byte) { f[suf][off] ^= bit })
		}
		write(tag+"-no"+suf[1:], func(f map[string][]byte) { f[suf] = nil })
	}
	idx := orig[".index"]
	label, entry := 132, 20
	if idx[7] == 3 {
		label, entry = 808, 32
	}
	for k := 0; k < 3 && label+(k+1)*entry <= len(idx); k++ {
		write(fmt.Sprintf("%s-zeroidx%d", tag, k), func(f map[string][]byte) {
			clear(f[".index"][label+k*entry : label+(k+1)*entry])
		})
	}
	return names
}

// DamagedCopies makes damaged copies (damage) of each of sources (a path
// in the repository, or "shared:NAME" for a QA archive) in a temporary
// directory, and returns it with the copies' names.
func DamagedCopies(t testing.TB, sources []string) (dir string, names []string) {
	t.Helper()
	root := RepoRoot(t)
	qa := SharedDir(t, "pcp-qa-archives")
	dir = t.TempDir()
	rng := rand.New(rand.NewSource(17))
	for _, src := range sources {
		base := filepath.Join(root, src)
		if s, ok := strings.CutPrefix(src, "shared:"); ok {
			base = filepath.Join(qa, s)
		}
		names = append(names, damage(t, base, dir, rng)...)
	}
	return dir, names
}

// DamageSources are the archives damaged copies are made of: the
// repository's own and QA archives with counters that wrap, instance
// domains that change, several volumes' worth of index entries.
var DamageSources = []string{
	"testdata/archives/pmcd-v2", "testdata/archives/pmcd-v3", "testdata/archives/sample-v3",
	"shared:chartqa1", "shared:wrap", "shared:sample-secs", "shared:changeinst", "shared:dyninsts",
	"shared:instant-1", "shared:late", "shared:bug-1044", "shared:sample-proc_v3", "shared:derive",
}

// damageMetrics are metrics of each of DamageSources (by base name), to
// ask for on its damaged copies.
var damageMetrics = map[string][]string{
	"pmcd-v2": {"disk.dev.read", "kernel.all.load"}, "pmcd-v3": {"disk.dev.read", "kernel.all.load"},
	"sample-v3": {"sample.seconds", "sample.colour"}, "chartqa1": {"sample.seconds", "sample.bin"},
	"wrap": {"sample.wrap.long"}, "sample-secs": {"sample.seconds"}, "changeinst": {"sample.bin", "sample.seconds"},
	"dyninsts": {"mem.util.free", "disk.dev.read"}, "instant-1": {"sample.seconds"}, "late": {"sampledso.milliseconds"},
	"bug-1044": {"kernel.all.nprocs"}, "sample-proc_v3": {"sample.proc.time"}, "derive": {"sample.bin"},
}

// DamagedMetrics returns one or two metrics of the archive a damaged
// copy (a name DamagedCopies gave) was made of, to ask for on it.
func DamagedMetrics(t testing.TB, copyName string) []string {
	t.Helper()
	src := copyName[:max(strings.LastIndexByte(copyName, '-'), 0)]
	m, ok := damageMetrics[filepath.Base(src)]
	if !ok {
		t.Fatalf("no metrics for the damaged copies of %q", src)
	}
	return m
}

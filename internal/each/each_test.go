package each

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		arg  string
		k, n int
		ok   bool
	}{
		{"0/1", 0, 1, true}, {"3/7", 3, 7, true}, {"7/7", 0, 0, false}, {"-1/2", 0, 0, false},
		{"1", 0, 0, false}, {"a/2", 0, 0, false}, {"0/0", 0, 0, false},
	} {
		k, n, ok := ParseShard(c.arg)
		if ok != c.ok || ok && (k != c.k || n != c.n) {
			t.Errorf("ParseShard(%q) = %d, %d, %v", c.arg, k, n, ok)
		}
	}
	// FNV-1a of the name
	if got := Shard("a", 1<<30); got != 0xe40c292c%(1<<30) {
		t.Errorf("Shard(a) = %#x", got)
	}
}

// TestExpand: a directory is walked for archives (.meta, compressed or
// not) at any depth in lexical order, a file stands for its archive, a glob is expanded,
// each archive once, in argument order; a directory without archives is
// complained about, status 1.
func TestExpand(t *testing.T) {
	d := t.TempDir()
	for _, f := range []string{"a/x.meta", "a/x.0", "a/b/y.meta.xz", "z.meta", "z.0", "empty/readme"} {
		p := filepath.Join(d, f)
		os.MkdirAll(filepath.Dir(p), 0o777)
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	var msgs []string
	got, status := Expand([]string{filepath.Join(d, "z.0"), filepath.Join(d, "a"), filepath.Join(d, "*"), filepath.Join(d, "empty"), "host:x,y"},
		func(f string, a ...any) { msgs = append(msgs, f) })
	want := []string{filepath.Join(d, "z"), filepath.Join(d, "a", "b", "y"), filepath.Join(d, "a", "x"), "host:x,y"}
	if d := cmp.Diff(want, got); d != "" || status != 1 || len(msgs) != 1 || !strings.Contains(msgs[0], "no archives in directory") {
		t.Errorf("Expand: status %d, complaints %q, (-want +got):\n%s", status, msgs, d)
	}
}

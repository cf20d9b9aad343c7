package logrewrite

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// copyArchive copies the files of archive src into dir under base name
// name, and returns the new base.
func copyArchive(t testing.TB, src, dir, name string) string {
	t.Helper()
	for _, suf := range archiveFiles(src) {
		b, err := os.ReadFile(src + suf)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+suf), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, name)
}

// snapshot is the files of a directory and their bytes.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

const inPlaceConf = `metric kernel.all.load { pmid -> 60.2.50 type -> DOUBLE }
global { hostname -> inplace }
`

// oldAndNew gives the directory contents before and after an in-place
// rewrite of pmcd-v3 with inPlaceConf (the new one made by an ordinary
// rewrite to another name, then renamed).
func oldAndNew(t *testing.T) (conf string, old, new map[string]string) {
	dir := t.TempDir()
	conf = filepath.Join(t.TempDir(), "c.conf")
	os.WriteFile(conf, []byte(inPlaceConf), 0o644)
	base := copyArchive(t, testArchive(t, "pmcd-v3"), dir, "a")
	old = snapshot(t, dir)
	out := filepath.Join(t.TempDir(), "a")
	if _, stderr, rc := runMain("-c", conf, base, out); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	new = snapshot(t, filepath.Dir(out))
	return conf, old, new
}

func TestInPlace(t *testing.T) {
	conf, old, want := oldAndNew(t)
	if cmp.Equal(old, want) {
		t.Fatal("the rewrite changes nothing")
	}
	dir := t.TempDir()
	base := copyArchive(t, testArchive(t, "pmcd-v3"), dir, "a")
	if _, stderr, rc := runMain("-i", "-c", conf, base); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	got := snapshot(t, dir)
	if d := cmp.Diff(names(want), names(got)); d != "" {
		t.Fatalf("files -want +got:\n%s", d)
	}
	for k := range want {
		if want[k] != got[k] {
			t.Errorf("%s differs from an ordinary rewrite's", k)
		}
	}
}

// TestInPlaceInjectedFailure stops an in-place rewrite after each of its
// destructive steps, as a kill would, and requires that the archive's
// name holds the old archive, the new one, or no .meta (an archive no
// tool opens), never a mix; then that Recover (which the next -i runs
// first) leaves exactly the old or the new archive and nothing else.
func TestInPlaceInjectedFailure(t *testing.T) {
	conf, old, new := oldAndNew(t)
	injected := errors.New("injected failure")
	outcomes := map[string]int{}
	for k := 1; ; k++ {
		dir := t.TempDir()
		base := copyArchive(t, testArchive(t, "pmcd-v3"), dir, "a")
		o := &Options{Input: base, Configs: []string{conf}, InPlace: true, Stdout: io.Discard, Stderr: io.Discard,
			failAfterRename: k, failErr: injected}
		err := Rewrite(o)
		if err == nil {
			// past the last step: the rewrite completed
			if k < 4 {
				t.Fatalf("only %d steps", k-1)
			}
			if d := cmp.Diff(new, snapshot(t, dir)); d != "" {
				t.Fatalf("completed rewrite: -want +got:\n%s", d)
			}
			break
		}
		// What a kill at this point leaves, at the archive's name.
		state := map[string]string{}
		for name, b := range snapshot(t, dir) {
			if name == "a.meta" || name == "a.index" || name == "a.0" {
				state[name] = b
			}
		}
		_, hasMeta := state["a.meta"]
		switch {
		case cmp.Equal(state, old):
			outcomes["old"]++
		case cmp.Equal(state, new):
			outcomes["new"]++
		case !hasMeta:
			outcomes["no .meta"]++
			if _, err := archive.Open(base); err == nil {
				t.Errorf("step %d: an archive without .meta opens", k)
			}
		default:
			t.Fatalf("step %d: a mix of old and new files: %v", k, names(state))
		}
		if err := Recover(base); err != nil {
			t.Fatalf("step %d: Recover: %v", k, err)
		}
		after := snapshot(t, dir)
		if !cmp.Equal(after, old) && !cmp.Equal(after, new) {
			t.Fatalf("step %d: after Recover the directory holds %v, neither the old nor the new archive", k, names(after))
		}
		// A second Recover has nothing to do.
		if err := Recover(base); err != nil {
			t.Fatal(err)
		}
	}
	if outcomes["no .meta"] == 0 {
		t.Errorf("no step left the archive without .meta: %v", outcomes)
	}
	t.Logf("states left by the injected failures: %v", outcomes)
}

// TestInPlaceInterop: the real pmlogrewrite -i and pcpkit's leave the
// same archive.
func TestInPlaceInterop(t *testing.T) {
	testenv.RealTool(t, "pmlogrewrite")
	conf, _, _ := oldAndNew(t)
	rdir, gdir := t.TempDir(), t.TempDir()
	rbase := copyArchive(t, testArchive(t, "pmcd-v3"), rdir, "a")
	gbase := copyArchive(t, testArchive(t, "pmcd-v3"), gdir, "a")
	if _, stderr, rc, _ := runReal(t, rdir, "pmlogrewrite", "-i", "-c", conf, rbase); rc != 0 {
		t.Fatalf("real: exit %d: %s", rc, stderr)
	}
	if _, stderr, rc := runMain("-i", "-c", conf, gbase); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr)
	}
	r, g := snapshot(t, rdir), snapshot(t, gdir)
	if d := cmp.Diff(names(r), names(g)); d != "" {
		t.Fatalf("files -real +pcpkit:\n%s", d)
	}
	for k := range r {
		if !bytes.Equal([]byte(r[k]), []byte(g[k])) {
			t.Errorf("%s differs from the real tool's", k)
		}
	}
}

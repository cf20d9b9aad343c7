package logsummary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/each"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// fleet makes a directory of archives for the batch tests: n archives
// named host<i>/<archive>-<i>, symbolic links to the files of the
// archives in testdata/archives, in rotation. It returns the directory
// and the archive names relative to it, in lexical order.
func fleet(t *testing.T, n int) (string, []string) {
	t.Helper()
	src := testenv.ArchivesDir(t)
	dir := t.TempDir()
	srcs := []string{"pmcd-v3", "pmcd-v2", "sample-v3"}
	var names []string
	for i := 0; i < n; i++ {
		a := srcs[i%len(srcs)]
		host := fmt.Sprintf("host%02d", i%7)
		if err := os.MkdirAll(filepath.Join(dir, host), 0o755); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(host, fmt.Sprintf("%s-%03d", a, i))
		for _, ext := range []string{".0", ".meta", ".index"} {
			if err := os.Symlink(filepath.Join(src, a+ext), filepath.Join(dir, name+ext)); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return dir, names
}

// TestEachMatchesSingle checks that --each prints, in argument order and
// whatever -j, what single runs print: text under a "==> NAME <==" line,
// one --json object per archive, one --csv header and then each
// archive's rows.
func TestEachMatchesSingle(t *testing.T) {
	dir := testenv.ArchivesDir(t)
	// A file stands for its archive, and an archive named twice is
	// summarised once.
	archives := []string{"sample-v3", "pmcd-v3", "nosuch", "pmcd-v3,sample-v3", "pmcd-v2.0", "pmcd-v3"}
	each := []string{"sample-v3", "pmcd-v3", "nosuch", "pmcd-v3,sample-v3", "pmcd-v2"}
	for _, mode := range [][]string{{"-a"}, {"-x", "-y", "-B", "2", "-S", "+3"}, {"-l", "-i", "-I"}} {
		for _, format := range []string{"", "--json", "--csv"} {
			var want, wantErr strings.Builder
			wantRC := 0
			for i, a := range each {
				args := append(append([]string{}, mode...), a, "kernel", "hinv.ncpu")
				if format != "" {
					args = append([]string{format}, args...)
				}
				out, errs, rc := run(t, dir, args)
				switch format {
				case "":
					if i > 0 {
						want.WriteString("\n")
					}
					fmt.Fprintf(&want, "==> %s <==\n", a)
				case "--csv":
					if i > 0 {
						_, out, _ = strings.Cut(out, "\n")
					}
				}
				want.WriteString(out)
				if errs != "" {
					fmt.Fprintf(&wantErr, "==> %s <==\n%s", a, errs)
				}
				if rc != 0 {
					wantRC = 1
				}
			}
			for _, j := range []string{"1", "2", "5"} {
				args := append(append([]string{"--each", "-j", j, "--metric", "kernel", "--metric=hinv.ncpu"}, mode...), archives...)
				if format != "" {
					args = append([]string{format}, args...)
				}
				out, errs, rc := run(t, dir, args)
				if out != want.String() || errs != wantErr.String() || rc != wantRC {
					t.Errorf("%v: exit %d (want %d)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", args, rc, wantRC, out, want.String(), errs, wantErr.String())
				}
			}
		}
	}
}

// TestEachOrder runs --each on many archives with more workers than
// cores: the output follows the arguments, not completion order, and is
// the same for every -j.
func TestEachOrder(t *testing.T) {
	dir, names := fleet(t, 60)
	rev := slices.Clone(names)
	slices.Reverse(rev)
	var first string
	for _, j := range []string{"1", "3", "16"} {
		out, errs, rc := run(t, dir, append([]string{"--each", "--json", "-j", j, "-a"}, rev...))
		if rc != 0 || errs != "" {
			t.Fatalf("-j %s: exit %d, %s", j, rc, errs)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			got = append(got, jsonDoc(t, []byte(l))["archive"].(string))
		}
		if !slices.Equal(got, rev) {
			t.Errorf("-j %s: archives in the order %q, want %q", j, got, rev)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("-j %s: the output differs from -j 1's", j)
		}
	}
}

// TestEachExpansion checks directories and globs: a directory is every
// archive under it (unlike the real tool, for which a directory is one
// multi-archive context), a glob's files collapse to their archives, an
// archive met twice is summarised once.
func TestEachExpansion(t *testing.T) {
	dir, names := fleet(t, 20)
	t.Chdir(dir)
	list := func(args ...string) []string {
		t.Helper()
		out, errs, rc := run(t, dir, append([]string{"--each", "--json", "-y"}, args...))
		if rc != 0 || errs != "" {
			t.Fatalf("%q: exit %d, %s", args, rc, errs)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			got = append(got, jsonDoc(t, []byte(l))["archive"].(string))
		}
		return got
	}
	if got := list("."); !slices.Equal(got, names) {
		t.Errorf("--each .: %q, want %q", got, names)
	}
	var h3, l3, n3 []string
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, "host03/"); ok {
			h3 = append(h3, n)
			l3 = append(l3, "link03/"+rest)
			n3 = append(n3, "nest/h03/"+rest)
		}
	}
	if got := list("host03"); !slices.Equal(got, h3) {
		t.Errorf("--each host03: %q, want %q", got, h3)
	}
	if got := list("host03/*"); !slices.Equal(got, h3) {
		t.Errorf("--each 'host03/*': %q, want %q", got, h3)
	}
	if got := list("host0[3]", h3[0]+".0", "host03/*.meta"); !slices.Equal(got, h3) {
		t.Errorf("--each host0[3] ...: %q, want %q", got, h3)
	}
	var v2 []string
	for _, n := range names {
		if strings.Contains(n, "pmcd-v2") {
			v2 = append(v2, n)
		}
	}
	if got := list("*/pmcd-v2-*.index"); !slices.Equal(got, v2) {
		t.Errorf("--each '*/pmcd-v2-*.index': %q, want %q", got, v2)
	}
	// A comma list stays one context, as without --each.
	if got := list(h3[0] + "," + h3[1]); !slices.Equal(got, []string{h3[0] + "," + h3[1]}) {
		t.Errorf("--each LIST: %q", got)
	}
	// Without --each, a directory is one multi-archive context.
	if out, _, _ := run(t, dir, []string{"--json", "host03"}); strings.Count(out, "\n") != 1 || jsonDoc(t, []byte(out))["archive"] != "host03" {
		t.Errorf("host03 without --each:\n%s", out)
	}
	_, errs, rc := run(t, dir, []string{"--each", "--json", "nothing*", "empty"})
	if rc != 1 || errs != "pmlogsummary: no archives match \"nothing*\"\n==> empty <==\npmlogsummary: Cannot open archive \"empty\": No such file or directory\n" {
		t.Errorf("no matches: exit %d, %q", rc, errs)
	}
	os.Mkdir(filepath.Join(dir, "emptydir"), 0o755)
	if _, errs, rc := run(t, dir, []string{"--each", "emptydir"}); rc != 1 || errs != "pmlogsummary: no archives in directory \"emptydir\"\n" {
		t.Errorf("empty directory: exit %d, %q", rc, errs)
	}

	// Symbolic links to directories are followed, each directory read
	// once: a link to a directory already met, or to itself, adds
	// nothing.
	for link, target := range map[string]string{"link03": "host03", "host03/self": ".", "nest/h03": "../host03"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if got := list("link03"); !slices.Equal(got, l3) {
		t.Errorf("--each link03 (a link to host03): %q, want %q", got, l3)
	}
	if got := list("nest"); !slices.Equal(got, n3) {
		t.Errorf("--each nest (holding a link to host03): %q, want %q", got, n3)
	}
	if got := list("."); !slices.Equal(got, names) {
		t.Errorf("--each . with links: %q, want %q", got, names)
	}
}

// TestShard checks --shard: the shards of a list are disjoint, cover it,
// and do not depend on its order.
func TestShard(t *testing.T) {
	dir, names := fleet(t, 40)
	rev := slices.Clone(names)
	slices.Reverse(rev)
	for _, n := range []int{1, 2, 3, 7} {
		var all []string
		for k := 0; k < n; k++ {
			var got [2][]string
			for i, list := range [][]string{names, rev} {
				out, _, rc := run(t, dir, append([]string{"--each", "--json", fmt.Sprintf("--shard=%d/%d", k, n)}, list...))
				if rc != 0 {
					t.Fatalf("--shard %d/%d: exit %d", k, n, rc)
				}
				for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if l != "" {
						got[i] = append(got[i], jsonDoc(t, []byte(l))["archive"].(string))
					}
				}
				for _, a := range got[i] {
					if each.Shard(a, n) != k {
						t.Errorf("%s in shard %d of %d, FNV-1a says %d", a, k, n, each.Shard(a, n))
					}
				}
			}
			g0 := slices.Sorted(slices.Values(got[0]))
			g1 := slices.Sorted(slices.Values(got[1]))
			if !slices.Equal(g0, g1) {
				t.Errorf("--shard %d/%d depends on the order: %q and %q", k, n, got[0], got[1])
			}
			if n == 7 && len(got[0]) == 0 {
				t.Logf("shard %d/%d is empty", k, n)
			}
			all = append(all, got[0]...)
		}
		slices.Sort(all)
		if !slices.Equal(all, names) {
			t.Errorf("%d shards hold %q, want %q", n, all, names)
		}
	}
	// The hash is FNV-1a of the name.
	if got := each.Shard("a", 1<<30); got != 0xe40c292c%(1<<30) {
		t.Errorf("each.Shard(a) = %#x", got)
	}
}

// TestMerge checks --merge on the shards of a fleet, for --json and
// --csv: the merged output is the whole fleet's, sorted by archive.
func TestMerge(t *testing.T) {
	dir, names := fleet(t, 25)
	out := t.TempDir()
	for _, format := range []string{"--json", "--csv"} {
		ext := strings.TrimPrefix(format, "--")
		var files []string
		for k := 2; k >= 0; k-- {
			o, _, rc := run(t, dir, append([]string{"--each", format, "-a", fmt.Sprintf("--shard=%d/3", k)}, names...))
			if rc != 0 {
				t.Fatalf("shard %d: exit %d", k, rc)
			}
			f := filepath.Join(out, fmt.Sprintf("shard-%d.%s", k, ext))
			os.WriteFile(f, []byte(o), 0o644)
			files = append(files, f)
		}
		whole, _, _ := run(t, dir, append([]string{"--each", format, "-a"}, names...))
		merged, errs, rc := run(t, dir, append([]string{"--merge", format}, files...))
		if rc != 0 || errs != "" {
			t.Fatalf("--merge %s: exit %d, %s", format, rc, errs)
		}
		var want string
		if format == "--json" {
			lines := strings.Split(strings.TrimSuffix(whole, "\n"), "\n")
			want = "[\n" + strings.Join(lines, ",\n") + "\n]\n"
			var arr []map[string]any
			if err := json.Unmarshal([]byte(merged), &arr); err != nil || len(arr) != len(names) {
				t.Errorf("--merge: not an array of %d objects: %v", len(names), err)
			}
		} else {
			want = whole
		}
		if merged != want {
			t.Errorf("--merge %s:\n%s\nwant:\n%s", format, merged, want)
		}
		// Merging a merged output again changes nothing.
		f := filepath.Join(out, "merged."+ext)
		os.WriteFile(f, []byte(merged), 0o644)
		again, _, _ := run(t, dir, []string{"--merge", format, f})
		if again != merged {
			t.Errorf("--merge %s of a merged output differs", format)
		}
		// The jq recipe of docs/pmlogsummary.md does the same.
		if format == "--json" {
			if _, err := exec.LookPath("jq"); err == nil {
				cmd := exec.Command("jq", append([]string{"-c", "-s", `[.[] | if type == "array" then .[] else . end] | sort_by(.archive) | .[]`}, files...)...)
				jqOut, err := cmd.Output()
				if err != nil {
					t.Errorf("jq: %v", err)
				} else {
					var a, b []any
					json.Unmarshal([]byte(merged), &a)
					for _, l := range strings.Split(strings.TrimSpace(string(jqOut)), "\n") {
						var o any
						json.Unmarshal([]byte(l), &o)
						b = append(b, o)
					}
					ja, _ := json.Marshal(a)
					jb, _ := json.Marshal(b)
					if !bytes.Equal(ja, jb) {
						t.Errorf("the jq recipe gives another result")
					}
				}
			}
		}
	}
	_, errs, rc := run(t, dir, []string{"--merge", "nosuch.json"})
	if rc != 1 || errs != "pmlogsummary: cannot merge nosuch.json: No such file or directory\n" {
		t.Errorf("--merge nosuch.json: exit %d, %q", rc, errs)
	}
	bad := filepath.Join(out, "bad.json")
	os.WriteFile(bad, []byte(`{"x":1}`), 0o644)
	if _, errs, rc := run(t, dir, []string{"--merge", bad}); rc != 1 || !strings.Contains(errs, "not a pmlogsummary --json object") {
		t.Errorf("--merge bad.json: exit %d, %q", rc, errs)
	}
}

// TestProgressNotTerminal checks that --each writes nothing to a stderr
// that is not a terminal (a file, a pipe), however long it runs.
func TestProgressNotTerminal(t *testing.T) {
	dir, names := fleet(t, 12)
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	t.Chdir(dir)
	t.Setenv("TZ", "UTC")
	errf, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	for _, stderr := range []*os.File{errf, w} {
		if isTerminal(stderr) {
			t.Fatalf("%s is a terminal", stderr.Name())
		}
		var out bytes.Buffer
		if rc := Main(append([]string{"--each", "-a", "-j", "1"}, names...), &out, stderr); rc != 0 {
			t.Errorf("exit %d", rc)
		}
	}
	w.Close()
	piped, _ := readAll(r)
	b, _ := os.ReadFile(errf.Name())
	if len(b) != 0 || len(piped) != 0 {
		t.Errorf("stderr is not empty: %q %q", b, piped)
	}
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// TestProgressBar checks the bar as it would be drawn on a terminal.
func TestProgressBar(t *testing.T) {
	old := progressDelay
	progressDelay = 0
	defer func() { progressDelay = old }()
	// progress writes under its lock only, and the ticker goroutine has
	// ended when stop returns.
	var b bytes.Buffer
	p := &progress{w: &b, on: true, total: 4, start: time.Now(), quit: make(chan struct{}), stopped: make(chan struct{})}
	go p.run()
	time.Sleep(300 * time.Millisecond)
	p.write([]byte("pmlogsummary: a message\n"))
	p.done(2)
	p.stop()
	got := b.String()
	want := "\rpmlogsummary: [                              ] 0/4 archives\r\033[Kpmlogsummary: a message\n"
	if !strings.HasPrefix(got, want) || strings.Count(got, "\r\033[K") != strings.Count(got, "archives") {
		t.Errorf("bar:\n%q\nwant a prefix\n%q", got, want)
	}
}

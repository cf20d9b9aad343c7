// Package examples holds the example files the documentation uses, and
// the test that runs docs/quickstart.md's commands with them.
package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// shBlock is a fenced block of docs/quickstart.md the test runs: "```sh"
// (the "```bash" blocks, installing and recording from a pmcd, are not).
var shBlock = regexp.MustCompile("(?ms)^```sh\n(.*?)^```\n")

// TestQuickstart runs every sh block of docs/quickstart.md, in order, in
// one shell (set -e: each command must succeed), in an empty directory
// holding a copy of examples/, with pcpkit's tools first on PATH: the
// first hour as a new user would have it, recording from the built-in
// collector with examples/pmlogger.config.
func TestQuickstart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the quickstart records from the built-in collector, which reads Linux's /proc")
	}
	if testing.Short() {
		t.Skip("records for some seconds")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	root := testenv.RepoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("set -ex\n")
	blocks := shBlock.FindAllSubmatch(doc, -1)
	if len(blocks) < 8 {
		t.Fatalf("%d sh blocks in docs/quickstart.md", len(blocks))
	}
	for _, b := range blocks {
		script.Write(b[1])
	}

	bin := t.TempDir()
	tools := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(pm[a-z]+) `).FindAllStringSubmatch(script.String(), -1) {
		tools[m[1]] = true
	}
	for tool := range tools {
		testenv.BuildCommand(t, tool, bin)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TZ=UTC", "LC_ALL=C", "PCP_DERIVED_CONFIG=", "PCP_TMP_DIR="+dir, "PCP_RUN_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quickstart's commands failed: %v\n%s", err, out)
	}
	// What the commands made, and said.
	for _, f := range []string{"rec.meta", "rec.0", "rec.index", "window.meta", "window.0"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}
	for _, want := range []string{
		"Performance metrics from host ",  // pmdumplog -l
		"Semantics: instant  Units: none", // pmdumplog -d
		`"name":"kernel.all.load"`,        // pmdumplog --json
		"metric:    mem.util.pct_used",    // the derived metric
		`Time,"kernel.all.load-1 minute"`, // pmreplay
		`"archive":"fleet/a/rec"`,         // pmlogsummary --each
		`"archive":"fleet/b/rec"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

package registry_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/cli/registry"
)

// TestCompletionBash sources the generated bash script and completes
// command lines as bash would, with pcpkit's pminfo on PATH for metric
// names: options (the real tool's and pcpkit's), archive base names for
// archive operands and -a, metric names from the archive of the command
// line.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir, _ := buildTools(t)
	script, err := cli.Completion("bash", registry.Tools)
	if err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(t.TempDir(), "pcpkit.bash")
	if err := os.WriteFile(sf, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	archives, err := filepath.Abs("../../../testdata/archives")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		words []string // the last is the word completed
		want  []string
	}{
		{[]string{"pmdumplog", "--js"}, []string{"--json"}},
		{[]string{"pmdumplog", "--la"}, []string{"--label", "--labelsets"}},
		{[]string{"pmlogsummary", "--sh"}, []string{"--shard"}},
		{[]string{"pmval", "--rev"}, []string{"--reverse"}},
		{[]string{"pmdumplog", "pmcd-v"}, []string{"pmcd-v2", "pmcd-v3"}},
		{[]string{"pmdumplog", "-l", "sample-"}, []string{"sample-v3"}},
		{[]string{"pmval", "-a", "pmcd-v"}, []string{"pmcd-v2", "pmcd-v3"}},
		{[]string{"pmlogextract", "pmcd-v3", "pmcd-v"}, []string{"pmcd-v2", "pmcd-v3"}},
		{[]string{"pmdumplog", "pmcd-v3", "kernel.all.lo"}, []string{"kernel.all.load"}},
		{[]string{"pmval", "-a", "pmcd-v3", "kernel.all.lo"}, []string{"kernel.all.load"}},
		{[]string{"pminfo", "--archive", "pmcd-v3", "kernel.all.lo"}, []string{"kernel.all.load"}},
		{[]string{"pmval", "-t", "2"}, nil}, // an interval: nothing offered
	} {
		var words []string
		for _, w := range tc.words {
			words = append(words, "'"+w+"'")
		}
		fn := "_pcpkit_" + tc.words[0]
		prog := "source " + sf + "\nCOMP_WORDS=(" + strings.Join(words, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n" + fn + "\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = archives
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"PCP_DERIVED_CONFIG=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.words, err, out)
		}
		got := strings.Fields(string(out))
		if len(got) == 0 {
			got = nil
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v: completions differ (-want +got):\n%s", tc.words, d)
		}
	}
}

// TestCompletionScripts checks that each shell takes its script (where the
// shell is installed) and that an unknown shell is refused.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		s, err := cli.Completion(shell, registry.Tools)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range registry.Tools {
			if !strings.Contains(s, tool.Name) {
				t.Errorf("%s script does not name %s", shell, tool.Name)
			}
		}
		sh, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed: its script is not checked", shell)
			continue
		}
		f := filepath.Join(t.TempDir(), "script")
		os.WriteFile(f, []byte(s), 0o644)
		if out, err := exec.Command(sh, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
	}
	if _, err := cli.Completion("tcsh", registry.Tools); err == nil {
		t.Error("tcsh: no error")
	}
}

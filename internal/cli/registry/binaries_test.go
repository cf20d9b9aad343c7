package registry_test

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/cli/registry"
)

var (
	buildOnce  sync.Once
	builtDir   string
	builtNames []string
	buildErr   string
)

func TestMain(m *testing.M) {
	rc := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(rc)
}

// buildTools builds every cmd/<name> as `make build` does (static, no
// cgo, -trimpath, the version stamped in) into a temporary directory, once
// for all the tests, and returns it, with the names of the tools built.
func buildTools(t *testing.T) (dir string, names []string) {
	t.Helper()
	buildOnce.Do(func() { builtDir, builtNames, buildErr = build() })
	switch {
	case buildErr == "skip":
		t.Skip("no go command on PATH to build the tools with")
	case buildErr != "":
		t.Fatal(buildErr)
	}
	return builtDir, builtNames
}

func build() (dir string, names []string, msg string) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil, "skip"
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		return "", nil, err.Error()
	}
	mains, _ := filepath.Glob(filepath.Join(root, "cmd", "*", "*.go"))
	seen := map[string]bool{}
	for _, m := range mains {
		n := filepath.Base(filepath.Dir(m))
		if !seen[n] && !strings.HasSuffix(m, "_test.go") {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", nil, "no commands under " + root + "/cmd"
	}
	if dir, err = os.MkdirTemp("", "pcpkit-tools-"); err != nil {
		return "", nil, err.Error()
	}
	const pkg = "github.com/pcpkit/pcpkit/internal/version"
	cmd := exec.Command(goBin, "build", "-trimpath",
		"-ldflags", "-X "+pkg+".version=vTEST -X "+pkg+".commit=cTEST",
		"-o", dir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, nil, fmt.Sprintf("go build ./cmd/...: %v\n%s", err, out)
	}
	return dir, names, ""
}

// TestRegistryHasEveryTool checks that every command under cmd/ has its
// command line in the registry, and that nothing else is there.
func TestRegistryHasEveryTool(t *testing.T) {
	mains, _ := filepath.Glob("../../../cmd/*/main.go")
	cmds := map[string]bool{}
	for _, m := range mains {
		cmds[filepath.Base(filepath.Dir(m))] = true
	}
	reg := map[string]bool{}
	for _, tool := range registry.Tools {
		reg[tool.Name] = true
		if !cmds[tool.Name] {
			t.Errorf("registry has %s, which is not under cmd/", tool.Name)
		}
	}
	for c := range cmds {
		if !reg[c] {
			t.Errorf("cmd/%s is not in the registry", c)
		}
	}
}

// TestShippedBinaries runs every tool built as `make build` builds it:
// each is static (no ELF interpreter, no shared libraries), carries no
// test code, prints its version after the real tool's line, its usage
// and its pcpkit extensions for --help, and takes "completion" as an
// operand, as the real tool does, not as a command of its own.
func TestShippedBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every tool")
	}
	dir, names := buildTools(t)
	tools := map[string]bool{}
	metricTools := map[string]bool{}
	for _, tool := range registry.Tools {
		tools[tool.Name] = len(tool.Extras) > 0
		metricTools[tool.Name] = tool.Operands == cli.Metrics
	}
	archive, err := filepath.Abs("../../../testdata/archives/pmcd-v3")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, name)
			wd := t.TempDir()
			checkStatic(t, bin)
			checkNoTestCode(t, bin)

			out, rc := run(t, wd, bin, "--version")
			lines := strings.Split(out, "\n")
			if rc != 0 || len(lines) < 2 || lines[0] != name+" version 6.0.3" ||
				lines[1] != "pcpkit vTEST (commit cTEST)" {
				t.Errorf("--version: rc %d, output %q", rc, out)
			}

			out, _ = run(t, wd, bin, "--help")
			if !strings.Contains(out, "Usage: "+name+" ") {
				t.Errorf("--help: no usage message in %q", out)
			}
			if hasExtras := tools[name]; hasExtras != strings.Contains(out, "\npcpkit extensions:\n") {
				t.Errorf("--help: pcpkit extensions listed %v, want %v: %q", !hasExtras, hasExtras, out)
			}

			// Metric operands come with an archive (a pmcd may be
			// absent: the tool would stop there).
			var args []string
			if metricTools[name] {
				args = []string{"-a", archive}
			}
			args = append(args, "completion")
			switch name {
			case "pmlogextract":
				args = append(args, "out")
			case "pmlogger":
				// one sample from the built-in collector (a pmcd may
				// be absent), into an archive named completion
				cfg := filepath.Join(wd, "config")
				if err := os.WriteFile(cfg, []byte("log mandatory on once { hinv.ncpu }\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = []string{"-h", "@", "-c", cfg, "-s", "1", "completion"}
			}
			out, _ = run(t, wd, bin, args...)
			if strings.Contains(out, "autocompletion") || strings.Contains(strings.ToLower(out), "cobra") {
				t.Errorf("%v: a completion command answered: %q", args, out)
			}
			if name == "pmlogger" {
				// the archive pmlogger creates is named completion
				if _, err := os.Stat(filepath.Join(wd, "completion.meta")); err != nil {
					t.Errorf("pmlogger completion: no archive completion: %v (output %q)", err, out)
				}
			} else if !strings.Contains(out, "completion") && !strings.Contains(out, "Usage: ") {
				t.Errorf("%v: neither took completion as an operand nor printed the usage: %q", args, out)
			}
		})
	}
}

// run runs bin with args in dir for at most 3 seconds (pmlogger records
// until then) and returns its stdout and stderr together, and its status.
func run(t *testing.T, dir, bin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C", "PCP_DERIVED_CONFIG=")
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return b.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return b.String(), 0
}

// checkStatic fails unless bin is an ELF file with no interpreter
// (PT_INTERP) and no shared libraries.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an ELF interpreter: not static", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links shared libraries %v", bin, libs)
	}
}

// checkNoTestCode fails when bin's symbol table names a test fake
// (pmlogger's fakesource), package testing or internal/testenv.
func checkNoTestCode(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "fakesource") || strings.Contains(line, "internal/testenv.") ||
			strings.Contains(line, " testing.") {
			t.Errorf("%s carries test code: %s", filepath.Base(bin), strings.TrimSpace(line))
		}
	}
}

// Package testenv holds the helpers that pcpkit's tests share: finding the
// repository root and the shared archives beside the clone, finding and running
// the real PCP tools (the oracle pcpkit must match byte for byte), listing the
// archives in a directory, and reading the golden-file mode list
// (testdata/pmdumplog.modes) with the slug that names each golden file.
//
// Conventions (also described in README.md):
//
//   - Interop tests skip when the real PCP tool is missing, unless the
//     environment has PCP_INTEROP=1 (CI sets it), in which case they fail.
//   - Tests that need ../shared (the archives beside the clone) skip when it is
//     absent.
//   - The real tools run with TZ=UTC, PCP_DERIVED_CONFIG= (empty) and LC_ALL=C,
//     the same environment scripts/make-goldens.sh uses for the goldens.
package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pcpkit/pcpkit/internal/version"
)

// RealTimeout bounds one run of a real PCP tool in RunReal.
const RealTimeout = 2 * time.Minute

// RepoRoot returns the absolute path of the repository root: the nearest
// directory, walking up from the test's working directory, that holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: getwd: %v", err)
	}
	root, err := findRepoRoot(dir)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return root
}

func findRepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	start := dir
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod found in %s or any parent directory", start)
		}
		dir = parent
	}
}

// SharedDir returns <repo>/../shared/<sub> (cleaned, absolute). When that path
// does not exist the test is skipped: the shared archives live beside the
// clone, not in it.
func SharedDir(t testing.TB, sub string) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(RepoRoot(t)), "shared", sub)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared archives not found at %s (expected ../shared beside the clone): skipping", path)
	}
	return path
}

// BenchArchive is the archive a benchmark reads: $env, else the 108 MB
// benchmark archive /tmp/bench/b-v3 (docs/benchmarks.md makes it). The
// benchmark is skipped when the archive has no .meta (or .meta.xz).
func BenchArchive(tb testing.TB, env string) string {
	tb.Helper()
	arch := os.Getenv(env)
	if arch == "" {
		arch = "/tmp/bench/b-v3"
	}
	for _, meta := range []string{".meta", ".meta.xz"} {
		if _, err := os.Stat(arch + meta); err == nil {
			return arch
		}
	}
	tb.Skipf("no benchmark archive %s ($%s names another)", arch, env)
	return ""
}

// Interop reports whether PCP_INTEROP=1 is set: interop tests must then fail,
// not skip, when a real PCP tool is missing.
func Interop() bool { return os.Getenv("PCP_INTEROP") == "1" }

// Chunk is the number of samples in a chunk of the parallel replay
// (sampler.ChunkSamples) that PCPKIT_TEST_CHUNK asks the tests of
// pmreplay and pcp2arrow to use, whatever the archive's size, so that
// they check the parallel replay against the real tools too; 0 if unset.
func Chunk() int {
	n, err := strconv.Atoi(os.Getenv("PCPKIT_TEST_CHUNK"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// realToolDirs are searched, in order, before PATH. Debian installs the
// user-facing tools in /usr/bin and the helpers in /usr/lib/pcp/bin; other
// distributions use /usr/libexec/pcp/bin.
var realToolDirs = []string{"/usr/bin", "/usr/libexec/pcp/bin", "/usr/lib/pcp/bin"}

// NoRealToolsEnv names the environment variable that, set to 1, makes
// the real PCP tools count as not installed: how a machine without PCP is
// tried on one with it (with PMCD_PORT and PMCD_SOCKET pointing nowhere
// for "no pmcd", and PCPKIT_PCP638_ROOT for "no PCP 6.3.8").
const NoRealToolsEnv = "PCPKIT_NO_REAL_TOOLS"

// FindRealTool is RealTool without a testing.TB: it returns the path of the
// real PCP tool name, or "" when it is not installed (or $PCPKIT_NO_REAL_TOOLS
// is 1).
func FindRealTool(name string) string {
	if os.Getenv(NoRealToolsEnv) == "1" {
		return ""
	}
	for _, dir := range realToolDirs {
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// RealTool returns the path of the real PCP tool name (looked for in
// /usr/bin, then /usr/libexec/pcp/bin and /usr/lib/pcp/bin, then PATH). When
// it is absent the test fails if PCP_INTEROP=1 and is skipped otherwise.
func RealTool(t testing.TB, name string) string {
	t.Helper()
	if p := FindRealTool(name); p != "" {
		return p
	}
	if Interop() {
		t.Fatalf("PCP_INTEROP=1 but the real %s is not installed", name)
	}
	t.Skipf("the real PCP %s is not installed (set PCP_INTEROP=1 to make this a failure): skipping", name)
	return ""
}

// RealEnv returns the environment the real tools run in: the test's own
// environment with TZ=UTC, PCP_DERIVED_CONFIG= (empty), LC_ALL=C and
// PATH=/usr/bin:/bin:$PATH, followed by extra ("KEY=value" entries, which
// override; a "KEY" without "=" takes KEY out, as with PCP_DERIVED_CONFIG
// to have the system's derived metrics).
func RealEnv(extra ...string) []string {
	unset := map[string]bool{}
	for _, kv := range extra {
		if !strings.Contains(kv, "=") {
			unset[kv] = true
		}
	}
	set := map[string]string{
		"TZ":                 "UTC",
		"PCP_DERIVED_CONFIG": "",
		"LC_ALL":             "C",
		"PATH":               "/usr/bin:/bin:" + os.Getenv("PATH"),
	}
	order := []string{"TZ", "PCP_DERIVED_CONFIG", "LC_ALL", "PATH"}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			order = append(order, k)
		}
		set[k] = v
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range order {
		if !unset[k] {
			env = append(env, k+"="+set[k])
		}
	}
	return env
}

// Setenv sets the environment of an in-process run of a pcpkit tool as
// RealEnv sets the real tool's: TZ=UTC and PCP_DERIVED_CONFIG= (empty),
// PCP_CONTAINER= (empty, as a previous run's --container may have left
// it), then env ("KEY=value" sets, "KEY" alone unsets), restored when the test
// ends.
func Setenv(t testing.TB, env ...string) {
	t.Helper()
	t.Setenv("TZ", "UTC")
	t.Setenv("PCP_DERIVED_CONFIG", "")
	// set by a run's --container for the process, as libpcp sets it
	t.Setenv("PCP_CONTAINER", "")
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		t.Setenv(k, v)
		if !ok {
			os.Unsetenv(k)
		}
	}
}

// RunReal runs the real PCP tool name with args in the test's working
// directory, in the RealEnv environment, with no standard input and a timeout
// of RealTimeout. It returns the tool's standard output, standard error and
// exit code. A missing tool skips (or fails, with PCP_INTEROP=1); a tool that
// cannot be started or times out fails the test.
func RunReal(t testing.TB, name string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	return RunRealIn(t, "", name, args...)
}

// RunRealIn is RunReal with the working directory dir ("" for the test's own).
// The goldens are made with dir = testdata/archives and the archive's relative
// name as its argument; use the same to compare against them.
func RunRealIn(t testing.TB, dir, name string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	return RunCommand(t, dir, RealEnv(), RealTool(t, name), args...)
}

// RunRealSignaled is RunRealIn for a real tool that may die of a signal
// on some inputs (the real pmlogextract and pmlogrewrite do): signaled
// reports it, instead of failing the test.
func RunRealSignaled(t testing.TB, dir, name string, args ...string) (stdout, stderr []byte, exitCode int, signaled bool) {
	t.Helper()
	path := RealTool(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), RealTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = RealEnv()
	stdout, stderr, exitCode = runCmd(t, ctx, cmd, path+" "+strings.Join(args, " "))
	return stdout, stderr, exitCode, exitCode < 0
}

// RunCommand runs the program path with args in dir ("" for the test's own
// working directory) and environment env (nil for the test's own), with no
// standard input and a timeout of RealTimeout, and returns its standard
// output, standard error and exit code. It is what RunReal uses; a golden test
// can use it to run pcpkit's own binary the same way.
func RunCommand(t testing.TB, dir string, env []string, path string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	stdout, stderr, exitCode = RunCommandOrSignal(t, dir, env, path, args...)
	if exitCode < 0 {
		t.Fatalf("%s %s: killed by a signal\nstderr:\n%s", path, strings.Join(args, " "), stderr)
	}
	return stdout, stderr, exitCode
}

// RunCommandOrSignal is RunCommand for a program that may die of a
// signal, as the real tools do on some damaged archives: the exit code is
// then -1, and the test goes on.
func RunCommandOrSignal(t testing.TB, dir string, env []string, path string, args ...string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RealTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = env
	return runCmd(t, ctx, cmd, path+" "+strings.Join(args, " "))
}

// runCmd runs cmd (made with ctx, which bounds it) with no standard input,
// and returns its standard output, standard error and exit code (-1 when a
// signal killed it). A command that cannot start, or times out, fails the
// test.
func runCmd(t testing.TB, ctx context.Context, cmd *exec.Cmd, what string) (stdout, stderr []byte, exitCode int) {
	t.Helper()
	cmd.Stdin = nil // /dev/null
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("%s: timed out after %v", what, RealTimeout)
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v", what, err)
		}
		exitCode = ee.ExitCode()
		if exitCode < 0 {
			exitCode = -1
		}
	}
	return out.Bytes(), errb.Bytes(), exitCode
}

// compressedSuffixes are the compression suffixes libpcp accepts on archive
// files (see __pmLogOpen/index_compress in libpcp).
var compressedSuffixes = []string{".xz", ".lzma", ".bz2", ".bz", ".gz", ".z", ".Z", ".zst"}

// ArchiveBase returns the archive base name for a metadata file name
// ("x.meta" or "x.meta.xz" and the like give "x", true); other names give
// ("", false).
func ArchiveBase(name string) (string, bool) {
	for _, suf := range compressedSuffixes {
		if strings.HasSuffix(name, ".meta"+suf) {
			name = strings.TrimSuffix(name, suf)
			break
		}
	}
	if base, ok := strings.CutSuffix(name, ".meta"); ok && base != "" {
		return base, true
	}
	return "", false
}

// ListArchives is Archives without a testing.TB.
func ListArchives(dir string) ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		base, ok := ArchiveBase(d.Name())
		if !ok {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Join(filepath.Dir(p), base))
		if err != nil {
			return err
		}
		seen[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// Archives lists the archives under dir, recursing into subdirectories: every
// file named <base>.meta or <base>.meta.<compression> (.xz, .gz, .bz2, .zst,
// ...) gives <base>. The result holds each archive once, as a slash-separated
// path relative to dir (e.g. "basic3", "bad/trunc3"), sorted.
func Archives(t testing.TB, dir string) []string {
	t.Helper()
	names, err := ListArchives(dir)
	if err != nil {
		t.Fatalf("testenv: listing archives in %s: %v", dir, err)
	}
	return names
}

// ---------------------------------------------------------------------------
// Golden modes: testdata/pmdumplog.modes and the slugs naming golden files.

// Mode is one line of a modes file: the options a tool is run with, and the
// archives the line applies to.
type Mode struct {
	// Glob is the archive pattern from an "archive-glob:" prefix, "" for
	// every archive. It may list several patterns separated by commas; see
	// Matches.
	Glob string
	// Args are the tool's arguments, split on white space. A "{}" inside an
	// argument stands for the archive; when no argument holds "{}" the
	// archive is appended as the last argument (see ArgsFor).
	Args []string
}

// ArchivePlaceholder stands for the archive inside a mode's arguments.
const ArchivePlaceholder = "{}"

// Matches reports whether the mode applies to archive, a slash-separated name
// relative to the archives directory (as Archives returns). An empty Glob
// matches every archive; otherwise the archive must match one of the
// comma-separated patterns, where * matches any run of characters (including
// /), ? any one character and [...] a class ([!...] or [^...] negated), as in
// bash's [[ $archive == $pattern ]], which scripts/make-goldens.sh uses.
func (m Mode) Matches(archive string) bool {
	if m.Glob == "" {
		return true
	}
	for _, pat := range strings.Split(m.Glob, ",") {
		re, err := globRegexp(pat)
		if err == nil && re.MatchString(archive) {
			return true
		}
	}
	return false
}

// globRegexp translates one shell pattern into an anchored regexp.
func globRegexp(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`\A`)
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
				j++
			}
			if j < len(pat) && pat[j] == ']' {
				j++
			}
			for j < len(pat) && pat[j] != ']' {
				j++
			}
			if j >= len(pat) { // no closing ]: a literal [
				b.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : j]
			b.WriteByte('[')
			if class[0] == '!' || class[0] == '^' {
				b.WriteByte('^')
				class = class[1:]
			}
			for k := 0; k < len(class); k++ {
				if class[k] == '\\' || class[k] == '[' || class[k] == ']' || class[k] == '^' {
					b.WriteByte('\\')
				}
				b.WriteByte(class[k])
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.Compile(b.String())
}

// ArgsFor returns the tool's arguments for archive: Args with every "{}"
// replaced by archive, or, when no argument holds "{}", Args followed by
// archive.
func (m Mode) ArgsFor(archive string) []string {
	args := make([]string, 0, len(m.Args)+1)
	placed := false
	for _, a := range m.Args {
		if strings.Contains(a, ArchivePlaceholder) {
			a = strings.ReplaceAll(a, ArchivePlaceholder, archive)
			placed = true
		}
		args = append(args, a)
	}
	if !placed {
		args = append(args, archive)
	}
	return args
}

// Slug is ModeSlug of the mode's arguments.
func (m Mode) Slug() string { return ModeSlug(strings.Join(m.Args, " ")) }

// String gives the mode as it would be written in a modes file.
func (m Mode) String() string {
	s := strings.Join(m.Args, " ")
	if m.Glob != "" {
		if s == "" {
			return m.Glob + ":"
		}
		return m.Glob + ": " + s
	}
	return s
}

// ModeSlug turns an option string into the file name stem of its goldens
// (testdata/golden/<tool>/<archive>/<slug>.{out,err,rc}). The rule, which
// scripts/make-goldens.sh implements too (its --slug option prints it):
//
//   - The options are split on white space into tokens; the encoded tokens
//     are joined with "_". No tokens at all give "_none_".
//   - A token starting with "-" (other than "-" itself) is an option: its
//     first "-" is dropped and each upper-case ASCII letter X in the rest is
//     written "^X", so "-a" is "a", "-xxx" is "xxx", "-I" is "^I" (the slugs
//     of -i and -I then differ on case-insensitive file systems too).
//   - Any other token is an argument, written "=" followed by the token:
//     "EST5EDT" is "=EST5EDT", "kernel.all.load" is "=kernel.all.load".
//   - Within a token, "{}" (the archive placeholder) is written "@"; the bytes
//     a-z, A-Z, 0-9, ".", "+", "," and "-" stand for themselves, except that a
//     "-" or "." that would begin the encoded token is escaped; every other
//     byte is written "%XX" (upper-case hex), so "_", "=", "@", "^", "%",
//     "/", ":" and the like never appear unescaped in a token.
//
// Examples: "-a" → "a"; "-xxx -t" → "xxx_t"; "-Z EST5EDT -a" →
// "^Z_=EST5EDT_a" (arguments keep their case); "-S +2 -T +5" →
// "^S_=+2_^T_=+5"; "-m sample.event.highres_records" →
// "m_=sample.event.highres%5Frecords"; "-v {}.meta" → "v_=@.meta";
// "--foo" → "%2Dfoo"; "" → "_none_".
//
// The encoding is injective, and the result is a safe file name that never
// begins with "-" or ".".
func ModeSlug(opts string) string {
	toks := strings.Fields(opts)
	if len(toks) == 0 {
		return "_none_"
	}
	enc := make([]string, len(toks))
	for i, tok := range toks {
		enc[i] = encodeToken(tok)
	}
	return strings.Join(enc, "_")
}

func encodeToken(tok string) string {
	var b strings.Builder
	option := len(tok) > 1 && tok[0] == '-'
	if option {
		tok = tok[1:]
	} else {
		b.WriteByte('=')
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case strings.HasPrefix(tok[i:], ArchivePlaceholder):
			b.WriteByte('@')
			i++
		case (c == '-' || c == '.') && b.Len() == 0:
			fmt.Fprintf(&b, "%%%02X", c)
		case option && 'A' <= c && c <= 'Z':
			b.WriteByte('^')
			b.WriteByte(c)
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '+', c == ',', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// ParseModes reads a modes file. Its syntax:
//
//   - Blank lines, and lines whose first non-blank character is "#", are
//     ignored.
//   - Every other line is "[archive-glob: ] option ...": the tokens are split
//     on white space, with no quoting ("'", "\"", "\\" and "`" are refused, as
//     is a token starting with "#"). If the first token ends with ":" and does
//     not start with "-", it is the archive glob (without the ":"), which may
//     list several patterns separated by commas: the line applies only to the
//     archives it matches (see Mode.Matches). "*:" alone means: no options.
//   - A line may not appear twice; two lines with the same glob may not give
//     the same slug, nor slugs equal but for case.
func ParseModes(r io.Reader) ([]Mode, error) {
	var modes []Mode
	sc := bufio.NewScanner(r)
	seen := map[string]int{}
	lineno := 0
	for sc.Scan() {
		lineno++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "'\"\\`"); i >= 0 {
			return nil, fmt.Errorf("line %d: %q: no quoting or escapes: arguments are split on white space", lineno, line)
		}
		toks := strings.Fields(line)
		var m Mode
		if first := toks[0]; strings.HasSuffix(first, ":") && !strings.HasPrefix(first, "-") {
			m.Glob = strings.TrimSuffix(first, ":")
			toks = toks[1:]
			if m.Glob == "" {
				return nil, fmt.Errorf("line %d: %q: empty archive glob", lineno, line)
			}
			for _, pat := range strings.Split(m.Glob, ",") {
				if pat == "" {
					return nil, fmt.Errorf("line %d: %q: empty pattern in archive glob", lineno, line)
				}
				if _, err := globRegexp(pat); err != nil {
					return nil, fmt.Errorf("line %d: %q: bad archive glob: %v", lineno, line, err)
				}
			}
		}
		for _, tok := range toks {
			if strings.HasPrefix(tok, "#") {
				return nil, fmt.Errorf("line %d: %q: comments must be on lines of their own", lineno, line)
			}
		}
		m.Args = toks
		if len(m.Args) == 0 && m.Glob == "" {
			return nil, fmt.Errorf("line %d: %q: no options", lineno, line)
		}
		key := m.Glob + "\x00" + strings.ToLower(m.Slug())
		if prev, ok := seen[key]; ok {
			return nil, fmt.Errorf("line %d: %q: same golden file name as line %d", lineno, line, prev)
		}
		seen[key] = lineno
		modes = append(modes, m)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return modes, nil
}

// ReadModes reads and parses the modes file at path (see ParseModes), failing
// the test on any error.
func ReadModes(t testing.TB, path string) []Mode {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	defer f.Close()
	modes, err := ParseModes(f)
	if err != nil {
		t.Fatalf("testenv: %s: %v", path, err)
	}
	return modes
}

// Case is one golden case: an archive and a mode that applies to it.
type Case struct {
	Archive string // relative to the archives directory, slash-separated
	Mode    Mode
}

// Slug is the case's golden file name stem.
func (c Case) Slug() string { return c.Mode.Slug() }

// Args are the tool's arguments for the case (Mode.ArgsFor).
func (c Case) Args() []string { return c.Mode.ArgsFor(c.Archive) }

// Name is a subtest name for the case: "<archive>/<slug>".
func (c Case) Name() string { return c.Archive + "/" + c.Slug() }

// Cases pairs every archive with every mode that matches it, archives in the
// given order, modes in file order. Two modes that match the same archive
// must not give the same slug (nor slugs equal but for case).
func Cases(archives []string, modes []Mode) ([]Case, error) {
	var cases []Case
	for _, a := range archives {
		seen := map[string]Mode{}
		for _, m := range modes {
			if !m.Matches(a) {
				continue
			}
			k := strings.ToLower(m.Slug())
			if prev, ok := seen[k]; ok {
				return nil, fmt.Errorf("archive %s: modes %q and %q give the same golden file name", a, prev, m)
			}
			seen[k] = m
			cases = append(cases, Case{Archive: a, Mode: m})
		}
	}
	return cases, nil
}

// GoldenCases lists the golden cases of tool: the archives in
// <repo>/testdata/archives crossed with the modes in
// <repo>/testdata/<tool>.modes.
func GoldenCases(t testing.TB, tool string) []Case {
	t.Helper()
	root := RepoRoot(t)
	archives := Archives(t, filepath.Join(root, "testdata", "archives"))
	modes := ReadModes(t, filepath.Join(root, "testdata", tool+".modes"))
	cases, err := Cases(archives, modes)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return cases
}

// Golden is what the real tool printed for one case.
type Golden struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// GoldenPath returns the path stem of the golden files of tool for c:
// <repo>/testdata/golden/<tool>/<archive>/<slug>; add ".out", ".err" or ".rc".
func GoldenPath(t testing.TB, tool string, c Case) string {
	t.Helper()
	return goldenPath(t, "golden", tool, c)
}

func goldenPath(t testing.TB, dir, tool string, c Case) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "testdata", dir, tool, filepath.FromSlash(c.Archive), c.Slug())
}

// ReadGolden reads the golden files of tool for c. The .rc file holds the exit
// code in decimal followed by a newline.
func ReadGolden(t testing.TB, tool string, c Case) Golden {
	t.Helper()
	return readGolden(t, GoldenPath(t, tool, c))
}

// ReadGolden638 reads the golden files of tool for c that the real PCP
// 6.3.8 printed (PCP638=1 scripts/make-goldens.sh TOOL), in
// testdata/golden638/TOOL.
func ReadGolden638(t testing.TB, tool string, c Case) Golden {
	t.Helper()
	return readGolden(t, goldenPath(t, "golden638", tool, c))
}

func readGolden(t testing.TB, stem string) Golden {
	t.Helper()
	var g Golden
	var err error
	if g.Stdout, err = os.ReadFile(stem + ".out"); err != nil {
		t.Fatalf("testenv: golden missing (run make goldens): %v", err)
	}
	if g.Stderr, err = os.ReadFile(stem + ".err"); err != nil {
		t.Fatalf("testenv: golden missing (run make goldens): %v", err)
	}
	rc, err := os.ReadFile(stem + ".rc")
	if err != nil {
		t.Fatalf("testenv: golden missing (run make goldens): %v", err)
	}
	if g.ExitCode, err = strconv.Atoi(strings.TrimSpace(string(rc))); err != nil {
		t.Fatalf("testenv: %s.rc: %v", stem, err)
	}
	return g
}

// ArchivesDir returns <repo>/testdata/archives, the working directory the
// goldens are made in.
func ArchivesDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "testdata", "archives")
}

// TestdataSet names testdata/archives among the sets of archives SetDir
// takes ("pcp-qa-archives", "pcp-made-archives", ... are the shared ones).
const TestdataSet = "testdata"

// SetDir is the directory of a set of archives: ArchivesDir for
// TestdataSet, else SharedDir(t, set) (skipping the test without it).
func SetDir(t testing.TB, set string) string {
	t.Helper()
	if set == TestdataSet {
		return ArchivesDir(t)
	}
	return SharedDir(t, set)
}

// CompareRun reports, as test errors, where pcpkit's run of tool differs
// from the real tool's: stdout and stderr diffed with go-cmp (-real
// +pcpkit), and the exit status. what names the run in the messages.
func CompareRun(t testing.TB, tool, what string, wantOut, wantErr string, wantRC int, gotOut, gotErr string, gotRC int) {
	t.Helper()
	gotOut, gotErr = AsReal(gotOut), AsReal(gotErr)
	if d := cmp.Diff(wantOut, gotOut); d != "" {
		t.Errorf("%s: stdout differs from the real %s (-real +pcpkit):\n%s", what, tool, d)
	}
	if d := cmp.Diff(wantErr, gotErr); d != "" {
		t.Errorf("%s: stderr differs from the real %s (-real +pcpkit):\n%s", what, tool, d)
	}
	if wantRC != gotRC {
		t.Errorf("%s: exit status %d, real %s %d", what, gotRC, tool, wantRC)
	}
}

// LineDiff shows the first line where two texts differ (the real tool's
// a, pcpkit's b), for outputs too long to show whole.
func LineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  real:   %q\n  pcpkit: %q", i+1, x, y)
		}
	}
	return "(same lines)"
}

// AsReal is a pcpkit tool's output without what pcpkit adds to the real
// tool's: the line --version prints after the real tool's
// (version.Strip), and the "pcpkit extensions" section --help prints
// after the usage message (cli.Tool.Extensions), which ends the output.
func AsReal(s string) string {
	if i := strings.Index(s, "\npcpkit extensions:\n"); i >= 0 {
		s = s[:i]
	}
	return version.Strip(s)
}

// BuildCommand builds pcpkit's cmd/<name> into dir and returns the
// binary's path, for tests that run the command as a process (kill
// tests, side-by-side recordings).
func BuildCommand(t testing.TB, name, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH to build cmd/%s with: skipping", name)
	}
	exe := filepath.Join(dir, name)
	cmd := exec.Command(goTool, "build", "-o", exe, "./cmd/"+name)
	cmd.Dir = RepoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, out)
	}
	return exe
}

// CheckGoldens runs pcpkit's tool (main, in-process, as RunMain runs it)
// on every golden case of tool, in the archives directory, and compares
// each run with the goldens, one subtest a case. It needs no PCP
// installation.
func CheckGoldens(t *testing.T, tool string, main Main) {
	t.Helper()
	CheckGoldensNormalized(t, tool, main, nil)
}

// CheckGoldensNormalized is CheckGoldens comparing the standard errors
// after norm (nil: as they are), for output that depends on the machine
// (pmlogcheck's files in directory order).
func CheckGoldensNormalized(t *testing.T, tool string, main Main, norm func(string) string) {
	t.Helper()
	if norm == nil {
		norm = func(s string) string { return s }
	}
	dir := ArchivesDir(t)
	cases := GoldenCases(t, tool)
	if len(cases) == 0 {
		t.Fatalf("no golden cases of %s found", tool)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			g := ReadGolden(t, tool, c)
			out, errs, rc := RunMain(t, main, dir, c.Args())
			CompareRun(t, tool, strings.Join(c.Args(), " "), string(g.Stdout), norm(string(g.Stderr)), g.ExitCode, out, norm(errs), rc)
		})
	}
}

// CheckGoldensMatchRealTool re-runs the real tool for every golden case of
// tool: the committed goldens must be what PCP 6.0.3 prints today.
func CheckGoldensMatchRealTool(t *testing.T, tool string) {
	t.Helper()
	CheckGoldensMatchRealToolNormalized(t, tool, nil)
}

// CheckGoldensMatchRealToolNormalized is CheckGoldensMatchRealTool
// comparing the standard errors after norm (nil: as they are).
func CheckGoldensMatchRealToolNormalized(t *testing.T, tool string, norm func(string) string) {
	t.Helper()
	if norm == nil {
		norm = func(s string) string { return s }
	}
	RealTool(t, tool)
	dir := ArchivesDir(t)
	for _, c := range GoldenCases(t, tool) {
		g := ReadGolden(t, tool, c)
		out, errs, rc := RunRealIn(t, dir, tool, c.Args()...)
		CompareRun(t, tool, "golden "+c.Name(), string(g.Stdout), norm(string(g.Stderr)), g.ExitCode, string(out), norm(string(errs)), rc)
	}
}

// Main is a pcpkit tool's entry point (pmdumplog.Main, pminfo.Main, ...).
type Main func(args []string, stdout, stderr io.Writer) int

// RunMain runs a tool's main in-process in dir ("" for the test's own
// directory), in the environment the real tools run in with env's changes
// (Setenv), and returns its standard output, standard error and exit
// status.
func RunMain(t *testing.T, main Main, dir string, args []string, env ...string) (stdout, stderr string, rc int) {
	t.Helper()
	Setenv(t, env...)
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	rc = main(args, &out, &errb)
	return out.String(), errb.String(), rc
}

// CompareMain runs the real tool and pcpkit's (main) with args in dir,
// in the same environment (RealEnv and Setenv with env), and reports any
// difference (CompareRun).
func CompareMain(t *testing.T, tool string, main Main, dir string, args []string, env ...string) {
	t.Helper()
	wout, werr, wrc := RunCommand(t, dir, RealEnv(env...), RealTool(t, tool), args...)
	out, errs, rc := RunMain(t, main, dir, args, env...)
	CompareRun(t, tool, tool+" "+strings.Join(args, " "), string(wout), string(werr), wrc, out, errs, rc)
}

// CompareCombined runs the real tool and pcpkit's (main) with args in
// dir, each with stdout and stderr on one stream (2>&1 into a pipe or a
// file), and reports a difference in what the stream got or in the exit
// status: how the real tool's stdio interleaves its buffered stdout with
// its stderr.
func CompareCombined(t *testing.T, tool string, main Main, dir string, args []string, env ...string) {
	t.Helper()
	cmd := exec.Command(RealTool(t, tool), args...)
	cmd.Dir, cmd.Env = dir, RealEnv(env...)
	var real bytes.Buffer
	cmd.Stdout, cmd.Stderr = &real, &real
	wrc := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: %v", tool, err)
		}
		wrc = ee.ExitCode()
	}
	Setenv(t, env...)
	if dir != "" {
		t.Chdir(dir)
	}
	var ours bytes.Buffer
	rc := main(args, &ours, &ours)
	if real.String() != ours.String() || rc != wrc {
		t.Errorf("%s %s 2>&1: exit status %d, real %d; output: %s", tool, strings.Join(args, " "), rc, wrc, LineDiff(real.String(), ours.String()))
	}
}

// FileNames lists the names of the entries of dir, sorted (none when it
// cannot be read): what a tool left in its output directory.
func FileNames(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

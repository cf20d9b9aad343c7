package pcpconf

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestGet(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "pcp.conf")
	if err := os.WriteFile(conf, []byte("# comment\nPCP_VAR_DIR=/x/var\nPCP_RUN_DIR=\"/x/run\"\nPCP_EMPTY=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PCP_CONF", conf)
	t.Setenv("PCP_VAR_DIR", "")
	t.Setenv("PCP_RUN_DIR", "")
	for _, c := range []struct{ name, def, want string }{
		{"PCP_VAR_DIR", "/d", "/x/var"},
		{"PCP_RUN_DIR", "/d", "/x/run"},
		{"PCP_EMPTY", "/d", "/d"},
		{"PCP_NOT_THERE", "/d", "/d"},
	} {
		if got := Get(c.name, c.def); got != c.want {
			t.Errorf("Get(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	t.Setenv("PCP_VAR_DIR", "/env/var")
	if got := VarDir(); got != "/env/var" {
		t.Errorf("VarDir with $PCP_VAR_DIR set = %q", got)
	}
	t.Setenv("PCP_CONF", filepath.Join(dir, "missing"))
	t.Setenv("PCP_VAR_DIR", "")
	if got := VarDir(); got != "/var/lib/pcp" {
		t.Errorf("VarDir without a conf file = %q", got)
	}
}

func TestVersion(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"6.0.3", "6.3.8", "6.3.2", "7.0.0"} {
		if err := os.WriteFile(filepath.Join(dir, v), []byte("PCP_VERSION="+v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c603, c638, c632, c70 := filepath.Join(dir, "6.0.3"), filepath.Join(dir, "6.3.8"), filepath.Join(dir, "6.3.2"), filepath.Join(dir, "7.0.0")
	none := filepath.Join(dir, "missing")
	t.Setenv("PCP_VERSION", "")
	for _, c := range []struct{ env, conf, want string }{
		{"", c603, Version603},
		{"", c638, Version638},
		{"", c632, Version638},
		{"", c70, Version603},
		{"", none, Version603},
		{"6.3.8", c603, Version638},
		{"6.3", none, Version638},
		{"6.0.3", c638, Version603},
		{"6.0.1", c638, Version603},
		{"6.3.8x", c603, Version603}, // not a release: the configuration decides
		{"7", c638, Version638},
		{"63", c603, Version603},
	} {
		t.Setenv(VersionEnv, c.env)
		t.Setenv("PCP_CONF", c.conf)
		if got := Version(); got != c.want {
			t.Errorf("%s=%q, pcp.conf %s: Version() = %q, want %q", VersionEnv, c.env, filepath.Base(c.conf), got, c.want)
		}
	}
}

// scannerValue is fileValue as a bufio.Scanner reads the file line by
// line: the reference for TestFileValueLines.
func scannerValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && k == key {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// TestFileValueLines checks fileValue against a bufio.Scanner's reading
// of the lines on files of keys, values, quotes, spaces, carriage
// returns, comments and overlong lines.
func TestFileValueLines(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		pieces := []string{"K", "PCP_X", "=", "\"", "'", " ", "\t", "\r", "\n", "#", "v", "/a/b"}
		var b strings.Builder
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 60).Draw(t, "pieces") {
			b.WriteString(p)
		}
		if rapid.Bool().Draw(t, "long line") {
			b.WriteString(strings.Repeat("x", rapid.IntRange(bufio.MaxScanTokenSize-2, bufio.MaxScanTokenSize+1).Draw(t, "long")))
			b.WriteString(rapid.SampledFrom([]string{"", "\n", "\nK=after\n"}).Draw(t, "after"))
		}
		path := filepath.Join(dir, "pcp.conf")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"K", "PCP_X", "", "#K"} {
			if got, want := fileValue(path, key), scannerValue(path, key); got != want {
				t.Fatalf("%q in %q: %q, want %q", key, b.String(), got, want)
			}
		}
	})
}

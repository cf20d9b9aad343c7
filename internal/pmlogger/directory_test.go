package pmlogger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpandDirectory: pmlogger 6.3.8's -d DIR as its do_dir makes it
// (the messages are the real tool's, TestInterop638Logger and the
// runs it was checked with): expanded by sh(1), a "/" after it, an
// absolute path whose missing directories are made.
func TestExpandDirectory(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	t.Setenv("PCPKIT_TEST_DIR", tmp)
	for _, c := range []struct {
		arg, want, log string
		ok             bool
	}{
		{"", "", "", true},
		{tmp + "/a/b", tmp + "/a/b/", "", true},
		{"$PCPKIT_TEST_DIR/c", tmp + "/c/", "", true},
		{tmp + "/d/", tmp + "/d//", "", true},
		{"sub", "", "pmlogger: expanded -d argument (sub/) must be an absolute path\ndo_dir(sub, ...): failed: Generic error, already reported above\n", false},
		{file + "/x", "", "do_dir(" + file + "/x, ...): mkdir(" + file + ", ...) failed: File exists\ndo_dir(" + file + "/x, ...): failed: File exists\n", false},
	} {
		var log strings.Builder
		got, ok := expandDirectory(c.arg, &log)
		if got != c.want || ok != c.ok || log.String() != c.log {
			t.Errorf("expandDirectory(%q) = %q %v, log %q; want %q %v, log %q", c.arg, got, ok, log.String(), c.want, c.ok, c.log)
		}
		if ok && got != "" {
			if st, err := os.Stat(got); err != nil || !st.IsDir() {
				t.Errorf("expandDirectory(%q): %s not made", c.arg, got)
			}
		}
	}
}

// TestArchiveVersionConf: the default archive version is
// PCP_ARCHIVE_VERSION from the environment, else from pcp.conf (as
// pmGetOptionalConfig reads it: PCP 6.3.8's pcp.conf says 3, 6.0.3's 2),
// else 2.
func TestArchiveVersionConf(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "pcp.conf")
	if err := os.WriteFile(conf, []byte("PCP_ARCHIVE_VERSION=3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		conf, env string
		want      int
	}{
		{conf, "", 3},
		{conf, "2", 2},
		{"/nonexistent", "", 2},
		{"/nonexistent", "3", 3},
	} {
		t.Setenv("PCP_CONF", c.conf)
		t.Setenv("PCP_ARCHIVE_VERSION", c.env)
		var o cliOptions
		var errs, pending strings.Builder
		o.parse([]string{"a"}, &errs, &pending)
		if o.version != c.want {
			t.Errorf("PCP_CONF=%s PCP_ARCHIVE_VERSION=%q: version %d, want %d", c.conf, c.env, o.version, c.want)
		}
	}
}

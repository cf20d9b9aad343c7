package pcpconf

import (
	"os"
	"path/filepath"
	"testing"
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

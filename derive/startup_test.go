package derive

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProcessDialect: the tools' language follows the PCP version pcpkit
// behaves as ($PCPKIT_PCP_VERSION, else pcp.conf's PCP_VERSION).
func TestProcessDialect(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "pcp.conf")
	if err := os.WriteFile(conf, []byte("PCP_VERSION=6.3.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PCP_VERSION", "")
	t.Setenv("PCP_DERIVED_CONFIG", "")
	for _, c := range []struct {
		env, conf string
		want      Dialect
	}{
		{"", filepath.Join(dir, "missing"), Dialect603},
		{"", conf, DialectCurrent},
		{"6.0.3", conf, Dialect603},
		{"6.3.8", filepath.Join(dir, "missing"), DialectCurrent},
	} {
		t.Setenv("PCPKIT_PCP_VERSION", c.env)
		t.Setenv("PCP_CONF", c.conf)
		if got := ProcessDialect(); got != c.want {
			t.Errorf("PCPKIT_PCP_VERSION=%q, conf %s: ProcessDialect() = %v, want %v", c.env, c.conf, got, c.want)
		}
		if got := NewProcessRegistry(nil).Dialect(); got != c.want {
			t.Errorf("PCPKIT_PCP_VERSION=%q: NewProcessRegistry's dialect = %v, want %v", c.env, got, c.want)
		}
	}
}

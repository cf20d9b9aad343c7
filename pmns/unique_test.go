package pmns

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// uniqueCases are PMNS files for LoadUnique (-N) and what PCP 6.0.3's
// pminfo -N FILE -m printed before its "Cannot load namespace" line
// ("" when it loaded the file).
var uniqueCases = []struct {
	name, pmns, messages string
}{
	{"dup", "root {\n foo\n other 245:0:2\n}\nfoo {\n bar 245:0:1\n baz 245:0:1\n}\n",
		"Error Parsing ASCII PMNS: Duplicate metric id (245.0.1) in name space for metrics \"foo.baz\" and \"foo.bar\"\n\n"},
	{"dup-across", "root {\n a 245:0:1\n foo\n}\nfoo {\n bar 245:0:2\n baz 245:0:1\n}\n",
		"Error Parsing ASCII PMNS: Duplicate metric id (245.0.1) in name space for metrics \"foo.baz\" and \"a\"\n\n"},
	{"unique", "root {\n foo\n other 245:0:2\n}\nfoo {\n bar 245:0:1\n baz 245:0:3\n}\n", ""},
	{"dynamic", "root {\n a 30:*:*\n b 30:*:*\n c 245:0:1\n}\n", ""},
}

func TestLoadUnique(t *testing.T) {
	dir := t.TempDir()
	for _, c := range uniqueCases {
		path := filepath.Join(dir, c.name+".pmns")
		if err := os.WriteFile(path, []byte(c.pmns), 0o644); err != nil {
			t.Fatal(err)
		}
		ns, err := LoadUnique(path)
		if c.messages == "" {
			if err != nil {
				t.Errorf("%s: LoadUnique: %v", c.name, err)
			}
			if ns == nil {
				t.Errorf("%s: no namespace", c.name)
			}
		} else {
			var le *LoadError
			if !errors.As(err, &le) || le.Messages != c.messages || le.Reason != ReasonPMNS {
				t.Errorf("%s: LoadUnique error %#v, want messages %q", c.name, err, c.messages)
			}
		}
		// -n accepts them all.
		if _, err := Load(path); err != nil {
			t.Errorf("%s: Load: %v", c.name, err)
		}
	}
}

// TestInteropLoadUnique checks uniqueCases against the real pminfo -N.
func TestInteropLoadUnique(t *testing.T) {
	pminfo := testenv.RealTool(t, "pminfo")
	dir := t.TempDir()
	for _, c := range uniqueCases {
		path := filepath.Join(dir, c.name+".pmns")
		if err := os.WriteFile(path, []byte(c.pmns), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, rc := testenv.RunCommand(t, "", testenv.RealEnv(), pminfo, "-N", path, "-m")
		got, _, _ := strings.Cut(string(stderr), "pminfo: Cannot load namespace")
		if got != c.messages || (c.messages == "") != (rc == 0) {
			t.Errorf("%s: real pminfo -N: rc %d, stderr %q; want messages %q", c.name, rc, stderr, c.messages)
		}
	}
}

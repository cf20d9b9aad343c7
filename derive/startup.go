package derive

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// StartupSpec is what libpcp loads when a process first uses derived
// metrics (__dminit): $PCP_DERIVED_CONFIG when it is set (empty: nothing),
// else $PCP_VAR_DIR/config/derived.
func StartupSpec() string {
	if v, ok := os.LookupEnv("PCP_DERIVED_CONFIG"); ok {
		return v
	}
	return filepath.Join(varDir(), "config", "derived")
}

// NewProcessRegistry is the derived metric state of a process as libpcp
// sets it up the first time it is needed (at pmLoadDerivedConfig or at the
// first pmNewContext): the 6.0.3 language, event.flags and event.missed,
// then the definitions of StartupSpec, whose errors are written to w.
func NewProcessRegistry(w io.Writer) *Registry {
	r := NewRegistry(Dialect603)
	r.RegisterEventMetrics()
	r.LoadEnvConfig(StartupSpec(), w)
	return r
}

// varDir is $PCP_VAR_DIR: from the environment, else from pcp.conf
// ($PCP_CONF or /etc/pcp.conf), else /var/lib/pcp.
func varDir() string {
	if v := os.Getenv("PCP_VAR_DIR"); v != "" {
		return v
	}
	conf := os.Getenv("PCP_CONF")
	if conf == "" {
		conf = "/etc/pcp.conf"
	}
	if f, err := os.Open(conf); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "PCP_VAR_DIR="); ok && v != "" {
				return v
			}
		}
	}
	return "/var/lib/pcp"
}

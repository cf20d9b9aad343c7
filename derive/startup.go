package derive

import (
	"io"
	"os"
	"path/filepath"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
)

// StartupSpec is what libpcp loads when a process first uses derived
// metrics (__dminit): $PCP_DERIVED_CONFIG when it is set (empty: nothing),
// else $PCP_VAR_DIR/config/derived.
func StartupSpec() string {
	if v, ok := os.LookupEnv("PCP_DERIVED_CONFIG"); ok {
		return v
	}
	return filepath.Join(pcpconf.VarDir(), "config", "derived")
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

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

// ProcessDialect is the derived metric language of pcpkit's tools: that
// of the PCP version they behave as (pcpconf.Version: $PCPKIT_PCP_VERSION,
// else the host's pcp.conf), DialectCurrent for PCP 6.3.8, else
// Dialect603. Every tool that takes derived metrics uses it (through
// NewProcessRegistry).
func ProcessDialect() Dialect {
	if pcpconf.Version() == pcpconf.Version638 {
		return DialectCurrent
	}
	return Dialect603
}

// NewProcessRegistry is the derived metric state of a process as libpcp
// sets it up the first time it is needed (at pmLoadDerivedConfig or at the
// first pmNewContext): the language of ProcessDialect, event.flags and
// event.missed, then the definitions of StartupSpec, whose errors are
// written to w.
func NewProcessRegistry(w io.Writer) *Registry {
	return NewSpecRegistry(StartupSpec(), w)
}

// NewSpecRegistry is NewProcessRegistry with spec in place of
// StartupSpec's ($PCP_DERIVED_CONFIG's syntax: "" loads nothing).
func NewSpecRegistry(spec string, w io.Writer) *Registry {
	r := NewRegistry(ProcessDialect())
	r.RegisterEventMetrics()
	r.LoadEnvConfig(spec, w)
	return r
}

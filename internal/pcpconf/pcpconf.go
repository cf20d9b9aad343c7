// Package pcpconf reads PCP's configuration variables as libpcp's
// pmGetConfig does: from the environment, else from the PCP
// configuration file ($PCP_CONF, default /etc/pcp.conf), else a default.
package pcpconf

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"sync"
)

// Get returns the variable name (such as "PCP_VAR_DIR"): from the
// environment when set and not empty, else from the configuration file,
// else def.
func Get(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	if v := fileValue(ConfPath(), name); v != "" {
		return v
	}
	return def
}

// ConfPath is the PCP configuration file: $PCP_CONF, else /etc/pcp.conf.
func ConfPath() string {
	if conf := os.Getenv("PCP_CONF"); conf != "" {
		return conf
	}
	return "/etc/pcp.conf"
}

// Installed reports whether PCP is installed: its configuration file
// (ConfPath) is there.
func Installed() bool {
	_, err := os.Stat(ConfPath())
	return err == nil
}

// fileValue is the value of key in a pcp.conf-style file of KEY=value
// lines (quotes around the value dropped), or "". The file is read in
// one piece and its lines compared in place: a string per line cost
// pminfo 1-2% of its run. A line of bufio.MaxScanTokenSize bytes or more
// ends the search, as it ends a bufio.Scanner's.
func fileValue(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) >= bufio.MaxScanTokenSize {
			return ""
		}
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte("="))
		if ok && string(k) == key {
			return strings.Trim(string(v), `"'`)
		}
	}
	return ""
}

// VarDir is $PCP_VAR_DIR, /var/lib/pcp by default.
func VarDir() string { return Get("PCP_VAR_DIR", "/var/lib/pcp") }

// The PCP versions pcpkit's tools can behave as.
const (
	Version603 = "6.0.3"
	Version638 = "6.3.8"
)

// VersionEnv is the environment variable that chooses the PCP version
// pcpkit's tools behave as (see Version).
const VersionEnv = "PCPKIT_PCP_VERSION"

// Version is the PCP version pcpkit's tools behave as where versions
// differ (so far: the derived metric language, package derive), so that a
// pcpkit tool behaves as the PCP it replaces:
//
//   - $PCPKIT_PCP_VERSION when it names a 6.0 or a 6.3 release ("6.0.3",
//     "6.3.8", "6.3"): Version603 or Version638;
//   - else the PCP_VERSION of the PCP configuration (see Get): Version638
//     when it is a 6.3 release;
//   - else Version603.
//
// Any other value of $PCPKIT_PCP_VERSION is ignored.
func Version() string {
	if v, ok := releaseOf(os.Getenv(VersionEnv)); ok {
		return v
	}
	conf := os.Getenv("PCP_VERSION")
	if conf == "" {
		conf = confVersion(ConfPath())
	}
	if v, ok := releaseOf(conf); ok && v == Version638 {
		return v
	}
	return Version603
}

// confVersions caches the PCP_VERSION of each configuration file read:
// Version is asked for on every error text (pmapi.ErrStr), and the file
// does not change while a tool runs.
var confVersions sync.Map // path -> string

// confVersion is the PCP_VERSION of the configuration file at path ("" for
// none), read once per path.
func confVersion(path string) string {
	if v, ok := confVersions.Load(path); ok {
		return v.(string)
	}
	v := fileValue(path, "PCP_VERSION")
	confVersions.Store(path, v)
	return v
}

// Release maps a version string to the version pcpkit behaves as (see
// releaseOf): "6.0", "6.0.N" to Version603, "6.3", "6.3.N" to
// Version638; false for anything else.
func Release(v string) (string, bool) { return releaseOf(v) }

// releaseOf maps a version string to the version pcpkit behaves as: 6.0
// releases ("6.0", "6.0.N") to Version603, 6.3 releases to Version638.
func releaseOf(v string) (string, bool) {
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "6" {
		return "", false
	}
	if len(parts) == 3 && (parts[2] == "" || strings.Trim(parts[2], "0123456789") != "") {
		return "", false
	}
	switch parts[1] {
	case "0":
		return Version603, true
	case "3":
		return Version638, true
	}
	return "", false
}

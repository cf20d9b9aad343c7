// Package pcpconf reads PCP's configuration variables as libpcp's
// pmGetConfig does: from the environment, else from the PCP
// configuration file ($PCP_CONF, default /etc/pcp.conf), else a default.
package pcpconf

import (
	"bufio"
	"os"
	"strings"
)

// Get returns the variable name (such as "PCP_VAR_DIR"): from the
// environment when set and not empty, else from the configuration file,
// else def.
func Get(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	conf := os.Getenv("PCP_CONF")
	if conf == "" {
		conf = "/etc/pcp.conf"
	}
	if v := fileValue(conf, name); v != "" {
		return v
	}
	return def
}

// fileValue is the value of key in a pcp.conf-style file of KEY=value
// lines (quotes around the value dropped), or "".
func fileValue(path, key string) string {
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

// VarDir is $PCP_VAR_DIR, /var/lib/pcp by default.
func VarDir() string { return Get("PCP_VAR_DIR", "/var/lib/pcp") }

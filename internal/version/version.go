// Package version says which pcpkit build is running: the version and
// commit `make build` stamps in with -ldflags, or, for a binary built by
// `go install` or `go build`, what the Go toolchain recorded of the
// module and its checkout.
package version

import (
	"runtime/debug"
	"strings"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
)

// Set by `make build`:
//
//	-ldflags "-X github.com/pcpkit/pcpkit/internal/version.version=V
//	          -X github.com/pcpkit/pcpkit/internal/version.commit=C"
var (
	version string
	commit  string
)

// PCP is the PCP release whose tools pcpkit's tools reproduce: what their
// --version reports first.
const PCP = "6.0.3"

// Info returns pcpkit's version and commit. Without a stamp they come from
// the build information: the module version (a tag or pseudo-version for
// `go install ...@latest`, "(devel)" in a checkout) and the VCS revision,
// "+dirty" appended when the checkout had changes. Either is "unknown"
// when nothing says.
func Info() (ver, rev string) {
	ver, rev = version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if ver == "" {
			ver = bi.Main.Version
		}
		if rev == "" {
			dirty := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if rev != "" && dirty {
				rev += "+dirty"
			}
		}
	}
	if ver == "" {
		ver = "unknown"
	}
	if rev == "" {
		rev = pseudoRevision(ver)
	}
	if rev == "" {
		rev = "unknown"
	}
	return ver, rev
}

// Line is the line every tool's --version prints after the real tool's
// own: "pcpkit VERSION (commit REVISION)".
func Line() string {
	ver, rev := Info()
	return "pcpkit " + ver + " (commit " + rev + ")"
}

// Banner is a tool's whole --version message: the real PCP tool's line
// for the PCP version pcpkit behaves as ("pmdumplog version 6.0.3", or
// 6.3.8 under PCPKIT_PCP_VERSION=6.3.8: pcpconf.Version), then Line, each
// ending in a newline.
func Banner(tool string) string {
	var b strings.Builder
	b.WriteString(tool)
	b.WriteString(" version ")
	b.WriteString(pcpconf.Version())
	b.WriteString("\n")
	b.WriteString(Line())
	b.WriteString("\n")
	return b.String()
}

// Strip returns s without the lines Line makes ("pcpkit V (commit C)",
// whichever build printed them): a tool's output as the real tool's
// would be, for the tests that compare the two.
func Strip(s string) string {
	if !strings.Contains(s, "pcpkit ") {
		return s
	}
	var b strings.Builder
	for rest := s; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if !isLine(strings.TrimSuffix(line, "\n")) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// isLine reports whether s has Line's form.
func isLine(s string) bool {
	f := strings.Fields(s)
	return len(f) == 4 && f[0] == "pcpkit" && f[2] == "(commit" &&
		strings.HasSuffix(f[3], ")") && strings.Join(f, " ") == s
}

// pseudoRevision is the commit a pseudo-version names
// ("v0.0.0-20261126093000-0123456789ab": what `go install ...@latest`
// records of an untagged module), or "".
func pseudoRevision(ver string) string {
	ver = strings.TrimSuffix(ver, "+incompatible")
	i := strings.LastIndexByte(ver, '-')
	if i < 15 || len(ver)-i-1 != 12 {
		return ""
	}
	stamp, hash := ver[i-14:i], ver[i+1:]
	if ver[i-15] != '-' && ver[i-15] != '.' {
		return ""
	}
	if strings.Trim(stamp, "0123456789") != "" || strings.Trim(hash, "0123456789abcdef") != "" {
		return ""
	}
	return hash
}

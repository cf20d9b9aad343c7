package pmctx

import (
	"os"
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/local"
	"github.com/pcpkit/pcpkit/pmapi"
)

// LocalTable is libpcp's table of the DSO PMDAs a local context loads,
// as -K changes it (pmSpecLocalPMDA), with libpcp's messages for bad -K
// arguments. A local context (package local) runs the daemon of each.
type LocalTable struct {
	built bool
	dsos  []localDSO
}

type localDSO struct {
	domain int
	path   string
	init   string
}

// Spec applies one -K argument ("add,DOMAIN,PATH,INIT", "del,DOMAIN",
// "del,,PATH", "clear") and returns libpcp's complaint, or "".
func (t *LocalTable) Spec(spec string) string {
	var del bool
	var rest string
	switch {
	case strings.HasPrefix(spec, "add"):
		rest = spec[3:]
	case strings.HasPrefix(spec, "del"):
		del, rest = true, spec[3:]
	case strings.HasPrefix(spec, "clear"):
		if spec != "clear" {
			return "unexpected text after clear op in spec"
		}
		t.built, t.dsos = true, nil
		return ""
	default:
		return "bad op in spec"
	}
	if rest == "" || rest[0] != ',' {
		return "expected , after op in spec"
	}
	rest = rest[1:]
	domain := -1
	switch {
	case rest == "":
		return "missing domain in spec"
	case rest[0] != ',':
		n, end := cnum.Strtol(rest)
		n = int64(int32(n)) // (int)strtol
		if end < len(rest) && rest[end] != ',' || n < 0 || n > 510 {
			return "bad domain in spec"
		}
		domain = int(n)
		rest = rest[end:]
		if rest != "" {
			rest = rest[1:]
		}
	default:
		if !del {
			return "missing domain in spec"
		}
		rest = rest[1:]
	}
	path, init, hasPath := "", "", false
	switch {
	case rest != "" && rest[0] == ',':
		// no path (an init routine may follow)
	case rest != "":
		p, in, comma := strings.Cut(rest, ",")
		if (!comma || in == "") && !del {
			return "missing init-routine in spec"
		}
		path, init, hasPath = p, in, true
	default:
		if !del {
			return "missing dso-path in spec"
		}
	}
	if domain == -1 && !hasPath {
		return "missing domain and dso-path in spec"
	}
	t.build()
	if !del {
		t.dsos = append(t.dsos, localDSO{domain: domain, path: path, init: init})
		return ""
	}
	found := false
	for i := range t.dsos {
		if domain != -1 && t.dsos[i].domain == domain || hasPath && t.dsos[i].path == path {
			t.dsos[i].domain = -1
			found = true
		}
	}
	if !found {
		return "__pmLocalPMDA: " + pmapi.ErrInDom.Error()
	}
	return ""
}

// build fills the table the first time it is changed, as libpcp's
// build_dsotab does: every "dso" line of pmcd's configuration file but
// pmcd's own, and the linux PMDA's DSO whatever its line says.
func (t *LocalTable) build() {
	if t.built {
		return
	}
	t.built = true
	pmdas := pcpconf.Get("PCP_PMDAS_DIR", "/var/lib/pcp/pmdas")
	conf := pcpconf.Get("PCP_PMCDCONF_PATH", "/etc/pcp/pmcd/pmcd.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "pmcd"):
			continue
		case strings.HasPrefix(line, "linux"):
			t.dsos = append(t.dsos, localDSO{domain: 60, path: pmdas + "/linux/pmda_linux.so", init: "linux_init"})
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[2], "dso") {
			continue
		}
		n, _ := cnum.Strtol(f[1])
		t.dsos = append(t.dsos, localDSO{domain: int(n), path: f[4], init: f[3]})
	}
}

// PMDAs is the table a local context loads (built from pmcd.conf if -K
// did not build it): each domain's first entry, deleted ones left out.
func (t *LocalTable) PMDAs() []local.PMDA {
	t.build()
	var out []local.PMDA
	seen := map[int]bool{}
	for _, d := range t.dsos {
		if d.domain < 0 || seen[d.domain] {
			continue
		}
		seen[d.domain] = true
		out = append(out, local.PMDA{Domain: d.domain, Path: d.path, Init: d.init})
	}
	return out
}

// Package pmrepconf reads metric specifications and configuration files
// as PCP 6.0.3's pmrep (its pcp/pmconfig.py) does: the compact form of a
// metricspec ("metric,label,instances,unit/scale,type,width,precision,
// limit", pmrep(1)), and pmrep.conf(5) files (Python configparser's
// syntax) with their [options] section, their [global] metrics and their
// metricsets, named ":name" on the command line, of compact and verbose
// metricspecs.
package pmrepconf

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pcpkit/pcpkit/internal/sampler"
)

// fields are the verbose form's specifiers, in the compact form's order
// (pmconfig's metricspec).
var fields = []string{"label", "instances", "unit", "type", "width", "precision", "limit", "formula"}

// Config is the content of the configuration files of one path.
type Config struct {
	files []*iniFile
}

// Load reads the configuration of path: the file, or the files of the
// directory whose names end in ".conf", in name order. Its errors are
// pmrep's messages (ending in a newline).
func Load(path string) (*Config, error) {
	st, err := os.Stat(path)
	if err != nil {
		what := "No such file or directory"
		if !os.IsNotExist(err) {
			what = "Permission denied"
		}
		return nil, fmt.Errorf("Failed to read configuration from '%s':\n%s.\n", path, what)
	}
	names := []string{path}
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("Failed to read configuration from '%s':\nPermission denied.\n", path)
		}
		names = nil
		for _, e := range ents {
			fn := filepath.Join(path, e.Name())
			if strings.HasSuffix(fn, ".conf") {
				if st, err := os.Stat(fn); err == nil && st.Mode().IsRegular() {
					names = append(names, fn)
				}
			}
		}
	}
	c := &Config{}
	for _, fn := range names {
		f, err := readINI(fn)
		if err != nil {
			return nil, fmt.Errorf("Failed to read configuration file '%s', %v\n", fn, err)
		}
		c.files = append(c.files, f)
	}
	return c, nil
}

// DefaultPath is the first of paths (with $HOME and $PCP_SYSCONF_DIR
// replaced, sysconf the latter) that is a readable file or directory, ""
// when none is.
func DefaultPath(paths []string, sysconf string) string {
	home, _ := os.UserHomeDir()
	for _, p := range paths {
		p = strings.NewReplacer("$HOME", home, "$PCP_SYSCONF_DIR", sysconf).Replace(p)
		if f, err := os.Open(p); err == nil {
			f.Close()
			return p
		}
	}
	return ""
}

// Option is a key of an [options] section (or of a metricset) and its
// value.
type Option struct{ Key, Value string }

// Options are the option keys of the files, in pmrep's order: for each
// file, the [options] section so far (the files' sections merge), then
// those of the metricsets named in args (":name"), for each key that
// known reports as an option. A key of [options] that is not known, or a
// known key without a value, is pmrep's error.
func (c *Config) Options(args []string, known func(string) bool) ([]Option, error) {
	var out []Option
	merged := map[string]*section{}
	var order []string
	for _, f := range c.files {
		for _, s := range f.sections {
			m := merged[s.name]
			if m == nil {
				m = &section{name: s.name, values: map[string]string{}}
				merged[s.name] = m
				order = append(order, s.name)
			}
			for _, k := range s.keys {
				m.set(k, s.values[k])
			}
		}
		apply := func(name string) error {
			s := merged[name]
			if s == nil {
				return nil
			}
			for _, k := range s.keys {
				v, err := interpolate(s.values[k])
				if err != nil {
					return err
				}
				switch {
				case known(k) && v == "":
					return fmt.Errorf("No value set for option %s in [%s]", k, name)
				case known(k):
					out = append(out, Option{k, v})
				case name == "options":
					return fmt.Errorf("Unknown option %s in [%s]", k, name)
				}
			}
			return nil
		}
		if err := apply("options"); err != nil {
			return nil, fmt.Errorf("Failed to read configuration file '%s':\n%v.\n", f.path, err)
		}
		for _, a := range args {
			if name, ok := strings.CutPrefix(a, ":"); ok && slices.Contains(order, name) {
				if err := apply(name); err != nil {
					return nil, fmt.Errorf("Failed to read configuration file '%s':\n%v.\n", f.path, err)
				}
			}
		}
	}
	return out, nil
}

// Metrics are the metrics of the command line's metricspecs args, as
// pmrep resolves them: the [global] metrics of the files first, then
// each metricspec's, in order (a name given twice keeps its first place
// and its last settings), a metricset (":name", the last file's section
// of that name, the keys that are options, option(key), left out)
// bringing where it is first named the metrics of every metricset named
// (pmrep gathers them into one list); their settings by name; and the
// derived metrics their formulas define (pmrep's -e list,
// ";name=expression...").
func (c *Config) Metrics(args []string, option func(string) bool) (names []string, specs map[string]*sampler.Spec, derived string, err error) {
	var out metricList
	// [global], the files' merged; each metricset, the last file's
	global := section{values: map[string]string{}}
	globalFile := ""
	sets := map[string]*section{}
	for _, f := range c.files {
		for _, s := range f.sections {
			sets[s.name] = s
			if s.name == "global" {
				for _, k := range s.keys {
					global.set(k, s.values[k])
				}
				globalFile = f.path
			}
		}
	}
	fail := func(file string, err error) ([]string, map[string]*sampler.Spec, string, error) {
		return nil, nil, "", fmt.Errorf("Failed to read configuration file '%s':\n%v.\n", file, err)
	}
	for _, k := range global.keys {
		v, err := interpolate(global.values[k])
		switch {
		case err != nil:
		case option(k):
			err = fmt.Errorf("Section [global] contains options")
		case v == "":
			err = fmt.Errorf("No value set for %s in [global]", k)
		default:
			err = out.parse(k, v, &derived)
		}
		if err != nil {
			return fail(globalFile, err)
		}
	}
	// the command line's entries, by key (a metricset's without ':')
	type entry struct {
		key  string
		set  bool
		spec *sampler.Spec
	}
	var cmdl []entry
	for _, a := range args {
		e := entry{}
		if name, ok := strings.CutPrefix(a, ":"); ok {
			e.key, e.set = name, true
		} else {
			e.key, e.spec = Compact(a)
		}
		if i := slices.IndexFunc(cmdl, func(x entry) bool { return x.key == e.key }); i >= 0 {
			cmdl[i] = e
		} else {
			cmdl = append(cmdl, e)
		}
	}
	var confmet metricList
	found := map[string]bool{}
	for _, e := range cmdl {
		s := sets[e.key]
		if !e.set || s == nil {
			continue
		}
		found[e.key] = true
		var pm metricList
		for _, k := range s.keys {
			v, err := interpolate(s.values[k])
			switch {
			case err != nil:
			case v == "":
				err = fmt.Errorf("No value set for %s in [%s]", k, e.key)
			case option(k):
				continue
			default:
				err = pm.parse(k, v, &derived)
			}
			if err != nil {
				return fail(c.fileOf(e.key), err)
			}
		}
		for _, m := range pm {
			confmet.set(m.name, m.spec)
		}
	}
	for _, e := range cmdl {
		if e.set && !found[e.key] {
			return nil, nil, "", fmt.Errorf("Metricset definition ':%s' not found.\n", e.key)
		}
	}
	for _, e := range cmdl {
		if !e.set {
			out.set(e.key, e.spec)
			continue
		}
		for _, m := range confmet {
			out.set(m.name, m.spec)
		}
	}
	specs = map[string]*sampler.Spec{}
	for _, m := range out {
		names = append(names, m.name)
		specs[m.name] = m.spec
	}
	return names, specs, derived, nil
}

// fileOf is the last file with a section name.
func (c *Config) fileOf(name string) string {
	path := ""
	for _, f := range c.files {
		for _, s := range f.sections {
			if s.name == name {
				path = f.path
			}
		}
	}
	return path
}

// metric is a metric of a section: its name and settings.
type metric struct {
	key, name string
	spec      *sampler.Spec
}

type metricList []metric

func (l *metricList) set(name string, sp *sampler.Spec) {
	for i := range *l {
		if (*l)[i].name == name {
			(*l)[i].spec = sp
			return
		}
	}
	*l = append(*l, metric{key: name, name: name, spec: sp})
}

// parse adds the section key k with value v as pmconfig's
// parse_metric_info does: a compact metricspec (the key a metric's name),
// or a verbose one (an identifier whose value is the metric, then
// "identifier.specifier" keys); a formula is added to derived.
func (l *metricList) parse(k, v string, derived *string) error {
	second := ""
	if parts := strings.Split(k, "."); len(parts) > 1 {
		second = parts[1]
	}
	isField := slices.Contains(fields, second)
	compact := strings.Contains(v, ",") || strings.Contains(k, ".") && !isField
	if strings.Contains(v, ",") && second == "formula" {
		compact = false
	}
	switch {
	case compact:
		name, sp := Compact(k + "," + v)
		l.setKey(k, name, sp)
	case !strings.Contains(k, ".") || !isField:
		l.setKey(k, v, &sampler.Spec{})
	default:
		id, spec, ok := strings.Cut(k, ".")
		if !ok || strings.Contains(spec, ".") {
			return fmt.Errorf("too many values to unpack (expected 2)")
		}
		i := slices.IndexFunc(*l, func(m metric) bool { return m.key == id })
		if i < 0 {
			return fmt.Errorf("Undeclared metric key %s", id)
		}
		m := &(*l)[i]
		if len(v) >= 2 && strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) {
			v = v[1 : len(v)-1]
		} else if v == `"` {
			v = ""
		}
		switch spec {
		case "formula":
			*derived += ";" + m.name + "=" + v
		case "label":
			m.spec.Label = v
		case "instances":
			m.spec.Instances = []string{v}
		case "unit":
			m.spec.Unit = v
		case "type":
			m.spec.Type = v
		case "width":
			m.spec.Width = v
		case "precision":
			m.spec.Precision = v
		case "limit":
			m.spec.Limit = v
		}
	}
	return nil
}

// setKey sets the metric of key k (pmrep's dictionary is by key).
func (l *metricList) setKey(k, name string, sp *sampler.Spec) {
	for i := range *l {
		if (*l)[i].key == k {
			(*l)[i].name, (*l)[i].spec = name, sp
			return
		}
	}
	*l = append(*l, metric{key: k, name: name, spec: sp})
}

// Compact parses a metricspec of the compact form as pmconfig's
// parse_metric_spec_instances does: the metric's name and its settings
// (nil when it has none).
func Compact(spec string) (string, *sampler.Spec) {
	if !strings.Contains(spec, ",") {
		return spec, nil
	}
	var insts []string
	if strings.Count(spec, ",") >= 2 {
		s := strings.Split(spec, ",")[2]
		quoted := len(s) > 2 && (s[0] == '\'' || s[0] == '"')
		if strings.ContainsAny(spec, `"'`) {
			_, rest, _ := strings.Cut(spec, ",")
			_, inststr, _ := strings.Cut(rest, ",")
			if inststr != "" {
				inststr = inststr[:strings.LastIndexByte(inststr, inststr[0])+1]
				if quoted && len(inststr) >= 2 {
					insts = sampler.SplitInstances(inststr[1 : len(inststr)-1])
				} else {
					insts = sampler.SplitInstances(inststr)
				}
				spec = strings.Replace(spec, inststr, "", -1)
			}
		} else if s != "" {
			insts = []string{s}
		}
	}
	f := strings.Split(spec, ",")
	at := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	return f[0], &sampler.Spec{Label: at(1), Instances: insts, Unit: at(3), Type: at(4), Width: at(5), Precision: at(6), Limit: at(7)}
}

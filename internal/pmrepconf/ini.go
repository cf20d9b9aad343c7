package pmrepconf

import (
	"fmt"
	"os"
	"strings"
)

// section is one section of the configuration files: its keys in the
// order they first appear, and their values.
type section struct {
	name   string
	keys   []string
	values map[string]string
}

func (s *section) set(key, value string) {
	if _, ok := s.values[key]; !ok {
		s.keys = append(s.keys, key)
	}
	s.values[key] = value
}

// iniFile is what Python's configparser.ConfigParser (its defaults, keys
// kept as written) reads of one file: sections of "key = value" or
// "key: value" lines, values continued on more indented lines, comment
// lines starting with '#' or ';'.
type iniFile struct {
	path     string
	sections []*section
}

// readINI reads the file path as configparser does. Its errors are
// pmrep's message without the "Failed to read configuration file"
// line: the line number, then configparser's text.
func readINI(path string) (*iniFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &iniFile{path: path}
	byName := map[string]*section{}
	var cur *section
	var opt string             // the option a continuation line continues
	var lines []string         // its value's lines
	indent := 1 << 30          // the option line's indentation
	added := map[string]bool{} // sections and "section\x00key" of this file
	flush := func() {
		if cur != nil && opt != "" {
			cur.set(opt, strings.TrimRight(strings.Join(lines, "\n"), " \t\n\r\f\v"))
		}
		opt, lines = "", nil
	}
	for n, line := range strings.Split(string(data), "\n") {
		lineno := n + 1
		line = strings.TrimSuffix(line, "\r")
		value := strings.TrimSpace(line)
		if value == "" {
			if opt != "" {
				lines = append(lines, "") // a value may hold empty lines
			}
			continue
		}
		if value[0] == '#' || value[0] == ';' {
			continue // a comment line, even inside a value
		}
		lead := len(line) - len(strings.TrimLeft(line, " \t\f\v"))
		if opt != "" && lead > indent {
			lines = append(lines, value)
			continue
		}
		flush()
		indent = lead
		if value[0] == '[' {
			if end := strings.LastIndexByte(value, ']'); end > 1 {
				name := value[1:end]
				if added[name] {
					return nil, fmt.Errorf("line %d:\nWhile reading from '%s' [line %2d]: section '%s' already exists", lineno, path, lineno, name)
				}
				added[name] = true
				cur = byName[name]
				if cur == nil {
					cur = &section{name: name, values: map[string]string{}}
					byName[name] = cur
					f.sections = append(f.sections, cur)
				}
				continue
			}
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d:\nFile contains no section headers.\nfile: '%s', line: %d\n%q", lineno, path, lineno, line+"\n")
		}
		k := strings.IndexAny(value, "=:")
		key := strings.TrimSpace(value[:max(k, 0)])
		if k < 0 || key == "" {
			return nil, fmt.Errorf("line %d:\nSource contains parsing errors: '%s'\n\t[line %2d]: %q", lineno, path, lineno, line+"\n")
		}
		if added[cur.name+"\x00"+key] {
			return nil, fmt.Errorf("line %d:\nWhile reading from '%s' [line %2d]: option '%s' in section '%s' already exists", lineno, path, lineno, key, cur.name)
		}
		added[cur.name+"\x00"+key] = true
		opt, lines = key, []string{strings.TrimSpace(value[k+1:])}
	}
	flush()
	return f, nil
}

// interpolate is configparser's BasicInterpolation of a value without
// references: "%%" is "%"; a "%" otherwise is an error.
func interpolate(v string) (string, error) {
	if !strings.Contains(v, "%") {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		if i+1 < len(v) && v[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		return "", fmt.Errorf("'%%' must be followed by '%%' (references %%(name)s are not supported): %q", v)
	}
	return b.String(), nil
}

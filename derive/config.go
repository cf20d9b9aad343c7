package derive

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/pmapi"
)

// LoadConfig is pmLoadDerivedConfig: path is a ":"-separated list of files
// and directories (a directory stands for all its entries, recursively, in
// the order the directory lists them). Each file's definitions are
// registered and its errors written to w, as libpcp's pmprintf writes
// them to stderr. It returns the number of metrics registered; the first
// file or directory that cannot be read stops it with a negative PCP
// error code (-errno), as in libpcp.
//
// libpcp's own start-up load ($PCP_DERIVED_CONFIG) ignores those errors:
// see LoadEnvConfig.
func (r *Registry) LoadConfig(path string, w io.Writer) (int, error) {
	return r.loadPath(path, w, false)
}

// LoadEnvConfig loads definitions as libpcp does at start-up from
// $PCP_DERIVED_CONFIG: like LoadConfig, but unreadable components are
// skipped. An empty spec loads nothing.
func (r *Registry) LoadEnvConfig(spec string, w io.Writer) {
	if spec != "" {
		r.loadPath(spec, w, true)
	}
}

func (r *Registry) loadPath(path string, w io.Writer, recover bool) (int, error) {
	total := 0
	comps := strings.Split(path, ":")
	for i, c := range comps {
		if c == "" && i == len(comps)-1 {
			break // a trailing ":" (libpcp only loads a non-empty last component)
		}
		n, err := r.loadComponent(c, w, recover)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// errnoError converts an OS error to the PCP error code -errno.
func errnoError(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return pmapi.Error(-int32(errno))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return pmapi.Error(-int32(syscall.ENOENT))
	}
	return pmapi.Error(-int32(syscall.EIO))
}

func (r *Registry) loadComponent(name string, w io.Writer, recover bool) (int, error) {
	fail := func(err error) (int, error) {
		if recover {
			return 0, nil
		}
		return 0, errnoError(err)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return fail(err)
	}
	switch {
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(name)
		if err != nil {
			return fail(err)
		}
		n := r.loadFile(name, data, w)
		if recover {
			return 0, nil
		}
		return n, nil
	case fi.IsDir():
		f, err := os.Open(name)
		if err != nil {
			return fail(err)
		}
		ents, err := f.ReadDir(-1) // directory order, as readdir(3)
		f.Close()
		if err != nil {
			return fail(err)
		}
		total := 0
		for _, e := range ents {
			n, err := r.loadComponent(name+string(filepath.Separator)+e.Name(), w, recover)
			if err != nil {
				return 0, err
			}
			total += n
		}
		return total, nil
	}
	return 0, nil // neither a file nor a directory: skipped
}

// LoadConfigData loads a configuration held in memory, as the file name
// would be loaded (name appears in the messages).
func (r *Registry) LoadConfigData(name string, data []byte, w io.Writer) int {
	return r.loadFile(name, data, w)
}

// checkName is libpcp's test of a derived metric name in a configuration
// file: components separated by ".", each starting with a letter followed
// by letters, digits and "_" (an empty last component is allowed).
func checkName(s string) bool {
	first := true
	for i := 0; i < len(s); i++ {
		c := int(int8(s[i]))
		if first {
			first = false
			if cIsAlpha(c) {
				continue
			}
			return false
		}
		if cIsAlpha(c) || cIsDigit(c) || c == '_' {
			continue
		}
		if c == '.' {
			first = true
			continue
		}
		return false
	}
	return true
}

func isSpaceByte(b byte) bool { return cIsSpace(int(int8(b))) }

func trimSpaceRight(s string) string {
	for len(s) > 0 && isSpaceByte(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func trimSpaceLeft(s string) string {
	for len(s) > 0 && isSpaceByte(s[0]) {
		s = s[1:]
	}
	return s
}

// loadFile processes one configuration file the way libpcp's
// __dminit_configfile does:
//
//   - a line is only processed when its "\n" is read, so a last line
//     without one is ignored;
//   - empty lines and lines with "#" in column 1 are skipped;
//   - the first "=" splits "name = expr"; a "(" (and ")") before it makes
//     the line "name(attr) = value" (attributes oneline and helptext; a
//     value in "..." or '...' may use "\" escapes and span lines);
//   - there is no "\" line continuation for expressions;
//   - errors are reported with the file name and line number, and the
//     line is skipped. (Line numbers after a multi-line attribute value
//     are one too low, as in libpcp.)
func (r *Registry) loadFile(fname string, data []byte, w io.Writer) int {
	out := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	sts := 0
	lineno := 1
	pos := 0
	for {
		// collect one line
		start := pos
		for pos < len(data) && data[pos] != '\n' {
			pos++
		}
		if pos >= len(data) {
			return sts // no "\n": the line is dropped
		}
		raw := data[start:pos]
		pos++ // the "\n"
		if len(raw) == 0 || raw[0] == '#' {
			lineno++
			continue
		}
		// (libpcp handles the line as a C string: a NUL byte ends it)
		buf := cString(string(raw))
		eq, lp, rp := -1, -1, -1
		for i := 0; i < len(buf) && eq == -1; i++ {
			switch c := buf[i]; {
			case c == '=':
				eq = i
			case c == '(' && lp == -1:
				lp = i
			case c == ')' && rp == -1:
				rp = i
			}
		}
		if eq == -1 {
			out("[%s:%d] Error: pmLoadDerivedConfig: missing ``='' after derived metric name\n%s\n", fname, lineno, buf)
			lineno++
			continue
		}
		// the name, trimmed
		var name string
		if lp != -1 {
			name = buf[:lp]
		} else {
			name = buf[:eq]
		}
		name = trimSpaceLeft(trimSpaceRight(name))
		switch {
		case name == "":
			out("[%s:%d] Error: pmLoadDerivedConfig: derived metric name missing\n%s\n", fname, lineno, buf)
		case !checkName(name):
			out("[%s:%d] Error: pmLoadDerivedConfig: illegal derived metric name (%s)\n", fname, lineno, name)
		case lp >= 0 && rp == -1:
			out("[%s:%d] Error: pmLoadDerivedConfig: missing ')' after attribute\n%s\n", fname, lineno, buf)
		case rp >= 0 && lp == -1:
			out("[%s:%d] Error: pmLoadDerivedConfig: missing '(' before attribute\n%s\n", fname, lineno, buf)
		case lp == -1:
			rhs := buf[eq+1:]
			ep := trimSpaceLeft(rhs)
			if ep == "" {
				out("[%s:%d] Error: pmLoadDerivedConfig: expression missing\n%s\n", fname, lineno, buf)
				break
			}
			_, err := r.Register(name, ep)
			if err == nil {
				sts++
				break
			}
			se := err.(*SyntaxError)
			errp := len(rhs) - len(ep) + se.Pos
			out("[%s:%d] Error: pmRegisterDerived(%s, ...) syntax error\n%s\n", fname, lineno, name, rhs)
			caret := []byte(rhs)
			for i, c := range caret {
				if i == errp {
					caret[i] = '^'
				} else if !isSpaceByte(c) {
					caret[i] = ' '
				}
			}
			out("%s\n", caret)
			if se.Msg != "" {
				out("%s\n", se.Msg)
			}
		default:
			var extra int
			lineno, extra = r.attribute(fname, lineno, buf, name, lp, rp, eq, data[pos:], out)
			pos += extra
		}
		lineno++
	}
}

// attribute handles "name(attr) = value"; more may be read from rest (a
// quoted value spanning lines): it returns the line number and how many
// bytes of rest it used.
func (r *Registry) attribute(fname string, lineno int, buf, name string, lp, rp, eq int, rest []byte, out func(string, ...any)) (int, int) {
	used := 0
	attr := buf[lp+1 : rp]
	attr = trimSpaceLeft(trimSpaceRight(attr))
	if attr == "" {
		out("[%s:%d] Error: pmLoadDerivedConfig: attribute name missing\n%s\n", fname, lineno, buf)
		return lineno, 0
	}
	vp := trimSpaceLeft(buf[eq+1:])
	var delim byte
	if len(vp) > 0 && (vp[0] == '"' || vp[0] == '\'') {
		delim = vp[0]
		vp = vp[1:]
	}
	if vp == "" {
		out("[%s:%d] Error: pmLoadDerivedConfig: attribute value missing\n%s\n", fname, lineno, buf)
		return lineno, 0
	}
	value := vp
	if delim != 0 {
		var v []byte
		esc := false
		xtralines := 0
		eof := false
		i := 0 // in vp
		var c int
		for {
			switch {
			case i < len(vp):
				c = int(vp[i])
				i++
			case xtralines == 0:
				c = '\n'
			default:
				if used >= len(rest) {
					eof = true
				} else {
					c = int(rest[used])
					used++
				}
			}
			if eof {
				break
			}
			if c == '\n' {
				xtralines++
			}
			if esc {
				esc = false
				if c != '\n' {
					v = append(v, byte(c))
				}
				continue
			}
			if c == '\\' {
				esc = true
				continue
			}
			if c == int(delim) {
				break
			}
			v = append(v, byte(c))
		}
		if xtralines > 1 {
			lineno += xtralines - 1
		}
		if eof {
			out("[%s:%d] Error: pmLoadDerivedConfig: missing termination (%c) for value\n", fname, lineno, delim)
			return lineno, used
		}
		tail := vp[i:]
		switch {
		case tail != "":
			if t := trimSpaceLeft(tail); t != "" {
				out("[%s:%d] Warning: pmLoadDerivedConfig: extra text (%s) after attribute value will be ignored\n", fname, lineno, t)
			}
		case xtralines == 0:
		default:
			// the rest of the line the value ended on (libpcp skips its
			// first character unconditionally)
			next := func() int {
				if used >= len(rest) {
					return -1
				}
				used++
				return int(rest[used-1])
			}
			c := next()
			for c != -1 && c != '\n' {
				c = next()
				if !cIsSpace(c) {
					break
				}
			}
			if c != -1 && c != '\n' {
				var b strings.Builder
				b.WriteByte(byte(c))
				for c = next(); c != -1 && c != '\n'; c = next() {
					b.WriteByte(byte(c))
				}
				out("[%s:%d] Warning: pmLoadDerivedConfig: extra text (%s) after attribute value will be ignored\n", fname, lineno, b.String())
			}
		}
		value = string(v)
	}
	if msg := r.setAttr(name, attr, value); msg != "" {
		out("[%s:%d] Error: pmLoadDerivedConfig: %s\n%s\n", fname, lineno, msg, buf)
	}
	return lineno, used
}

// setAttr sets a metric's oneline or helptext; it returns libpcp's
// message for a failure.
func (r *Registry) setAttr(name, attr, value string) string {
	m, ok := r.byName[name]
	if !ok {
		return fmt.Sprintf("cannot set attribute, derived metric (%s) not defined", name)
	}
	switch attr {
	case "oneline":
		if m.hasOneline {
			return fmt.Sprintf("duplicate value for attribute (%s) of metric (%s)", attr, name)
		}
		m.Oneline, m.hasOneline = value, true
	case "helptext":
		if m.hasHelptext {
			return fmt.Sprintf("duplicate value for attribute (%s) of metric (%s)", attr, name)
		}
		m.Helptext, m.hasHelptext = value, true
	default:
		return fmt.Sprintf("attribute (%s) is unknown for metric (%s)", attr, name)
	}
	return ""
}

package loggerconf

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// PMNSDir is $PCP_VAR_DIR/pmns, the last directory pmcpp searches for
// include files.
var PMNSDir = "/var/lib/pcp/pmns"

// pmcpp's limit on nested %include/%shell: the top file plus four.
const ppMaxLevel = 5

// ppFile is one input stream of the preprocessor.
type ppFile struct {
	name   string
	data   []byte
	pos    int
	lineno int
	shell  *shellResult // for "<shell>" streams
}

type shellResult struct {
	err error
}

// ppFatal is pmcpp's err(): the first error ends preprocessing.
type ppFatal struct{}

// preprocessor mirrors `pmcpp -rs` (restricted macro syntax, shell
// style: '%' is the control character and '#' lines pass through).
type preprocessor struct {
	out     bytes.Buffer
	errs    strings.Builder
	files   []*ppFile
	incdirs []string
	macros  []ppMacro
	inIf    int // ifFalse, ifTrue, ifNone
	ifLine  int
	line    []byte // current input line (pmcpp's ibuf), with its '\n'
}

type ppMacro struct {
	name  string // "" for an undefined one or one defined without a name
	value string
}

const (
	ifFalse = 0
	ifTrue  = 1
	ifNone  = 2
)

// Preprocess runs src through an equivalent of
// `pmcpp -rs -I dir ... name`, as pmlogger does before parsing. It
// returns what pmcpp writes to its standard output (line markers
// `# N "file"` included) and to its standard error: its fatal error,
// if any, as
//
//	pmcpp: FILE[LINE]: <the input line>
//	pmcpp: Error: <message>
//
// and %shell warnings. After a fatal error out holds what pmcpp had
// written before it, which pmlogger goes on to parse.
//
// %include "file" and %include <file> look for file as it is (relative
// to the working directory), then, unless it is absolute, in the
// directory of name, in dirs, and in PMNSDir, to a depth of four. %shell
// "cmd" runs cmd with /bin/sh -c and reads its output.
func Preprocess(src []byte, name string, dirs []string) (out []byte, errs string) {
	p := &preprocessor{inIf: ifNone}
	if name != "<stdin>" {
		p.incdirs = append(p.incdirs, cDirname(name))
	}
	p.incdirs = append(p.incdirs, dirs...)
	p.incdirs = append(p.incdirs, PMNSDir)
	p.files = []*ppFile{{name: name, data: src}}
	p.run()
	return p.out.Bytes(), p.errs.String()
}

// cDirname is POSIX dirname(3): no cleaning beyond trailing slashes.
func cDirname(path string) string {
	p := strings.TrimRight(path, "/")
	if p == "" {
		if path == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(p[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

func (p *preprocessor) cur() *ppFile { return p.files[len(p.files)-1] }

func (p *preprocessor) fatal(format string, args ...any) {
	f := p.cur()
	if f.lineno > 0 {
		fmt.Fprintf(&p.errs, "pmcpp: %s[%d]: %s", f.name, f.lineno, cString(p.line))
	} else {
		fmt.Fprintf(&p.errs, "pmcpp: %s:\n", f.name)
	}
	fmt.Fprintf(&p.errs, "pmcpp: Error: "+format+"\n", args...)
	panic(ppFatal{})
}

func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// readLine is pmcpp's fgets loop: a line is kept up to its first NUL,
// and a line that does not end in a newline there is continued with the
// next one; an unfinished last line is lost.
func (f *ppFile) readLine() ([]byte, bool) {
	var buf []byte
	for {
		if f.pos >= len(f.data) {
			return nil, false
		}
		end := bytes.IndexByte(f.data[f.pos:], '\n')
		var chunk []byte
		if end < 0 {
			// fgets returns what is left; it has no newline, so
			// pmcpp asks for more and gets EOF
			return nil, false
		}
		chunk = f.data[f.pos : f.pos+end+1]
		f.pos += end + 1
		buf = append(buf, chunk...)
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			buf = buf[:i]
		}
		if len(buf) > 0 && buf[len(buf)-1] == '\n' {
			return buf, true
		}
	}
}

func (p *preprocessor) run() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(ppFatal); !ok {
				panic(r)
			}
		}
	}()
	fmt.Fprintf(&p.out, "# %d \"%s\"\n", 1, p.files[0].name)
	skip := false
	for {
		f := p.cur()
		line, ok := f.readLine()
		if !ok {
			if f.shell != nil && f.shell.err != nil {
				var ee *exec.ExitError
				if errors.As(f.shell.err, &ee) {
					if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
						fmt.Fprintf(&p.errs, "Warning: %%shell cmd terminated by signal %d\n", int(ws.Signal()))
					} else {
						fmt.Fprintf(&p.errs, "Warning: %%shell cmd returns %d exit status\n", ee.ExitCode())
					}
				}
			}
			if len(p.files) == 1 {
				break
			}
			p.files = p.files[:len(p.files)-1]
			f = p.cur()
			fmt.Fprintf(&p.out, "# %d \"%s\"\n", f.lineno+1, f.name)
			continue
		}
		p.line = line
		f.lineno++
		if line[0] == '%' {
			switch {
			case bytes.HasPrefix(line[1:], []byte("include")):
				if skip {
					p.out.WriteByte('\n')
					continue
				}
				p.include(line)
				continue
			case bytes.HasPrefix(line[1:], []byte("shell")):
				if skip {
					p.out.WriteByte('\n')
					continue
				}
				p.shell(line)
				continue
			}
			r := p.directive(line)
			if r >= 0 {
				skip = r == 1
				p.out.WriteByte('\n')
				continue
			}
			skip = false
		} else if skip {
			p.out.WriteByte('\n')
			continue
		}
		if len(p.macros) > 0 {
			line = p.expand(line)
		}
		p.out.Write(line)
	}
	if p.inIf != ifNone {
		p.cur().lineno = 0
		p.fatal("End of input and no matching %%endif for %%ifdef or %%ifndef at line %d", p.ifLine)
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// at returns line[i], or 0 past the end (C's NUL terminator).
func at(line []byte, i int) byte {
	if i < len(line) {
		return line[i]
	}
	return 0
}

// quotedArg parses the "..." / <...> / '...' argument of %include and
// %shell, starting at i (after the keyword).
func (p *preprocessor) quotedArg(line []byte, kw string, open1, close1, open2, close2 byte, what, expectOpen, afterWhat string) string {
	i := 1 + len(kw)
	for isBlank(at(line, i)) {
		i++
	}
	c := at(line, i)
	if c != open1 && c != open2 {
		p.fatal("%s", expectOpen)
	}
	closer := close1
	if c == open2 {
		closer = close2
	}
	i++
	start := i
	for at(line, i) != 0 && at(line, i) != '\n' && at(line, i) != closer {
		i++
	}
	if at(line, i) != closer {
		p.fatal("Expected %c after %s", closer, afterWhat)
	}
	arg := string(line[start:i])
	if len(p.files) == ppMaxLevel {
		p.fatal("%s", what)
	}
	for q := i + 1; ; q++ {
		c := at(line, q)
		if cnum.IsSpace(c) {
			continue
		}
		if c != 0 {
			p.fatal("Unexpected extra text in %%%s line", kw)
		}
		break
	}
	return arg
}

func (p *preprocessor) include(line []byte) {
	iname := p.quotedArg(line, "include", '"', '"', '<', '>',
		"%include and/or %shell nesting too deep", `Expected " or < after %include`, "file name")
	data, path, ok := p.open(iname)
	if !ok {
		p.fatal("Cannot open file for %%include")
	}
	p.files = append(p.files, &ppFile{name: path, data: data})
	fmt.Fprintf(&p.out, "# %d \"%s\"\n", 1, path)
}

func (p *preprocessor) shell(line []byte) {
	cmd := p.quotedArg(line, "shell", '"', '"', '\'', '\'',
		"%shell and/or %include nesting too deep", `Expected " or ' after %shell`, "command")
	c := exec.Command("/bin/sh", "-c", cmd)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	p.errs.Write(stderr.Bytes())
	p.files = append(p.files, &ppFile{name: "<shell>", data: out, shell: &shellResult{err: err}})
	fmt.Fprintf(&p.out, "# %d \"%s\"\n", 1, "<shell>")
}

// open finds an include file as pmcpp's do_include does.
func (p *preprocessor) open(iname string) ([]byte, string, bool) {
	if data, ok := readInclude(iname); ok {
		return data, iname, true
	}
	if strings.HasPrefix(iname, "/") {
		return nil, "", false
	}
	for _, d := range p.incdirs {
		path := d + "/" + iname
		if data, ok := readInclude(path); ok {
			return data, path, true
		}
	}
	return nil, "", false
}

// readInclude opens a regular file or character device, as pmcpp's
// openfile does.
func readInclude(path string) ([]byte, bool) {
	if path == "" {
		return nil, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeCharDevice == 0 {
		return nil, false
	}
	if fi.Mode()&os.ModeCharDevice != 0 {
		// /dev/null and the like: read what is there now
		f, err := os.Open(path)
		if err != nil {
			return nil, false
		}
		defer f.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(f)
		return b.Bytes(), true
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	return data, true
}

const (
	opDefine = iota + 1
	opUndef
	opIfdef
	opIfndef
	opElse
	opEndif
)

// directive handles %define, %undef, %ifdef, %ifndef, %else and %endif:
// 0 to output the following lines, 1 to skip them, -1 for a line that
// is not one of these (it is then an ordinary line).
func (p *preprocessor) directive(line []byte) int {
	rest := line[1:]
	var op, i int
	switch {
	case bytes.HasPrefix(rest, []byte("define")):
		op, i = opDefine, len("%define")
	case bytes.HasPrefix(rest, []byte("undef")):
		op, i = opUndef, len("%undef")
	case bytes.HasPrefix(rest, []byte("ifdef")):
		op, i = opIfdef, len("%ifdef")
	case bytes.HasPrefix(rest, []byte("ifndef")):
		op, i = opIfndef, len("%ifndef")
	case bytes.HasPrefix(rest, []byte("endif")):
		op, i = opEndif, len("%endif")
	case bytes.HasPrefix(rest, []byte("else")):
		op, i = opElse, len("%else")
	default:
		return -1
	}
	for isBlank(at(line, i)) {
		i++
	}
	var name, value string
	if op != opEndif && op != opElse {
		if c := at(line, i); c == '\n' || c == 0 {
			p.fatal("Missing macro name")
		}
		start := i
		for ; at(line, i) != 0 && !isBlank(at(line, i)); i++ {
			c := at(line, i)
			if isAlpha(c) || c == '_' {
				continue
			}
			if i > start && isDigit(c) {
				continue
			}
			break
		}
		if !cnum.IsSpace(at(line, i)) {
			p.fatal("Illegal character in macro name")
		}
		name = string(line[start:i])
		if op == opDefine {
			if c := at(line, i); c == '\n' || c == 0 {
				value = ""
			} else {
				for isBlank(at(line, i)) {
					i++
				}
				var quote byte
				if c := at(line, i); c == '\'' || c == '"' {
					quote = c
					i++
				}
				vs := i
				for {
					c := at(line, i)
					if c == 0 || (quote == 0 && cnum.IsSpace(c)) || (quote != 0 && c == quote) {
						break
					}
					i++
				}
				if quote != 0 && at(line, i) != quote {
					p.fatal("Unterminated value string in %%define")
				}
				value = string(line[vs:i])
				if quote != 0 {
					i++
				}
			}
		}
	}
	for isBlank(at(line, i)) {
		i++
	}
	if c := at(line, i); c != '\n' && c != '\r' && c != 0 {
		p.fatal("Unexpected extra text in a control line")
	}

	switch op {
	case opEndif:
		if p.inIf == ifNone {
			p.fatal("No matching %%ifdef or %%ifndef for %%endif")
		}
		p.inIf = ifNone
		return 0
	case opElse:
		if p.inIf == ifNone {
			p.fatal("No matching %%ifdef or %%ifndef for %%else")
		}
		p.inIf = 1 - p.inIf
	case opIfdef, opIfndef:
		if p.inIf != ifNone {
			p.fatal("Nested %%ifdef or %%ifndef")
		}
	}
	if p.inIf == ifFalse {
		return 1
	}
	for k := range p.macros {
		if p.macros[k].name != name {
			continue
		}
		switch op {
		case opIfdef:
			p.inIf = ifTrue
			return 0
		case opIfndef:
			p.inIf = ifFalse
			return 1
		case opUndef:
			p.macros[k].name = ""
			return 0
		default:
			p.fatal("Macro redefinition")
		}
	}
	switch op {
	case opIfdef:
		p.inIf = ifFalse
		p.ifLine = p.cur().lineno
		return 1
	case opIfndef:
		p.inIf = ifTrue
		p.ifLine = p.cur().lineno
		return 0
	case opUndef:
		return 0
	}
	// %define, or an %else that turned the block on: pmcpp adds a
	// macro (a nameless one for %else)
	p.macros = append(p.macros, ppMacro{name: name, value: value})
	return 0
}

// expand does pmcpp -r's macro substitution of %name and %{name}.
func (p *preprocessor) expand(line []byte) []byte {
	var out []byte
	sub := false
	i := bytes.IndexByte(line, '%')
	if i < 0 {
		return line
	}
	out = append(out, line[:i]...)
	for i < len(line) {
		// line[i] == '%': find the end of the token
		j := i + 1
		brace := at(line, j) == '{'
		switch {
		case brace:
			j++
			if isAlnum(at(line, j)) {
				for j < len(line) && line[j] != '}' {
					j++
				}
				if j < len(line) {
					j++ // include the '}'
				} else {
					// unterminated: pmcpp runs off the line; treat
					// the rest of the line as the (unmatched) token
					j = len(line)
				}
			}
		case isAlnum(at(line, j)):
			for j < len(line) && (isAlnum(line[j]) || line[j] == '_') {
				j++
			}
		}
		tok := line[i:j]
		var mname string
		ok := false
		switch {
		case len(tok) < 2:
		case tok[1] == '{':
			if len(tok) >= 3 && tok[len(tok)-1] == '}' {
				mname, ok = string(tok[2:len(tok)-1]), len(tok) > 3
			}
		default:
			mname, ok = string(tok[1:]), true
		}
		matched := false
		if ok && mname != "" {
			for _, m := range p.macros {
				if m.name == mname {
					out = append(out, m.value...)
					matched, sub = true, true
					break
				}
			}
		}
		if !matched {
			out = append(out, tok...)
		}
		k := bytes.IndexByte(line[j:], '%')
		if k < 0 {
			out = append(out, line[j:]...)
			break
		}
		out = append(out, line[j:j+k]...)
		i = j + k
	}
	if !sub {
		return line
	}
	return out
}

package pmns

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// This file emulates pmcpp(1), the preprocessor libpcp runs over an ASCII
// PMNS before parsing it (pmcpp FILE, output read through a pipe). The
// behaviour was worked out by running PCP 6.0.3's pmcpp; the notes below
// record what it does, quirks included, because the parser that reads the
// output depends on them:
//
//   - Input is read a line at a time. A line is cut at its first NUL byte and
//     then joined with the following physical line(s) until one ends with a
//     newline; a last line without a newline is dropped.
//   - C comments are replaced by spaces, one per character (newlines are
//     kept); a line that holds any part of a comment then loses its trailing
//     white space. Comment state carries across #include boundaries.
//   - A directive is a line whose first character (after comment removal) is
//     '#' followed by a keyword, matched as a prefix: "#defineX 1" defines X.
//     Other lines starting with '#' are copied through (with macro
//     substitution) and, oddly, so are the lines after them up to the next
//     directive, even in a false #ifdef branch.
//   - Each directive becomes an empty output line; #include becomes a line
//     marker, the included lines and a marker for the line after.
//   - #ifdef/#ifndef cannot nest; the conditional state is global (it may be
//     opened in one file and closed in another). #else may be repeated: each
//     one flips between emitting and skipping, and the fourth state is the
//     error "Macro redefinition".
//   - Macros are substituted in every copied line, by identifiers
//     ([A-Za-z_][A-Za-z0-9_]*), without rescanning.
//   - The first error is fatal: pmcpp reports it on stderr and exits 1, after
//     writing the lines it had already produced.
//
// #shell is not supported: pcpkit does not run commands named in a PMNS file;
// nor does it #include anything but regular files.

// cppMaxDepth is how many files (the main one and nested #includes) pmcpp
// keeps open at once.
const cppMaxDepth = 5

type preprocessor struct {
	varDir  string // $PCP_VAR_DIR
	top     string // the main file's name, as given
	topDir  string
	out     bytes.Buffer
	errs    strings.Builder
	macros  map[string]string
	depth   int
	failed  bool
	inIf    bool
	ifState int // 0,2: emitting; 1,3: skipping; #else when 3 is an error
	ifLine  int
	skip    bool

	inComment   bool
	commentLine int
}

// errCpp stops preprocessing after the first error.
var errCpp = errors.New("pmcpp failed")

// preprocess runs the pmcpp emulation over the file path. It returns the
// output, what pmcpp would print on stderr, and whether pmcpp would have
// exited with a non-zero status.
func preprocess(path, varDir string) (out []byte, stderr string, failed bool) {
	p := &preprocessor{
		varDir: varDir,
		top:    path,
		topDir: filepath.Dir(path),
		macros: map[string]string{},
	}
	data, err := readRegular(path)
	if err != nil {
		// pmcpp reports a file it cannot read (a directory, say) with the
		// text of a stale errno.
		p.errs.WriteString("pmcpp: " + path + ":\npmcpp: Error: No such file or directory\n")
		return nil, p.errs.String(), true
	}
	p.depth = 1
	if err := p.file(path, data); err == nil {
		switch {
		case p.inComment:
			p.endError(fmt.Sprintf("Comment at line %d not terminated before end of file", p.commentLine))
		case p.inIf:
			p.endError(fmt.Sprintf("End of input and no matching #endif for #ifdef or #ifndef at line %d", p.ifLine))
		}
	}
	return p.out.Bytes(), p.errs.String(), p.failed
}

// readRegular reads a file that must not be a directory.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	return os.ReadFile(path)
}

// readInclude reads an #include file, which must be a regular file: unlike
// pmcpp, pcpkit will not read a device or a pipe named by a PMNS file.
func readInclude(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.ReadFile(path)
}

func (p *preprocessor) endError(msg string) {
	fmt.Fprintf(&p.errs, "pmcpp: %s:\npmcpp: Error: %s\n", p.top, msg)
	p.failed = true
}

func (p *preprocessor) lineError(name string, lineno int, line []byte, msg string) error {
	fmt.Fprintf(&p.errs, "pmcpp: %s[%d]: %s\npmcpp: Error: %s\n", name, lineno, line, msg)
	p.failed = true
	return errCpp
}

// cppLines splits data into pmcpp's logical lines (without their newlines):
// each physical line is cut at its first NUL and joined with the next until
// one ends in a newline; an unterminated last line is dropped.
func cppLines(data []byte) [][]byte {
	var lines [][]byte
	var cur []byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		chunk := data[:i+1]
		data = data[i+1:]
		if z := bytes.IndexByte(chunk, 0); z >= 0 {
			cur = append(cur, chunk[:z]...)
			continue
		}
		cur = append(cur, chunk[:len(chunk)-1]...)
		lines = append(lines, cur)
		cur = nil
	}
	return lines
}

func (p *preprocessor) file(name string, data []byte) error {
	fmt.Fprintf(&p.out, "# 1 \"%s\"\n", name)
	for i, raw := range cppLines(data) {
		lineno := i + 1
		line := p.stripComments(raw, lineno)
		if len(line) > 0 && line[0] == '#' {
			if err := p.directive(name, lineno, line); err != nil {
				return err
			}
			continue
		}
		if p.skip {
			p.out.WriteByte('\n')
			continue
		}
		p.out.Write(p.substitute(line))
		p.out.WriteByte('\n')
	}
	return nil
}

// stripComments replaces comment characters by spaces and, if the line held
// any part of a comment, trims its trailing white space.
func (p *preprocessor) stripComments(raw []byte, lineno int) []byte {
	touched := p.inComment
	line := make([]byte, len(raw))
	copy(line, raw)
	for i := 0; i < len(line); i++ {
		if p.inComment {
			if line[i] == '*' && i+1 < len(line) && line[i+1] == '/' {
				line[i], line[i+1] = ' ', ' '
				i++
				p.inComment = false
				continue
			}
			line[i] = ' '
			continue
		}
		if line[i] == '/' && i+1 < len(line) && line[i+1] == '*' {
			line[i], line[i+1] = ' ', ' '
			i++
			p.inComment = true
			p.commentLine = lineno
			touched = true
		}
	}
	if touched {
		line = bytes.TrimRight(line, " \t\r\v\f")
	}
	return line
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdent(c byte) bool { return isAlpha(c) || isDigit(c) || c == '_' }

// Directive arguments are separated by blanks (space, tab); a carriage
// return ends the line as far as the checks for extra text are concerned.

func skipBlanks(s []byte) []byte {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// extra reports whether anything but blanks is left before the end of line.
func extra(s []byte) bool {
	s = skipBlanks(s)
	return len(s) > 0 && s[0] != '\r'
}

// substitute replaces every identifier that names a macro by its value.
func (p *preprocessor) substitute(line []byte) []byte {
	if len(p.macros) == 0 {
		return line
	}
	var out []byte
	for i := 0; i < len(line); {
		c := line[i]
		if !isAlpha(c) && c != '_' {
			out = append(out, c)
			i++
			continue
		}
		j := i + 1
		for j < len(line) && isIdent(line[j]) {
			j++
		}
		if v, ok := p.macros[string(line[i:j])]; ok {
			out = append(out, v...)
		} else {
			out = append(out, line[i:j]...)
		}
		i = j
	}
	return out
}

// macroName parses the macro name at the start of s (after blanks) and
// returns it with the rest of s. The name may be empty if white space other
// than a blank follows.
func macroName(s []byte) (name string, rest []byte, msg string) {
	s = skipBlanks(s)
	if len(s) == 0 {
		return "", nil, "Missing macro name"
	}
	i := 0
	for i < len(s) && isIdent(s[i]) {
		i++
	}
	if i > 0 && isDigit(s[0]) || i < len(s) && !cnum.IsSpace(s[i]) {
		return "", nil, "Illegal character in macro name"
	}
	return string(s[:i]), s[i:], ""
}

const msgExtra = "Unexpected extra text in a control line"

func (p *preprocessor) directive(name string, lineno int, line []byte) error {
	fail := func(msg string) error { return p.lineError(name, lineno, line, msg) }
	if !isDirective(line) {
		// Not a directive: copied through, and the lines after it are
		// copied too, up to the next directive, even in a false branch.
		p.skip = false
		p.out.Write(p.substitute(line))
		p.out.WriteByte('\n')
		return nil
	}
	p.skip = p.inIf && p.ifState%2 == 1
	switch {
	case bytes.HasPrefix(line, []byte("#ifdef")), bytes.HasPrefix(line, []byte("#ifndef")):
		neg := line[3] == 'n'
		rest := line[len("#ifdef"):]
		if neg {
			rest = line[len("#ifndef"):]
		}
		mac, rest, msg := macroName(rest)
		if msg != "" {
			return fail(msg)
		}
		if extra(rest) {
			return fail(msgExtra)
		}
		if p.inIf {
			return fail("Nested #ifdef or #ifndef")
		}
		_, defined := p.macros[mac]
		p.inIf = true
		if !defined {
			// pmcpp's "no matching #endif" message names the line of the
			// last #ifdef or #ifndef of an undefined macro (0 if none).
			p.ifLine = lineno
		}
		if defined != neg {
			p.ifState, p.skip = 0, false
		} else {
			p.ifState, p.skip = 1, true
		}
	case bytes.HasPrefix(line, []byte("#else")):
		if extra(line[len("#else"):]) {
			return fail(msgExtra)
		}
		if !p.inIf {
			return fail("No matching #ifdef or #ifndef for #else")
		}
		if p.ifState == 3 {
			return fail("Macro redefinition")
		}
		p.ifState++
		p.skip = p.ifState%2 == 1
	case bytes.HasPrefix(line, []byte("#endif")):
		if extra(line[len("#endif"):]) {
			return fail(msgExtra)
		}
		if !p.inIf {
			return fail("No matching #ifdef or #ifndef for #endif")
		}
		p.inIf, p.skip = false, false
	case bytes.HasPrefix(line, []byte("#define")):
		mac, rest, msg := macroName(line[len("#define"):])
		if msg != "" {
			return fail(msg)
		}
		rest = skipBlanks(rest)
		var value []byte
		if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
			end := bytes.IndexByte(rest[1:], rest[0])
			if end < 0 {
				return fail("Unterminated value string in #define")
			}
			value, rest = rest[1:1+end], rest[2+end:]
		} else {
			i := 0
			for i < len(rest) && !cnum.IsSpace(rest[i]) {
				i++
			}
			value, rest = rest[:i], rest[i:]
		}
		if extra(rest) {
			return fail(msgExtra)
		}
		if !p.skip {
			if _, ok := p.macros[mac]; ok {
				return fail("Macro redefinition")
			}
			p.macros[mac] = string(value)
		}
	case bytes.HasPrefix(line, []byte("#undef")):
		mac, rest, msg := macroName(line[len("#undef"):])
		if msg != "" {
			return fail(msg)
		}
		if extra(rest) {
			return fail(msgExtra)
		}
		if !p.skip {
			delete(p.macros, mac)
		}
	case bytes.HasPrefix(line, []byte("#include")):
		if p.skip {
			break
		}
		return p.include(name, lineno, line, fail)
	case bytes.HasPrefix(line, []byte("#shell")):
		if p.skip {
			break
		}
		return fail("#shell is not supported by pcpkit")
	}
	p.out.WriteByte('\n')
	return nil
}

var directives = []string{"#ifdef", "#ifndef", "#else", "#endif", "#define", "#undef", "#include", "#shell"}

func isDirective(line []byte) bool {
	for _, d := range directives {
		if bytes.HasPrefix(line, []byte(d)) {
			return true
		}
	}
	return false
}

func (p *preprocessor) include(name string, lineno int, line []byte, fail func(string) error) error {
	rest := skipBlanks(line[len("#include"):])
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '<' {
		return fail(`Expected " or < after #include`)
	}
	closer := byte('"')
	if rest[0] == '<' {
		closer = '>'
	}
	end := bytes.IndexByte(rest[1:], closer)
	if end < 0 {
		return fail(fmt.Sprintf("Expected %c after file name", closer))
	}
	file := string(rest[1 : 1+end])
	if tail := rest[2+end:]; len(bytes.TrimLeft(tail, " \t\r\n\v\f")) > 0 {
		return fail("Unexpected extra text in #include line")
	}
	if p.depth >= cppMaxDepth {
		return fail("#include and/or #shell nesting too deep")
	}
	var data []byte
	found := ""
	for _, cand := range []string{file, p.topDir + "/" + file, p.varDir + "/pmns/" + file} {
		if file == "" {
			break
		}
		if d, err := readInclude(cand); err == nil {
			data, found = d, cand
			break
		}
	}
	if found == "" {
		return fail("Cannot open file for #include")
	}
	p.depth++
	err := p.file(found, data)
	p.depth--
	if err != nil {
		return err
	}
	fmt.Fprintf(&p.out, "# %d \"%s\"\n", lineno+1, name)
	return nil
}

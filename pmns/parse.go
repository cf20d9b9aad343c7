package pmns

import (
	"fmt"
	"strings"

	"github.com/pcpkit/pcpkit/pmapi"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// This file emulates libpcp's parser for pmcpp's output, including the way it
// reports errors, which the real tools print on stderr:
//
//	[FILE:LINE] Error Parsing ASCII PMNS: MESSAGE
//	    <the line, as the lexer recorded it>
//	    <a caret under the start of the last token>
//
// The lexer records the characters it reads in a line buffer: leading white
// space is dropped, each run of white space (a newline included) keeps only
// its first character,
// and white space around a ':' is dropped altogether (and with it the ':'
// itself when the white space starts the line). Reporting an error reads
// the rest of the line into the buffer, prints it, and then builds the caret
// line in the same buffer, over the recorded text: every character before the
// caret becomes a space except white space (tabs and newlines survive), and
// the scan runs on past the end of the current line into whatever an earlier,
// longer line left there. So a second error on the same line shows the first
// error's caret line instead of the text, and an error message the parser
// formats into the buffer (duplicate names) shows up twice. The location
// prefix, the line and the caret appear only while the line number is
// positive, and the caret only once some token has been read.
//
// Tokens are white-space separated words: "{", "}", a NAME (a letter, then
// letters, digits and '_'), a PATH (the same with dots), and a PMID word
// (digits, ':' and '*', at most three colons). A PMID word is read as
// domain:cluster:item with C's %d (values wrap to 32 bits, anything may
// follow the item), or as a dynamic domain: the domain alone or followed by
// ":*:*" after its first colon (the PMID is then 511.domain.0). Any other word
// is "junk" that the grammar rejects.
//
// A '#' that starts a line begins a line marker, `# N "FILE"`: the next line
// is line N of FILE (the name is read like sscanf's `"%s`, minus its last
// character).

// lineMax is the lexer's line length limit, in recorded characters.
const lineMax = 253

type tokKind int

const (
	tokEOF    tokKind = iota
	tokLBrace         // {
	tokRBrace         // }
	tokName           // NAME
	tokPath           // PATH (a NAME with dots)
	tokPMID           // d:c:i
	tokDyn            // d:*:*
	tokJunk           // anything else, or an illegal PMID already reported
	tokFatal          // an error that ends parsing at once
)

type token struct {
	kind tokKind
	text string
	pmid pmapi.PMID
}

type lexer struct {
	in  []byte
	pos int

	buf     []byte // the line buffer; bytes past n are stale
	n       int
	tokpos  int // start of the last complete token in buf, -1 before any
	newline bool
	lastNL  bool // the last byte read was a newline (or input ended)

	lineno int
	fname  string

	// A ':' merged into a word across white space and followed only by
	// white space to the end of the line is read a second time, as a token
	// of its own, whose position is its column in the raw line; the caret
	// for it is built over the recorded line overlaid on the raw one
	// (rawCaret).
	colonPending bool
	colonAt      int
	rawCaret     []byte

	errs *strings.Builder
}

func newLexer(in []byte, errs *strings.Builder) *lexer {
	return &lexer{in: in, buf: make([]byte, 512), tokpos: -1, lastNL: true, errs: errs}
}

func isBlank(c byte) bool { return c != '\n' && cnum.IsSpace(c) }

// errOverflow is what readc returns when the line is too long.
const errOverflow = -2

// readc reads the next character, records it in the line buffer and returns
// it; -1 at the end of the input.
func (l *lexer) readc() int {
	var c byte
	for {
		if l.pos >= len(l.in) {
			l.lastNL = true
			return -1
		}
		c = l.in[l.pos]
		l.pos++
		if !isBlank(c) {
			if c == ':' {
				l.skipAfterColon()
			}
			break
		}
		// White space before a colon is dropped.
		j := l.pos
		for j < len(l.in) && isBlank(l.in[j]) {
			j++
		}
		if j >= len(l.in) || l.in[j] != ':' {
			break
		}
		c = ':'
		l.pos = j + 1
		if l.newline || l.n == 0 {
			// At the start of a line the ':' goes too.
			for l.pos < len(l.in) && isBlank(l.in[l.pos]) {
				l.pos++
			}
			continue
		}
		l.skipAfterColon()
		if l.pos >= len(l.in) || l.in[l.pos] == '\n' {
			l.colonPending, l.colonAt = true, j
		}
		break
	}
	if l.newline {
		l.newline = false
		l.n = 0
		l.lineno++
	}
	l.lastNL = c == '\n'
	if c == '\n' {
		l.newline = true
	}
	if cnum.IsSpace(c) && (l.n == 0 || cnum.IsSpace(l.buf[l.n-1])) {
		return int(c)
	}
	if l.n >= lineMax {
		l.overflow()
		return errOverflow
	}
	l.buf[l.n] = c
	l.n++
	l.buf[l.n] = 0
	return int(c)
}

// skipAfterColon drops the white space after a ':', and a ':' that follows
// that white space (with its own white space).
func (l *lexer) skipAfterColon() {
	for {
		k := l.pos
		for k < len(l.in) && isBlank(l.in[k]) {
			k++
		}
		if k > l.pos && k < len(l.in) && l.in[k] == ':' {
			l.pos = k + 1
			continue
		}
		l.pos = k
		return
	}
}

// cstr is the buffer as a C string.
func (l *lexer) cstr() []byte {
	for i, c := range l.buf {
		if c == 0 {
			return l.buf[:i]
		}
	}
	return l.buf
}

// report prints an error the way libpcp does (see the file comment).
func (l *lexer) report(msg string, readRest bool) {
	if l.lineno <= 0 {
		fmt.Fprintf(l.errs, "Error Parsing ASCII PMNS: %s\n", msg)
		return
	}
	if readRest {
		l.colonPending = false
		for !l.lastNL {
			if l.readc() == errOverflow {
				return
			}
		}
	}
	fmt.Fprintf(l.errs, "[%s:%d] Error Parsing ASCII PMNS: %s\n", l.fname, l.lineno, msg)
	l.printLine()
}

// printLine prints the buffer and the caret line, which it leaves in the
// buffer.
func (l *lexer) printLine() {
	s := l.cstr()
	l.errs.WriteString("    ")
	l.errs.Write(s)
	if len(s) == 0 || s[len(s)-1] != '\n' {
		l.errs.WriteByte('\n')
	}
	if l.tokpos < 0 {
		return
	}
	if l.rawCaret != nil {
		copy(l.buf, l.rawCaret)
		l.rawCaret = nil
	}
	for i := 0; i < l.tokpos; i++ {
		if !cnum.IsSpace(l.buf[i]) {
			l.buf[i] = ' '
		}
	}
	l.buf[l.tokpos] = '^'
	l.buf[l.tokpos+1] = 0
	l.n = l.tokpos + 1
	l.errs.WriteString("    ")
	l.errs.Write(l.buf[:l.tokpos+1])
	l.errs.WriteByte('\n')
}

// overflow reports a line longer than the lexer's buffer. The real libpcp
// overruns its buffer here; the line number it shows is one short and the
// last two characters are repeated.
func (l *lexer) overflow() {
	if l.lineno-1 <= 0 {
		fmt.Fprintf(l.errs, "Error Parsing ASCII PMNS: Absurdly long line, cannot recover\n")
		return
	}
	fmt.Fprintf(l.errs, "[%s:%d] Error Parsing ASCII PMNS: Absurdly long line, cannot recover\n", l.fname, l.lineno-1)
	s := append([]byte{}, l.buf[:l.n]...)
	s = append(s, l.buf[l.n-2:l.n]...)
	copy(l.buf, s)
	l.buf[len(s)] = 0
	l.n = len(s)
	l.printLine()
}

// lex returns the next token.
func (l *lexer) lex() token {
	if l.colonPending {
		l.colonPending = false
		start := l.colonAt
		for start > 0 && l.in[start-1] != '\n' {
			start--
		}
		if col := l.colonAt - start; col < len(l.buf)-1 {
			// What libpcp's buffer then holds: the line as recorded so far,
			// then the raw line.
			m := l.n
			if m > 0 && l.buf[m-1] == '\n' {
				m--
			}
			raw := append([]byte{}, l.in[start:l.colonAt]...)
			copy(raw, l.buf[:min(m, len(raw))])
			l.tokpos = col
			l.rawCaret = raw
			return l.classify(":")
		}
	}
	var c int
	for {
		c = l.readc()
		if c == errOverflow {
			return token{kind: tokFatal}
		}
		if c < 0 {
			return token{kind: tokEOF}
		}
		if cnum.IsSpace(byte(c)) {
			continue
		}
		if c == '#' && l.n == 1 {
			if !l.lineMarker() {
				return token{kind: tokFatal}
			}
			continue
		}
		break
	}
	start := l.n - 1
	word := []byte{byte(c)}
	for {
		c = l.readc()
		if c == errOverflow {
			return token{kind: tokFatal}
		}
		if c < 0 || cnum.IsSpace(byte(c)) {
			break
		}
		word = append(word, byte(c))
	}
	l.tokpos = start
	return l.classify(string(word))
}

// lineMarker reads the rest of a `# N "FILE"` line (the '#' has been read).
func (l *lexer) lineMarker() bool {
	c := l.readc()
	for c >= 0 && isBlank(byte(c)) {
		c = l.readc()
	}
	var digits []byte
	neg := false
	if c == '+' || c == '-' {
		neg = c == '-'
		c = l.readc()
	}
	for c >= 0 && isDigit(byte(c)) {
		digits = append(digits, byte(c))
		c = l.readc()
	}
	if c == errOverflow {
		return false
	}
	if len(digits) == 0 {
		// The marker line does not count, and no number replaces it.
		l.lineno--
		l.report("Illegal line number control number", true)
		return false
	}
	l.lineno = cInt(digits, neg)
	for c >= 0 && isBlank(byte(c)) {
		c = l.readc()
	}
	var word []byte
	for c >= 0 && !cnum.IsSpace(byte(c)) {
		word = append(word, byte(c))
		c = l.readc()
	}
	if c == errOverflow {
		return false
	}
	if len(word) == 0 || word[0] != '"' {
		l.report("Illegal line number control number", true)
		return false
	}
	// The name is the next word after the quote (past white space), minus
	// its last character.
	word = word[1:]
	if len(word) == 0 {
		for c >= 0 && isBlank(byte(c)) {
			c = l.readc()
		}
		for c >= 0 && !cnum.IsSpace(byte(c)) {
			word = append(word, byte(c))
			c = l.readc()
		}
		if c == errOverflow {
			return false
		}
		if len(word) == 0 {
			l.report("Illegal line number control number", true)
			return false
		}
	}
	l.fname = string(word[:len(word)-1])
	for !l.lastNL {
		if l.readc() == errOverflow {
			return false
		}
	}
	// The newline just read ends the marker line: the next line is N.
	l.lineno--
	return true
}

// cInt converts decimal digits as C's %d does on Linux: strtol saturates at
// the range of a long and the result is truncated to an int.
func cInt(digits []byte, neg bool) int {
	var v uint64
	const max = 1<<63 - 1
	for _, d := range digits {
		if v > (max-uint64(d-'0'))/10 {
			v = max
			if neg {
				v = 1 << 63
			}
			break
		}
		v = v*10 + uint64(d-'0')
	}
	x := int64(v)
	if neg && v != 1<<63 {
		x = -x
	}
	return int(int32(x))
}

// scanPMID mimics sscanf(w, "%d:%d:%d"): it returns how many numbers it read.
func scanPMID(w string) (vals [3]int, n int) {
	i := 0
	for n < 3 {
		if n > 0 {
			if i >= len(w) || w[i] != ':' {
				return
			}
			i++
		}
		j := i
		for j < len(w) && isDigit(w[j]) {
			j++
		}
		if j == i {
			return
		}
		vals[n] = cInt([]byte(w[i:j]), false)
		n++
		i = j
	}
	return
}

func (l *lexer) classify(w string) token {
	switch {
	case w == "{":
		return token{kind: tokLBrace, text: w}
	case w == "}":
		return token{kind: tokRBrace, text: w}
	case isAlpha(w[0]):
		kind := tokName
		for i := 1; i < len(w); i++ {
			switch {
			case isIdent(w[i]):
			case w[i] == '.':
				kind = tokPath
			default:
				return token{kind: tokJunk, text: w}
			}
		}
		return token{kind: kind, text: w}
	case isDigit(w[0]) || w[0] == ':' || w[0] == '*':
		if strings.Count(w, ":") > 3 || strings.Trim(w, "0123456789:*") != "" {
			return token{kind: tokJunk, text: w}
		}
		v, n := scanPMID(w)
		if n == 3 {
			switch {
			case v[0] > 510:
				l.report("Illegal domain field in PMID", true)
			case v[1] > 4095:
				l.report("Illegal cluster field in PMID", true)
			case v[2] > 1023:
				l.report("Illegal item field in PMID", true)
			default:
				return token{kind: tokPMID, text: w, pmid: pmapi.NewPMID(uint32(v[0]), uint32(v[1]), uint32(v[2]))}
			}
			return token{kind: tokJunk, text: w}
		}
		colon := strings.IndexByte(w, ':')
		if n >= 1 && (colon < 0 || w[colon:] == ":*:*") {
			if v[0] > 510 {
				l.report("Illegal domain field in dynamic PMID", true)
				return token{kind: tokJunk, text: w}
			}
			return token{kind: tokDyn, text: w, pmid: pmapi.NewPMID(pmapi.DynamicDomain, uint32(v[0]), 0)}
		}
		l.report("Illegal PMID", true)
		return token{kind: tokJunk, text: w}
	}
	return token{kind: tokJunk, text: w}
}

// defNode is one "path { ... }" definition.
type defNode struct {
	path     string
	children []defChild
	linked   bool
}

type defChild struct {
	name    string
	leaf    bool
	dynamic bool
	pmid    pmapi.PMID
}

// parse reads pmcpp's output into node definitions. It returns false after
// printing an error.
func parse(in []byte, errs *strings.Builder) ([]*defNode, bool) {
	l := newLexer(in, errs)
	var nodes []*defNode
	bad := func(t token, msg string) bool {
		if t.kind != tokFatal {
			l.report(msg, true)
		}
		return false
	}
	for {
		t := l.lex()
		switch t.kind {
		case tokEOF:
			return nodes, true
		case tokName, tokPath:
		default:
			return nil, bad(t, "Expected NAME or PATH")
		}
		nd := &defNode{path: t.text}
		nodes = append(nodes, nd)
		t = l.lex()
		if t.kind == tokEOF {
			return nodes, true
		}
		if t.kind != tokLBrace {
			return nil, bad(t, "{ expected")
		}
		pending := ""
		for done := false; !done; {
			t = l.lex()
			switch t.kind {
			case tokEOF:
				// A node left open at the end is complete, unchecked.
				if pending != "" {
					nd.children = append(nd.children, defChild{name: pending})
				}
				return nodes, true
			case tokRBrace:
				if pending != "" {
					nd.children = append(nd.children, defChild{name: pending})
				}
				if dup := duplicate(nd.children); dup != "" {
					l.dupError(fmt.Sprintf("Duplicate name \"%s\" in subtree for \"%s\"\n", dup, nd.path))
					return nil, false
				}
				done = true
			case tokName:
				if pending != "" {
					nd.children = append(nd.children, defChild{name: pending})
				}
				pending = t.text
			case tokPMID, tokDyn:
				if pending == "" {
					return nil, bad(t, "Expected NAME or }")
				}
				nd.children = append(nd.children, defChild{name: pending, leaf: true, dynamic: t.kind == tokDyn, pmid: t.pmid})
				pending = ""
			default:
				if pending != "" {
					return nil, bad(t, "Expected NAME, PMID or }")
				}
				return nil, bad(t, "Expected NAME or }")
			}
		}
	}
}

// duplicate returns the first child name that a later sibling repeats.
func duplicate(children []defChild) string {
	count := make(map[string]int, len(children))
	for _, c := range children {
		count[c.name]++
	}
	for _, c := range children {
		if count[c.name] > 1 {
			return c.name
		}
	}
	return ""
}

// dupError reports a duplicate name: libpcp formats the message into its line
// buffer, so the buffer shows the message (see the file comment).
func (l *lexer) dupError(msg string) {
	if l.lineno <= 0 {
		fmt.Fprintf(l.errs, "Error Parsing ASCII PMNS: %s\n", msg)
		return
	}
	for !l.lastNL {
		if l.readc() == errOverflow {
			return
		}
	}
	if need := len(msg) + 1; need > len(l.buf) {
		l.buf = append(l.buf, make([]byte, need-len(l.buf))...)
	}
	copy(l.buf, msg)
	l.buf[len(msg)] = 0
	l.n = len(msg)
	fmt.Fprintf(l.errs, "[%s:%d] Error Parsing ASCII PMNS: %s\n", l.fname, l.lineno, msg)
	l.printLine()
}

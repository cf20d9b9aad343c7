package derive

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// matchinst() patterns are POSIX extended regular expressions, compiled by
// libpcp with regcomp(REG_EXTENDED|REG_NOSUB) from glibc, in the C locale.
// compileERE parses the pattern as glibc does, reports glibc's error
// messages (regerror) for patterns glibc refuses, and translates the rest
// into Go's regexp syntax. Where Go's regexp differs:
//
//   - glibc accepts a repetition of a repetition ("a**", "a+?", "a{2}*");
//     Go refuses nested repetition operators: translated by grouping,
//     (?:a*)*;
//   - an unmatched ")" is an ordinary character in glibc, an error in Go:
//     translated to \);
//   - "\c" for an ordinary character c is that character in glibc, but
//     "\n", "\d", "\x41" ... are escapes in Go: translated to the literal;
//   - a backslash inside [...] is an ordinary character in POSIX, an
//     escape in Go: translated;
//   - "." matches a newline in glibc (no REG_NEWLINE): the (?s) flag;
//   - GNU \w \W \s \S are translated to their C-locale classes (glibc's
//     \s includes \v, Go's does not), \` and \' to \A and \z;
//   - [[.c.]] and [[=c=]] (single characters in the C locale) are
//     translated to the character;
//   - bytes are characters in the C locale, runes in Go: bytes >= 0x80
//     are translated to the rune of the same value, and MatchInstName
//     maps instance names the same way (Latin-1), so matching is per byte;
//   - whether a pattern matches is the same under POSIX leftmost-longest
//     and Go's leftmost-first rules (REG_NOSUB only asks that).
//
// Known difference: glibc lets "^" and "$" that are not at the start or
// end of the pattern also match just after or before a newline in the
// subject ("$." matches "\n", ".^b" matches "a\nb"), while "^b" and "a$"
// do not match "a\nb"; pcpkit's anchors match only at the ends of the
// instance name. Instance names with newlines do not occur in practice.
//
// Refused, with an error that says so, because Go's regexp cannot do them:
// back-references (\1 ... \9), the GNU word anchors \< and \>, and
// repetition counts above 1000 (glibc allows up to 32767).

// glibc's regerror texts.
const (
	reBadPat   = "Invalid regular expression"
	reECollate = "Invalid collation character"
	reECtype   = "Invalid character class name"
	reEEscape  = "Trailing backslash"
	reESubreg  = "Invalid back reference"
	reEBrack   = "Unmatched [, [^, [:, [., or [="
	reEParen   = "Unmatched ( or \\("
	reEBrace   = "Unmatched \\{"
	reBadBr    = "Invalid content of \\{\\}"
	reERange   = "Invalid range end"
	reESize    = "Regular expression too big"
	reBadRpt   = "Invalid preceding regular expression"
)

// ereError is a pattern error; Unsupported marks the ones glibc accepts
// but pcpkit cannot translate.
type ereError struct {
	Msg         string
	Unsupported bool
}

func (e *ereError) Error() string { return e.Msg }

func unsupported(format string, args ...any) error {
	return &ereError{Msg: "not supported by pcpkit: " + fmt.Sprintf(format, args...), Unsupported: true}
}

const reDupMax = 0x7fff // RE_DUP_MAX
const goRepeatMax = 1000

type ereParser struct {
	s         string
	i         int
	nsub      int
	completed uint32 // groups 1..9 closed so far (glibc's completed_bkref_map)
}

// ERE token kinds.
const (
	eEnd = iota
	eChar
	eAlt
	eStar
	ePlus
	eQuest
	eOpenBrace
	eCloseBrace
	eOpen
	eClose
	eBracket
	ePeriod
	eAnchor // text holds the Go form
	eClass  // \w \W \s \S; text holds the Go form
	eBackRef
	eBackSlash // a trailing backslash
)

type ereTok struct {
	kind int
	c    byte
	text string
	n    int
}

func (p *ereParser) peek() (ereTok, int) {
	if p.i >= len(p.s) {
		return ereTok{kind: eEnd}, 0
	}
	c := p.s[p.i]
	switch c {
	case '\\':
		if p.i+1 >= len(p.s) {
			return ereTok{kind: eBackSlash}, 1
		}
		c2 := p.s[p.i+1]
		switch {
		case c2 >= '1' && c2 <= '9':
			return ereTok{kind: eBackRef, n: int(c2 - '0')}, 2
		case c2 == '<' || c2 == '>':
			return ereTok{kind: eAnchor, c: c2}, 2
		case c2 == 'b':
			return ereTok{kind: eAnchor, c: c2, text: `\b`}, 2
		case c2 == 'B':
			return ereTok{kind: eAnchor, c: c2, text: `\B`}, 2
		case c2 == '`':
			return ereTok{kind: eAnchor, c: c2, text: `\A`}, 2
		case c2 == '\'':
			return ereTok{kind: eAnchor, c: c2, text: `\z`}, 2
		case c2 == 'w':
			return ereTok{kind: eClass, text: `[0-9A-Za-z_]`}, 2
		case c2 == 'W':
			return ereTok{kind: eClass, text: `[^0-9A-Za-z_]`}, 2
		case c2 == 's':
			return ereTok{kind: eClass, text: `[\t\n\v\f\r ]`}, 2
		case c2 == 'S':
			return ereTok{kind: eClass, text: `[^\t\n\v\f\r ]`}, 2
		}
		return ereTok{kind: eChar, c: c2}, 2
	case '|':
		return ereTok{kind: eAlt}, 1
	case '*':
		return ereTok{kind: eStar}, 1
	case '+':
		return ereTok{kind: ePlus}, 1
	case '?':
		return ereTok{kind: eQuest}, 1
	case '{':
		return ereTok{kind: eOpenBrace}, 1
	case '}':
		return ereTok{kind: eCloseBrace, c: c}, 1
	case '(':
		return ereTok{kind: eOpen}, 1
	case ')':
		return ereTok{kind: eClose, c: c}, 1
	case '[':
		return ereTok{kind: eBracket}, 1
	case '.':
		return ereTok{kind: ePeriod}, 1
	case '^':
		return ereTok{kind: eAnchor, c: c, text: `^`}, 1
	case '$':
		return ereTok{kind: eAnchor, c: c, text: `$`}, 1
	}
	return ereTok{kind: eChar, c: c}, 1
}

func (p *ereParser) fetch() ereTok {
	t, n := p.peek()
	p.i += n
	return t
}

// goLiteral is the Go syntax for the byte c as a character.
func goLiteral(c byte) string {
	if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		return string(c)
	}
	return fmt.Sprintf(`\x{%x}`, c)
}

// compileERE compiles a matchinst() pattern; errors are *ereError.
func compileERE(s string) (*regexp.Regexp, error) {
	p := &ereParser{s: s}
	tok := p.fetch()
	out, err := p.regexp(&tok, 0)
	if err != nil {
		return nil, err
	}
	re, cerr := regexp.Compile("(?s)" + out)
	if cerr != nil {
		return nil, unsupported("%v", cerr)
	}
	return re, nil
}

// regexp parses branches separated by "|"; tok is the current token.
func (p *ereParser) regexp(tok *ereTok, nest int) (string, error) {
	var branches []string
	for {
		var b string
		if tok.kind != eAlt && tok.kind != eEnd && (nest == 0 || tok.kind != eClose) {
			var err error
			if b, err = p.branch(tok, nest); err != nil {
				return "", err
			}
		}
		branches = append(branches, b)
		if tok.kind != eAlt {
			break
		}
		*tok = p.fetch()
	}
	return strings.Join(branches, "|"), nil
}

func (p *ereParser) branch(tok *ereTok, nest int) (string, error) {
	var b strings.Builder
	for tok.kind != eAlt && tok.kind != eEnd && (nest == 0 || tok.kind != eClose) {
		e, err := p.expression(tok, nest)
		if err != nil {
			return "", err
		}
		b.WriteString(e)
	}
	return b.String(), nil
}

// expression parses one atom and its repetitions.
func (p *ereParser) expression(tok *ereTok, nest int) (string, error) {
	var atom string
	switch tok.kind {
	case eChar, eClose, eCloseBrace:
		atom = goLiteral(tok.c)
	case ePeriod:
		atom = "."
	case eClass:
		atom = tok.text
	case eOpen:
		p.nsub++
		n := p.nsub
		*tok = p.fetch()
		inner := ""
		if tok.kind != eClose {
			var err error
			if inner, err = p.regexp(tok, nest+1); err != nil {
				return "", err
			}
			if tok.kind != eClose {
				return "", &ereError{Msg: reEParen}
			}
		}
		if n <= 9 {
			p.completed |= 1 << n
		}
		atom = "(?:" + inner + ")"
	case eBracket:
		var err error
		if atom, err = p.bracket(); err != nil {
			return "", err
		}
	case eBackRef:
		if p.completed&(1<<tok.n) == 0 {
			return "", &ereError{Msg: reESubreg}
		}
		return "", unsupported("back-reference \\%d", tok.n)
	case eStar, ePlus, eQuest, eOpenBrace:
		return "", &ereError{Msg: reBadRpt}
	case eAnchor:
		if tok.c == '<' || tok.c == '>' {
			return "", unsupported("word anchor \\%c", tok.c)
		}
		// anchors cannot be repeated: the next token starts a new
		// expression (so "^*" fails there)
		atom = tok.text
		*tok = p.fetch()
		return atom, nil
	case eBackSlash:
		return "", &ereError{Msg: reEEscape}
	default:
		return "", &ereError{Msg: reBadPat}
	}
	*tok = p.fetch()
	for {
		switch tok.kind {
		case eStar:
			atom = "(?:" + atom + ")*"
		case ePlus:
			atom = "(?:" + atom + ")+"
		case eQuest:
			atom = "(?:" + atom + ")?"
		case eOpenBrace:
			rep, err := p.interval(tok)
			if err != nil {
				return "", err
			}
			atom = "(?:" + atom + ")" + rep
		default:
			return atom, nil
		}
		*tok = p.fetch()
	}
}

// fetchNumber reads an interval number as glibc's fetch_number: -1 for
// none, -2 for an invalid one; it stops after "}" or "," or at the end.
func (p *ereParser) fetchNumber(tok *ereTok) int {
	num := -1
	for {
		*tok = p.fetch()
		if tok.kind == eEnd {
			return -2
		}
		if tok.kind == eCloseBrace || tok.kind == eChar && tok.c == ',' {
			return num
		}
		switch {
		case tok.kind != eChar || tok.c < '0' || tok.c > '9' || num == -2:
			num = -2
		case num == -1:
			num = int(tok.c - '0')
		default:
			num = num*10 + int(tok.c-'0')
			if num > reDupMax+1 {
				num = reDupMax + 1
			}
		}
	}
}

// interval parses "{n}", "{n,}", "{,m}" or "{n,m}" after the "{"; tok is
// left on the closing "}".
func (p *ereParser) interval(tok *ereTok) (string, error) {
	start := p.fetchNumber(tok)
	end := 0
	if start == -1 {
		if tok.kind == eChar && tok.c == ',' {
			start = 0
		} else {
			return "", &ereError{Msg: reBadBr}
		}
	}
	if start != -2 {
		switch {
		case tok.kind == eCloseBrace:
			end = start
		case tok.kind == eChar && tok.c == ',':
			end = p.fetchNumber(tok)
		default:
			end = -2
		}
	}
	if start == -2 || end == -2 {
		if tok.kind == eEnd {
			return "", &ereError{Msg: reEBrace}
		}
		return "", &ereError{Msg: reBadBr}
	}
	if end != -1 && start > end || tok.kind != eCloseBrace {
		return "", &ereError{Msg: reBadBr}
	}
	max := end
	if end == -1 {
		max = start
	}
	if max > reDupMax {
		return "", &ereError{Msg: reESize}
	}
	if max > goRepeatMax {
		return "", unsupported("repetition count %d (the limit is %d)", max, goRepeatMax)
	}
	switch {
	case end == -1:
		return "{" + strconv.Itoa(start) + ",}", nil
	case end == start:
		return "{" + strconv.Itoa(start) + "}", nil
	}
	return "{" + strconv.Itoa(start) + "," + strconv.Itoa(end) + "}", nil
}

// bracket element kinds
const (
	bChar = iota
	bColl
	bEquiv
	bClass
)

type bracketElem struct {
	kind int
	c    byte
	name string
}

// bracket tokens
const (
	btEnd = iota
	btChar
	btRange // '-'
	btClose // ']'
	btNot   // '^'
	btOpenColl
	btOpenEquiv
	btOpenClass
)

func (p *ereParser) peekBracket() (int, byte, int) {
	if p.i >= len(p.s) {
		return btEnd, 0, 0
	}
	c := p.s[p.i]
	if c == '[' && p.i+1 < len(p.s) {
		switch p.s[p.i+1] {
		case '.':
			return btOpenColl, '.', 2
		case '=':
			return btOpenEquiv, '=', 2
		case ':':
			return btOpenClass, ':', 2
		}
		return btChar, c, 1
	}
	switch c {
	case '-':
		return btRange, c, 1
	case ']':
		return btClose, c, 1
	case '^':
		return btNot, c, 1
	}
	return btChar, c, 1
}

var charClasses = map[string]bool{
	"alpha": true, "upper": true, "lower": true, "digit": true, "xdigit": true, "space": true,
	"print": true, "punct": true, "graph": true, "cntrl": true, "blank": true, "alnum": true,
}

// bracketSymbol reads the name of [:name:], [.name.] or [=name=].
func (p *ereParser) bracketSymbol(delim byte) (string, error) {
	if p.i >= len(p.s) {
		return "", &ereError{Msg: reEBrack}
	}
	var name []byte
	for i := 0; ; i++ {
		if i >= 32 {
			return "", &ereError{Msg: reEBrack}
		}
		ch := p.s[p.i]
		p.i++
		if p.i >= len(p.s) {
			return "", &ereError{Msg: reEBrack}
		}
		if ch == delim && p.s[p.i] == ']' {
			break
		}
		name = append(name, ch)
	}
	p.i++
	return string(name), nil
}

func (p *ereParser) bracketElement(kind int, c byte, n int, acceptHyphen bool) (bracketElem, error) {
	p.i += n
	switch kind {
	case btOpenColl, btOpenEquiv, btOpenClass:
		name, err := p.bracketSymbol(c)
		if err != nil {
			return bracketElem{}, err
		}
		k := map[int]int{btOpenColl: bColl, btOpenEquiv: bEquiv, btOpenClass: bClass}[kind]
		return bracketElem{kind: k, name: name}, nil
	case btRange:
		if !acceptHyphen {
			if k, _, _ := p.peekBracket(); k != btClose {
				return bracketElem{}, &ereError{Msg: reERange}
			}
		}
	}
	return bracketElem{kind: bChar, c: c}, nil
}

// elemChar is the single character of a character, collating or
// equivalence element (in the C locale these are one byte long).
func elemChar(e bracketElem) (byte, error) {
	if e.kind == bChar {
		return e.c, nil
	}
	if len(e.name) != 1 {
		return 0, &ereError{Msg: reECollate}
	}
	return e.name[0], nil
}

func (p *ereParser) bracket() (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	kind, c, n := p.peekBracket()
	if kind == btEnd {
		return "", &ereError{Msg: reBadPat}
	}
	if kind == btNot {
		b.WriteByte('^')
		p.i += n
		if kind, c, n = p.peekBracket(); kind == btEnd {
			return "", &ereError{Msg: reBadPat}
		}
	}
	if kind == btClose {
		kind = btChar // the first ']' is an ordinary character
	}
	first := true
	for {
		start, err := p.bracketElement(kind, c, n, first)
		if err != nil {
			return "", err
		}
		first = false
		isRange := false
		var endKind, endN int
		var endC byte
		kind, c, n = p.peekBracket()
		if start.kind != bClass && start.kind != bEquiv {
			if kind == btEnd {
				return "", &ereError{Msg: reEBrack}
			}
			if kind == btRange {
				p.i += n
				endKind, endC, endN = p.peekBracket()
				if endKind == btEnd {
					return "", &ereError{Msg: reEBrack}
				}
				if endKind == btClose {
					p.i -= n // the last '-' is an ordinary character
					kind = btChar
				} else {
					isRange = true
				}
			}
		}
		if isRange {
			end, err := p.bracketElement(endKind, endC, endN, true)
			if err != nil {
				return "", err
			}
			kind, c, n = p.peekBracket()
			if start.kind == bClass || start.kind == bEquiv || end.kind == bClass || end.kind == bEquiv {
				return "", &ereError{Msg: reERange}
			}
			lo, err := elemChar(start)
			if err != nil {
				return "", err
			}
			hi, err := elemChar(end)
			if err != nil {
				return "", err
			}
			if lo > hi {
				return "", &ereError{Msg: reERange}
			}
			b.WriteString(`\x{` + strconv.FormatUint(uint64(lo), 16) + `}-\x{` + strconv.FormatUint(uint64(hi), 16) + `}`)
		} else {
			switch start.kind {
			case bClass:
				if !charClasses[start.name] {
					return "", &ereError{Msg: reECtype}
				}
				b.WriteString("[:" + start.name + ":]")
			default:
				ch, err := elemChar(start)
				if err != nil {
					return "", err
				}
				b.WriteString(`\x{` + strconv.FormatUint(uint64(ch), 16) + `}`)
			}
		}
		if kind == btEnd {
			return "", &ereError{Msg: reEBrack}
		}
		if kind == btClose {
			p.i += n
			break
		}
	}
	b.WriteByte(']')
	return b.String(), nil
}

// MatchInstName reports whether the instance name matches a matchinst()
// node's pattern (before Invert is applied). Names are matched byte by
// byte, as glibc does in the C locale.
func (n *Node) MatchInstName(name string) bool {
	if n.Regexp == nil {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return n.Regexp.MatchString(latin1Runes(name))
		}
	}
	return n.Regexp.MatchString(name)
}

func latin1Runes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

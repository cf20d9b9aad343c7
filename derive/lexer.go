package derive

import "strings"

// tok is a lexical token type. derive/internal/grammar gives the
// grammar's terminal (libpcp's L_ name) for each.
type tok int

const (
	tUndef tok = iota
	tError     // L_ERROR: the lexer found something amiss (the message is set)
	tEOS
	tPlus
	tMinus
	tStar
	tSlash
	tQuest
	tColon
	tLParen
	tRParen
	tAvg
	tCount
	tDelta
	tMax
	tMin
	tSum
	tAnon
	tRate
	tInstant
	tLT
	tLEQ
	tEQ
	tGEQ
	tGT
	tNEQ
	tAnd
	tOr
	tNot
	tMkconst
	tRescale
	tDefined
	tMatchinst
	tScalar
	tNovalue // DialectCurrent only
	tType
	tSemantics
	tUnits
	tMeta // DialectCurrent only
	tAssign
	tComma
	tInteger
	tDouble
	tName
	tString
	tInstname
	tPattern
	numToks
)

// Messages the lexer sets.
const (
	msgIllegalChar    = "Illegal character"
	msgTooLarge       = "Constant value too large"
	msgUntermString   = "unterminated STRING"
	msgUntermInstname = "unterminated instance name"
	msgUntermPattern  = "unterminated pattern"
)

// cEOF is C's EOF. A byte 0xff read through a (signed) char is also -1,
// so libpcp's lexer takes it for the end of the input; this one does too.
const cEOF = -1

// lexer reproduces libpcp's hand-written derived metric lexer, character
// by character, because where it stops decides the position libpcp
// reports for a syntax error:
//
//   - the position of a token is that of its first character; at the end
//     of the input it is that of the last character (-1 for "");
//   - a NAME is [A-Za-z][A-Za-z0-9_.]*; a name immediately followed by "("
//     that is a function name is that function's token; "type",
//     "semantics" and "units" (and "meta" in DialectCurrent) are keywords
//     wherever they appear;
//   - an INTEGER is [0-9]+ and must fit 32 bits unsigned; a "." turns it
//     (or starts) a DOUBLE, which ends at the next non-digit, so "." alone
//     is a DOUBLE and "1.2.3" is 1.2 then .3;
//   - "[...]" is an instance name and "/.../" (only inside matchinst()) a
//     pattern, both with "\" escaping the next character; "..." is a
//     string with no escapes;
//   - a byte 0xff ends the input when it starts a token, and ends the
//     current token otherwise (C's EOF through a signed char); the input
//     also ends at a NUL byte.
type lexer struct {
	src     string
	pos     int // index of the next byte (libpcp's "string")
	peek    int // pushed back character (libpcp's "lexpeek"), 0 for none
	lexicon int // start of the current token
	current bool
	// inMatchinst is libpcp's in_matchinst: set when "matchinst(" is
	// read, cleared when the matchinst(...) rule is reduced. It is not
	// cleared by a syntax error, so it leaks into the next registration
	// (libpcp 6.0.3 does this; the Registry keeps it).
	inMatchinst *bool
	errmsg      *string // set by the lexer; overrides the parser's messages
	text        string  // the value of the last NAME, INTEGER, ... token
}

func newLexer(src string, dialect Dialect, inMatchinst *bool, errmsg *string) *lexer {
	if i := strings.IndexByte(src, 0); i >= 0 {
		src = src[:i]
	}
	return &lexer{src: src, current: dialect == DialectCurrent, inMatchinst: inMatchinst, errmsg: errmsg}
}

func (l *lexer) get() int {
	if l.peek != 0 {
		c := l.peek
		l.peek = 0
		return c
	}
	if l.pos >= len(l.src) {
		return cEOF
	}
	c := int(int8(l.src[l.pos]))
	l.pos++
	return c
}

func (l *lexer) unget(c int) { l.peek = c }

func cIsSpace(c int) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func cIsDigit(c int) bool { return c >= '0' && c <= '9' }
func cIsAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var funcTokens = map[string]tok{
	"avg": tAvg, "count": tCount, "delta": tDelta, "max": tMax, "min": tMin, "sum": tSum,
	"anon": tAnon, "rate": tRate, "instant": tInstant, "mkconst": tMkconst,
	"rescale": tRescale, "defined": tDefined, "matchinst": tMatchinst, "scalar": tScalar,
}

func (l *lexer) setErr(msg string) { *l.errmsg = msg }

// next returns the next token; l.text holds its value and l.lexicon its
// position.
func (l *lexer) next() tok {
	var buf []byte
	ltype := tUndef
	firstch := true
	escape := false
	for {
		c := l.get()
		if firstch {
			if cIsSpace(c) {
				continue
			}
			l.lexicon = l.pos - 1
			firstch = false
		}
		if c == cEOF {
			if ltype == tUndef {
				return tEOS
			}
			c = 0 // force the end of the token
		}
		buf = append(buf, byte(c))
		if ltype == tUndef {
			switch {
			case cIsDigit(c):
				ltype = tInteger
			case c == '.':
				ltype = tDouble
			case cIsAlpha(c):
				ltype = tName
			default:
				switch c {
				case '+':
					return tPlus
				case '-':
					return tMinus
				case '*':
					return tStar
				case '/':
					if !*l.inMatchinst {
						return tSlash
					}
					ltype = tPattern
				case '(':
					return tLParen
				case ')':
					return tRParen
				case '<':
					ltype = tLT
				case '=':
					ltype = tEQ
				case '>':
					ltype = tGT
				case '!':
					ltype = tNEQ
				case '&':
					ltype = tAnd
				case '|':
					ltype = tOr
				case '?':
					return tQuest
				case ':':
					return tColon
				case ',':
					return tComma
				case '"':
					ltype = tString
				case '[':
					ltype = tInstname
				default:
					l.setErr(msgIllegalChar)
					return tError
				}
			}
			continue
		}
		switch ltype {
		case tInteger:
			if c == '.' {
				ltype = tDouble
			} else if !cIsDigit(c) {
				l.unget(c)
				l.text = string(buf[:len(buf)-1])
				if !fitsU32(l.text) {
					l.setErr(msgTooLarge)
					return tError
				}
				return tInteger
			}
		case tDouble:
			if !cIsDigit(c) {
				l.unget(c)
				l.text = string(buf[:len(buf)-1])
				return tDouble
			}
		case tName:
			if cIsAlpha(c) || cIsDigit(c) || c == '_' || c == '.' {
				continue
			}
			name := string(buf[:len(buf)-1])
			if c == '(' {
				if t, ok := funcTokens[name]; ok {
					l.unget(c)
					if t == tMatchinst {
						*l.inMatchinst = true
					}
					return t
				}
				if l.current && name == "novalue" {
					l.unget(c)
					return tNovalue
				}
			}
			l.unget(c)
			switch name {
			case "type":
				return tType
			case "semantics":
				return tSemantics
			case "units":
				return tUnits
			case "meta":
				if l.current {
					return tMeta
				}
			}
			l.text = name
			return tName
		case tString:
			if c != '"' {
				if c == 0 {
					l.setErr(msgUntermString)
					return tError
				}
				continue
			}
			l.text = string(buf[1 : len(buf)-1])
			return tString
		case tInstname, tPattern:
			if escape && c != 0 {
				escape = false
				continue
			}
			if !escape && c == '\\' {
				buf = buf[:len(buf)-1]
				escape = true
				continue
			}
			end := byte(']')
			if ltype == tPattern {
				end = '/'
			}
			if c != int(end) {
				if c == 0 {
					if ltype == tPattern {
						l.setErr(msgUntermPattern)
					} else {
						l.setErr(msgUntermInstname)
					}
					return tError
				}
				continue
			}
			l.text = string(buf[1 : len(buf)-1])
			return ltype
		case tLT, tGT, tEQ, tNEQ:
			if c == '=' {
				switch ltype {
				case tLT:
					return tLEQ
				case tGT:
					return tGEQ
				}
				return ltype // tEQ "==" or tNEQ "!="
			}
			l.unget(c)
			switch ltype {
			case tEQ:
				return tAssign
			case tNEQ:
				return tNot
			}
			return ltype
		case tAnd, tOr:
			want := '&'
			if ltype == tOr {
				want = '|'
			}
			if c == int(want) {
				return ltype
			}
			l.unget(c)
			l.setErr(msgIllegalChar)
			return tError
		}
	}
}

// fitsU32 is strtoull(s) <= 0xffffffff for a string of digits.
func fitsU32(s string) bool {
	s = strings.TrimLeft(s, "0")
	return len(s) < 10 || len(s) == 10 && s <= "4294967295"
}

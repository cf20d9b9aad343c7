package loggerconf

import (
	"math"
	"regexp"
)

// tokKind is a token of pmlogger's lexer (lex.l).
type tokKind int

const (
	tEOF tokKind = iota
	tLSQB
	tRSQB
	tComma
	tLBrace
	tRBrace
	tColon
	tSemicolon
	tLog
	tMandatory
	tAdvisory
	tOn
	tOff
	tMaybe
	tEvery
	tOnce
	tDefault
	tMsec
	tSecond
	tMinute
	tHour
	tAccess
	tEnquire
	tAllow
	tDisallow
	tAll
	tExcept
	tName
	tString
	tIPSpec
	tHostname
	tURL
	tNumber
)

// token is one token with the value the lexer gives it.
type token struct {
	kind tokKind
	text string // NAME, STRING (without quotes), IPSPEC, HOSTNAME, URL, keyword text
	num  int64  // NUMBER (atol: saturating)
	line int    // lexer line count after the token was read
}

// lexRule is one flex rule: flex picks the longest match, the earliest
// rule on a tie.
type lexRule struct {
	re   *regexp.Regexp
	kind tokKind
	kw   bool // keyword: a NAME while the parser is inside { }
}

func rule(pat string, kind tokKind) lexRule {
	re := regexp.MustCompile(`\A(?:` + pat + `)`)
	re.Longest()
	return lexRule{re: re, kind: kind}
}

func kwRule(pat string, kind tokKind) lexRule {
	r := rule(pat, kind)
	r.kw = true
	return r
}

// The rules of lex.l, in order. The single-character punctuation, the
// line marker (anchored at the start of a line), the comment, blanks,
// newline and the catch-all are handled in lexer.next.
var lexRules = []lexRule{
	kwRule(`milliseconds?`, tMsec),
	kwRule(`mandatory`, tMandatory),
	kwRule(`advisory`, tAdvisory),
	kwRule(`disallow`, tDisallow),
	kwRule(`minutes?`, tMinute),
	kwRule(`seconds?`, tSecond),
	kwRule(`default`, tDefault),
	kwRule(`enquire`, tEnquire),
	kwRule(`access`, tAccess),
	kwRule(`except`, tExcept),
	kwRule(`allow`, tAllow),
	kwRule(`every`, tEvery),
	kwRule(`maybe`, tMaybe),
	kwRule(`hours?`, tHour),
	kwRule(`msecs?`, tMsec),
	kwRule(`mins?`, tMinute),
	kwRule(`once`, tOnce),
	kwRule(`secs?`, tSecond),
	kwRule(`log`, tLog),
	kwRule(`all`, tAll),
	kwRule(`off`, tOff),
	kwRule(`on`, tOn),

	rule(`[A-Za-z][A-Za-z0-9_.]*`, tName),
	rule(`[A-Za-z][A-Za-z0-9_.-]*`, tHostname),
	rule(`"[^"\n][^"\n]*"`, tString),
	rule(`[0-9]+`, tNumber),

	rule(`[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+`, tIPSpec),
	rule(`[0-9]+\.[0-9]+\.[0-9]+\.\*`, tIPSpec),
	rule(`[0-9]+\.[0-9]+\.\*`, tIPSpec),
	rule(`[0-9]+\.\*`, tIPSpec),
	rule(`\.\*`, tIPSpec),

	rule(`(?:[A-Fa-f0-9]+:)*[A-Fa-f0-9]+`, tIPSpec),
	rule(`::`, tIPSpec),
	rule(`::(?:[A-Fa-f0-9]+:)*[A-Fa-f0-9]+`, tIPSpec),
	rule(`(?:[A-Fa-f0-9]+:)+:(?:[A-Fa-f0-9]+:)*[A-Fa-f0-9]+`, tIPSpec),
	rule(`(?:[A-Fa-f0-9]+:)+:`, tIPSpec),

	rule(`(?:[A-Fa-f0-9]+:)+\*`, tIPSpec),
	rule(`::(?:[A-Fa-f0-9]+:)*\*`, tIPSpec),
	rule(`(?:[A-Fa-f0-9]+:)+:(?:[A-Fa-f0-9]+:)*\*`, tIPSpec),
	rule(`:\*`, tIPSpec),

	rule(`\*`, tIPSpec),

	// flex's [A-Za-z0-9_.-/] is A-Z a-z 0-9 _ and the range . to /
	rule(`unix:[A-Za-z0-9_./]*\*`, tURL),
	rule(`unix:[A-Za-z0-9_./]*`, tURL),
	rule(`local:[A-Za-z0-9_./]*\*`, tURL),
	rule(`local:[A-Za-z0-9_./]*`, tURL),
}

var (
	lineMarkerRE = regexp.MustCompile(`\A# [0-9][0-9]* "[^"]*"`)
	commentRE    = regexp.MustCompile(`\A#[^\n]*`)
)

// lexer scans pmcpp's output as pmlogger's flex scanner does.
type lexer struct {
	src    []byte
	pos    int
	line   int    // lineno
	file   string // configfile (changed by line markers)
	inSpec bool   // mystate == INSPEC: keywords are NAMEs
}

func newLexer(src []byte, file string) *lexer {
	return &lexer{src: src, line: 1, file: file}
}

// next returns the next token, or an *Error for a character no rule
// matches ("Unexpected character").
func (lx *lexer) next() (token, error) {
	for {
		if lx.pos >= len(lx.src) {
			return token{kind: tEOF, line: lx.line}, nil
		}
		s := lx.src[lx.pos:]
		c := s[0]
		bol := lx.pos == 0 || lx.src[lx.pos-1] == '\n'

		// single characters: the first rules, and no other rule
		// matches more than one character starting with these
		// except ':' (IPv6 forms)
		switch c {
		case '[':
			lx.pos++
			return token{kind: tLSQB, text: "[", line: lx.line}, nil
		case ']':
			lx.pos++
			return token{kind: tRSQB, text: "]", line: lx.line}, nil
		case ',':
			lx.pos++
			return token{kind: tComma, text: ",", line: lx.line}, nil
		case '{':
			lx.pos++
			return token{kind: tLBrace, text: "{", line: lx.line}, nil
		case '}':
			lx.pos++
			return token{kind: tRBrace, text: "}", line: lx.line}, nil
		case ';':
			lx.pos++
			return token{kind: tSemicolon, text: ";", line: lx.line}, nil
		case ' ', '\t', '\r':
			lx.pos++
			continue
		case '\n':
			lx.pos++
			lx.line = int(int32(lx.line + 1)) // C int
			continue
		case '#':
			m := commentRE.Find(s)
			if bol {
				if lm := lineMarkerRE.Find(s); lm != nil && len(lm) >= len(m) {
					lx.pos += len(lm)
					lx.lineMarker(lm)
					continue
				}
			}
			lx.pos += len(m)
			continue
		}

		best, bestLen := -1, 0
		if c == ':' {
			bestLen = 1 // the ":" rule comes first
		}
		for i := range lexRules {
			if n := matchLen(lexRules[i].re, s); n > bestLen {
				best, bestLen = i, n
			}
		}
		if best < 0 {
			if c == ':' {
				lx.pos++
				return token{kind: tColon, text: ":", line: lx.line}, nil
			}
			lx.pos++
			return token{}, &Error{File: lx.file, Line: lx.line, Msg: "Unexpected character '" + string([]byte{c}) + "'"}
		}
		text := string(s[:bestLen])
		lx.pos += bestLen
		r := lexRules[best]
		kind := r.kind
		if r.kw && lx.inSpec {
			kind = tName
		}
		tok := token{kind: kind, text: text, line: lx.line}
		switch kind {
		case tString:
			tok.text = text[1 : len(text)-1]
		case tNumber:
			tok.num = atol(text)
		}
		return tok, nil
	}
}

func matchLen(re *regexp.Regexp, s []byte) int {
	loc := re.FindIndex(s)
	if loc == nil {
		return 0
	}
	return loc[1]
}

// lineMarker handles pmcpp's `# N "file"`: the following newline makes
// the line N.
func (lx *lexer) lineMarker(m []byte) {
	i := 2
	lx.line = atoi(m[i:]) - 1
	for m[i] != '"' {
		i++
	}
	lx.file = string(m[i+1 : len(m)-1])
}

// atol is glibc's atol on a string of digits: strtol, saturating.
func atol(s string) int64 {
	var v int64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := int64(s[i] - '0')
		if v > (math.MaxInt64-d)/10 {
			return math.MaxInt64
		}
		v = v*10 + d
	}
	return v
}

// atoi is glibc's atoi: (int)strtol, so it saturates to LONG_MAX and
// then keeps the low 32 bits.
func atoi(s []byte) int {
	return int(int32(atol(string(s))))
}

package logrewrite

import (
	"slices"
	"strconv"
	"strings"
)

// The configuration lexer works as the real tool's flex scanner does: a
// start state (the clause being read) decides which keywords are known,
// the longest match wins and, between matches of one length, the rule
// listed first (keywords before names and numbers). Keywords are
// case-insensitive.

type tokKind int

const (
	tEOF tokKind = iota
	tGlobal
	tMetric
	tIndom
	tText
	tLabel
	tHostname
	tTime
	tTZ
	tZoneinfo
	tFeatures
	tBits
	tDelete
	tDuplicate
	tIname
	tInst
	tName
	tPMID
	tType
	tNull
	tOutput
	tSem
	tUnits
	tIf
	tRescale
	tTypeName
	tOutputType
	tSemName
	tSpaceName
	tTimeName
	tCountName
	tString
	tTextString // a string with newlines or escaped quotes (help text)
	tNumber
	tFloat
	tIndomStar
	tPMIDInt
	tPMIDStar
	tGName
	tHName
	tAssign
	tLBrace
	tRBrace
	tPlus
	tMinus
	tColon
	tComma
	tLParen
	tRParen
	tOneline
	tHelp
	tAll
	tTextStar
	tJSONString
	tContext
	tDomain
	tCluster
	tItem
	tInstances
	tInstance
	tNew
	tValue
	tJSONTrue
	tJSONFalse
	tJSONNull
	tLabelStar
	tJSONNumber
	tBad // an unexpected character: the lexer's error
)

// lexer states (flex start conditions)
type lexState int

const (
	sInitial lexState = iota
	sGlob
	sHost
	sIndom
	sMetric
	sText
	sLabel
	sType
	sIfType
	sSem
	sUnits
	sSpace
	sTime
	sCount
	sOutput
)

// clause being read (the scanner's "mystate"), which "{" enters
const (
	cNone = iota
	cGlobal
	cIndom
	cMetric
	cText
	cLabel
)

type token struct {
	kind tokKind
	text string // the matched text (strings without their quotes)
	ival int    // TYPE, SEM, SPACE, TIME, COUNT and OUTPUT names: the value
}

type keyword struct {
	word   string
	states []lexState
	kind   tokKind
	ival   int
	next   lexState // the state entered, or -1 to stay
	clause int      // for the rules that set the clause, else -1
}

const stay lexState = -1

// keywords, in the scanner's rule order
var keywords = []keyword{
	{"global", []lexState{sInitial}, tGlobal, 0, stay, cGlobal},
	{"metric", []lexState{sInitial}, tMetric, 0, stay, cMetric},
	{"indom", []lexState{sInitial}, tIndom, 0, stay, cIndom},
	{"text", []lexState{sInitial}, tText, 0, sText, cText},
	{"label", []lexState{sInitial}, tLabel, 0, sLabel, cLabel},

	{"hostname", []lexState{sGlob}, tHostname, 0, sHost, -1},
	{"time", []lexState{sGlob}, tTime, 0, stay, -1},
	{"tz", []lexState{sGlob}, tTZ, 0, stay, -1},
	{"timezone", []lexState{sGlob}, tTZ, 0, stay, -1},
	{"zoneinfo", []lexState{sGlob}, tZoneinfo, 0, stay, -1},
	{"features", []lexState{sGlob}, tFeatures, 0, stay, -1},
	{"bits", []lexState{sGlob}, tBits, 0, stay, -1},

	{"delete", []lexState{sIndom, sMetric, sText, sLabel}, tDelete, 0, stay, -1},
	{"indom", []lexState{sIndom}, tIndom, 0, stay, -1},
	{"duplicate", []lexState{sIndom}, tDuplicate, 0, stay, -1},
	{"iname", []lexState{sIndom}, tIname, 0, stay, -1},
	{"inst", []lexState{sIndom}, tInst, 0, stay, -1},

	{"name", []lexState{sMetric}, tName, 0, stay, -1},
	{"pmid", []lexState{sMetric}, tPMID, 0, stay, -1},
	{"type", []lexState{sMetric}, tType, 0, sType, -1},
	{"indom", []lexState{sMetric}, tIndom, 0, stay, -1},
	{"NULL", []lexState{sMetric}, tNull, 0, stay, -1},
	{"output", []lexState{sMetric}, tOutput, 0, sOutput, -1},
	{"sem", []lexState{sMetric}, tSem, 0, sSem, -1},
	{"units", []lexState{sMetric}, tUnits, 0, sUnits, -1},

	{"32", []lexState{sType}, tTypeName, 0, sMetric, -1},
	{"U32", []lexState{sType}, tTypeName, 1, sMetric, -1},
	{"64", []lexState{sType}, tTypeName, 2, sMetric, -1},
	{"U64", []lexState{sType}, tTypeName, 3, sMetric, -1},
	{"FLOAT", []lexState{sType}, tTypeName, 4, sMetric, -1},
	{"DOUBLE", []lexState{sType}, tTypeName, 5, sMetric, -1},
	{"if", []lexState{sType}, tIf, 0, sIfType, -1},

	{"32", []lexState{sIfType}, tTypeName, 0, sType, -1},
	{"U32", []lexState{sIfType}, tTypeName, 1, sType, -1},
	{"64", []lexState{sIfType}, tTypeName, 2, sType, -1},
	{"U64", []lexState{sIfType}, tTypeName, 3, sType, -1},
	{"FLOAT", []lexState{sIfType}, tTypeName, 4, sType, -1},
	{"DOUBLE", []lexState{sIfType}, tTypeName, 5, sType, -1},

	{"first", []lexState{sOutput}, tOutputType, outFirst, sMetric, -1},
	{"last", []lexState{sOutput}, tOutputType, outLast, sMetric, -1},
	{"min", []lexState{sOutput}, tOutputType, outMin, sMetric, -1},
	{"max", []lexState{sOutput}, tOutputType, outMax, sMetric, -1},
	{"sum", []lexState{sOutput}, tOutputType, outSum, sMetric, -1},
	{"avg", []lexState{sOutput}, tOutputType, outAvg, sMetric, -1},
	{"inst", []lexState{sOutput}, tInst, 0, sMetric, -1},
	{"iname", []lexState{sOutput}, tIname, 0, sMetric, -1},

	{"COUNTER", []lexState{sSem}, tSemName, 1, sMetric, -1},
	{"INSTANT", []lexState{sSem}, tSemName, 3, sMetric, -1},
	{"DISCRETE", []lexState{sSem}, tSemName, 4, sMetric, -1},

	{"rescale", []lexState{sMetric}, tRescale, 0, stay, -1},

	{"BYTE", []lexState{sSpace}, tSpaceName, 0, sUnits, -1},
	{"KBYTE", []lexState{sSpace}, tSpaceName, 1, sUnits, -1},
	{"MBYTE", []lexState{sSpace}, tSpaceName, 2, sUnits, -1},
	{"GBYTE", []lexState{sSpace}, tSpaceName, 3, sUnits, -1},
	{"TBYTE", []lexState{sSpace}, tSpaceName, 4, sUnits, -1},
	{"PBYTE", []lexState{sSpace}, tSpaceName, 5, sUnits, -1},
	{"EBYTE", []lexState{sSpace}, tSpaceName, 6, sUnits, -1},
	{"0", []lexState{sSpace}, tSpaceName, 0, sUnits, -1},

	{"NSEC", []lexState{sTime}, tTimeName, 0, sUnits, -1},
	{"USEC", []lexState{sTime}, tTimeName, 1, sUnits, -1},
	{"MSEC", []lexState{sTime}, tTimeName, 2, sUnits, -1},
	{"SEC", []lexState{sTime}, tTimeName, 3, sUnits, -1},
	{"MIN", []lexState{sTime}, tTimeName, 4, sUnits, -1},
	{"HOUR", []lexState{sTime}, tTimeName, 5, sUnits, -1},
	{"0", []lexState{sTime}, tTimeName, 0, sUnits, -1},

	{"ONE", []lexState{sCount}, tCountName, 0, sMetric, -1},

	{"metric", []lexState{sText}, tMetric, 0, stay, -1},
	{"indom", []lexState{sText}, tIndom, 0, stay, -1},
	{"oneline", []lexState{sText}, tOneline, 0, stay, -1},
	{"help", []lexState{sText}, tHelp, 0, stay, -1},
	{"all", []lexState{sText}, tAll, 0, stay, -1},
	{"text", []lexState{sText}, tText, 0, stay, -1},

	{"context", []lexState{sLabel}, tContext, 0, stay, -1},
	{"domain", []lexState{sLabel}, tDomain, 0, stay, -1},
	{"cluster", []lexState{sLabel}, tCluster, 0, stay, -1},
	{"item", []lexState{sLabel}, tItem, 0, stay, -1},
	{"indom", []lexState{sLabel}, tIndom, 0, stay, -1},
	{"instances", []lexState{sLabel}, tInstances, 0, stay, -1},
	{"instance", []lexState{sLabel}, tInstance, 0, stay, -1},
	{"new", []lexState{sLabel}, tNew, 0, stay, -1},
	{"value", []lexState{sLabel}, tValue, 0, stay, -1},
	{"label", []lexState{sLabel}, tLabel, 0, stay, -1},
	{"true", []lexState{sLabel}, tJSONTrue, 0, stay, -1},
	{"false", []lexState{sLabel}, tJSONFalse, 0, stay, -1},
	{"null", []lexState{sLabel}, tJSONNull, 0, stay, -1},
}

// output picks (the OUTPUT clause of an indom change)
const (
	outAll = iota
	outOne
	outFirst
	outLast
	outMin
	outMax
	outSum
	outAvg
)

type lexer struct {
	src    string
	p      int
	line   int
	state  lexState
	clause int
	commas int // commas seen in a units clause
	peeked *token
	badc   byte
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1} }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDig(c byte) bool    { return c >= '0' && c <= '9' }
func isNameChar(c byte) bool {
	return isLetter(c) || isDig(c) || c == '_' || c == '.'
}

func digits(s string, i int) int {
	j := i
	for j < len(s) && isDig(s[j]) {
		j++
	}
	return j - i
}

// numberLike matches the numeric patterns at s[i:]: NUMBER, FLOAT,
// INDOM_STAR, PMID_INT and PMID_STAR, the longest (the first listed on a
// tie).
func numberLike(s string, i int) (int, tokKind) {
	n := digits(s, i)
	if n == 0 {
		return 0, 0
	}
	best, kind := n, tNumber
	j := i + n
	if j < len(s) && s[j] == '.' {
		// FLOAT: [0-9]+\.[0-9]*
		m := digits(s, j+1)
		if 1+n+m > best {
			best, kind = n+1+m, tFloat
		}
		// INDOM_STAR: [0-9]+\.\*
		if j+1 < len(s) && s[j+1] == '*' && n+2 > best {
			best, kind = n+2, tIndomStar
		}
		// PMID_INT: [0-9]+\.[0-9]+\.[0-9]+ and PMID_STAR [0-9]+\.[0-9]+\.\*
		if m > 0 && j+1+m < len(s) && s[j+1+m] == '.' {
			k := j + 2 + m
			if o := digits(s, k); o > 0 && k+o-i > best {
				best, kind = k+o-i, tPMIDInt
			} else if k < len(s) && s[k] == '*' && k+1-i > best {
				best, kind = k+1-i, tPMIDStar
			}
		}
		// PMID_STAR: [0-9]+\.\*\.\*
		if j+3 < len(s) && s[j+1] == '*' && s[j+2] == '.' && s[j+3] == '*' && n+4 > best {
			best, kind = n+4, tPMIDStar
		}
	}
	return best, kind
}

// gname matches [A-Za-z]([A-Za-z0-9_.]|([=-][A-Za-z0-9_.]))*.
func gname(s string, i int) int {
	if i >= len(s) || !isLetter(s[i]) {
		return 0
	}
	j := i + 1
	for j < len(s) {
		switch {
		case isNameChar(s[j]):
			j++
		case (s[j] == '=' || s[j] == '-') && j+1 < len(s) && isNameChar(s[j+1]):
			j += 2
		default:
			return j - i
		}
	}
	return j - i
}

// hname matches [A-Za-z0-9][A-Za-z0-9.-]*.
func hname(s string, i int) int {
	if i >= len(s) || !(isLetter(s[i]) || isDig(s[i])) {
		return 0
	}
	j := i + 1
	for j < len(s) && (isLetter(s[j]) || isDig(s[j]) || s[j] == '.' || s[j] == '-') {
		j++
	}
	return j - i
}

// quoted matches a string: "..." with no newline, not empty (STRING),
// 0 if there is none.
func quoted(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return 0
	}
	j := strings.IndexByte(s[i+1:], '"')
	if j <= 0 || strings.IndexByte(s[i+1:i+1+j], '\n') >= 0 {
		return 0
	}
	return j + 2
}

// textQuoted matches a help text string at s[i:]: a quote, at least one
// character, a quote; a quote after a backslash may stand for itself, so
// the match runs to the last quote that every quote before it lets it
// reach (0: none).
func textQuoted(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return 0
	}
	best := 0
	for j := i + 1; j < len(s); j++ {
		if s[j] != '"' {
			continue
		}
		if j > i+1 {
			best = j + 1 - i
		}
		if j-1 <= i || s[j-1] != '\\' {
			break
		}
	}
	return best
}

// jsonNumber matches [0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)? at s[i:] (0: no
// match).
func jsonNumber(s string, i int) int {
	n := digits(s, i)
	if n == 0 {
		return 0
	}
	j := i + n
	if j < len(s) && s[j] == '.' {
		if m := digits(s, j+1); m > 0 {
			j += 1 + m
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if m := digits(s, k); m > 0 {
			j = k + m
		}
	}
	return j - i
}

// jsonQuoted matches a JSON string at s[i:] (quotes included; a
// backslash escapes the next character), 0 if there is none.
func jsonQuoted(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return 0
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1 - i
		}
	}
	return 0
}

func (l *lexer) peek() token {
	if l.peeked == nil {
		t := l.scan()
		l.peeked = &t
	}
	return *l.peeked
}

func (l *lexer) next() token {
	t := l.peek()
	l.peeked = nil
	return t
}

func (l *lexer) scan() token {
	s := l.src
	for l.p < len(s) {
		c := s[l.p]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.p++
			continue
		case c == '\n':
			l.line++
			l.p++
			continue
		case c == '#':
			for l.p < len(s) && s[l.p] != '\n' {
				l.p++
			}
			continue
		}
		// the longest match; on a tie the earliest rule
		bestLen, bestRule := 0, 1<<30
		var best token
		var bestKw *keyword
		try := func(n, rule int, t token, kw *keyword) {
			if n > bestLen || n == bestLen && n > 0 && rule < bestRule {
				bestLen, bestRule, best, bestKw = n, rule, t, kw
			}
		}
		for k := range keywords {
			kw := &keywords[k]
			if !slices.Contains(kw.states, l.state) {
				continue
			}
			if n := len(kw.word); l.p+n <= len(s) && strings.EqualFold(s[l.p:l.p+n], kw.word) {
				try(n, k, token{kind: kw.kind, text: s[l.p : l.p+n], ival: kw.ival}, kw)
			}
		}
		base := len(keywords)
		if l.state == sHost {
			if n := hname(s, l.p); n > 0 {
				// listed right after the glob keywords
				try(n, 11, token{kind: tHName, text: s[l.p : l.p+n]}, nil)
			}
		}
		if l.state == sUnits && c == ',' {
			try(1, base, token{kind: tComma, text: ","}, nil)
		}
		if l.state == sCount {
			if n := digits(s, l.p); n > 0 {
				v, _ := strconv.Atoi(s[l.p : l.p+n])
				try(n, base+1, token{kind: tCountName, text: s[l.p : l.p+n], ival: v}, nil)
			}
		}
		// strings: STRING, then TEXT_STRING (newlines, and a quote
		// may be escaped), then JSON_STRING; the first wins a tie
		if n := quoted(s, l.p); n > 0 {
			try(n, base+2, token{kind: tString, text: s[l.p+1 : l.p+n-1]}, nil)
		}
		if n := textQuoted(s, l.p); n > 0 {
			try(n, base+2, token{kind: tTextString, text: strings.ReplaceAll(s[l.p+1:l.p+n-1], `\"`, `"`)}, nil)
		}
		if n := jsonQuoted(s, l.p); n > 0 {
			try(n, base+2, token{kind: tJSONString, text: s[l.p : l.p+n]}, nil)
		}
		if n, k := numberLike(s, l.p); n > 0 {
			try(n, base+3, token{kind: k, text: s[l.p : l.p+n]}, nil)
		}
		if l.state == sLabel {
			// (after the other numbers: they win a tie)
			if n := jsonNumber(s, l.p); n > 0 {
				try(n, base+3, token{kind: tJSONNumber, text: s[l.p : l.p+n]}, nil)
			}
		}
		if n := gname(s, l.p); n > 0 {
			try(n, base+4, token{kind: tGName, text: s[l.p : l.p+n]}, nil)
		}
		if strings.HasPrefix(s[l.p:], "->") {
			try(2, base+5, token{kind: tAssign, text: "->"}, nil)
		}
		switch c {
		case '{':
			try(1, base+6, token{kind: tLBrace, text: "{"}, nil)
		case '}':
			try(1, base+6, token{kind: tRBrace, text: "}"}, nil)
		case '+':
			try(1, base+6, token{kind: tPlus, text: "+"}, nil)
		case '-':
			try(1, base+6, token{kind: tMinus, text: "-"}, nil)
		case ':':
			try(1, base+6, token{kind: tColon, text: ":"}, nil)
		case '*':
			switch l.state {
			case sText:
				try(1, base+6, token{kind: tTextStar, text: "*"}, nil)
			case sLabel:
				try(1, base+6, token{kind: tLabelStar, text: "*"}, nil)
			}
		case ',':
			try(1, base+6, token{kind: tComma, text: ","}, nil)
		case '(':
			if l.state == sGlob {
				try(1, base+6, token{kind: tLParen, text: "("}, nil)
			}
		case ')':
			if l.state == sGlob {
				try(1, base+6, token{kind: tRParen, text: ")"}, nil)
			}
		}
		if bestLen == 0 {
			l.p++
			l.badc = c
			return token{kind: tBad, text: string(c)}
		}
		l.p += bestLen
		l.act(best, bestKw)
		return best
	}
	return token{kind: tEOF}
}

// act is the scanner rule's action: the state changes.
func (l *lexer) act(t token, kw *keyword) {
	if kw != nil {
		if kw.clause >= 0 {
			l.clause = kw.clause
		}
		if kw.next != stay {
			l.state = kw.next
		}
		if kw.kind == tUnits {
			l.commas = 0
		}
		return
	}
	switch t.kind {
	case tHName:
		l.state = sGlob
	case tCountName:
		l.state = sMetric
	case tComma:
		if l.state == sUnits {
			l.commas++
			switch l.commas {
			case 3:
				l.state = sSpace
			case 4:
				l.state = sTime
			case 5:
				l.state = sCount
			}
		}
	case tLBrace:
		switch l.clause {
		case cGlobal:
			l.state = sGlob
		case cIndom:
			l.state = sIndom
		case cMetric:
			l.state = sMetric
		}
	case tRBrace:
		l.clause = cNone
		l.state = sInitial
	}
}

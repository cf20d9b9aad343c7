package loggerconf

import "os"

// pass0Names picks the names out of { } lists as pmlogger's pass0.c
// does: a tiny state machine that knows only comments, braces, names
// and bracketed instance lists with quoted strings.
func pass0Names(src []byte) []string {
	const (
		sInit = iota
		sInitEOL
		sList
		sListEOL
		sName
		sInst
		sDQuote
	)
	state := sInit
	var names []string
	seen := map[string]bool{}
	start := 0
	for i, c := range src {
		switch state {
		case sInit:
			if c == '#' {
				state = sInitEOL
			} else if c == '{' {
				state = sList
			}
		case sInitEOL:
			if c == '\n' {
				state = sInit
			}
		case sList:
			switch {
			case c == '#':
				state = sListEOL
			case c == '}':
				state = sInit
			case isAlpha(c):
				state = sName
				start = i
			case c == '[':
				state = sInst
			}
		case sListEOL:
			if c == '\n' {
				state = sList
			}
		case sName:
			if isAlpha(c) || c >= '0' && c <= '9' || c == '_' || c == '.' {
				continue
			}
			n := string(src[start:i])
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
			if c == '[' {
				state = sInst
			} else {
				state = sList
			}
		case sInst:
			if c == ']' {
				state = sList
			} else if c == '"' {
				state = sDQuote
			}
		case sDQuote:
			if c == '"' {
				state = sInst
			}
		}
	}
	return names
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func parseFileAs(path, name string, opts Options) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, name, opts)
}

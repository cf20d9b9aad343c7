// Package metricspec parses metric arguments as pmParseMetricSpec(3)
// does: "[host:]metric[[instance,...]]" or "[archive/]metric[[...]]",
// with libpcp's error messages.
package metricspec

import (
	"strings"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// Spec is a parsed metric argument.
type Spec struct {
	Metric  string
	Host    string   // "host:" given
	Archive string   // "archive/" given
	Insts   []string // nil: no instance list; empty: "[]"
}

// unescape drops the backslash of each backslash pair.
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b = append(b, s[i])
	}
	return string(b)
}

// Parse parses spec. On a syntax error it returns libpcp's message: the
// spec, a line pointing at the fault with "^ -- " and the complaint.
func Parse(spec string) (*Spec, string) {
	fail := func(point int, msg string) (*Spec, string) {
		var b strings.Builder
		b.WriteString(spec)
		b.WriteByte('\n')
		for i := 0; i < point && i < len(spec); i++ {
			if c := spec[i]; c > ' ' && c < 0x7f {
				b.WriteByte(' ')
			} else {
				b.WriteByte(c)
			}
		}
		b.WriteString("^ -- ")
		b.WriteString(msg)
		b.WriteByte('\n')
		return nil, b.String()
	}
	at := func(i int) byte {
		if i < len(spec) {
			return spec[i]
		}
		return 0
	}
	ms := &Spec{}
	scan := 0
	for scan < len(spec) && cnum.IsSpace(spec[scan]) {
		scan++
	}
	// The source ends at the last ':' or '/' before the instances.
	mark := strings.IndexByte(spec[scan:], '[')
	if mark < 0 {
		mark = len(spec) - 1
	} else {
		mark += scan
	}
	for ; mark >= scan; mark-- {
		if c := spec[mark]; c == ':' || c == '/' {
			end := mark - 1
			for end >= scan && cnum.IsSpace(spec[end]) {
				end--
			}
			if end < scan {
				if c == ':' {
					return fail(scan, "host name expected")
				}
				return fail(scan, "archive name expected")
			}
			src := unescape(spec[scan : end+1])
			if c == ':' {
				ms.Host = src
			} else {
				ms.Archive = src
			}
			scan = mark + 1
			break
		}
	}
	for scan < len(spec) && cnum.IsSpace(spec[scan]) {
		scan++
	}
	mStart := scan
	for scan < len(spec) && !cnum.IsSpace(spec[scan]) && spec[scan] != '[' {
		if c := spec[scan]; c == ']' || c == ',' {
			return fail(scan, "unexpected character in metric name")
		}
		if spec[scan] == '\\' && scan+1 < len(spec) {
			scan++
		}
		scan++
	}
	mEnd := scan
	if mStart == mEnd {
		return fail(mStart, "performance metric name expected")
	}
	for scan < len(spec) && cnum.IsSpace(spec[scan]) {
		scan++
	}
	iStart, iEnd := -1, -1
	if at(scan) == '[' {
		scan++
		for scan < len(spec) && cnum.IsSpace(spec[scan]) {
			scan++
		}
		iStart = scan
		inquote := false
		for {
			if scan >= len(spec) {
				if inquote {
					return fail(scan, "closing \" and ] expected")
				}
				return fail(scan, "closing ] expected")
			}
			switch c := spec[scan]; {
			case c == '\\' && scan+1 < len(spec):
				scan++
			case c == '"':
				inquote = !inquote
			case !inquote && c == ']':
				goto closed
			}
			scan++
		}
	closed:
		iEnd = scan
		scan++
	}
	for scan < len(spec) && cnum.IsSpace(spec[scan]) {
		scan++
	}
	if scan < len(spec) {
		return fail(scan, "unexpected extra characters")
	}
	var m []byte
	for p := mStart; p < mEnd; p++ {
		if spec[p] == '\\' && p+1 < mEnd {
			p++
		}
		m = append(m, spec[p])
	}
	ms.Metric = string(m)
	if iStart >= 0 {
		ms.Insts = []string{}
		for p := iStart; p < iEnd; {
			var name []byte
			if spec[p] == '"' {
				p++
				for {
					if p >= iEnd {
						return fail(p, "closing \" expected (pmParseMetricSpec botch?)")
					}
					if spec[p] == '\\' {
						p++
					} else if spec[p] == '"' {
						break
					}
					name = append(name, at(p))
					p++
				}
				p++
			} else {
				for p < iEnd && !cnum.IsSpace(spec[p]) && spec[p] != ',' {
					if spec[p] == '\\' {
						p++
					}
					name = append(name, at(p))
					p++
				}
			}
			// C strings end at a NUL.
			if k := strings.IndexByte(string(name), 0); k >= 0 {
				name = name[:k]
			}
			ms.Insts = append(ms.Insts, string(name))
			for p < iEnd && (cnum.IsSpace(spec[p]) || spec[p] == ',') {
				p++
			}
		}
	}
	return ms, ""
}

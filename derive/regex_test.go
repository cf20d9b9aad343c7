package derive

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// ereCases are glibc's verdicts on regcomp(RE, REG_EXTENDED|REG_NOSUB), as
// libpcp's matchinst() compiles its pattern: the regerror() text, "" when
// glibc accepts the pattern. unsupported marks patterns glibc accepts that
// pcpkit refuses (Go's regexp cannot do them). From
//
//	/usr/bin/python3 testdata/oracle.py <<< '{"op":"regexec","name":"","expr":RE}'
//
// (TestERECompileReal asks again.)
var ereCases = []struct {
	re          string
	glibcErr    string
	unsupported bool
}{
	{"(", "Unmatched ( or \\(", false},
	{")", "", false},
	{"a{1", "Unmatched \\{", false},
	{"a{", "Unmatched \\{", false},
	{"{", "Invalid preceding regular expression", false},
	{"{1}", "Invalid preceding regular expression", false},
	{"a{1,2}", "", false},
	{"a{2,1}", "Invalid content of \\{\\}", false},
	{"a{,2}", "", false},
	{"a{1,}", "", false},
	{"*a", "Invalid preceding regular expression", false},
	{"a|*b", "Invalid preceding regular expression", false},
	{"+a", "Invalid preceding regular expression", false},
	{"?a", "Invalid preceding regular expression", false},
	{"a**", "", false},
	{"a+*", "", false},
	{"()", "", false},
	{"a|", "", false},
	{"|a", "", false},
	{"[", "Invalid regular expression", false},
	{"[]", "Unmatched [, [^, [:, [., or [=", false},
	{"[]a]", "", false},
	{"[a", "Unmatched [, [^, [:, [., or [=", false},
	{"[[:foo:]]", "Invalid character class name", false},
	{"[[:alpha:]]", "", false},
	{"[[.a.]]", "", false},
	{"[[=a=]]", "", false},
	{"[[.ab.]]", "Invalid collation character", false},
	{"[b-a]", "Invalid range end", false},
	{"\\1", "Invalid back reference", false},
	{"(a)\\1", "", true},
	{"\\", "Trailing backslash", false},
	{"a{99999}", "Regular expression too big", false},
	{"a{32767}", "", true},
	{"a{1000}", "", false},
	{"a{1001}", "", true},
	{"^*", "Invalid preceding regular expression", false},
	{"a|b)", "", false},
	{"\\w", "", false},
	{"\\<", "", true},
	{"\\>", "", true},
	{"\\b", "", false},
	{"(*a)", "Invalid preceding regular expression", false},
	{"(|a)", "", false},
	{"a{1}{2}", "", false},
	{"a*{2}", "", false},
	{"[a-]", "", false},
	{"[\\]", "", false},
	{"[a-z-9]", "Invalid range end", false},
	{"[%--]", "", false},
	{"[--/]", "", false},
	{"x{1,2,3}", "Invalid content of \\{\\}", false},
	{"a{1a}", "Invalid content of \\{\\}", false},
	{"\\{", "", false},
	{"a\\{1", "", false},
	{"(^a)", "", false},
	{"a^b", "", false},
	{"$*", "Invalid preceding regular expression", false},
	{".**", "", false},
	{"[[:alpha:]-z]", "Invalid range end", false},
	{"[a-[:alpha:]]", "Invalid range end", false},
	{"\\(", "", false},
	{"\\n", "", false},
	{"a{0}", "", false},
	{"(a){0}\\1", "", true},
	{"[^", "Invalid regular expression", false},
	{"[^]", "Unmatched [, [^, [:, [., or [=", false},
	{"[a-", "Unmatched [, [^, [:, [., or [=", false},
	{"a^*", "Invalid preceding regular expression", false},
	{"a|+", "Invalid preceding regular expression", false},
	{"(+)", "Invalid preceding regular expression", false},
	{"a(*)", "Invalid preceding regular expression", false},
	{"x|{", "Invalid preceding regular expression", false},
	{"a{1,2", "Unmatched \\{", false},
	{"a{1,2,}", "Invalid content of \\{\\}", false},
	{"a{ 1}", "Invalid content of \\{\\}", false},
	{"a{-1}", "Invalid content of \\{\\}", false},
	{"a{01}", "", false},
	{"[[:alpha:", "Unmatched [, [^, [:, [., or [=", false},
	{"[[:alpha]", "Unmatched [, [^, [:, [., or [=", false},
	{"[[.", "Unmatched [, [^, [:, [., or [=", false},
	{"[[=a", "Unmatched [, [^, [:, [., or [=", false},
	{"[a-z", "Unmatched [, [^, [:, [., or [=", false},
	{"[z-a-b]", "Invalid range end", false},
	{"[[.-.]]", "", false},
	{"[[.a.]-z]", "", false},
	{"[a-[.z.]]", "", false},
	{"[[=a=]-z]", "Invalid range end", false},
	{"a{,}", "", false},
	{"a{}", "Invalid content of \\{\\}", false},
	{"((a)", "Unmatched ( or \\(", false},
	{"a)(", "Unmatched ( or \\(", false},
	{"[]-a]", "", false},
	{"[]-]", "", false},
	{"[^-a]", "", false},
	{"[[]", "", false},
	{"[[:]", "Unmatched [, [^, [:, [., or [=", false},
	{"[[:a]", "Unmatched [, [^, [:, [., or [=", false},
	{"[[::]]", "Invalid character class name", false},
	{"[[..]]", "Invalid collation character", false},
	{"[[:ALPHA:]]", "Invalid character class name", false},
	{"[[.space.]]", "Invalid collation character", false},
	{"\\`a", "", false},
	{"a\\'", "", false},
	{"(a\\1)", "Invalid back reference", false},
	{"((a)(b)\\2)", "", true},
}

func TestERECompile(t *testing.T) {
	for _, c := range ereCases {
		_, err := compileERE(c.re)
		switch {
		case c.unsupported:
			if e, ok := err.(*ereError); !ok || !e.Unsupported {
				t.Errorf("%q: %v, want an unsupported error", c.re, err)
			}
		case c.glibcErr == "":
			if err != nil {
				t.Errorf("%q: %v", c.re, err)
			}
		default:
			if err == nil || err.Error() != c.glibcErr {
				t.Errorf("%q: %v, want %q", c.re, err, c.glibcErr)
			}
		}
	}
}

func TestERECompileReal(t *testing.T) {
	var reqs []oracleReq
	for _, c := range ereCases {
		reqs = append(reqs, oracleReq{Op: "regexec", Expr: c.re})
	}
	for i, r := range runOracle(t, reqs) {
		msg := ""
		if r.Msg != nil {
			msg = *r.Msg
		}
		if msg != ereCases[i].glibcErr {
			t.Errorf("%q: glibc says %q, the table %q", ereCases[i].re, msg, ereCases[i].glibcErr)
		}
	}
}

// matchinst() errors come out as syntax errors at the pattern.
func TestMatchinstPatternError(t *testing.T) {
	_, err := Parse("matchinst(!/a{2,1}/, x)", Dialect603)
	se, ok := err.(*SyntaxError)
	if !ok || se.Pos != 11 || se.Msg != `bad regular expression: 'Invalid content of \{\}'` {
		t.Errorf("got %v", err)
	}
	_, err = Parse("matchinst(/(a)\\\\1/, x)", Dialect603)
	if se, ok := err.(*SyntaxError); !ok || !strings.Contains(se.Msg, "not supported by pcpkit: back-reference") {
		t.Errorf("got %v", err)
	}
}

var (
	reAtoms    = []string{"a", "b", "x", ".", "-", "]", "[ab]", "[^a]", "[a-c]", "[[:alpha:]]", "[[:digit:]]", `\w`, `\W`, `\s`, `\.`, `\b`, "^", "$", "()", "(a|b)", "(", ")", "|", "*", "+", "?", "{1,2}", "{2}", "{,1}", "{", "}", `\`, "[", "é", "\xff"}
	reSubjects = []string{"", "a", "b", "ab", "ba", "aab", "x-y", "a.b", "a b", "eth0", "]", "a]b", "aaa", "abc123", "é", "\xff", "_"}
)

// TestEREMatchReal compares random patterns with glibc: the same verdict
// from regcomp, and the same regexec answer on a set of subjects. (No
// subject has a newline: see the note on anchors in regex.go.)
func TestEREMatchReal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var pats []string
	for i := 0; i < 1500; i++ {
		var b strings.Builder
		for n := 1 + r.Intn(5); n > 0; n-- {
			b.WriteString(reAtoms[r.Intn(len(reAtoms))])
		}
		pats = append(pats, b.String())
	}
	var reqs []oracleReq
	for _, p := range pats {
		for _, s := range reSubjects {
			reqs = append(reqs, oracleReq{Op: "regexec", Name: s, Expr: p})
		}
	}
	resps := runOracle(t, reqs)
	bad, unsupported := 0, 0
	for i, p := range pats {
		re, err := compileERE(p)
		for j, s := range reSubjects {
			want := resps[i*len(reSubjects)+j]
			wantErr := ""
			if want.Msg != nil {
				wantErr = *want.Msg
			}
			var got string
			switch {
			case err != nil && err.(*ereError).Unsupported:
				if wantErr != "" {
					got = "unsupported " + err.Error()
				} else {
					unsupported++
					continue
				}
			case err != nil:
				got = err.Error()
			default:
				n := &Node{Regexp: re}
				got = fmt.Sprint(n.MatchInstName(s))
			}
			w := wantErr
			if w == "" {
				w = fmt.Sprint(want.OK)
			}
			if got != w {
				bad++
				if bad < 20 {
					t.Errorf("%q on %q: got %s, glibc %s", p, s, got, w)
				}
			}
			if err != nil {
				break // one subject is enough for a compile error
			}
		}
	}
	t.Logf("%d patterns, %d (pattern, subject) pairs skipped as unsupported", len(pats), unsupported)
	if bad > 0 {
		t.Errorf("%d differences", bad)
	}
}

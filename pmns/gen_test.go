package pmns

import (
	"fmt"
	"math/rand"
	"strings"
)

// gen makes random PMNS sources for the differential tests against the real
// pmcpp and libpcp, and seeds for FuzzLoad: well-formed namespaces (nodes in
// random order, several names per PMID) and broken ones (junk tokens, bad
// PMIDs, line markers, preprocessor directives, odd white space).
type gen struct{ r *rand.Rand }

func newGen(seed int64) *gen { return &gen{rand.New(rand.NewSource(seed))} }

func (g *gen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

var genNames = []string{"a", "b", "c", "foo", "bar", "x1", "A_b", "root", "zz9", "q"}

func (g *gen) name() string { return genNames[g.r.Intn(len(genNames))] }

func (g *gen) ws() string { return g.pick(" ", " ", " ", "  ", "\t", " \t ", "   ") }

func (g *gen) pmid() string {
	switch r := g.r.Float64(); {
	case r < 0.6:
		return fmt.Sprintf("%s:%s:%d", g.pick("245", "1", "SYN", "0", "2"), g.pick("0", "1", "C"), 1+g.r.Intn(7))
	case r < 0.7:
		return g.pick("245", "1", "511", "SYN") + ":*:*"
	case r < 0.85:
		return g.pick("1", "12", "1*", "1:2", "1:2:", "1::3", "1:*", "*", "1:2:3:4", "1:2:3:4:5",
			"1:2:3x", ":1:2", "1 : 2 : 3", "1: 2:3", "1:2:3:", "-1:0:0", "1.2.3", "1*:*:*", "1:*:*:*")
	}
	num := func() string {
		return g.pick("0", "1", "245", "510", "511", "4095", "1023", "1024", "4096", "007",
			"99999999999", "4294967297", "2147483648", "SYN", "C")
	}
	return num() + ":" + num() + ":" + num()
}

func (g *gen) junk() string {
	return g.pick("%", "a-b", "1x", "}}", "{{", "a{", "_a", ".a", "a:", "#", "\xe9", "a/b", "a.b", "{", "}")
}

// valid returns a well-formed namespace whose definitions come in random
// order.
func (g *gen) valid() string {
	type kid struct {
		name string
		sub  []kid
		pmid string
	}
	var mk func(depth int) []kid
	mk = func(depth int) []kid {
		var kids []kid
		used := map[string]bool{}
		for n := 1 + g.r.Intn(6); n > 0; n-- {
			nm := g.pick("a", "b", "c", "foo", "bar", "x1", "q", "r", "s", "t")
			if used[nm] {
				continue
			}
			used[nm] = true
			if depth < 4 && g.r.Float64() < 0.45 {
				kids = append(kids, kid{name: nm, sub: mk(depth + 1)})
				continue
			}
			p := fmt.Sprintf("245:0:%d", 1+g.r.Intn(4))
			switch r := g.r.Float64(); {
			case r < 0.2:
				p = fmt.Sprintf("SYN:0:%d", 1+g.r.Intn(7))
			case r < 0.3:
				p = "SYN:*:*"
			case r < 0.4:
				p = fmt.Sprintf("1:%d:%d", g.r.Intn(2), g.r.Intn(3))
			}
			kids = append(kids, kid{name: nm, pmid: p})
		}
		return kids
	}
	var defs [][]string
	var emit func(path string, kids []kid)
	emit = func(path string, kids []kid) {
		lines := []string{path + g.pick(" {", "\t{", " {")}
		for _, k := range kids {
			if k.sub != nil {
				lines = append(lines, g.pick("\t", "    ", "  ")+k.name)
			} else {
				lines = append(lines, g.pick("\t", "    ", "  ")+k.name+g.pick("\t", " ", "\t\t")+k.pmid)
			}
		}
		lines = append(lines, "}")
		defs = append(defs, lines)
		prefix := path + "."
		if path == "root" {
			prefix = ""
		}
		for _, k := range kids {
			if k.sub != nil {
				emit(prefix+k.name, k.sub)
			}
		}
	}
	emit("root", mk(0))
	g.r.Shuffle(len(defs), func(i, j int) { defs[i], defs[j] = defs[j], defs[i] })
	lines := []string{"#define SYN 245"}
	if g.r.Intn(3) == 0 {
		lines = append(lines, "/* a comment */")
	}
	for _, d := range defs {
		lines = append(lines, d...)
	}
	return strings.Join(lines, "\n") + "\n"
}

func (g *gen) nodeDef(path string) []string {
	if path == "" {
		path = g.pick("root", "root", "root", g.name(), g.name()+"."+g.name(), g.name()+"."+g.name()+"."+g.name())
	}
	lines := []string{path + g.ws() + "{"}
	for n := g.r.Intn(6); n > 0; n-- {
		switch r := g.r.Float64(); {
		case r < 0.55:
			lines = append(lines, g.ws()+g.name()+g.ws()+g.pmid())
		case r < 0.85:
			lines = append(lines, g.ws()+g.name())
		default:
			lines = append(lines, g.ws()+g.name()+g.ws()+g.pmid()+g.ws()+g.name()+g.ws()+g.pmid())
		}
	}
	return append(lines, g.pick("}", "}", " }", "}\t"))
}

// broken returns a namespace with random damage.
func (g *gen) broken() string {
	var lines []string
	if g.r.Float64() < 0.7 {
		lines = append(lines, "#define SYN 245")
	}
	if g.r.Float64() < 0.5 {
		lines = append(lines, "#define C 0")
	}
	defs := [][]string{g.nodeDef("root")}
	for n := g.r.Intn(5); n > 0; n-- {
		defs = append(defs, g.nodeDef(""))
	}
	g.r.Shuffle(len(defs), func(i, j int) { defs[i], defs[j] = defs[j], defs[i] })
	for _, d := range defs {
		lines = append(lines, d...)
	}
	for n := g.r.Intn(3); n > 0 && len(lines) > 0; n-- {
		i := g.r.Intn(len(lines))
		toks := strings.Fields(lines[i])
		switch r := g.r.Float64(); {
		case r < 0.2 && len(toks) > 0:
			j := g.r.Intn(len(toks))
			lines[i] = strings.Join(append(toks[:j:j], toks[j+1:]...), " ")
		case r < 0.4:
			j := g.r.Intn(len(toks) + 1)
			toks = append(toks[:j], append([]string{g.junk()}, toks[j:]...)...)
			lines[i] = strings.Join(toks, g.ws())
		case r < 0.5:
			lines = append(lines[:i], lines[i+1:]...)
		case r < 0.6:
			lines = append(lines[:i], append([]string{g.pick(`# 10 "y"`, `# 5`, `#line 3`, `  # 7 "q z"`,
				`# 0 "z"`, `# -2 "n"`, `#`, `# 3 x`, `# 4 "w" extra`, `# 9 "`)}, lines[i:]...)...)
		case r < 0.7:
			lines = append(lines[:i], append([]string{g.pick("/* comment */", "/* multi", "line */",
				"x /* y */ z", "#define C 0", "#define SYN 245", "#undef C", "#ifdef SYN", "#else",
				"#endif", "#ifndef Q", "#bogus", "#define 1A 2")}, lines[i:]...)...)
		case r < 0.8:
			lines[i] += g.pick("\r", " ", "\t", " /* c */", ": ", " x")
		default:
			lines = append(lines[:i], append([]string{lines[i]}, lines[i:]...)...)
		}
	}
	s := strings.Join(lines, "\n")
	if g.r.Float64() < 0.95 {
		s += "\n"
	}
	return s
}

// cppText returns input aimed at pmcpp itself: directives, comments and
// macros in every arrangement, including the erroneous ones.
func (g *gen) cppText() string {
	var lines []string
	macro := func() string { return g.pick("A", "B", "C_1", "_x", "A", "1A", "A-B", "") }
	for n := 1 + g.r.Intn(12); n > 0; n-- {
		var l string
		switch r := g.r.Float64(); {
		case r < 0.15:
			v := g.pick("1", "x y", "245", `"q r"`, "'s t'", `"open`, "", "v w z", `x"y"`)
			l = g.pick("#define", "#define", "#define\t", "#defineX", "# define") + g.ws() + macro() + g.ws() + v
		case r < 0.22:
			l = g.pick("#undef", "#undef ", "#undefine") + g.ws() + macro() + g.pick("", "", " extra")
		case r < 0.34:
			l = g.pick("#ifdef", "#ifndef", "#ifdef ", "#ifdefA") + g.ws() + macro() + g.pick("", "", " x")
		case r < 0.42:
			l = g.pick("#else", "#else", "#else junk", "#elsewhere")
		case r < 0.50:
			l = g.pick("#endif", "#endif", "#endif x", "#endif\t")
		case r < 0.56:
			l = g.pick("#bogus", "#", "# 1 \"A\"", "  #define A 1", "#if A", "#include \"nonexist\"", "#include foo", "#include <nonexist")
		case r < 0.68:
			l = g.pick("/* c */", "a /* b */ c", "/* open", "close */ d", "x */ y /* z", "/**/A/**/", "/* a */ #define Q 1", "A /*/ B */ C", "  \t /* t */ \t ")
		default:
			l = strings.Join([]string{g.pick("A", "B", "x", "root", "A.B", "9A", "A9", "_x", "C_1"), g.pick("{", "A:B:1", "\"A\"", "(A)", "", "\t", "B_")}, g.ws())
		}
		if g.r.Intn(8) == 0 {
			l += g.pick(" ", "\t", "\r", " \t", "\v", " \r x", "\f")
		}
		if g.r.Intn(25) == 0 && len(l) > 0 {
			i := g.r.Intn(len(l))
			l = l[:i] + g.pick("\x00", "\r", "\v", "\t") + l[i:]
		}
		lines = append(lines, l)
	}
	s := strings.Join(lines, "\n")
	if g.r.Intn(10) != 0 {
		s += "\n"
	}
	return s
}

// Package lalrgen builds LALR(1) parse tables from a grammar the way GNU
// Bison does, so that a parser driven by them fails on the same token, in
// the same parser state, with the same error productions firing, as the
// Bison-generated parser of the same grammar. The details that matter for
// error reporting, all reproduced:
//
//   - LALR(1) look-ahead sets (built by the spontaneous generation and
//     propagation method);
//   - shift/reduce conflicts resolved by %left precedence: the rule's
//     precedence is that of the last terminal in its right-hand side (or a
//     %prec override), and a tie on a %left token reduces;
//   - "consistent" states (a single reduction and no shift on a terminal)
//     have a default reduction that is taken without reading a look-ahead
//     token, which decides where the lexer stops and so the reported
//     position;
//   - other states default to their most common reduction, except that a
//     state that can shift the error token has no default reduction at all
//     (so an unexpected token is an error there rather than a reduction).
//
// The parser that runs the tables does error recovery as Bison's yacc.c
// skeleton does (package derive's parser.go). The tables have no accept
// action: the grammar accepts in a semantic action (YYACCEPT), as
// libpcp's grammar of derived metrics does.
//
// A conflict that precedence does not resolve is an error (the grammars
// built here are %expect 0).
//
// The package runs at development time only: go generate writes the tables
// into package derive as Go arrays.
package lalrgen

import (
	"fmt"
	"strings"
)

// Grammar is a context-free grammar with precedence, as the declarations
// and rules of a Bison input file give it.
type Grammar struct {
	Tokens []string   // the %token names, in declaration order
	Left   [][]string // the %left lines, lowest precedence first
	Start  string     // the %start symbol
	Rules  []Rule
}

// Rule is one production of a Grammar.
type Rule struct {
	LHS  string
	RHS  string // space-separated symbol names; "" for an empty rule
	Prec string // the %prec token, or ""
}

// The terminals every grammar has, before its own Tokens.
const (
	End   = 0 // $end
	Error = 1 // error
)

// grammar is a Grammar compiled to symbol numbers, ready for table
// construction.
type grammar struct {
	names    []string // symbol names, terminals first
	nterm    int      // number of terminals
	prec     []int    // per terminal: precedence level, 0 for none
	rules    []rule   // rules[0] is $accept: start $end
	byLHS    [][]int  // per non-terminal (symbol - nterm): its rules
	nullable []bool   // per non-terminal
	first    [][]bool // per non-terminal: the terminals that can begin it
}

// rule is one production with symbol numbers.
type rule struct {
	lhs  int
	rhs  []int
	prec int // precedence level, 0 for none
}

func (g *grammar) isTerm(s int) bool { return s < g.nterm }

// compile numbers the symbols of spec and computes nullable and FIRST.
func compile(spec Grammar) (*grammar, error) {
	g := &grammar{}
	byName := map[string]int{}
	add := func(name string) {
		if _, ok := byName[name]; !ok {
			byName[name] = len(g.names)
			g.names = append(g.names, name)
		}
	}
	add("$end")
	add("error")
	for _, t := range spec.Tokens {
		add(t)
	}
	g.nterm = len(g.names)
	g.prec = make([]int, g.nterm)
	for level, line := range spec.Left {
		for _, t := range line {
			id, ok := byName[t]
			if !ok || !g.isTerm(id) {
				return nil, fmt.Errorf("lalrgen: %%left for %s, which is not a token", t)
			}
			g.prec[id] = level + 1
		}
	}
	add("$accept")
	for _, r := range spec.Rules {
		if id, ok := byName[r.LHS]; ok && g.isTerm(id) {
			return nil, fmt.Errorf("lalrgen: rule %s: %s: the left-hand side is a token", r.LHS, r.RHS)
		}
		add(r.LHS)
	}
	sym := func(r Rule, name string) (int, error) {
		id, ok := byName[name]
		if !ok {
			return 0, fmt.Errorf("lalrgen: rule %s: %s: symbol %s is neither a token nor a left-hand side", r.LHS, r.RHS, name)
		}
		return id, nil
	}
	start, ok := byName[spec.Start]
	if !ok || g.isTerm(start) {
		return nil, fmt.Errorf("lalrgen: start symbol %q has no rules", spec.Start)
	}
	g.rules = append(g.rules, rule{lhs: byName["$accept"], rhs: []int{start, End}})
	for _, r := range spec.Rules {
		gr := rule{lhs: byName[r.LHS]}
		for _, s := range strings.Fields(r.RHS) {
			id, err := sym(r, s)
			if err != nil {
				return nil, err
			}
			gr.rhs = append(gr.rhs, id)
			if g.isTerm(id) {
				gr.prec = g.prec[id] // the last terminal wins
			}
		}
		if r.Prec != "" {
			id, err := sym(r, r.Prec)
			if err != nil {
				return nil, err
			}
			if !g.isTerm(id) {
				return nil, fmt.Errorf("lalrgen: rule %s: %s: %%prec %s is not a token", r.LHS, r.RHS, r.Prec)
			}
			gr.prec = g.prec[id]
		}
		g.rules = append(g.rules, gr)
	}
	nn := len(g.names) - g.nterm
	g.byLHS = make([][]int, nn)
	for i, r := range g.rules {
		g.byLHS[r.lhs-g.nterm] = append(g.byLHS[r.lhs-g.nterm], i)
	}
	g.nullableAndFirst()
	return g, nil
}

// nullableAndFirst computes which non-terminals derive the empty string
// and the terminals each can begin with.
func (g *grammar) nullableAndFirst() {
	nn := len(g.names) - g.nterm
	g.nullable = make([]bool, nn)
	g.first = make([][]bool, nn)
	for i := range g.first {
		g.first[i] = make([]bool, g.nterm)
	}
	for changed := true; changed; {
		changed = false
		for _, r := range g.rules {
			li := r.lhs - g.nterm
			allNull := true
			for _, s := range r.rhs {
				if g.isTerm(s) {
					if !g.first[li][s] {
						g.first[li][s] = true
						changed = true
					}
					allNull = false
					break
				}
				si := s - g.nterm
				for t, in := range g.first[si] {
					if in && !g.first[li][t] {
						g.first[li][t] = true
						changed = true
					}
				}
				if !g.nullable[si] {
					allNull = false
					break
				}
			}
			if allNull && !g.nullable[li] {
				g.nullable[li] = true
				changed = true
			}
		}
	}
}

package lalrgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// exprGrammar is the classic ambiguous expression grammar made
// unambiguous by precedence, with a statement that ends in ";".
var exprGrammar = Grammar{
	Tokens: []string{"ID", "PLUS", "STAR", "LP", "RP", "SEMI", "MINUS"},
	Left:   [][]string{{"PLUS", "MINUS"}, {"STAR"}},
	Start:  "stmt",
	Rules: []Rule{
		{LHS: "stmt", RHS: "e SEMI"},
		{LHS: "e", RHS: "e PLUS e"},
		{LHS: "e", RHS: "e MINUS e"},
		{LHS: "e", RHS: "e STAR e"},
		{LHS: "e", RHS: "MINUS e", Prec: "STAR"},
		{LHS: "e", RHS: "LP e RP"},
		{LHS: "e", RHS: "ID"},
	},
}

// parse runs t over the space-separated token names of input as Bison's
// parser does (without error recovery), and returns the right-hand sides
// of the rules it reduces, in order, until it reduces the start symbol;
// a syntax error is "error at N" (N counts the tokens read).
func parse(t *Tables, input string) []string {
	sym := map[string]int{}
	for i, name := range t.Symbols[:t.NumTerminals] {
		sym[name] = i
	}
	toks := strings.Fields(input)
	var out []string
	stack := []int{0}
	la, read := -1, 0
	for range 1000 {
		st := &t.States[stack[len(stack)-1]]
		rule := 0
		if st.ReadsLookahead() {
			if la < 0 {
				la = End
				if read < len(toks) {
					la = sym[toks[read]]
				}
				read++
			}
			if a := st.Action[la]; a > 0 {
				stack = append(stack, a)
				la = -1
				continue
			} else if a < 0 {
				rule = -a
			}
		}
		if rule == 0 {
			rule = st.Default
		}
		if rule == 0 {
			return append(out, fmt.Sprintf("error at %d", read))
		}
		r := t.Rules[rule]
		out = append(out, t.RuleText(rule))
		if r.LHS == 1 {
			return out
		}
		stack = stack[:len(stack)-len(r.RHS)]
		stack = append(stack, t.States[stack[len(stack)-1]].Goto[r.LHS])
	}
	return append(out, "no end")
}

func build(t *testing.T, g Grammar) *Tables {
	t.Helper()
	tb, err := Build(g)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestPrecedence(t *testing.T) {
	tb := build(t, exprGrammar)
	for _, c := range []struct{ in, want string }{
		// STAR binds more tightly than PLUS
		{"ID PLUS ID STAR ID SEMI", "e: ID|e: ID|e: ID|e: e STAR e|e: e PLUS e|stmt: e SEMI"},
		{"ID STAR ID PLUS ID SEMI", "e: ID|e: ID|e: e STAR e|e: ID|e: e PLUS e|stmt: e SEMI"},
		// %left: a tie reduces, so PLUS and MINUS group to the left
		{"ID PLUS ID MINUS ID SEMI", "e: ID|e: ID|e: e PLUS e|e: ID|e: e MINUS e|stmt: e SEMI"},
		// %prec: unary minus takes STAR's precedence, above PLUS
		{"MINUS ID PLUS ID SEMI", "e: ID|e: MINUS e|e: ID|e: e PLUS e|stmt: e SEMI"},
		{"MINUS ID STAR ID SEMI", "e: ID|e: MINUS e|e: ID|e: e STAR e|stmt: e SEMI"},
		{"LP ID PLUS ID RP STAR ID SEMI", "e: ID|e: ID|e: e PLUS e|e: LP e RP|e: ID|e: e STAR e|stmt: e SEMI"},
	} {
		if got := strings.Join(parse(tb, c.in), "|"); got != c.want {
			t.Errorf("%s: reductions\n%s\nwant\n%s", c.in, got, c.want)
		}
	}
}

// state finds the state whose kernel is the items shown.
func state(t *testing.T, tb *Tables, kernel ...string) *State {
	t.Helper()
	for i := range tb.States {
		var k []string
		for _, it := range tb.States[i].Kernel {
			k = append(k, tb.ItemText(it))
		}
		if slices.Equal(k, kernel) {
			return &tb.States[i]
		}
	}
	t.Fatalf("no state has the kernel %q", kernel)
	return nil
}

// A state with one reduction and no shift reduces without reading a
// look-ahead token; others read one and default to their most common
// reduction.
func TestDefaultReductions(t *testing.T) {
	tb := build(t, exprGrammar)
	id := state(t, tb, "e: ID .")
	if id.ReadsLookahead() || id.Default == 0 || tb.RuleText(id.Default) != "e: ID" {
		t.Errorf("e: ID . reads a look-ahead (%v) or has default %d, want the consistent default e: ID", id.ReadsLookahead(), id.Default)
	}
	plus := state(t, tb, "e: e . PLUS e", "e: e PLUS e .", "e: e . MINUS e", "e: e . STAR e")
	if !plus.ReadsLookahead() || tb.RuleText(plus.Default) != "e: e PLUS e" {
		t.Errorf("e: e PLUS e . has default %q, reads look-ahead %v", tb.RuleText(plus.Default), plus.ReadsLookahead())
	}
	if a := plus.Action[symbolOf(t, tb, "STAR")]; a <= 0 {
		t.Errorf("e: e PLUS e . on STAR: %d, want a shift", a)
	}
	if a := plus.Action[symbolOf(t, tb, "PLUS")]; a != 0 {
		t.Errorf("e: e PLUS e . on PLUS: %d, want the default reduction", a)
	}
	if got := parse(tb, "ID PLUS SEMI"); got[len(got)-1] != "error at 3" {
		t.Errorf("ID PLUS SEMI: %q, want an error on the third token", got)
	}
}

func symbolOf(t *testing.T, tb *Tables, name string) int {
	t.Helper()
	i := slices.Index(tb.Symbols, name)
	if i < 0 {
		t.Fatalf("no symbol %s", name)
	}
	return i
}

// A state that can shift the error token has no default reduction: an
// unexpected token there is a syntax error, not a reduction.
func TestErrorShiftHasNoDefault(t *testing.T) {
	g := Grammar{
		Tokens: []string{"A", "B", "C"},
		Start:  "s",
		Rules: []Rule{
			{LHS: "s", RHS: "a b C"},
			{LHS: "a", RHS: "A"},
			{LHS: "b", RHS: "B"},
			{LHS: "b", RHS: ""},
		},
	}
	tb := build(t, g)
	st := state(t, tb, "s: a . b C")
	if tb.RuleText(st.Default) != "b:" || st.ErrorShift() != 0 {
		t.Errorf("without an error rule: default %q, error shift %d; want b: (empty) and none", tb.RuleText(st.Default), st.ErrorShift())
	}
	g.Rules = append(g.Rules, Rule{LHS: "s", RHS: "a error"})
	tb = build(t, g)
	st = state(t, tb, "s: a . b C", "s: a . error")
	if st.Default != 0 || st.ErrorShift() == 0 {
		t.Errorf("with an error rule: default %q, error shift %d; want none and a shift", tb.RuleText(st.Default), st.ErrorShift())
	}
	if a := st.Action[symbolOf(t, tb, "C")]; a >= 0 {
		t.Errorf("with an error rule, on C: %d, want the empty reduction", a)
	}
}

// The look-ahead sets are LALR(1), not SLR(1): this grammar (the Dragon
// book's 4.49) has a shift/reduce conflict in SLR(1) and none in LALR(1).
func TestLALRNotSLR(t *testing.T) {
	tb := build(t, Grammar{
		Tokens: []string{"EQ", "STAR", "ID"},
		Start:  "s",
		Rules: []Rule{
			{LHS: "s", RHS: "l EQ r"},
			{LHS: "s", RHS: "r"},
			{LHS: "l", RHS: "STAR r"},
			{LHS: "l", RHS: "ID"},
			{LHS: "r", RHS: "l"},
		},
	})
	want := "l: ID|r: l|l: STAR r|l: ID|r: l|s: l EQ r"
	if got := strings.Join(parse(tb, "STAR ID EQ ID"), "|"); got != want {
		t.Errorf("STAR ID EQ ID: %s, want %s", got, want)
	}
}

func TestGrammarErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Grammar
		want string
	}{
		{"no precedence", Grammar{Tokens: []string{"ID", "PLUS"}, Start: "e", Rules: []Rule{
			{LHS: "e", RHS: "e PLUS e"}, {LHS: "e", RHS: "ID"}}},
			"conflict on PLUS in the state of e: e . PLUS e; e: e PLUS e ."},
		// LR(1) but not LALR(1): merging the states of "E: e ." and
		// "F: e ." makes a reduce/reduce conflict
		{"not LALR", Grammar{Tokens: []string{"A", "B", "C", "D", "E"}, Start: "s", Rules: []Rule{
			{LHS: "s", RHS: "A e C"}, {LHS: "s", RHS: "A f D"}, {LHS: "s", RHS: "B f C"}, {LHS: "s", RHS: "B e D"},
			{LHS: "e", RHS: "E"}, {LHS: "f", RHS: "E"}}},
			"conflict on C in the state of e: E .; f: E ."},
		{"undeclared", Grammar{Tokens: []string{"ID"}, Start: "e", Rules: []Rule{{LHS: "e", RHS: "ID X"}}},
			"symbol X is neither a token nor a left-hand side"},
		{"left", Grammar{Tokens: []string{"ID"}, Left: [][]string{{"X"}}, Start: "e", Rules: []Rule{{LHS: "e", RHS: "ID"}}},
			"%left for X, which is not a token"},
		{"start", Grammar{Tokens: []string{"ID"}, Start: "s", Rules: []Rule{{LHS: "e", RHS: "ID"}}},
			`start symbol "s" has no rules`},
		{"token lhs", Grammar{Tokens: []string{"ID"}, Start: "e", Rules: []Rule{{LHS: "e", RHS: "ID"}, {LHS: "ID", RHS: "e"}}},
			"the left-hand side is a token"},
		{"prec", Grammar{Tokens: []string{"ID"}, Start: "e", Rules: []Rule{{LHS: "e", RHS: "ID", Prec: "e"}}},
			"%prec e is not a token"},
	} {
		_, err := Build(c.g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}

func TestItemText(t *testing.T) {
	tb := build(t, exprGrammar)
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{0, 0}, "$accept: . stmt $end"},
		{Item{2, 1}, "e: e . PLUS e"},
		{Item{2, 3}, "e: e PLUS e ."},
		{Item{2, -1}, "e: e PLUS e"},
	} {
		if got := tb.ItemText(c.it); got != c.want {
			t.Errorf("ItemText(%v) = %q, want %q", c.it, got, c.want)
		}
	}
}

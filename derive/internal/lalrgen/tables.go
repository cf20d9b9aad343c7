package lalrgen

import (
	"fmt"
	"sort"
	"strings"
)

// Tables are the LALR(1) parse tables of a Grammar.
type Tables struct {
	// Symbols are the symbol names: the terminals ($end, error, then the
	// Grammar's Tokens), then the non-terminals ($accept, then the others
	// in the order of their first rule).
	Symbols []string
	// NumTerminals is the number of terminals; a non-terminal's number
	// is its symbol number minus NumTerminals.
	NumTerminals int
	// Rules[0] is "$accept: Start $end"; Rules[i] is the Grammar's
	// Rules[i-1].
	Rules []TableRule
	// States[0] is the start state.
	States []State
}

// TableRule is a rule as a parser needs it.
type TableRule struct {
	LHS int   // the non-terminal number of the left-hand side
	RHS []int // the symbols of the right-hand side
}

// Item is an LR(0) item: a rule and the position of the dot in its
// right-hand side.
type Item struct{ Rule, Dot int }

// State is one state of the automaton. State 0 is never entered by a
// shift or a goto, and rule 0 is never reduced, so 0 means "none" in
// Action, Default and Goto.
type State struct {
	// Kernel are the state's kernel items, in rule order.
	Kernel []Item
	// Action is the action on each terminal: a > 0 shifts it and enters
	// state a, a < 0 reduces by rule -a, 0 takes the default.
	Action []int
	// Default is the rule reduced on any other terminal, or (when
	// ReadsLookahead is false) without reading one; 0 for none: a
	// syntax error.
	Default int
	// Goto is the state entered after a reduction to each non-terminal
	// (indexed by non-terminal number), 0 where there is none; nil when
	// the state has no goto.
	Goto []int
}

// ReadsLookahead reports whether the parser reads a look-ahead token in
// the state: it does not when every action is the default (Bison's
// yypact_value_is_default).
func (s *State) ReadsLookahead() bool {
	for _, a := range s.Action {
		if a != 0 {
			return true
		}
	}
	return false
}

// ErrorShift is the state entered by shifting the error token during
// error recovery, 0 when the state does not shift it.
func (s *State) ErrorShift() int {
	if a := s.Action[Error]; a > 0 {
		return a
	}
	return 0
}

// RuleText shows rule r as "lhs: rhs".
func (t *Tables) RuleText(r int) string {
	return t.ItemText(Item{Rule: r, Dot: -1})
}

// ItemText shows an item as Bison's reports do: "expr: expr . L_PLUS
// expr" (with no dot when it is out of range).
func (t *Tables) ItemText(it Item) string {
	r := t.Rules[it.Rule]
	return itemText(t.Symbols, t.NumTerminals+r.LHS, r.RHS, it.Dot)
}

func itemText(names []string, lhs int, rhs []int, dot int) string {
	var b strings.Builder
	b.WriteString(names[lhs] + ":")
	for i, s := range rhs {
		if i == dot {
			b.WriteString(" .")
		}
		b.WriteString(" " + names[s])
	}
	if dot == len(rhs) {
		b.WriteString(" .")
	}
	return b.String()
}

// Build builds the LALR(1) tables of spec. The error is a mistake in the
// grammar: an undeclared symbol, or a conflict precedence does not
// resolve.
func Build(spec Grammar) (*Tables, error) {
	g, err := compile(spec)
	if err != nil {
		return nil, err
	}
	a := g.lr0()
	kla := a.lookaheads()
	t := &Tables{Symbols: g.names, NumTerminals: g.nterm}
	for _, r := range g.rules {
		t.Rules = append(t.Rules, TableRule{LHS: r.lhs - g.nterm, RHS: r.rhs})
	}
	for si, st := range a.states {
		sets, _ := g.closure1(st.kernel, kla[si])
		redLA := map[int]la{}
		for it, s := range sets {
			if it.Dot == len(g.rules[it.Rule].rhs) {
				redLA[it.Rule] = s
			}
		}
		ts, err := a.tableState(st, redLA)
		if err != nil {
			return nil, err
		}
		t.States = append(t.States, ts)
	}
	return t, nil
}

// lr0State is a state of the LR(0) automaton.
type lr0State struct {
	kernel []Item
	trans  []int // per symbol: the state a shift or goto enters, 0 for none
	reds   []int // the rules reduced, in rule order
}

// automaton is the LR(0) automaton of a grammar.
type automaton struct {
	g      *grammar
	states []*lr0State
}

// lr0 builds the LR(0) automaton, numbering the states as Bison does:
// breadth first from the start state, the transitions of a state in
// symbol order.
func (g *grammar) lr0() *automaton {
	a := &automaton{g: g}
	index := map[string]int{}
	key := func(k []Item) string {
		var b strings.Builder
		for _, it := range k {
			fmt.Fprintf(&b, "%d.%d,", it.Rule, it.Dot)
		}
		return b.String()
	}
	addState := func(k []Item) int {
		sort.Slice(k, func(i, j int) bool {
			if k[i].Rule != k[j].Rule {
				return k[i].Rule < k[j].Rule
			}
			return k[i].Dot < k[j].Dot
		})
		ks := key(k)
		if i, ok := index[ks]; ok {
			return i
		}
		a.states = append(a.states, &lr0State{kernel: k, trans: make([]int, len(g.names))})
		index[ks] = len(a.states) - 1
		return len(a.states) - 1
	}
	addState([]Item{{0, 0}})
	for si := 0; si < len(a.states); si++ {
		st := a.states[si]
		next := map[int][]Item{} // the kernel reached by each symbol
		var syms []int
		for _, it := range g.closure0(st.kernel) {
			r := g.rules[it.Rule]
			if it.Dot == len(r.rhs) {
				st.reds = append(st.reds, it.Rule)
				continue
			}
			x := r.rhs[it.Dot]
			if _, ok := next[x]; !ok {
				syms = append(syms, x)
			}
			next[x] = append(next[x], Item{it.Rule, it.Dot + 1})
		}
		sort.Ints(st.reds)
		sort.Ints(syms)
		for _, x := range syms {
			if x == End {
				continue // no accept action: the grammar accepts in an action
			}
			st.trans[x] = addState(next[x])
		}
	}
	return a
}

// closure0 is the LR(0) closure of a kernel: the kernel items first, then
// the added items in rule order.
func (g *grammar) closure0(kernel []Item) []Item {
	out := append([]Item(nil), kernel...)
	seen := map[int]bool{}
	for i := 0; i < len(out); i++ {
		r := g.rules[out[i].Rule]
		if out[i].Dot >= len(r.rhs) {
			continue
		}
		x := r.rhs[out[i].Dot]
		if g.isTerm(x) {
			continue
		}
		for _, ri := range g.byLHS[x-g.nterm] {
			if !seen[ri] {
				seen[ri] = true
				out = append(out, Item{ri, 0})
			}
		}
	}
	return out
}

// la is a look-ahead set: the terminals, then the propagation marker.
type la []bool

// closure1 is the LR(1) closure of items with look-ahead sets, the sets
// by item and the items in the order they were added; the propagation
// marker is element nterm of a set.
func (g *grammar) closure1(kernel []Item, las []la) (map[Item]la, []Item) {
	sets := map[Item]la{}
	var order []Item
	var work []Item
	addTo := func(it Item, s la) {
		cur, ok := sets[it]
		if !ok {
			cur = make(la, g.nterm+1)
			sets[it] = cur
			order = append(order, it)
		}
		changed := false
		for i, v := range s {
			if v && !cur[i] {
				cur[i] = true
				changed = true
			}
		}
		if changed || !ok {
			work = append(work, it)
		}
	}
	for i, k := range kernel {
		addTo(k, las[i])
	}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		r := g.rules[it.Rule]
		if it.Dot >= len(r.rhs) || g.isTerm(r.rhs[it.Dot]) {
			continue
		}
		b := r.rhs[it.Dot]
		// FIRST(beta) and whether beta is nullable
		f := make(la, g.nterm+1)
		nullable := true
		for _, s := range r.rhs[it.Dot+1:] {
			if g.isTerm(s) {
				f[s] = true
				nullable = false
				break
			}
			for tt, in := range g.first[s-g.nterm] {
				if in {
					f[tt] = true
				}
			}
			if !g.nullable[s-g.nterm] {
				nullable = false
				break
			}
		}
		if nullable {
			for i, v := range sets[it] {
				if v {
					f[i] = true
				}
			}
		}
		for _, ri := range g.byLHS[b-g.nterm] {
			addTo(Item{ri, 0}, f)
		}
	}
	return sets, order
}

// lookaheads computes the LALR(1) look-ahead set of every kernel item
// (indexed by state, then kernel position), by spontaneous generation and
// propagation.
func (a *automaton) lookaheads() [][]la {
	g := a.g
	type ref struct{ state, k int }
	kidx := func(st *lr0State, it Item) int {
		for i, k := range st.kernel {
			if k == it {
				return i
			}
		}
		panic("lalrgen: kernel item not found") // the automaton is inconsistent
	}
	kla := make([][]la, len(a.states))
	prop := make([][][]ref, len(a.states))
	for si, st := range a.states {
		kla[si] = make([]la, len(st.kernel))
		prop[si] = make([][]ref, len(st.kernel))
		for i := range st.kernel {
			kla[si][i] = make(la, g.nterm+1)
		}
	}
	marker := g.nterm
	for si, st := range a.states {
		for ki, k := range st.kernel {
			s := make(la, g.nterm+1)
			s[marker] = true
			sets, order := g.closure1([]Item{k}, []la{s})
			for _, it := range order {
				r := g.rules[it.Rule]
				if it.Dot >= len(r.rhs) {
					continue
				}
				to := st.trans[r.rhs[it.Dot]]
				if to == 0 {
					continue // $end in the accept rule
				}
				dst := ref{to, kidx(a.states[to], Item{it.Rule, it.Dot + 1})}
				for tt, in := range sets[it] {
					if !in {
						continue
					}
					if tt == marker {
						prop[si][ki] = append(prop[si][ki], dst)
					} else {
						kla[dst.state][dst.k][tt] = true
					}
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for si := range a.states {
			for ki := range a.states[si].kernel {
				for _, d := range prop[si][ki] {
					for tt, in := range kla[si][ki] {
						if in && !kla[d.state][d.k][tt] {
							kla[d.state][d.k][tt] = true
							changed = true
						}
					}
				}
			}
		}
	}
	return kla
}

// tableState makes the table row of an LR(0) state, given the look-ahead
// set of each of its reductions.
func (a *automaton) tableState(st *lr0State, redLA map[int]la) (State, error) {
	g := a.g
	ts := State{Kernel: st.kernel, Action: make([]int, g.nterm)}
	for x := g.nterm; x < len(g.names); x++ {
		if st.trans[x] != 0 {
			if ts.Goto == nil {
				ts.Goto = make([]int, len(g.names)-g.nterm)
			}
			ts.Goto[x-g.nterm] = st.trans[x]
		}
	}
	hasShift := false
	for x := 0; x < g.nterm; x++ {
		if st.trans[x] != 0 {
			hasShift = true
		}
	}
	if len(st.reds) == 0 || len(st.reds) == 1 && !hasShift {
		// consistent: the shifts, and the one reduction as the default
		if len(st.reds) == 1 {
			ts.Default = st.reds[0]
		}
		copy(ts.Action, st.trans[:g.nterm])
		return ts, nil
	}
	// look-ahead sets per reduction (copies: conflict resolution edits them)
	las := make([]la, len(st.reds))
	for i, r := range st.reds {
		las[i] = append(la(nil), redLA[r][:g.nterm]...)
	}
	shift := make([]bool, g.nterm)
	for x := range shift {
		shift[x] = st.trans[x] != 0
	}
	// precedence resolution, as Bison's set_conflicts/resolve_sr_conflict
	for i, r := range st.reds {
		rp := g.rules[r].prec
		if rp == 0 {
			continue
		}
		for tok := 0; tok < g.nterm; tok++ {
			if !las[i][tok] || !shift[tok] || g.prec[tok] == 0 {
				continue
			}
			if g.prec[tok] > rp {
				las[i][tok] = false // shift wins
			} else {
				shift[tok] = false // reduce wins; a tie on %left reduces
			}
		}
	}
	for tok := 0; tok < g.nterm; tok++ {
		n := 0
		if shift[tok] {
			n++
		}
		for i := range st.reds {
			if las[i][tok] {
				n++
			}
		}
		if n > 1 {
			var items []string
			for _, it := range st.kernel {
				items = append(items, a.itemText(it))
			}
			return State{}, fmt.Errorf("lalrgen: conflict on %s in the state of %s", g.names[tok], strings.Join(items, "; "))
		}
	}
	for i := len(st.reds) - 1; i >= 0; i-- {
		for tok := 0; tok < g.nterm; tok++ {
			if las[i][tok] {
				ts.Action[tok] = -st.reds[i]
			}
		}
	}
	for tok := 0; tok < g.nterm; tok++ {
		if shift[tok] {
			ts.Action[tok] = st.trans[tok]
		}
	}
	if shift[Error] {
		return ts, nil // no default reduction where error can be shifted
	}
	most := 0
	for _, r := range st.reds {
		count := 0
		for _, act := range ts.Action {
			if act == -r {
				count++
			}
		}
		if count > most {
			most = count
			ts.Default = r
		}
	}
	if ts.Default != 0 {
		for tok, act := range ts.Action {
			if act == -ts.Default {
				ts.Action[tok] = 0
			}
		}
	}
	return ts, nil
}

// itemText is Tables.ItemText before there are Tables.
func (a *automaton) itemText(it Item) string {
	r := a.g.rules[it.Rule]
	return itemText(a.g.names, r.lhs, r.rhs, it.Dot)
}

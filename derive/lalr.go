package derive

import (
	"fmt"
	"sort"
	"strings"
)

// This file builds LALR(1) parse tables the way GNU Bison does, so that a
// grammar written here fails on the same token, in the same parser state,
// with the same error productions firing, as the Bison-generated parser in
// libpcp. The details that matter for error reporting, all reproduced:
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
//     (so an unexpected token is an error there rather than a reduction);
//   - error recovery as in Bison's yacc.c skeleton (see parser.go).
//
// The tables are built once per grammar, when first needed.

// symbol numbers: terminals first (0 is $end, 1 is error), then
// non-terminals.
type symID int

const (
	symEnd   symID = 0
	symError symID = 1
)

// gRule is one grammar production.
type gRule struct {
	lhs    symID
	rhs    []symID
	prec   int // precedence level of the rule, 0 for none
	action int // index into the grammar's action table (0: default $$ = $1)
	text   string
}

type assoc int

const (
	assocNone assoc = iota
	assocLeft
)

// grammar is a context-free grammar with precedence, ready for table
// construction.
type grammar struct {
	names     []string // symbol names, terminals first
	nterm     int      // number of terminals
	prec      []int    // per terminal precedence level (0: none)
	assoc     []assoc
	rules     []gRule // rules[0] is $accept: start $end
	byLHS     [][]int // non-terminal (index sym-nterm) -> rule numbers
	nullable  []bool  // per non-terminal
	first     [][]bool
	tokenByNm map[string]symID
}

// grammarSpec is the textual description that newGrammar compiles.
type grammarSpec struct {
	tokens []string   // terminal names, in declaration order
	left   [][]string // %left lines, lowest precedence first
	start  string
	rules  []ruleSpec
}

type ruleSpec struct {
	lhs    string
	rhs    string // space separated symbols; "" for an empty rule
	prec   string // %prec token, or ""
	action int
}

func newGrammar(spec grammarSpec) *grammar {
	g := &grammar{tokenByNm: map[string]symID{}}
	add := func(name string) symID {
		if id, ok := g.tokenByNm[name]; ok {
			return id
		}
		id := symID(len(g.names))
		g.names = append(g.names, name)
		g.tokenByNm[name] = id
		return id
	}
	add("$end")
	add("error")
	for _, t := range spec.tokens {
		add(t)
	}
	g.nterm = len(g.names)
	g.prec = make([]int, g.nterm)
	g.assoc = make([]assoc, g.nterm)
	for level, line := range spec.left {
		for _, t := range line {
			id, ok := g.tokenByNm[t]
			if !ok || int(id) >= g.nterm {
				panic("derive: precedence for unknown token " + t)
			}
			g.prec[id] = level + 1
			g.assoc[id] = assocLeft
		}
	}
	add("$accept")
	for _, r := range spec.rules {
		if _, ok := g.tokenByNm[r.lhs]; !ok {
			add(r.lhs)
		}
	}
	sym := func(name string) symID {
		id, ok := g.tokenByNm[name]
		if !ok {
			panic("derive: grammar symbol not declared: " + name)
		}
		return id
	}
	g.rules = append(g.rules, gRule{lhs: sym("$accept"), rhs: []symID{sym(spec.start), symEnd}, text: "$accept: " + spec.start + " $end"})
	for _, r := range spec.rules {
		gr := gRule{lhs: sym(r.lhs), action: r.action, text: r.lhs + ": " + r.rhs}
		for _, s := range strings.Fields(r.rhs) {
			id := sym(s)
			gr.rhs = append(gr.rhs, id)
			if int(id) < g.nterm {
				gr.prec = g.prec[id] // the last terminal wins
			}
		}
		if r.prec != "" {
			gr.prec = g.prec[sym(r.prec)]
		}
		g.rules = append(g.rules, gr)
	}
	nn := len(g.names) - g.nterm
	g.byLHS = make([][]int, nn)
	for i, r := range g.rules {
		g.byLHS[int(r.lhs)-g.nterm] = append(g.byLHS[int(r.lhs)-g.nterm], i)
	}
	// nullable and FIRST
	g.nullable = make([]bool, nn)
	g.first = make([][]bool, nn)
	for i := range g.first {
		g.first[i] = make([]bool, g.nterm)
	}
	for changed := true; changed; {
		changed = false
		for _, r := range g.rules {
			li := int(r.lhs) - g.nterm
			allNull := true
			for _, s := range r.rhs {
				if int(s) < g.nterm {
					if !g.first[li][s] {
						g.first[li][s] = true
						changed = true
					}
					allNull = false
					break
				}
				si := int(s) - g.nterm
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
	return g
}

func (g *grammar) isTerm(s symID) bool { return int(s) < g.nterm }

// item is an LR(0) item: a rule and a dot position.
type item struct{ rule, dot int }

// lalrState is one state of the automaton with its parse actions.
type lalrState struct {
	kernel []item
	trans  map[symID]int // shifts (terminals) and gotos (non-terminals)
	reds   []int         // reductions, in rule order
	// after table construction:
	action         map[symID]int // terminal -> >0 shift to state-1... see below
	defRed         int           // default reduction rule, -1 for none
	readsLookahead bool          // false when the action row is all default
	shiftsError    int           // state reached by shifting error, -1 for none
}

// Action encoding in lalrState.action: s >= 0 shifts to state s;
// -(r+1) reduces by rule r. Terminals absent from the map take the default.

// tables is the result of table construction.
type tables struct {
	g      *grammar
	states []*lalrState
}

func buildTables(g *grammar) *tables {
	t := &tables{g: g}
	// LR(0) automaton
	index := map[string]int{}
	key := func(k []item) string {
		var b strings.Builder
		for _, it := range k {
			fmt.Fprintf(&b, "%d.%d,", it.rule, it.dot)
		}
		return b.String()
	}
	addState := func(k []item) int {
		sort.Slice(k, func(i, j int) bool {
			if k[i].rule != k[j].rule {
				return k[i].rule < k[j].rule
			}
			return k[i].dot < k[j].dot
		})
		ks := key(k)
		if i, ok := index[ks]; ok {
			return i
		}
		t.states = append(t.states, &lalrState{kernel: k, trans: map[symID]int{}})
		index[ks] = len(t.states) - 1
		return len(t.states) - 1
	}
	addState([]item{{0, 0}})
	for si := 0; si < len(t.states); si++ {
		st := t.states[si]
		cl := g.closure0(st.kernel)
		// group by next symbol, in symbol order for determinism
		next := map[symID][]item{}
		var syms []symID
		for _, it := range cl {
			r := g.rules[it.rule]
			if it.dot == len(r.rhs) {
				st.reds = append(st.reds, it.rule)
				continue
			}
			x := r.rhs[it.dot]
			if _, ok := next[x]; !ok {
				syms = append(syms, x)
			}
			next[x] = append(next[x], item{it.rule, it.dot + 1})
		}
		sort.Ints(st.reds)
		sort.Slice(syms, func(i, j int) bool { return syms[i] < syms[j] })
		for _, x := range syms {
			if x == symEnd {
				continue // accept: never reached by this grammar's actions
			}
			st.trans[x] = addState(next[x])
		}
	}
	t.lookaheads()
	return t
}

// closure0 is the LR(0) closure of a kernel, kernel items first, then
// the added items in rule order.
func (g *grammar) closure0(kernel []item) []item {
	out := append([]item(nil), kernel...)
	seen := map[int]bool{}
	for i := 0; i < len(out); i++ {
		r := g.rules[out[i].rule]
		if out[i].dot >= len(r.rhs) {
			continue
		}
		x := r.rhs[out[i].dot]
		if g.isTerm(x) {
			continue
		}
		for _, ri := range g.byLHS[int(x)-g.nterm] {
			if !seen[ri] {
				seen[ri] = true
				out = append(out, item{ri, 0})
			}
		}
	}
	return out
}

// la is a look-ahead set: terminals plus the propagation marker.
type la []bool

// closure1 is the LR(1) closure of items with look-ahead sets; the marker
// "#" is terminal index nterm.
func (g *grammar) closure1(kernel []item, las []la) (map[item]la, []item) {
	sets := map[item]la{}
	var order []item
	var work []item
	addTo := func(it item, s la) {
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
		r := g.rules[it.rule]
		if it.dot >= len(r.rhs) || g.isTerm(r.rhs[it.dot]) {
			continue
		}
		b := r.rhs[it.dot]
		// FIRST(beta) and whether beta is nullable
		f := make(la, g.nterm+1)
		nullable := true
		for _, s := range r.rhs[it.dot+1:] {
			if g.isTerm(s) {
				f[s] = true
				nullable = false
				break
			}
			for tt, in := range g.first[int(s)-g.nterm] {
				if in {
					f[tt] = true
				}
			}
			if !g.nullable[int(s)-g.nterm] {
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
		for _, ri := range g.byLHS[int(b)-g.nterm] {
			addTo(item{ri, 0}, f)
		}
	}
	return sets, order
}

func (t *tables) lookaheads() {
	g := t.g
	type ref struct{ state, k int }
	kidx := func(st *lalrState, it item) int {
		for i, k := range st.kernel {
			if k == it {
				return i
			}
		}
		panic("derive: kernel item not found")
	}
	kla := make([][]la, len(t.states))
	prop := make([][][]ref, len(t.states))
	for si, st := range t.states {
		kla[si] = make([]la, len(st.kernel))
		prop[si] = make([][]ref, len(st.kernel))
		for i := range st.kernel {
			kla[si][i] = make(la, g.nterm+1)
		}
	}
	marker := g.nterm
	for si, st := range t.states {
		for ki, k := range st.kernel {
			s := make(la, g.nterm+1)
			s[marker] = true
			sets, order := g.closure1([]item{k}, []la{s})
			for _, it := range order {
				r := g.rules[it.rule]
				if it.dot >= len(r.rhs) {
					continue
				}
				x := r.rhs[it.dot]
				to, ok := st.trans[x]
				if !ok {
					continue // $end in the accept rule
				}
				dst := ref{to, kidx(t.states[to], item{it.rule, it.dot + 1})}
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
		for si := range t.states {
			for ki := range t.states[si].kernel {
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
	// reductions with their look-ahead sets, then the action rows
	for si, st := range t.states {
		sets, _ := g.closure1(st.kernel, kla[si])
		redLA := map[int]la{}
		for it, s := range sets {
			if it.dot == len(g.rules[it.rule].rhs) {
				redLA[it.rule] = s
			}
		}
		t.actionRow(st, redLA)
	}
}

func (t *tables) actionRow(st *lalrState, redLA map[int]la) {
	g := t.g
	st.action = map[symID]int{}
	st.defRed = -1
	st.shiftsError = -1
	hasShift := false
	for x := range st.trans {
		if g.isTerm(x) {
			hasShift = true
		}
	}
	consistent := len(st.reds) == 0 || len(st.reds) == 1 && !hasShift
	if consistent {
		if len(st.reds) == 1 {
			st.defRed = st.reds[0]
		}
		for x, to := range st.trans {
			if g.isTerm(x) {
				st.action[x] = to
			}
		}
		if to, ok := st.trans[symError]; ok {
			st.shiftsError = to
		}
		st.readsLookahead = len(st.action) > 0
		return
	}
	// look-ahead sets per reduction (copies: conflict resolution edits them)
	las := make([]la, len(st.reds))
	for i, r := range st.reds {
		las[i] = append(la(nil), redLA[r][:g.nterm]...)
	}
	shiftSet := make([]bool, g.nterm)
	disabled := map[symID]bool{}
	for x := range st.trans {
		if g.isTerm(x) {
			shiftSet[x] = true
		}
	}
	// precedence resolution, as Bison's set_conflicts/resolve_sr_conflict
	for i, r := range st.reds {
		rp := g.rules[r].prec
		if rp == 0 {
			continue
		}
		for tok := 0; tok < g.nterm; tok++ {
			if !las[i][tok] || !shiftSet[tok] || g.prec[tok] == 0 {
				continue
			}
			switch {
			case g.prec[tok] < rp:
				shiftSet[tok] = false // reduce wins
				disabled[symID(tok)] = true
			case g.prec[tok] > rp:
				las[i][tok] = false // shift wins
			default:
				// equal: %left reduces
				shiftSet[tok] = false
				disabled[symID(tok)] = true
			}
		}
	}
	// any conflict left is a grammar bug here (the C grammar has %expect 0)
	for tok := 0; tok < g.nterm; tok++ {
		n := 0
		if shiftSet[tok] {
			n++
		}
		for i := range st.reds {
			if las[i][tok] {
				n++
			}
		}
		if n > 1 {
			panic(fmt.Sprintf("derive: unresolved conflict on %s in state with kernel %v", g.names[tok], st.kernel))
		}
	}
	row := map[symID]int{}
	for i := len(st.reds) - 1; i >= 0; i-- {
		for tok := 0; tok < g.nterm; tok++ {
			if las[i][tok] {
				row[symID(tok)] = -(st.reds[i] + 1)
			}
		}
	}
	nodefault := false
	for x, to := range st.trans {
		if g.isTerm(x) && !disabled[x] {
			row[x] = to
			if x == symError {
				nodefault = true
				st.shiftsError = to
			}
		}
	}
	if !nodefault {
		max := 0
		for _, r := range st.reds {
			count := 0
			for _, a := range row {
				if a == -(r + 1) {
					count++
				}
			}
			if count > max {
				max = count
				st.defRed = r
			}
		}
		if st.defRed >= 0 {
			for x, a := range row {
				if a == -(st.defRed + 1) {
					delete(row, x)
				}
			}
		}
	}
	st.action = row
	st.readsLookahead = len(row) > 0
}

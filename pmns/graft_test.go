package pmns

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// splitInsert is Grafted.insert over strings.Split's components: the
// reference for TestGraftedComponents.
func splitInsert(t *Grafted, name string, graft bool) {
	n := &t.root
	parts := strings.Split(name, ".")
	for i, p := range parts {
		c := n.byName[p]
		if c == nil {
			c = &treeNode{leaf: i == len(parts)-1}
			if n.byName == nil {
				n.byName = map[string]*treeNode{}
			}
			n.byName[p] = c
			n.children = append(n.children, c)
			n.names = append(n.names, p)
		} else if graft && i == len(parts)-1 {
			return
		} else if graft && c.leaf {
			c.leaf = false
		}
		n = c
	}
}

// TestGraftedComponents checks the tree NewGrafted builds against one
// built from strings.Split's components, on names with empty components,
// leaves below leaves and derived names over the PMNS's: every name and
// prefix traverses the same.
func TestGraftedComponents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", ""}), 1, 4).Draw(t, "parts")
			return strings.Join(parts, ".")
		})
		base := rapid.SliceOfN(name, 0, 8).Draw(t, "base")
		derived := rapid.SliceOfN(name, 0, 4).Draw(t, "derived")
		got := NewGrafted(base, derived)
		want := &Grafted{}
		for _, n := range base {
			splitInsert(want, n, false)
		}
		for _, n := range derived {
			splitInsert(want, n, true)
		}
		probes := []string{""}
		for _, n := range slices.Concat(base, derived) {
			for i := range len(n) + 1 {
				if i == len(n) || n[i] == '.' {
					probes = append(probes, n[:i])
				}
			}
		}
		for _, p := range probes {
			if g, w := got.Traverse(p), want.Traverse(p); !slices.Equal(g, w) {
				t.Fatalf("Traverse(%q) = %q, want %q", p, g, w)
			}
		}
	})
}

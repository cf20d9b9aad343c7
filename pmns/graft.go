package pmns

import "strings"

// Grafted is a local PMNS (an archive's, or a -n file's) with the
// derived metrics' names grafted in, as libpcp's pmTraversePMNS walks it:
// depth first, the children of each node in the PMNS's order, then the
// children only derived names give it, in the order they were first
// registered. A derived name the PMNS already has (as a leaf or not) is
// the PMNS's; one below a leaf of the PMNS turns that leaf into a node
// (the leaf is no longer traversed, though its name still resolves).
type Grafted struct {
	root treeNode
}

type treeNode struct {
	leaf     bool
	children []*treeNode
	names    []string // the children's names, in order
	byName   map[string]*treeNode
}

// NewGrafted builds the tree of the leaf names base, in the PMNS's
// traversal order (which gives each node's children in order), and the
// derived names, in registration order.
func NewGrafted(base, derived []string) *Grafted {
	t := &Grafted{}
	for _, n := range base {
		t.insert(n, false)
	}
	for _, n := range derived {
		t.insert(n, true)
	}
	return t
}

// insert adds a leaf name, creating the nodes above it; a derived name
// (graft) does not change what is already there.
func (t *Grafted) insert(name string, graft bool) {
	n := &t.root
	// name's components in turn, as substrings (no strings.Split: a
	// tree is built at every open of an archive, one name per metric)
	for rest := name; ; {
		p, after, more := strings.Cut(rest, ".")
		last := !more
		rest = after
		c := n.byName[p]
		if c == nil {
			c = &treeNode{leaf: last}
			if n.byName == nil {
				n.byName = map[string]*treeNode{}
			}
			n.byName[p] = c
			n.children = append(n.children, c)
			n.names = append(n.names, p)
		} else if graft && last {
			return
		} else if graft && c.leaf {
			// a derived name below a leaf of the PMNS makes the leaf
			// a node: its traversal gives the derived names instead
			// (PCP 6.0.3, synth.once.sub with synth.once a metric)
			c.leaf = false
		}
		n = c
		if last {
			return
		}
	}
}

// Traverse returns the leaves at or below name ("" is the root), nil when
// there are none.
func (t *Grafted) Traverse(name string) []string {
	n := &t.root
	if name != "" {
		for _, p := range strings.Split(name, ".") {
			if n = n.byName[p]; n == nil {
				return nil
			}
		}
	}
	if n.leaf {
		return []string{name}
	}
	var out []string
	prefix := ""
	if name != "" {
		prefix = name + "."
	}
	walkTree(n, prefix, &out)
	return out
}

func walkTree(n *treeNode, prefix string, out *[]string) {
	for i, c := range n.children {
		if c.leaf {
			*out = append(*out, prefix+n.names[i])
			continue
		}
		walkTree(c, prefix+n.names[i]+".", out)
	}
}

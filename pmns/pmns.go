// Package pmns loads an ASCII Performance Metrics Name Space (PMNS) file the
// way PCP 6.0.3's pmLoadASCIINameSpace does for the tools' -n option: the
// file goes through a pmcpp(1) emulation (C comments, #define and macro
// substitution, #include, #ifdef/#ifndef/#else/#endif, #undef), and the
// result is parsed with the syntax of PMNS(5).
//
// Everything that can be observed from the real tools is reproduced: the
// names of a metric in the order pmNameAll gives them, the order of
// pmTraversePMNS, and on failure the exact messages the tools print on
// stderr (see LoadError).
//
// Name order. Children keep the order in which their parent's definition
// lists them, whatever order the non-leaf definitions come in; Traverse walks
// the tree depth first in that order. Names returns the names of a PMID in
// the reverse of that traversal order (libpcp pushes each leaf onto the front
// of its PMID's hash chain while walking the tree), so with
//
//	root { foo  other 245:0:2 }
//	foo  { bar 245:0:1  baz 245:0:1 }
//
// Traverse("") is foo.bar, foo.baz, other and Names(245.0.1) is foo.baz,
// foo.bar (pmdumplog prints "245.0.1 (foo.baz or foo.bar)").
//
// Known differences: #shell is refused (pcpkit does not run commands named in
// a PMNS file) and #include takes only regular files; macro expansions that
// overrun pmcpp's buffers (which crash the real one) simply work; and where a
// complete PMID is followed by white space and a lone ':' at the end of its
// line, libpcp re-reads part of the line from a position that depends on how
// it compacted its buffer, which is reproduced only for the common layouts.
// When pmcpp fails and the parser fails too, the real tools interleave the
// two sets of messages at random; Messages puts pmcpp's first.
package pmns

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/pmapi"
)

// LoadError is a failure to load a namespace. Messages holds what the real
// tool prints on stderr before its own line (every line ends in a newline),
// and Reason the text of the PCP error that line ends with: a tool prints
//
//	os.Stderr.WriteString(e.Messages)
//	fmt.Fprintf(os.Stderr, "%s: Cannot load namespace from \"%s\": %s\n", prog, file, e.Reason)
type LoadError struct {
	Messages string // the lines printed before the tool's own line
	Reason   string // "No such file or directory", "Problems parsing PMNS definitions", ...
}

// Error returns Messages.
func (e *LoadError) Error() string { return e.Messages }

// ReasonPMNS is pmErrStr(PM_ERR_PMNS), the reason for every failure after the
// file could be opened.
const ReasonPMNS = "Problems parsing PMNS definitions"

// Namespace is a loaded PMNS.
type Namespace struct {
	root   *node
	byPMID map[pmapi.PMID][]string // names in pmNameAll order
}

type node struct {
	name     string
	leaf     bool
	dynamic  bool
	pmid     pmapi.PMID
	children []*node
	byName   map[string]*node // the first child of each name
	dups     bool             // some children share a name
}

// Load reads the ASCII PMNS in path. On failure the error is a *LoadError.
func Load(path string) (*Namespace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &LoadError{
			Messages: fmt.Sprintf("Error Parsing ASCII PMNS: Cannot open \"%s\"\n", path),
			Reason:   errnoText(err),
		}
	}
	f.Close()
	out, cppErrs, cppFailed := preprocess(path, pcpconf.VarDir())
	var errs strings.Builder
	errs.WriteString(cppErrs)
	fail := func() (*Namespace, error) {
		return nil, &LoadError{Messages: errs.String(), Reason: ReasonPMNS}
	}
	defs, ok := parse(out, &errs)
	if !ok {
		return fail()
	}
	if cppFailed {
		errs.WriteString("Error Parsing ASCII PMNS: pmcpp returned non-zero exit status\n")
		return fail()
	}
	ns, ok := build(defs, &errs)
	if !ok {
		return fail()
	}
	return ns, nil
}

// errnoText is strerror for the error of a failed open.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// build links the definitions into a tree, with libpcp's checks.
func build(defs []*defNode, errs *strings.Builder) (*Namespace, bool) {
	var root *defNode
	byPath := map[string]*defNode{}
	for _, d := range defs {
		if d.path == "root" {
			if root != nil {
				errs.WriteString("Error Parsing ASCII PMNS: Multiple name space entries for \"root\"\n")
				return nil, false
			}
			root = d
			continue
		}
		if _, ok := byPath[d.path]; !ok {
			byPath[d.path] = d
		}
	}
	if root == nil {
		errs.WriteString("Error Parsing ASCII PMNS: No name space entry for \"root\"\n")
		return nil, false
	}
	root.linked = true
	var link func(d *defNode, prefix string) (*node, bool)
	link = func(d *defNode, prefix string) (*node, bool) {
		n := &node{}
		for _, c := range d.children {
			full := prefix + c.name
			child := &node{name: c.name, leaf: c.leaf, dynamic: c.dynamic, pmid: c.pmid}
			if !c.leaf {
				sub, ok := byPath[full]
				if !ok {
					fmt.Fprintf(errs, "Error Parsing ASCII PMNS: Cannot find definition for non-terminal node \"%s\" in name space\n", full)
					return nil, false
				}
				sub.linked = true
				t, ok := link(sub, full+".")
				if !ok {
					return nil, false
				}
				child.children, child.byName, child.dups = t.children, t.byName, t.dups
			}
			n.children = append(n.children, child)
		}
		n.byName = make(map[string]*node, len(n.children))
		for _, c := range n.children {
			if _, ok := n.byName[c.name]; ok {
				n.dups = true
				continue
			}
			n.byName[c.name] = c
		}
		return n, true
	}
	tree, ok := link(root, "")
	if !ok {
		return nil, false
	}
	disconnected := false
	for i := len(defs) - 1; i >= 0; i-- {
		if !defs[i].linked {
			fmt.Fprintf(errs, "Error Parsing ASCII PMNS: Disconnected subtree (\"%s\") in name space\n", defs[i].path)
			disconnected = true
		}
	}
	if disconnected {
		return nil, false
	}
	ns := &Namespace{root: tree, byPMID: map[pmapi.PMID][]string{}}
	walk(tree, "", func(name string, n *node) {
		if !n.dynamic {
			ns.byPMID[n.pmid] = append(ns.byPMID[n.pmid], name)
		}
	})
	for _, names := range ns.byPMID {
		slices.Reverse(names)
	}
	return ns, true
}

// walk calls fn for each leaf below n, depth first in definition order.
func walk(n *node, prefix string, fn func(name string, leaf *node)) {
	for _, c := range n.children {
		if c.leaf {
			fn(prefix+c.name, c)
			continue
		}
		walk(c, prefix+c.name+".", fn)
	}
}

// find returns the node for a dotted name ("" is the root).
func (ns *Namespace) find(name string) *node {
	n := ns.root
	if name == "" {
		return n
	}
	for _, part := range strings.Split(name, ".") {
		if n = n.byName[part]; n == nil {
			return nil
		}
	}
	return n
}

// Lookup returns the PMID of a leaf name, as pmLookupName does. The root of
// a dynamic subtree ("d:*:*") has the PMID 511.d.0.
func (ns *Namespace) Lookup(name string) (pmapi.PMID, bool) {
	n := ns.find(name)
	if n == nil || !n.leaf || name == "" {
		return pmapi.PMIDNull, false
	}
	return n.pmid, true
}

// Names returns every name of pmid, in the order pmNameAll gives them (the
// reverse of the traversal order); nil if it has none. Dynamic subtree roots
// have no names by PMID.
func (ns *Namespace) Names(pmid pmapi.PMID) []string {
	names := ns.byPMID[pmid]
	if len(names) == 0 {
		return nil
	}
	return append([]string(nil), names...)
}

// Traverse returns the leaf names at or below name, in pmTraversePMNS order;
// "" means the whole namespace. A leaf gives itself; an unknown name gives
// nil.
func (ns *Namespace) Traverse(name string) []string {
	n := ns.find(name)
	if n == nil {
		return nil
	}
	if n.leaf {
		return []string{name}
	}
	prefix := ""
	if name != "" {
		prefix = name + "."
	}
	var names []string
	traverse(n, prefix, &names)
	return names
}

// traverse appends the leaf names below n as pmTraversePMNS gives them: each
// child is found again by its name, so of two siblings with the same name
// (possible only in a definition left open at the end of the file) the
// second is shown as the first.
func traverse(n *node, prefix string, names *[]string) {
	for _, c := range n.children {
		if n.dups {
			c = n.byName[c.name]
		}
		if c.leaf {
			*names = append(*names, prefix+c.name)
			continue
		}
		traverse(c, prefix+c.name+".", names)
	}
}

// LoadUnique is Load for a tool's -N option (pmLoadASCIINameSpace with
// dupok 0): a namespace in which two names share a PMID is refused, with
// libpcp's message naming the later name first. The roots of dynamic
// subtrees may share their PMID.
func LoadUnique(path string) (*Namespace, error) {
	ns, err := Load(path)
	if err != nil {
		return nil, err
	}
	type first struct {
		name    string
		dynamic bool
	}
	seen := map[pmapi.PMID]first{}
	msg := ""
	walk(ns.root, "", func(name string, n *node) {
		if msg != "" {
			return
		}
		if old, ok := seen[n.pmid]; ok && !old.dynamic {
			msg = fmt.Sprintf("Error Parsing ASCII PMNS: Duplicate metric id (%s) in name space for metrics \"%s\" and \"%s\"\n\n", n.pmid, name, old.name)
			return
		}
		seen[n.pmid] = first{name, n.dynamic}
	})
	if msg != "" {
		return nil, &LoadError{Messages: msg, Reason: ReasonPMNS}
	}
	return ns, nil
}

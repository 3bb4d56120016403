package strictyaml

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Helpers over yaml.Node trees. A parsed tree is a tree through Content, but
// alias nodes point back at anchors, which can form cycles (`a: &x [*x]`), so
// every walk that follows aliases carries a guard.

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// describe names a node's kind in user terms for "expected X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if isNull(n) {
			return "an empty value"
		}
		return quote(n.Value)
	}
	return "an unexpected YAML node"
}

// pair is one effective key/value entry of a mapping.
type pair struct {
	key, val *yaml.Node
	merged   bool // came in through a `<<` merge key
}

// mappingPairs returns the entries of mapping m as YAML's merge-key rule
// defines them: m's own keys in order, then keys merged in with `<<` (from a
// mapping or a list of mappings, earlier ones winning) that m does not set
// itself. problem, if non-nil, is told about duplicate keys, keys that are
// not plain scalars, and bad merge values; the offending entries are dropped.
func mappingPairs(m *yaml.Node, problem func(at *yaml.Node, key, msg string)) []pair {
	w := pairWalker{problem: problem, visiting: map[*yaml.Node]bool{}}
	return w.pairs(m, 0)
}

type pairWalker struct {
	problem  func(at *yaml.Node, key, msg string)
	visiting map[*yaml.Node]bool
}

func (w *pairWalker) report(at *yaml.Node, key, msg string) {
	if w.problem != nil {
		w.problem(at, key, msg)
	}
}

func (w *pairWalker) pairs(m *yaml.Node, depth int) []pair {
	if m == nil || m.Kind != yaml.MappingNode || w.visiting[m] || depth > 64 {
		return nil
	}
	w.visiting[m] = true
	defer delete(w.visiting, m)
	var own []pair
	var merges []*yaml.Node
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if isMergeKey(k) {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			w.report(k, "", "a key must be a plain name, not "+describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			w.report(k, k.Value, "duplicate key (already defined at line "+strconv.Itoa(first.Line)+")")
			continue
		}
		seen[k.Value] = k
		own = append(own, pair{key: k, val: v})
	}
	for _, mv := range merges {
		for _, src := range w.mergeSources(mv) {
			for _, p := range w.pairs(src, depth+1) {
				if _, dup := seen[p.key.Value]; dup {
					continue
				}
				seen[p.key.Value] = p.key
				p.merged = true
				own = append(own, p)
			}
		}
	}
	return own
}

// mergeSources lists the mappings a `<<` value refers to.
func (w *pairWalker) mergeSources(v *yaml.Node) []*yaml.Node {
	v = derefAlias(v)
	switch {
	case v == nil:
	case v.Kind == yaml.MappingNode:
		return []*yaml.Node{v}
	case v.Kind == yaml.SequenceNode:
		var out []*yaml.Node
		for _, e := range v.Content {
			e = derefAlias(e)
			if e == nil || e.Kind != yaml.MappingNode {
				w.report(v, "<<", "a merge (<<) list must hold only mappings")
				return nil
			}
			out = append(out, e)
		}
		return out
	}
	w.report(v, "<<", "a merge (<<) needs a mapping or a list of mappings")
	return nil
}

// derefAlias follows alias links; nil for a dangling or cyclic chain.
func derefAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 64 {
			return nil
		}
		n = n.Alias
	}
	return n
}

// lookupKey finds key in mapping m (following merges), or nil.
func lookupKey(m *yaml.Node, key string) *pair {
	for _, p := range mappingPairs(m, nil) {
		if p.key.Value == key {
			return &p
		}
	}
	return nil
}

// countNodes counts the nodes reachable through Content (aliases are not
// followed, so this is the size of the text, not of its expansion).
func countNodes(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	// Trees built by Parse, Set and Clone never share nodes through Content,
	// but a node handed to SetNode might; the visited set keeps this finite.
	seen := map[*yaml.Node]bool{}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top == nil || seen[top] {
			continue
		}
		seen[top] = true
		stack = append(stack, top.Content...)
	}
	return len(seen)
}

func scalarNode(value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
}

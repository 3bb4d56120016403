package strictyaml

import "go.yaml.in/yaml/v3"

// expand returns a copy of n in which aliases are replaced by copies of
// their anchors and merge keys (`<<`) are applied, so code that reads a raw
// yaml.Node field later sees a plain tree: no cycles, no shared nodes. Line
// and column numbers are kept. Duplicate keys are reported, as everywhere
// else. It returns nil after reporting a problem.
func (dec *decoder) expand(n *yaml.Node, path string) *yaml.Node {
	if n == nil || dec.stopped() || !dec.spend(n, path) {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		target := n.Alias
		if target == nil {
			dec.failValue(n, path, "alias "+quote(n.Value)+" refers to no anchor")
			return nil
		}
		if dec.active[target] {
			dec.failValue(n, path, "alias "+quote(n.Value)+" refers to a value that contains it")
			return nil
		}
		dec.active[target] = true
		c := dec.expand(target, path)
		delete(dec.active, target)
		return c
	}
	if n.Anchor != "" && !dec.active[n] {
		dec.active[n] = true
		defer delete(dec.active, n)
	}
	c := *n
	c.Anchor = "" // its aliases are expanded, so the anchor names nothing
	c.Content = nil
	switch n.Kind {
	case yaml.MappingNode:
		for _, p := range dec.pairs(n, path) {
			k := *p.key
			v := dec.expand(p.val, joinKey(path, p.key.Value))
			if v == nil {
				return nil
			}
			c.Content = append(c.Content, &k, v)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for i, e := range n.Content {
			v := dec.expand(e, joinIndex(path, i))
			if v == nil {
				return nil
			}
			c.Content = append(c.Content, v)
		}
	}
	return &c
}

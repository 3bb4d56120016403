package strictyaml

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Set applies a command-line override `path=value` to the tree before
// decoding. Path segments are separated by '.'; list elements are addressed
// by index (`workload.phases.0.clients` or `workload.phases[0].clients`) or
// by the value of their `name` key (`workload.phases.run.clients`). The path
// is checked against t, the struct type the document will be decoded into,
// so an unknown key fails here with did-you-mean; missing intermediate
// mappings are created. Inside a Tagged struct the keys are checked against
// the parameters of the variant named in the file (or of the type's default
// variant); when that cannot be told, the check is left to Decode. The value
// is parsed as a YAML scalar or flow collection (`64MB`, `[32MB, 64MB]`,
// `{name: lru}`); anything else is taken as a plain string. The value itself
// is checked by Decode, whose errors then read `-set path=value: problem`.
//
// A list that is not in the file cannot have its elements addressed (its
// elements are defaults the document does not hold); set the whole list.
func (d *Document) Set(t reflect.Type, path, value string) (err error) {
	origin := "-set " + path + "=" + value
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("strictyaml: internal error applying %s (this is a bug, please report it): %v", origin, r)
		}
	}()
	ov := &override{text: origin, path: naiveDisplay(path)}
	s := &setter{d: d, ov: ov}
	vn, perr := parseSetValue(value)
	if perr != nil {
		msg := strings.TrimPrefix(perr.Error(), "yaml: ")
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			msg = m[2] // a line number within the override text means nothing
		}
		return Errors{s.problem(ov.path, "invalid value: "+msg)}
	}
	if err := s.set(t, path, vn); err != nil {
		return err
	}
	markOrigin(vn, ov, d.origin)
	return nil
}

// SetNode is Set with a value that is already a node, such as one value of a
// sweep axis read from a raw yaml.Node field. The node is copied (aliases
// expanded) and keeps its position, so errors in it point at its line in the
// file; errors in the path are reported at that line too.
func (d *Document) SetNode(t reflect.Type, path string, value *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("strictyaml: internal error setting %s (this is a bug, please report it): %v", path, r)
		}
	}()
	if value == nil {
		return fmt.Errorf("strictyaml: SetNode(%q) with a nil node", path)
	}
	dec := newDecoder(d)
	if value.Kind == yaml.DocumentNode && len(value.Content) == 1 {
		value = value.Content[0]
	}
	c := dec.expand(value, naiveDisplay(path))
	if c == nil {
		return dec.result()
	}
	s := &setter{d: d, at: value}
	return s.set(t, path, c)
}

// setter walks a path through the type and the tree together.
type setter struct {
	d  *Document
	ov *override  // the override being applied (Set)
	at *yaml.Node // where to report path problems (SetNode)
}

func (s *setter) problem(path, msg string) *FieldError {
	if s.ov != nil {
		return &FieldError{File: s.ov.text, Path: path, Msg: msg, hidePath: path == s.ov.path}
	}
	fe := &FieldError{File: s.d.file, Path: path, Msg: msg}
	if s.at != nil {
		fe.Line, fe.col = s.at.Line, s.at.Column
	}
	return fe
}

func (s *setter) fail(path, msg string) error { return Errors{s.problem(path, msg)} }

// mark records that a node was made by the override being applied.
func (s *setter) mark(n *yaml.Node) *yaml.Node {
	if s.ov != nil {
		s.d.origin[n] = s.ov
	}
	return n
}

func (s *setter) set(t reflect.Type, path string, value *yaml.Node) error {
	segs, err := parsePath(path)
	if err != nil {
		return s.fail("", "invalid key path "+quote(path)+" ("+err.Error()+")")
	}
	if t == nil {
		return fmt.Errorf("strictyaml: Set(%q) needs a struct type", path)
	}
	s.d.root()
	parent, idx := s.d.doc, 0 // the current value is parent.Content[idx]
	typ, typed := t, true
	opts := noOpts
	display := ""
	for _, seg := range segs {
		for typed && typ.Kind() == reflect.Pointer && typ != nodePtrType {
			typ = typ.Elem()
		}
		if typed && (typ == nodeType || typ == nodePtrType) {
			typed = false
		}
		cur, err := s.own(parent, idx, display)
		if err != nil {
			return err
		}
		isList := (typed && typ.Kind() == reflect.Slice) || (!typed && cur.Kind == yaml.SequenceNode)
		isMap := !typed || typ.Kind() == reflect.Struct || typ.Kind() == reflect.Map
		switch {
		case isList:
			if cur.Kind != yaml.SequenceNode {
				return s.fail(display, "cannot address an element of "+display+": the list is not in the file"+
					" (set the whole list instead, e.g. "+display+"=[...])")
			}
			k, ok := selectElement(cur, seg)
			if !ok {
				return s.fail(joinKey(display, seg.text), noElementMsg(cur, seg))
			}
			parent, idx = cur, k
			display = joinIndex(display, k)
			if typed {
				typ = typ.Elem()
			}
		case isMap:
			if seg.bracket {
				if _, isIndex := seg.index(); isIndex {
					return s.fail(display, display+" is a mapping, not a list")
				}
			}
			next, nextOpts, nextTyped, err := s.keyType(typ, typed, opts, cur, seg.text, display)
			if err != nil {
				return err
			}
			tagKey := ""
			if typed && reflect.PointerTo(typ).Implements(taggedType) {
				tagKey = reflect.New(typ).Interface().(Tagged).TagKey()
			}
			m, err := s.mappingAt(parent, idx, opts, tagKey, display)
			if err != nil {
				return err
			}
			parent, idx = m, s.childSlot(m, seg.text)
			display = joinKey(display, seg.text)
			typ, opts, typed = next, nextOpts, nextTyped
		default:
			return s.fail(joinKey(display, seg.text), "unknown key ("+display+" is a single value, not a mapping)")
		}
	}
	parent.Content[idx] = value
	if s.ov != nil {
		s.ov.path = display
	}
	return nil
}

// keyType checks key against the type at the current step and returns the
// type of its value.
func (s *setter) keyType(typ reflect.Type, typed bool, opts *fieldOpts, cur *yaml.Node, key, display string) (reflect.Type, *fieldOpts, bool, error) {
	if !typed {
		return nil, noOpts, false, nil
	}
	path := joinKey(display, key)
	if typ.Kind() == reflect.Map {
		if typ.Key().Kind() != reflect.String {
			return nil, nil, false, fmt.Errorf("strictyaml: %s: map keys must be strings", display)
		}
		return typ.Elem(), opts, true, nil
	}
	if reflect.PointerTo(typ).Implements(taggedType) {
		return s.taggedKeyType(typ, cur, key, path)
	}
	si, err := structInfoFor(typ)
	if err != nil {
		return nil, nil, false, err
	}
	i, ok := si.byName[key]
	if !ok {
		return nil, nil, false, s.fail(path, unknownKeyMsg(key, si.names))
	}
	f := si.fields[i]
	return typ.FieldByIndex(f.index).Type, f.opts, true, nil
}

// taggedKeyType finds the parameter struct a key inside a Tagged value
// belongs to: that of the variant named in the tree, else of the type's
// default. If neither can be told, the rest of the path goes unchecked.
func (s *setter) taggedKeyType(typ reflect.Type, cur *yaml.Node, key, path string) (reflect.Type, *fieldOpts, bool, error) {
	tg := reflect.New(typ).Interface().(Tagged)
	tagKey := tg.TagKey()
	if key == tagKey {
		return reflect.TypeFor[string](), noOpts, true, nil
	}
	callDefaults(reflect.ValueOf(tg).Elem())
	value, _ := tg.Tagged()
	switch cur.Kind {
	case yaml.ScalarNode:
		if !isNull(cur) {
			value = cur.Value
		}
	case yaml.MappingNode:
		if p := lookupKey(cur, tagKey); p != nil {
			if v := derefAlias(p.val); v != nil && v.Kind == yaml.ScalarNode {
				value = v.Value
			}
		}
	}
	params, err := tg.ParamsFor(value)
	if err != nil {
		return nil, noOpts, false, nil
	}
	names := []string{tagKey}
	if params == nil {
		return nil, nil, false, s.fail(path, unknownKeyMsg(key, names))
	}
	pt := reflect.TypeOf(params)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, noOpts, false, nil
	}
	si, err := structInfoFor(pt.Elem())
	if err != nil {
		return nil, nil, false, err
	}
	i, ok := si.byName[key]
	if !ok {
		return nil, nil, false, s.fail(path, unknownKeyMsg(key, append(names, si.names...)))
	}
	f := si.fields[i]
	return pt.Elem().FieldByIndex(f.index).Type, f.opts, true, nil
}

// own returns the node at parent.Content[idx], first replacing an alias by
// a private copy so the change does not leak into the anchor's other uses.
func (s *setter) own(parent *yaml.Node, idx int, display string) (*yaml.Node, error) {
	cur := parent.Content[idx]
	if cur.Kind != yaml.AliasNode {
		return cur, nil
	}
	dec := newDecoder(s.d)
	c := dec.expand(cur, display)
	if c == nil {
		return nil, dec.result()
	}
	parent.Content[idx] = c
	return c, nil
}

// mappingAt makes the node at parent.Content[idx] a mapping: an empty value
// becomes an empty mapping, and a shorthand scalar or list becomes
// {key: value}.
func (s *setter) mappingAt(parent *yaml.Node, idx int, opts *fieldOpts, tagKey, display string) (*yaml.Node, error) {
	cur := parent.Content[idx]
	key := ""
	switch {
	case cur.Kind == yaml.MappingNode:
		return cur, nil
	case isNull(cur):
		m := s.mark(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
		parent.Content[idx] = m
		return m, nil
	case cur.Kind == yaml.ScalarNode:
		key = opts.shorthand
		if key == "" {
			key = tagKey
		}
	case cur.Kind == yaml.SequenceNode:
		key = opts.seqShorthand
	}
	if key == "" {
		return nil, s.fail(display, "cannot set a key inside "+display+": it is "+describe(cur)+", not a mapping")
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: cur.Line, Column: cur.Column}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column, Content: []*yaml.Node{k, cur}}
	if o, ok := s.d.origin[cur]; ok {
		s.d.origin[k], s.d.origin[m] = o, o
	}
	parent.Content[idx] = m
	return m, nil
}

// childSlot returns the index in m.Content of key's value, adding the key
// when m does not set it itself (a value merged in with << is copied in).
func (s *setter) childSlot(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && !isMergeKey(k) && k.Value == key {
			return i + 1
		}
	}
	var val *yaml.Node
	keyNode := s.mark(scalarNode(key))
	if p := lookupKey(m, key); p != nil && p.merged {
		if c := newDecoder(s.d).expand(p.val, key); c != nil {
			val = c
			kc := *p.key
			keyNode = &kc
		}
	}
	if val == nil {
		val = s.mark(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
	}
	m.Content = append(m.Content, keyNode, val)
	return len(m.Content) - 1
}

func noElementMsg(seq *yaml.Node, seg segment) string {
	if idx, ok := seg.index(); ok {
		return "index " + strconv.Itoa(idx) + " is out of range (the list has " + strconv.Itoa(len(seq.Content)) + " elements)"
	}
	var names []string
	for _, e := range seq.Content {
		if e = derefAlias(e); e != nil && e.Kind == yaml.MappingNode {
			if p := lookupKey(e, "name"); p != nil {
				if v := derefAlias(p.val); v != nil && v.Kind == yaml.ScalarNode {
					names = append(names, v.Value)
				}
			}
		}
	}
	if len(names) == 0 {
		return "no element named " + quote(seg.text) + " (the elements have no name key; use an index)"
	}
	return "no element named " + quote(seg.text) + " (names: " + strings.Join(names, ", ") + ")"
}

// naiveDisplay renders a path in display form without looking at the tree:
// numeric segments become [i].
func naiveDisplay(path string) string {
	segs, err := parsePath(path)
	if err != nil {
		return path
	}
	out := ""
	for _, s := range segs {
		if i, ok := s.index(); ok {
			out = joinIndex(out, i)
		} else {
			out = joinKey(out, s.text)
		}
	}
	return out
}

// parseSetValue reads the text after '=' as a YAML scalar or flow
// collection. Block collections (`a: b` typed on a command line) and empty
// text are taken as plain strings.
func parseSetValue(value string) (*yaml.Node, error) {
	if strings.TrimSpace(value) == "" {
		return scalarNode(value), nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(value), &n); err != nil {
		return nil, err
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return scalarNode(value), nil
	}
	v := n.Content[0]
	if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Style&yaml.FlowStyle == 0 {
		return scalarNode(value), nil
	}
	return v, nil
}

// markOrigin records every node of an override's value as coming from it,
// and clears their positions, which count lines of the override text.
func markOrigin(n *yaml.Node, ov *override, origin map[*yaml.Node]*override) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top == nil {
			continue
		}
		if _, seen := origin[top]; seen {
			continue
		}
		origin[top] = ov
		top.Line, top.Column = 0, 0
		stack = append(stack, top.Content...)
	}
}

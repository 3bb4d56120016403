package strictyaml

import (
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Decode walks the tree into out, a non-nil pointer to a struct already
// holding defaults: keys absent from the file keep their values. Every
// problem found is collected and returned as Errors sorted by line. On error
// out may be partly updated. Programming mistakes (unsupported field types,
// bad tags) come back as a plain error prefixed "strictyaml:".
func (d *Document) Decode(out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("strictyaml: internal error while decoding %s (this is a bug, please report it): %v", d.file, r)
		}
	}()
	rv := reflect.ValueOf(out)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("strictyaml: Decode needs a non-nil pointer to a struct, got %T", out)
	}
	dec := newDecoder(d)
	dec.value(d.root(), rv.Elem(), "", noOpts)
	return dec.result()
}

// decoder carries the state of one Decode (or one Set, for its checks).
type decoder struct {
	doc    *Document
	errs   Errors
	bug    error // a programming mistake; stops decoding
	budget int   // nodes left to visit; bounds alias expansion ("billion laughs")
	// active holds anchors being expanded, to catch `&x [*x]` cycles.
	active map[*yaml.Node]bool
	// synth maps nodes made up for shorthand forms to the node the user
	// wrote, for positions and paths.
	synth map[*yaml.Node]*yaml.Node
	// keyOf maps a value to the key it was last decoded under, so an error
	// about a whole struct points at its key line rather than at the line
	// of its first entry.
	keyOf map[*yaml.Node]*yaml.Node
}

// minBudget and budgetFactor allow a document to expand through aliases to a
// few times its own size, which real configurations never exceed.
const (
	minBudget    = 100_000
	budgetFactor = 16
)

func newDecoder(d *Document) *decoder {
	return &decoder{
		doc:    d,
		budget: minBudget + budgetFactor*countNodes(d.doc),
		active: map[*yaml.Node]bool{},
		synth:  map[*yaml.Node]*yaml.Node{},
		keyOf:  map[*yaml.Node]*yaml.Node{},
	}
}

func (dec *decoder) stopped() bool {
	return dec.bug != nil || dec.budget < 0 || len(dec.errs) >= maxCollected
}

// maxCollected stops decoding after this many problems: a file with
// millions of bad keys must not exhaust memory building messages, and the
// first ten explain the rest (Errors.Error lists ten).
const maxCollected = maxListed + 1

func (dec *decoder) result() error {
	if dec.bug != nil {
		return dec.bug
	}
	if len(dec.errs) == 0 {
		return nil
	}
	sortErrors(dec.errs)
	return dec.errs
}

func (dec *decoder) real(n *yaml.Node) *yaml.Node {
	if r, ok := dec.synth[n]; ok {
		return r
	}
	return n
}

// failValue records a problem with a value node.
func (dec *decoder) failValue(n *yaml.Node, path, msg string) {
	dec.errs = append(dec.errs, dec.doc.errorAt(nil, dec.real(n), path, msg))
}

// failKey records a problem with a mapping key.
func (dec *decoder) failKey(k *yaml.Node, path, msg string) {
	dec.errs = append(dec.errs, dec.doc.errorAt(dec.real(k), nil, path, msg))
}

func (dec *decoder) programmer(err error) {
	if dec.bug == nil {
		dec.bug = err
	}
}

// spend counts one visited node against the budget.
func (dec *decoder) spend(n *yaml.Node, path string) bool {
	dec.budget--
	if dec.budget == -1 {
		dec.failValue(n, path, "the document expands to too many values (are aliases nested too deeply?)")
	}
	return dec.budget >= 0
}

// value decodes node n into v (addressable) at display path, under the
// field's tag rules o. It reports whether v was set without problems.
func (dec *decoder) value(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	if n == nil || dec.stopped() || !dec.spend(n, path) {
		return false
	}
	if n.Kind == yaml.AliasNode {
		target := n.Alias
		if target == nil {
			dec.failValue(n, path, "alias "+quote(n.Value)+" refers to no anchor")
			return false
		}
		if dec.active[target] {
			dec.failValue(n, path, "alias "+quote(n.Value)+" refers to a value that contains it")
			return false
		}
		if k, ok := dec.keyOf[n]; ok {
			dec.keyOf[target] = k
		}
		dec.active[target] = true
		ok := dec.value(target, v, path, o)
		delete(dec.active, target)
		return ok
	}
	if n.Anchor != "" && !dec.active[n] {
		// An anchor is "being expanded" from where it is written, so
		// `&x [*x]` is caught at its first alias.
		dec.active[n] = true
		defer delete(dec.active, n)
	}
	t := v.Type()
	switch t {
	case nodeType:
		if c := dec.expand(n, path); c != nil {
			v.Set(reflect.ValueOf(*c))
			return true
		}
		return false
	case nodePtrType:
		if c := dec.expand(n, path); c != nil {
			v.Set(reflect.ValueOf(c))
			return true
		}
		return false
	}
	if t.Kind() == reflect.Pointer {
		if isNull(n) {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			nv := reflect.New(t.Elem())
			callDefaults(nv.Elem())
			if !dec.value(n, nv.Elem(), path, o) {
				return false
			}
			v.Set(nv)
			return true
		}
		return dec.value(n, v.Elem(), path, o)
	}
	if isNull(n) {
		dec.failValue(n, path, "missing value (write "+expectation(t, o)+", or remove the key to keep the default)")
		return false
	}
	if v.CanAddr() && v.Addr().Type().Implements(taggedType) {
		return dec.tagged(n, v, path, o)
	}
	var ok bool
	switch t.Kind() {
	case reflect.Struct:
		ok = dec.structValue(n, v, path, o)
	case reflect.Slice:
		ok = dec.slice(n, v, path, o)
	case reflect.Map:
		ok = dec.mapValue(n, v, path, o)
	default:
		ok = dec.scalar(n, v, path, o)
	}
	if ok && t.Kind() != reflect.Struct {
		ok = dec.validate(v, n, path)
	}
	return ok
}

// callDefaults fills a fresh value through its Defaults method, if any.
func callDefaults(v reflect.Value) {
	if v.CanAddr() && v.Addr().Type().Implements(defaulterType) {
		v.Addr().Interface().(interface{ Defaults() }).Defaults()
	}
}

// expectation names what a type wants, in user terms.
func expectation(t reflect.Type, o *fieldOpts) string {
	if t == nodeType || t == nodePtrType {
		return "a value"
	}
	if reflect.PointerTo(t).Implements(taggedType) {
		return "a mapping"
	}
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		return expectation(t.Elem(), o)
	case k == reflect.Struct || k == reflect.Map:
		return "a mapping"
	case k == reflect.Slice:
		return "a list"
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.String:
		return "a string"
	case isFloat(k):
		return "a number"
	case o.unit.kind == unitBytes:
		return "a size"
	case o.unit.kind == unitDuration, o.unit.kind == unitFineDuration:
		return "a duration"
	case isSignedInt(k) || isUnsignedInt(k):
		return "an integer"
	}
	return "a value"
}

// shorthandForm rewrites a scalar or list written where a struct is expected
// into the mapping {key: value} the field's shorthand tags allow; nil if
// none applies.
func (dec *decoder) shorthandForm(n *yaml.Node, o *fieldOpts, tagKey string) *yaml.Node {
	key := ""
	switch n.Kind {
	case yaml.ScalarNode:
		key = o.shorthand
		if key == "" {
			key = tagKey
		}
	case yaml.SequenceNode:
		key = o.seqShorthand
	}
	if key == "" {
		return nil
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: n.Line, Column: n.Column}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: []*yaml.Node{k, n}}
	dec.synth[k] = dec.real(n)
	dec.synth[m] = dec.real(n)
	return m
}

// pairs lists a mapping's entries, reporting duplicate and malformed keys.
func (dec *decoder) pairs(m *yaml.Node, path string) []pair {
	return mappingPairs(m, func(at *yaml.Node, key, msg string) {
		p := path
		if key != "" {
			p = joinKey(path, key)
		}
		dec.failKey(at, p, msg)
	})
}

// childPath is the display path of an entry; an entry made up from a
// shorthand reports at its parent, where the user wrote the value.
func (dec *decoder) childPath(path string, k *yaml.Node) string {
	if _, ok := dec.synth[k]; ok {
		return path
	}
	return joinKey(path, k.Value)
}

func (dec *decoder) structValue(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.SequenceNode && len(n.Content) == 0 && o != nil && o.seqShorthand != "" {
			// An empty list would decode as the struct's zero value, which
			// means "not given" (a default) to the model.
			dec.failValue(n, path, "the list is empty: give at least one entry ("+o.seqShorthand+"), or leave the key out for the default")
			return false
		}
		if m := dec.shorthandForm(n, o, ""); m != nil {
			n = m
		} else {
			dec.failValue(n, path, "expected a mapping, got "+describe(n))
			return false
		}
	}
	si, err := structInfoFor(v.Type())
	if err != nil {
		dec.programmer(err)
		return false
	}
	before := len(dec.errs)
	for _, p := range dec.pairs(n, path) {
		if dec.stopped() {
			break
		}
		fp := dec.childPath(path, p.key)
		i, known := si.byName[p.key.Value]
		if !known {
			dec.failKey(p.key, fp, unknownKeyMsg(p.key.Value, si.names))
			continue
		}
		f := si.fields[i]
		dec.keyOf[p.val] = p.key
		dec.value(p.val, v.FieldByIndex(f.index), fp, f.opts)
	}
	if len(dec.errs) != before || dec.stopped() {
		return false
	}
	return dec.validate(v, n, path)
}

func (dec *decoder) slice(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	if n.Kind != yaml.SequenceNode {
		dec.failValue(n, path, "expected a list, got "+describe(n))
		return false
	}
	if len(n.Content) == 0 {
		// nil, not empty: Encode writes a nil slice as [], and the round
		// trip must give back the same value.
		v.SetZero()
		return true
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	ok := true
	for i, e := range n.Content {
		ev := out.Index(i)
		callDefaults(ev)
		if !dec.value(e, ev, joinIndex(path, i), o) {
			ok = false
		}
	}
	if ok {
		v.Set(out)
	}
	return ok
}

func (dec *decoder) mapValue(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		dec.programmer(fmt.Errorf("strictyaml: %s: map keys must be strings, not %s", path, t.Key()))
		return false
	}
	if n.Kind != yaml.MappingNode {
		dec.failValue(n, path, "expected a mapping, got "+describe(n))
		return false
	}
	pairs := dec.pairs(n, path)
	if len(pairs) == 0 {
		v.SetZero()
		return true
	}
	out := reflect.MakeMapWithSize(t, len(pairs))
	ok := true
	for _, p := range pairs {
		kv := reflect.New(t.Key()).Elem()
		kv.SetString(p.key.Value)
		ev := reflect.New(t.Elem()).Elem()
		callDefaults(ev)
		dec.keyOf[p.val] = p.key
		if !dec.value(p.val, ev, joinKey(path, p.key.Value), o) {
			ok = false
			continue
		}
		out.SetMapIndex(kv, ev)
	}
	if ok {
		v.Set(out)
	}
	return ok
}

// validate calls v's Validate method, if it has one, and files its errors at
// the keys they name (relative to n) or at n itself.
func (dec *decoder) validate(v reflect.Value, n *yaml.Node, path string) bool {
	if !v.CanAddr() || !v.Addr().Type().Implements(validatorType) {
		return true
	}
	err := v.Addr().Interface().(interface{ Validate() error }).Validate()
	if err == nil {
		return true
	}
	dec.attach(err, n, path, 0)
	return false
}

func (dec *decoder) attach(err error, n *yaml.Node, path string, depth int) {
	if multi, ok := err.(interface{ Unwrap() []error }); ok && depth < 8 {
		for _, e := range multi.Unwrap() {
			if e != nil {
				dec.attach(e, n, path, depth+1)
			}
		}
		return
	}
	real := dec.real(n)
	key := dec.keyOf[real]
	var fe *FieldError
	if !errors.As(err, &fe) {
		dec.errs = append(dec.errs, dec.doc.errorAt(key, real, path, err.Error()))
		return
	}
	if fe.File != "" {
		dec.errs = append(dec.errs, fe)
		return
	}
	full := joinRel(path, fe.Path)
	if segs, perr := parsePath(fe.Path); perr == nil && fe.Path != "" {
		key, val, display := dec.doc.locateFrom(real, segs, path, nil, nil)
		if key != nil || val != nil {
			dec.errs = append(dec.errs, dec.doc.errorAt(key, val, display, fe.Msg))
			return
		}
		full = display
	}
	dec.errs = append(dec.errs, dec.doc.errorAt(key, real, full, fe.Msg))
}

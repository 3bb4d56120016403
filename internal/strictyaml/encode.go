package strictyaml

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxEncodeDepth stops Encode on a value that points back into itself.
const maxEncodeDepth = 100

// Encode renders v (a struct or pointer to one) as YAML using the same tags
// and units the decoder reads: keys in struct field order, sizes and
// durations in the largest unit that is exact (`shared_buffers: 128MB`,
// `checkpoint_timeout: 5min`), map keys sorted, nil pointers as null, nil or
// empty slices as [] and maps as {}. Decoding the output into a defaulted
// value gives v back, so a printed configuration can be loaded again —
// provided v satisfies its own tags (a default outside its range or enum is
// written faithfully and then refused).
func Encode(v any) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("strictyaml: internal error while encoding (this is a bug, please report it): %v", r)
		}
	}()
	rv := reflect.ValueOf(v)
	for rv.IsValid() && rv.Kind() == reflect.Pointer && rv.Type() != nodePtrType {
		if rv.IsNil() {
			return nil, fmt.Errorf("strictyaml: Encode of a nil %T", v)
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil, fmt.Errorf("strictyaml: Encode of nil")
	}
	n, err := encodeValue(rv, noOpts, "", 0)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("strictyaml: %v", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("strictyaml: %v", err)
	}
	return buf.Bytes(), nil
}

func plainNode(value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: value}
}

func nullNode() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func encodeValue(v reflect.Value, o *fieldOpts, path string, depth int) (*yaml.Node, error) {
	if depth > maxEncodeDepth {
		return nil, fmt.Errorf("strictyaml: %s: value nested too deeply (does it point to itself?)", path)
	}
	t := v.Type()
	switch t {
	case nodeType:
		n := v.Interface().(yaml.Node)
		return rawForEncode(&n), nil
	case nodePtrType:
		if v.IsNil() {
			return nullNode(), nil
		}
		return rawForEncode(v.Interface().(*yaml.Node)), nil
	}
	if !v.CanAddr() {
		c := reflect.New(t).Elem()
		c.Set(v)
		v = c
	}
	if v.Addr().Type().Implements(taggedType) {
		return encodeTagged(v.Addr().Interface().(Tagged), path, depth)
	}
	k := t.Kind()
	switch {
	case k == reflect.Pointer:
		if v.IsNil() {
			return nullNode(), nil
		}
		return encodeValue(v.Elem(), o, path, depth+1)
	case k == reflect.Struct:
		si, err := structInfoFor(t)
		if err != nil {
			return nil, err
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if len(si.fields) == 0 {
			m.Style = yaml.FlowStyle
		}
		for _, f := range si.fields {
			fp := joinKey(path, f.name)
			c, err := encodeValue(v.FieldByIndex(f.index), f.opts, fp, depth+1)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalarNode(f.name), c)
		}
		return m, nil
	case k == reflect.Slice:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for i := 0; i < v.Len(); i++ {
			c, err := encodeValue(v.Index(i), o, joinIndex(path, i), depth+1)
			if err != nil {
				return nil, err
			}
			if c.Kind != yaml.ScalarNode {
				s.Style = 0 // lists of mappings read better in block style
			}
			s.Content = append(s.Content, c)
		}
		return s, nil
	case k == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("strictyaml: %s: map keys must be strings, not %s", path, t.Key())
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, v.Len())
		for _, kv := range v.MapKeys() {
			keys = append(keys, kv.String())
		}
		slices.Sort(keys)
		if len(keys) == 0 {
			m.Style = yaml.FlowStyle
		}
		for _, key := range keys {
			kv := reflect.New(t.Key()).Elem()
			kv.SetString(key)
			c, err := encodeValue(v.MapIndex(kv), o, joinKey(path, key), depth+1)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalarNode(key), c)
		}
		return m, nil
	case k == reflect.String:
		if !utf8.ValidString(v.String()) {
			return nil, fmt.Errorf("strictyaml: %s: string is not valid UTF-8", path)
		}
		return scalarNode(v.String()), nil
	case k == reflect.Bool:
		return plainNode(strconv.FormatBool(v.Bool())), nil
	case isSignedInt(k):
		if o.unit.kind != unitNone {
			return plainNode(formatQuantity(v.Int(), o.unit)), nil
		}
		return plainNode(strconv.FormatInt(v.Int(), 10)), nil
	case isUnsignedInt(k):
		return plainNode(strconv.FormatUint(v.Uint(), 10)), nil
	case isFloat(k):
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("strictyaml: %s: cannot write %v (the decoder refuses it)", path, f)
		}
		return plainNode(strconv.FormatFloat(f, 'g', -1, t.Bits())), nil
	}
	return nil, fmt.Errorf("strictyaml: %s: unsupported field type %s", path, t)
}

func encodeTagged(tg Tagged, path string, depth int) (*yaml.Node, error) {
	value, params := tg.Tagged()
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, scalarNode(tg.TagKey()), scalarNode(value))
	if params == nil {
		return m, nil
	}
	pv := reflect.ValueOf(params)
	if pv.Kind() == reflect.Pointer && pv.IsNil() {
		return m, nil
	}
	if reflect.Indirect(pv).Kind() != reflect.Struct {
		return nil, fmt.Errorf("strictyaml: %s: Tagged() returned %T params, want a pointer to a struct", path, params)
	}
	p, err := encodeValue(reflect.Indirect(pv), noOpts, path, depth+1)
	if err != nil {
		return nil, err
	}
	m.Content = append(m.Content, p.Content...)
	return m, nil
}

// rawForEncode unwraps a document node and writes an unset node as null.
func rawForEncode(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == 0 {
		return nullNode()
	}
	return n
}

package strictyaml

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Tagged is implemented (on the pointer) by a struct whose parameters depend
// on the value of one of its keys, such as a replacement policy chosen by
// name:
//
//	replacement: {name: clock-sweep, max_usage_count: 5}
//
// The decoder reads the tag key first (or keeps the current value when the
// key is absent), asks ParamsFor for a defaulted parameter struct for that
// value, decodes the remaining keys strictly into it (unknown keys get
// did-you-mean over its keys; unit, range and enum tags apply), runs its
// Validate method if any, and stores the result with SetTagged. A plain
// scalar written in place of the mapping is the tag value
// (`replacement: lru` means `{name: lru}`). Encode writes the tag key and
// then the parameter keys, flat in one mapping.
type Tagged interface {
	// TagKey names the key that selects the variant, e.g. "name".
	TagKey() string
	// ParamsFor returns a pointer to a parameter struct holding the defaults
	// for value, or nil if that variant takes no parameters. For an unknown
	// value it returns an error listing the valid ones (UnknownValueError
	// words it the standard way).
	ParamsFor(value string) (any, error)
	// SetTagged stores the decoded value and parameters.
	SetTagged(value string, params any)
	// Tagged returns the current value and parameters, for Encode and as the
	// default when the tag key is absent.
	Tagged() (value string, params any)
}

func (dec *decoder) tagged(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	tg := v.Addr().Interface().(Tagged)
	tagKey := tg.TagKey()
	if n.Kind != yaml.MappingNode {
		m := dec.shorthandForm(n, o, tagKey)
		if m == nil {
			dec.failValue(n, path, "expected a mapping, got "+describe(n))
			return false
		}
		n = m
	}
	before := len(dec.errs)
	pairs := dec.pairs(n, path)
	value, _ := tg.Tagged()
	var rest []pair
	at, tagPath := n, path // where to report a bad tag value
	given := false
	for _, p := range pairs {
		if p.key.Value != tagKey {
			rest = append(rest, p)
			continue
		}
		tv := derefAlias(p.val)
		if tv == nil || tv.Kind != yaml.ScalarNode || isNull(tv) {
			dec.failValue(p.val, dec.childPath(path, p.key), "expected a name, got "+describe(p.val))
			return false
		}
		value, at, tagPath, given = tv.Value, p.val, dec.childPath(path, p.key), true
	}
	if !given && value == "" {
		dec.failValue(n, path, "missing key "+quote(tagKey))
		return false
	}
	params, err := tg.ParamsFor(value)
	if err != nil {
		dec.failValue(at, tagPath, err.Error())
		return false
	}
	names := []string{tagKey}
	var pv reflect.Value
	var si *structInfo
	if params != nil {
		pv = reflect.ValueOf(params)
		if pv.Kind() != reflect.Pointer || pv.IsNil() || pv.Elem().Kind() != reflect.Struct {
			dec.programmer(fmt.Errorf("strictyaml: %s: ParamsFor(%q) returned %T, want a pointer to a struct", path, value, params))
			return false
		}
		si, err = structInfoFor(pv.Elem().Type())
		if err != nil {
			dec.programmer(err)
			return false
		}
		names = append(names, si.names...)
	}
	for _, p := range rest {
		fp := dec.childPath(path, p.key)
		i, known := -1, false
		if si != nil {
			i, known = si.byName[p.key.Value]
		}
		if !known {
			dec.failKey(p.key, fp, unknownKeyMsg(p.key.Value, names))
			continue
		}
		f := si.fields[i]
		dec.keyOf[p.val] = p.key
		dec.value(p.val, pv.Elem().FieldByIndex(f.index), fp, f.opts)
	}
	if len(dec.errs) != before || dec.stopped() {
		return false
	}
	if params != nil && !dec.validate(pv.Elem(), n, path) {
		return false
	}
	tg.SetTagged(value, params)
	return dec.validate(v, n, path)
}

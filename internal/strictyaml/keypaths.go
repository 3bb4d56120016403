package strictyaml

import (
	"reflect"
)

// KeyPaths lists every key path a struct type accepts, depth first in field
// order, for documentation tests (every key must appear in the reference
// configuration). List elements are written `[]` and map values `*`:
//
//	server
//	server.shared_buffers
//	workload.phases
//	workload.phases[].clients
//	tables.*.scale
//
// A Tagged type contributes its tag key and the parameter keys of its
// default variant (what a fresh value with Defaults applied returns from
// Tagged); other variants' keys can be listed with KeyPaths on their
// parameter types. Types that cannot be described (bad tags) are skipped.
func KeyPaths(t reflect.Type) []string {
	var out []string
	keyPaths(t, "", map[reflect.Type]bool{}, &out)
	return out
}

func keyPaths(t reflect.Type, prefix string, onStack map[reflect.Type]bool, out *[]string) {
	if t == nil || t == nodeType || t == nodePtrType {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		keyPaths(t.Elem(), prefix, onStack, out)
		return
	case reflect.Slice:
		keyPaths(t.Elem(), prefix+"[]", onStack, out)
		return
	case reflect.Map:
		keyPaths(t.Elem(), joinKey(prefix, "*"), onStack, out)
		return
	case reflect.Struct:
	default:
		return
	}
	if onStack[t] { // a recursive type: its keys are already listed above
		return
	}
	onStack[t] = true
	defer delete(onStack, t)
	if reflect.PointerTo(t).Implements(taggedType) {
		nv := reflect.New(t)
		callDefaults(nv.Elem())
		tg := nv.Interface().(Tagged)
		*out = append(*out, joinKey(prefix, tg.TagKey()))
		if _, params := tg.Tagged(); params != nil {
			pt := reflect.TypeOf(params)
			for pt.Kind() == reflect.Pointer {
				pt = pt.Elem()
			}
			if pt.Kind() == reflect.Struct {
				structKeyPaths(pt, prefix, onStack, out)
			}
		}
		return
	}
	structKeyPaths(t, prefix, onStack, out)
}

func structKeyPaths(t reflect.Type, prefix string, onStack map[reflect.Type]bool, out *[]string) {
	si, err := structInfoFor(t)
	if err != nil {
		return
	}
	for _, f := range si.fields {
		p := joinKey(prefix, f.name)
		*out = append(*out, p)
		keyPaths(t.FieldByIndex(f.index).Type, p, onStack, out)
	}
}

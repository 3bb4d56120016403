package pgscript

import "google.golang.org/protobuf/reflect/protoreflect"

// walk sets *found when a node for which match is true is in the tree
// under m.
func walk(m protoreflect.Message, found *bool, match func(protoreflect.Message) bool) {
	if *found {
		return
	}
	if match(m) {
		*found = true
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len() && !*found; i++ {
				walk(l.Get(i).Message(), found, match)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			walk(v.Message(), found, match)
		}
		return !*found
	})
}

// visit calls fn on every message in the tree under m, parents first.
func visit(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visit(l.Get(i).Message(), fn)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			visit(v.Message(), fn)
		}
		return true
	})
}

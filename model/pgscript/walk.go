package pgscript

import "google.golang.org/protobuf/reflect/protoreflect"

// walk sets *found when a SubLink (a subquery in an expression) is in the
// tree under m.
func walk(m protoreflect.Message, found *bool) {
	if *found {
		return
	}
	if m.Descriptor().Name() == "SubLink" {
		*found = true
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			l := v.List()
			for i := 0; i < l.Len() && !*found; i++ {
				walk(l.Get(i).Message(), found)
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			walk(v.Message(), found)
		}
		return !*found
	})
}

package replay

import (
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
)

// WantsReplay reports whether simulate's args ask for trace replay: a
// -trace flag, or a -config file whose top level has a trace: key. It
// never fails: on any doubt it answers false and lets simulate report.
func WantsReplay(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := strings.TrimPrefix(strings.TrimPrefix(args[i], "-"), "-")
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "trace":
			return true
		case "config":
			if !hasVal && i+1 < len(args) {
				val = args[i+1]
			}
			if val != "" && configHasTrace(val) {
				return true
			}
		}
	}
	return false
}

// configHasTrace reports whether the YAML file's top-level mapping has a
// trace key.
func configHasTrace(path string) bool {
	data, err := strictyaml.ReadFile(path, strictyaml.MaxBytes)
	if err != nil {
		return false
	}
	doc, err := strictyaml.Parse(path, data)
	if err != nil {
		return false
	}
	return doc.Line("trace") > 0
}

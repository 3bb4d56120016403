package main

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
)

// describeParams lists a policy's parameters as "key: default  # doc".
func describeParams(params any) []string {
	text, err := strictyaml.Encode(params)
	if err != nil {
		return []string{"(parameters: " + err.Error() + ")"}
	}
	docs := map[string]string{}
	if t := reflect.TypeOf(params); t != nil {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if d := f.Tag.Get("doc"); name != "" && d != "" {
					docs[name] = d
				}
				if r := f.Tag.Get("range"); name != "" && r != "" {
					docs[name] = strings.TrimSpace(docs[name] + fmt.Sprintf(" [range %s]", r))
				}
			}
		}
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		if line == "" || line == "{}" {
			continue
		}
		key, _, _ := strings.Cut(line, ":")
		if d := docs[strings.TrimSpace(key)]; d != "" {
			line += "  # " + d
		}
		out = append(out, line)
	}
	return out
}

package strictyaml

import (
	"errors"
	"strconv"
	"strings"
)

// Key paths. Users write them on the command line and configs code writes
// them in semantic checks: keys joined by '.', list elements by index
// (`phases.0` or `phases[0]`) or by the value of their `name` key
// (`phases.run`). Messages show the display form `workload.phases[0].clients`.

// segment is one step of a key path.
type segment struct {
	text    string
	bracket bool // written as [text]
}

// index returns the segment as a list index, if it is one.
func (s segment) index() (int, bool) {
	if s.text == "" || len(s.text) > 9 {
		return 0, false
	}
	for _, c := range s.text {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(s.text)
	return i, err == nil
}

func parsePath(path string) ([]segment, error) {
	if path == "" {
		return nil, errors.New("empty key path")
	}
	var segs []segment
	i := 0
	for i < len(path) {
		if path[i] == '[' {
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, errors.New("unclosed '[' in key path")
			}
			text := path[i+1 : i+end]
			if text == "" {
				return nil, errors.New("empty [] in key path")
			}
			segs = append(segs, segment{text: text, bracket: true})
			i += end + 1
		} else {
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			if j == i {
				return nil, errors.New("empty key in key path")
			}
			if path[i:j] == "]" || strings.Contains(path[i:j], "]") {
				return nil, errors.New("unmatched ']' in key path")
			}
			segs = append(segs, segment{text: path[i:j]})
			i = j
		}
		if i < len(path) && path[i] == '.' {
			i++
			if i == len(path) {
				return nil, errors.New("key path ends with '.'")
			}
		}
	}
	return segs, nil
}

// joinKey appends a mapping key to a display path.
func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinIndex appends a list index to a display path.
func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// joinRel appends a relative path (as a Validate method writes it) to path.
func joinRel(path, rel string) string {
	switch {
	case rel == "":
		return path
	case path == "":
		return rel
	case rel[0] == '[':
		return path + rel
	}
	return path + "." + rel
}

package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Document is a parsed configuration file: its name and its yaml.Node tree,
// plus a note of which nodes came from command-line overrides so errors in
// them name the override instead of a line. The zero Document is an empty
// configuration with no file name, for a run given only -set overrides.
// A Document may be decoded from several goroutines at once, but Set and
// SetNode change it: give each sweep point its own Clone.
type Document struct {
	file   string
	doc    *yaml.Node // a DocumentNode whose Content[0] is the root mapping
	origin map[*yaml.Node]*override
}

// override records the `-set path=value` a node came from.
type override struct {
	text string // "-set path=value", as the user wrote it
	path string // display form of the target path
}

// Parse reads one YAML document whose top level is a mapping. Problems are
// returned as Errors: an empty file ("x.yaml: empty configuration"), a
// syntax error at the line the YAML parser reports, a second document, text
// that is not UTF-8, or a top level that is not a mapping.
func Parse(file string, data []byte) (doc *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc = nil
			err = Errors{{File: file, Msg: fmt.Sprintf("cannot read the file: the YAML parser failed (%v)", r)}}
		}
	}()
	if len(data) > MaxBytes {
		return nil, Errors{{File: file, Msg: fmt.Sprintf("the file is %d bytes, more than the %d (%d MB) a configuration may have; a scenario is a few kB", len(data), MaxBytes, MaxBytes>>20)}}
	}
	if fe := checkText(file, data); fe != nil {
		return nil, Errors{fe}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: file, Msg: "empty configuration"}}
		}
		return nil, Errors{syntaxError(file, data, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, Errors{syntaxError(file, data, err)}
		}
		return nil, Errors{{File: file, Line: extra.Line,
			Msg: "a second YAML document is not allowed (a configuration is one document; remove the ---)"}}
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 || isNull(n.Content[0]) {
		return nil, Errors{{File: file, Msg: "empty configuration"}}
	}
	if root := n.Content[0]; root.Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: root.Line,
			Msg: "the configuration must be a mapping of keys, not " + describe(root)}}
	}
	return &Document{file: file, doc: &n, origin: map[*yaml.Node]*override{}}, nil
}

// File returns the name the document was parsed with.
func (d *Document) File() string { return d.file }

// root is the top-level mapping; a zero Document (not from Parse) reads as
// an empty one rather than crashing.
func (d *Document) root() *yaml.Node {
	if d.doc == nil || len(d.doc.Content) == 0 {
		d.doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if d.origin == nil {
		d.origin = map[*yaml.Node]*override{}
	}
	return d.doc.Content[0]
}

// checkText rejects bytes YAML cannot hold, with the line they are on; the
// YAML parser reports these without a line.
func checkText(file string, data []byte) *FieldError {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &FieldError{File: file, Line: line, Msg: "the file is not valid UTF-8 (save it as UTF-8)"}
		case r == '\n':
			line++
		case r == '\t' || r == '\r' || r == 0x85:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffe || r == 0xffff ||
			(r == 0xfeff && i > 0):
			return &FieldError{File: file, Line: line,
				Msg: fmt.Sprintf("character U+%04X is not allowed in YAML", r)}
		}
		i += size
	}
	return nil
}

var (
	yamlLineRe   = regexp.MustCompile(`^line (\d+): (.*)$`)
	yamlAnchorRe = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// syntaxError turns the YAML parser's "yaml: line N: problem" into
// "FILE:N: syntax error: problem", keeping the parser's line.
func syntaxError(file string, data []byte, err error) *FieldError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else if m := yamlAnchorRe.FindStringSubmatch(msg); m != nil {
		line = lineContaining(data, "*"+m[1])
	} else {
		// The parser leaves the line out when the problem is on the first
		// line (its line counter is zero there); one blank line in front
		// moves the problem to line 2, which it does report.
		line = firstLineRetry(data)
	}
	switch {
	case strings.Contains(msg, "tab character"):
		// The parser names the tab itself ("found a tab character that
		// violates indentation"); only the fix is missing.
		msg += " (YAML indents with spaces only; replace the tabs by spaces)"
	case line > 0 && strings.Contains(msg, "cannot start any token") && bytes.Contains(lineOf(data, line), []byte{'\t'}):
		msg += " (a tab: YAML indents with spaces only; replace the tabs by spaces)"
	}
	return &FieldError{File: file, Line: line, Msg: "syntax error: " + msg}
}

// lineOf returns the 1-based line n of data.
func lineOf(data []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	return line
}

// MaxBytes is the largest configuration file Parse reads (8 MB): real
// scenarios are a few kB, and a bound keeps a huge or hostile file from
// exhausting memory.
const MaxBytes = 8 << 20

func firstLineRetry(data []byte) int {
	// A byte-order mark must stay first.
	bom := []byte("\xef\xbb\xbf")
	var shifted []byte
	rest := data
	if bytes.HasPrefix(data, bom) {
		shifted = append(shifted, bom...)
		rest = data[len(bom):]
	}
	shifted = append(append(shifted, '\n'), rest...)
	var n yaml.Node
	err := yaml.Unmarshal(shifted, &n)
	if err == nil {
		return 0
	}
	if m := yamlLineRe.FindStringSubmatch(strings.TrimPrefix(err.Error(), "yaml: ")); m != nil {
		if l, _ := strconv.Atoi(m[1]); l == 2 {
			return 1
		}
	}
	return 0
}

func lineContaining(data []byte, s string) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(s)) {
			return i + 1
		}
	}
	return 0
}

// Clone returns an independent copy of the document, so a sweep can apply
// different overrides to one parsed base.
func (d *Document) Clone() *Document {
	copies := map[*yaml.Node]*yaml.Node{}
	var cp func(n *yaml.Node) *yaml.Node
	cp = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		c := *n
		copies[n] = &c
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = cp(ch)
		}
		return &c
	}
	out := &Document{file: d.file, doc: cp(d.doc), origin: map[*yaml.Node]*override{}}
	// Aliases point at anchors elsewhere in the tree: repoint them at the
	// copies. The order of this loop does not matter.
	for old, c := range copies {
		if old.Kind == yaml.AliasNode {
			if t, ok := copies[old.Alias]; ok {
				c.Alias = t
			}
		}
		if o, ok := d.origin[old]; ok {
			out.origin[c] = o
		}
	}
	return out
}

// Line returns the line of the key at path (see Set for the path syntax),
// or of its nearest ancestor present in the file when the key is absent; 0
// when nothing on the path is in the file or the value came from an override.
func (d *Document) Line(path string) int {
	key, val, _ := d.locate(path)
	_, line, _, ov := d.position(key, val)
	if ov != nil {
		return 0
	}
	return line
}

// Errorf builds an error located at path, for semantic problems found after
// decoding (`x.yaml:7: server.shared_buffers: must be at least 16 buffers`).
// The path is shown in display form; if the value came from an override the
// error names the override instead of a line.
func (d *Document) Errorf(path string, format string, args ...any) *FieldError {
	key, val, display := d.locate(path)
	return d.errorAt(key, val, display, fmt.Sprintf(format, args...))
}

// errorAt builds a FieldError for a problem at key (a mapping key) or val (a
// value node); either may be nil.
func (d *Document) errorAt(key, val *yaml.Node, path, msg string) *FieldError {
	file, line, col, ov := d.position(key, val)
	fe := &FieldError{File: file, Line: line, Path: path, Msg: msg, col: col}
	if ov != nil && ov.path == path {
		fe.hidePath = true
	}
	return fe
}

// position says where a node is: an override, or the file and line.
func (d *Document) position(key, val *yaml.Node) (file string, line, col int, ov *override) {
	for _, n := range []*yaml.Node{val, key} {
		if o, ok := d.origin[n]; ok && n != nil {
			return o.text, 0, 0, o
		}
	}
	switch {
	case key != nil:
		return d.file, key.Line, key.Column, nil
	case val != nil:
		return d.file, val.Line, val.Column, nil
	}
	return d.file, 0, 0, nil
}

// locate walks path through the tree without type information. It returns
// the deepest key (or list element) found and its value, and the path in
// display form.
func (d *Document) locate(path string) (key, val *yaml.Node, display string) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, nil, path
	}
	return d.locateFrom(d.root(), segs, "", nil, nil)
}

func (d *Document) locateFrom(cur *yaml.Node, segs []segment, display string, key, val *yaml.Node) (*yaml.Node, *yaml.Node, string) {
	for i, s := range segs {
		node := derefAlias(cur)
		found := false
		if node != nil {
			switch node.Kind {
			case yaml.MappingNode:
				if p := lookupKey(node, s.text); p != nil {
					key, val, cur, found = p.key, p.val, p.val, true
					display = joinKey(display, s.text)
				}
			case yaml.SequenceNode:
				if idx, ok := selectElement(node, s); ok {
					key, val, cur, found = nil, node.Content[idx], node.Content[idx], true
					display = joinIndex(display, idx)
				}
			}
		}
		if !found {
			for _, rest := range segs[i:] {
				if idx, ok := rest.index(); ok {
					display = joinIndex(display, idx)
				} else {
					display = joinKey(display, rest.text)
				}
			}
			return key, val, display
		}
	}
	return key, val, display
}

// selectElement picks a list element by index or by its `name` key.
func selectElement(seq *yaml.Node, s segment) (int, bool) {
	if idx, ok := s.index(); ok {
		return idx, idx < len(seq.Content)
	}
	for i, e := range seq.Content {
		e = derefAlias(e)
		if e == nil || e.Kind != yaml.MappingNode {
			continue
		}
		if p := lookupKey(e, "name"); p != nil {
			if v := derefAlias(p.val); v != nil && v.Kind == yaml.ScalarNode && v.Value == s.text {
				return i, true
			}
		}
	}
	return 0, false
}

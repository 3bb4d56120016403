package trace

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// detect picks a format from the file name and, when the name does not
// settle it, from the first bytes of the (decompressed) content.
func detect(name string, head []byte) (string, error) {
	base := baseName(name)
	switch {
	case strings.Contains(base, "oraclegeneral"):
		return FormatOracleGeneral, nil
	case len(head) == 0:
		return "", &Error{File: name, Msg: "the trace is empty: it holds no page references"}
	case bytes.IndexByte(head, 0) >= 0:
		// Text traces never hold NUL bytes; libCacheSim's binary
		// layouts almost always do (high bytes of ids and sizes).
		return FormatOracleGeneral, nil
	}
	lines := dataLines(head, 8)
	if len(lines) == 0 {
		return "", fmt.Errorf("%s: no data lines in the first %d bytes; give -format", name, len(head))
	}
	ext := filepath.Ext(base)
	hasComments := bytes.Contains(head, []byte("\n#")) || head[0] == '#'
	fields := len(bytes.FieldsFunc(lines[0], isDelim))
	if fields <= 1 && len(lines) > 1 {
		fields = len(bytes.FieldsFunc(lines[1], isDelim))
	}
	if fields <= 1 {
		if ext == ".txt" && !hasComments {
			return FormatLCSTxt, nil
		}
		if _, ok := parseDecimal(bytes.TrimSpace(lines[len(lines)-1])); ok {
			return FormatText, nil
		}
		return FormatLCSTxt, nil
	}
	// Several fields: pgbufsim's relation,block[,op] or libCacheSim's csv.
	first := lines[0]
	if bytes.Contains(bytes.ToLower(first), []byte("relation")) {
		return FormatCSV, nil
	}
	data := first
	if len(lines) > 1 && detectHeader(first) {
		data = lines[1]
	}
	f := bytes.Split(data, []byte{','})
	switch {
	case len(f) == 2:
		return FormatCSV, nil
	case len(f) == 3:
		if _, ok := parseOp(bytes.TrimSpace(f[2])); ok && len(bytes.TrimSpace(f[2])) > 0 && !isNumber(bytes.TrimSpace(f[2])) {
			return FormatCSV, nil
		}
	}
	return FormatLCSCSV, nil
}

// dataLines returns up to n lines of head that are neither blank nor
// comments, leaving out a last line that may be cut short.
func dataLines(head []byte, n int) [][]byte {
	var out [][]byte
	for len(head) > 0 && len(out) < n {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break // possibly truncated by the sniff window
		}
		line := bytes.TrimSuffix(head[:i], []byte{'\r'})
		head = head[i+1:]
		if !skippable(line) {
			out = append(out, line)
		}
	}
	if len(out) == 0 && len(head) > 0 && !skippable(head) {
		out = append(out, head) // a one-line file without a newline
	}
	return out
}

func isDelim(r rune) bool { return r == ',' || r == '\t' || r == '|' || r == ':' }

package strictyaml

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// FieldError is one problem found in a configuration, located at a key.
// Its Error() reads `FILE:LINE: key.path: problem (hint)`.
type FieldError struct {
	// File is the file name, or `-set path=value` when the offending value
	// came from a command-line override.
	File string
	// Line is 1-based; 0 when there is no line (an override, an empty file,
	// a key that is absent from the file).
	Line int
	// Path is the key path in display form, e.g. `workload.phases[0].script`.
	// Inside a Validate method it may be relative to the struct being
	// validated (see the package documentation).
	Path string
	// Msg says what is wrong, in user terms, with an optional hint in
	// parentheses.
	Msg string

	col      int  // column, only to order errors on the same line
	hidePath bool // the override text already names the path
}

// Error renders the error as `FILE:LINE: path: message`, leaving out the
// parts that are unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	if e.Path != "" && !e.hidePath {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Path)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxListed bounds how many errors Errors.Error prints: past ten, the first
// few usually explain the rest (one typo cascading through a block).
const maxListed = 10

// Errors is a list of configuration problems, sorted by line. It is the
// error type returned by Parse, Set, SetNode and Decode for problems in
// user input; programming mistakes (bad struct tags, unsupported field types)
// are returned as plain errors prefixed "strictyaml:".
type Errors []*FieldError

// Error lists the problems one per line, at most ten, then a count of the
// ones left out.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i == maxListed {
			if len(es) >= maxCollected {
				b.WriteString("\n(and more errors: checking stopped here; fix these first)")
			} else {
				fmt.Fprintf(&b, "\n(and %d more errors)", len(es)-maxListed)
			}
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.As find the individual *FieldError values.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sortErrors orders errors by line then column; errors without a line
// (overrides, absent keys) come last in the order they were found, so the
// listing reads top to bottom through the file.
func sortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if (a.Line == 0) != (b.Line == 0) {
			return b.Line == 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.col < b.col
	})
}

// UnknownValueError formats the standard message for a value outside a fixed
// set: `unknown value "tpcb" (valid: select-only, simple-update, tpcb-like;
// did you mean "tpcb-like"?)`. Tagged.ParamsFor implementations should return
// it for an unknown tag value so every such message reads the same way.
func UnknownValueError(value string, valid []string) error {
	return fmt.Errorf("%s", unknownValueMsg(value, valid))
}

func unknownValueMsg(value string, valid []string) string {
	hint := "valid: " + strings.Join(valid, ", ")
	if len(valid) == 0 {
		hint = "no values are valid here"
	}
	if s := suggest(value, valid); s != "" {
		hint += "; did you mean " + strconv.Quote(s) + "?"
	}
	return "unknown value " + quote(value) + " (" + hint + ")"
}

func unknownKeyMsg(key string, valid []string) string {
	if s := suggest(key, valid); s != "" {
		return "unknown key (did you mean " + strconv.Quote(s) + "?)"
	}
	if len(valid) == 0 {
		return "unknown key (no keys are allowed here)"
	}
	return "unknown key (valid keys: " + strings.Join(valid, ", ") + ")"
}

// quote shows user text in a message, shortened so a pasted blob cannot
// flood the terminal.
func quote(s string) string {
	const max = 60
	if len(s) > max {
		cut := max
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

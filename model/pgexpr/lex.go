package pgexpr

import (
	"fmt"
	"math"
	"strconv"
)

// tokKind enumerates the tokens of pgbench's expression lexer
// (src/bin/pgbench/exprscan.l, EXPR state) that this package accepts.
type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxPlusOne // 9223372036854775808: valid only right after a unary minus
	tDouble
	tVar
	tIdent
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tLParen
	tRParen
	tComma
	tCmp // < > = <= >= <> != (text holds the operator; != is stored as <>)
)

type token struct {
	kind tokKind
	col  int // 1-based byte column of the first byte
	text string
	i    int64
	f    float64
}

// describe names a token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tInt, tMaxPlusOne, tDouble:
		return "number " + t.text
	case tVar:
		return "variable :" + t.text
	case tIdent:
		return fmt.Sprintf("name %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// exprscan.l character classes: alpha [a-zA-Z\200-\377_], digit, alnum.
func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// isSpace accepts exprscan.l's {space} plus newlines: a YAML string may wrap
// an expression over several lines, which pgbench would write with "\"
// continuations (also accepted).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n'
}

// punctuation maps single-character operator tokens to their kinds.
var punctuation = map[byte]tokKind{
	'+': tPlus, '-': tMinus, '*': tStar, '/': tSlash, '%': tPercent,
	'(': tLParen, ')': tRParen, ',': tComma,
}

// lex splits src into tokens, ending with tEOF.
func lex(src string) ([]token, error) {
	var toks []token
	errAt := func(pos int, format string, args ...any) error {
		return &Error{Expr: src, Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case isSpace(c):
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2 // line continuation
		case c == ':':
			j := i + 1
			for j < len(src) && isAlnum(src[j]) {
				j++
			}
			if j == i+1 {
				return nil, errAt(i, `expected a variable name after ":"`)
			}
			toks = append(toks, token{kind: tVar, col: i + 1, text: src[i+1 : j]})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			t, j, err := lexNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = j
		case isAlpha(c):
			j := i + 1
			for j < len(src) && isAlnum(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, col: i + 1, text: src[i:j]})
			i = j
		case c == '<' || c == '>' || c == '=' || c == '!':
			op := string(c)
			if i+1 < len(src) {
				switch two := src[i : i+2]; two {
				case "<=", ">=", "<>", "!=":
					op = two
				case "<<", ">>":
					return nil, errAt(i, "bitwise operator %q is not supported here", two)
				}
			}
			if op == "!" {
				return nil, errAt(i, "unexpected character %q", "!")
			}
			if op == "!=" {
				op = "<>"
			}
			toks = append(toks, token{kind: tCmp, col: i + 1, text: op})
			i += len(op) // "!=" is two bytes too
		case c == '&' || c == '|' || c == '#' || c == '~':
			return nil, errAt(i, "bitwise operator %q is not supported here", string(c))
		default:
			kind, ok := punctuation[c]
			if !ok {
				return nil, errAt(i, "unexpected character %q", string(c))
			}
			toks = append(toks, token{kind: kind, col: i + 1, text: string(c)})
			i++
		}
	}
	return append(toks, token{kind: tEOF, col: len(src) + 1}), nil
}

// lexNumber scans a numeric literal at src[i:] with flex's longest-match
// rules: {digit}+ is an integer; {digit}+(\.{digit}*)?([eE][-+]?{digit}+)? and
// \.{digit}+([eE][-+]?{digit}+)? are doubles. An exponent marker not followed
// by digits is not part of the number (as in flex).
func lexNumber(src string, i int) (token, int, error) {
	j := i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	isDouble := false
	if j < len(src) && src[j] == '.' {
		isDouble = true
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			for k < len(src) && isDigit(src[k]) {
				k++
			}
			isDouble = true
			j = k
		}
	}
	text := src[i:j]
	t := token{col: i + 1, text: text}
	if isDouble {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) {
			return t, j, &Error{Expr: src, Col: i + 1, Msg: fmt.Sprintf("double constant %s is out of range", text)}
		}
		t.kind, t.f = tDouble, f
		return t, j, nil
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		// pgbench's lexer has a dedicated token for 2^63 so that
		// "-9223372036854775808" can be written.
		if trimZeros(text) == "9223372036854775808" {
			t.kind = tMaxPlusOne
			return t, j, nil
		}
		return t, j, &Error{Expr: src, Col: i + 1, Msg: fmt.Sprintf("bigint constant overflow: %s", text)}
	}
	t.kind, t.i = tInt, v
	return t, j, nil
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

package pgexpr

import (
	"math"
	"strconv"
	"strings"
)

type nodeKind uint8

const (
	nInt    nodeKind = iota // integer constant
	nDouble                 // double constant
	nVar                    // :variable (only before Bind)
	nNeg                    // unary minus; pgbench evaluates it as 0 - x
	nBinary                 // + - * / %
	nCall                   // function call
	nSlot                   // a script variable read when the expression runs (after BindSlots; i is the slot)
	nBool                   // TRUE or FALSE (i is 1 or 0)
	nCmp                    // comparison; op is '<', '>', '=', 'l' (<=), 'g' (>=), 'n' (<>)
	nAnd                    // AND (lazy, as pgbench's evalLazyFunc)
	nOr                     // OR (lazy)
	nNot                    // NOT
)

// cmpText maps a comparison's op byte to its text.
var cmpText = map[byte]string{'<': "<", '>': ">", '=': "=", 'l': "<=", 'g': ">=", 'n': "<>"}

// valType is pgbench's value type for the subset handled here (no boolean,
// no NULL: none of the supported functions produces them).
type valType uint8

const (
	tyInt valType = iota
	tyDouble
	tyBool // comparisons, AND, OR, NOT, TRUE, FALSE
)

// node is one expression tree node. Parse fills the syntax fields; Bind
// builds a new, folded tree with the analysis fields set.
type node struct {
	kind nodeKind
	col  int  // 1-based byte column of the operator, name or literal
	op   byte // nBinary: '+', '-', '*', '/', '%'
	fn   funcID
	i    int64   // nInt
	f    float64 // nDouble
	name string  // nVar
	args []*node // nNeg: 1, nBinary: 2, nCall: the arguments

	// Set by Bind.
	typ   valType
	ilo   int64 // bounds of every value an int node can take
	ihi   int64
	flo   float64 // bounds of a double node, meaningful only if !fnan
	fhi   float64
	fnan  bool // the double node may be NaN (its bounds are then ±Inf)
	draws bool // the subtree draws random numbers, so it cannot be folded
}

type funcID uint8

const (
	fnAbs funcID = iota
	fnLeast
	fnGreatest
	fnInt
	fnDouble
	fnRandom
	fnGaussian
	fnExponential
	fnZipfian
	fnPermute
)

// maxFuncArgs is pgbench's MAX_FARGS.
const maxFuncArgs = 16

// funcs is the supported part of pgbench's PGBENCH_FUNCTIONS table
// (exprparse.y), indexed by funcID. maxArgs < 0 means "at least minArgs".
var funcs = [...]struct {
	name             string
	minArgs, maxArgs int
}{
	fnAbs:         {"abs", 1, 1},
	fnLeast:       {"least", 1, -1},
	fnGreatest:    {"greatest", 1, -1},
	fnInt:         {"int", 1, 1},
	fnDouble:      {"double", 1, 1},
	fnRandom:      {"random", 2, 2},
	fnGaussian:    {"random_gaussian", 3, 3},
	fnExponential: {"random_exponential", 3, 3},
	fnZipfian:     {"random_zipfian", 3, 3},
	fnPermute:     {"permute", 2, 3}, // 2 args: pgbench adds :default_seed
}

// unsupportedFuncs are pgbench functions this package deliberately leaves out,
// so that their use gets a precise message rather than "unknown function".
var unsupportedFuncs = []string{
	"debug", "exp", "hash", "hash_fnv1a", "hash_murmur2", "ln", "pi", "pow", "power", "sqrt",
}

// isRandomFunc reports whether fn draws from the client's random state.
func isRandomFunc(fn funcID) bool {
	return fn == fnRandom || fn == fnGaussian || fn == fnExponential || fn == fnZipfian
}

// Precedence levels for printing, as in exprparse.y: additive < multiplicative
// < unary < primary.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp
	precAdd
	precMul
	precUnary
	precPrimary
)

func (n *node) prec() int {
	switch n.kind {
	case nOr:
		return precOr
	case nAnd:
		return precAnd
	case nNot:
		return precNot
	case nCmp:
		return precCmp
	case nBinary:
		if n.op == '+' || n.op == '-' {
			return precAdd
		}
		return precMul
	case nNeg:
		return precUnary
	case nInt:
		if n.i < 0 {
			return precUnary
		}
	case nDouble:
		if n.f < 0 || math.Signbit(n.f) {
			return precUnary
		}
	}
	return precPrimary
}

// String prints the tree in canonical form: single spaces around binary
// operators, ", " between arguments, lower-case function names and only the
// parentheses precedence requires. The result parses back to the same tree.
func (n *node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case nInt:
		b.WriteString(strconv.FormatInt(n.i, 10))
	case nDouble:
		b.WriteString(formatDouble(n.f))
	case nVar, nSlot:
		b.WriteByte(':')
		b.WriteString(n.name)
	case nNeg:
		b.WriteByte('-')
		// Parenthesise anything that is not a plain operand, and any
		// operand that itself starts with a minus ("-(-5)", not "--5").
		writeChild(b, n.args[0], n.args[0].prec() < precPrimary)
	case nBinary:
		p := n.prec()
		writeChild(b, n.args[0], n.args[0].prec() < p)
		b.WriteByte(' ')
		b.WriteByte(n.op)
		b.WriteByte(' ')
		// Left-associative: an equal-precedence right operand needs
		// parentheses ("a - (b - c)").
		writeChild(b, n.args[1], n.args[1].prec() <= p)
	case nBool:
		if n.i != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nCmp, nAnd, nOr:
		p := n.prec()
		op := map[nodeKind]string{nAnd: "and", nOr: "or"}[n.kind]
		if n.kind == nCmp {
			op = cmpText[n.op]
			// Comparisons do not chain: parenthesise a comparison operand.
			writeChild(b, n.args[0], n.args[0].prec() <= p)
		} else {
			writeChild(b, n.args[0], n.args[0].prec() < p)
		}
		b.WriteString(" " + op + " ")
		writeChild(b, n.args[1], n.args[1].prec() <= p)
	case nNot:
		b.WriteString("not ")
		writeChild(b, n.args[0], n.args[0].prec() < precNot)
	case nCall:
		b.WriteString(funcs[n.fn].name)
		b.WriteByte('(')
		for i, a := range n.args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(b)
		}
		b.WriteByte(')')
	}
}

func writeChild(b *strings.Builder, c *node, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	c.write(b)
	if paren {
		b.WriteByte(')')
	}
}

// formatDouble prints a double so that it reads back as the same double:
// shortest round-trip digits, always with a '.' or exponent so the lexer does
// not take it for an integer. Non-finite values (only reachable by folding,
// e.g. 1.0 / 0) are printed as the expressions that produce them.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "(0.0 / 0)"
	case math.IsInf(f, 1):
		return "(1.0 / 0)"
	case math.IsInf(f, -1):
		return "(-1.0 / 0)"
	case f == 0 && math.Signbit(f):
		return "(0.0 * -1)" // "-0.0" would read back as 0 - 0.0 = +0
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

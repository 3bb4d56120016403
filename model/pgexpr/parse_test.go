package pgexpr

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// evalConst parses, binds and evaluates a random-free expression.
func evalConst(t *testing.T, src string, vars map[string]int64) int64 {
	t.Helper()
	return mustGen(t, src, vars, 0).Next(nil)
}

// TestPrecedenceAndIntegerSemantics checks exprparse.y's precedence
// (unary > * / % > + -, left-associative) and evalStandardFunc's integer
// semantics (C truncating / and %, rint for double to int). The first block
// is from pgbench's TAP suite (001_pgbench_expressions, commands i4-i7, ia,
// ib with scale 1).
func TestPrecedenceAndIntegerSemantics(t *testing.T) {
	cases := []struct {
		src  string
		want int64
	}{
		{"abs(-4)", 4},
		{"greatest(5, 4, 3, 2)", 5},
		{"11 + least(-5, -4, -3, -2)", 6},
		{"int(7.3)", 7},
		{"10 + (0 + 0 * 0 - 0 / 1)", 10},
		{":ia + :scale", 11},

		{"1 + 2 * 3", 7},
		{"(1 + 2) * 3", 9},
		{"10 - 4 - 3", 3},    // left-associative
		{"100 / 10 / 5", 2},  // left-associative
		{"7 % 4 * 2", 6},     // same level as *, left to right
		{"2 + 3 * 4 % 5", 4}, // 2 + ((3 * 4) % 5)
		{"-2 * 3", -6},
		{"- 3 * - 4", 12},
		{"-(2 + 3) * 2", -10},
		{"+5 - -5", 10},
		{"-7 / 2", -3}, // truncation toward zero, as C
		{"7 / -2", -3},
		{"-7 % 3", -1}, // sign of the dividend, as C
		{"7 % -3", 1},
		{"-9223372036854775808 % -1", 0}, // pgbench's special case for -1
		{"-9223372036854775808", math.MinInt64},
		{"9223372036854775807", math.MaxInt64},
		{"int(7.5)", 8}, // rint: half to even
		{"int(6.5)", 6},
		{"int(-2.5)", -2},
		{"int(5 / 2.0)", 2}, // double division, then rint(2.5)
		{"int(5.0 / 2 * 2)", 5},
		{"5.5 % 2", 0}, // % coerces to int: rint(5.5) = 6
		{"int(least(-5.18, .0E0, 1.0 / 0) * -3.3)", 17}, // TAP d5, through int()
		{"int(greatest(1, 2.5))", 2},
		{"abs(-9223372036854775807)", math.MaxInt64},
		{"int(double(3) / 2)", 2},
		{"RANDOM(3, 3) + Abs(-1)", 4}, // function names are case-insensitive
		{"1\t+\n2 \\\n* 3", 7},        // whitespace, newlines and continuations
	}
	vars := map[string]int64{"ia": 10, "scale": 1}
	for _, c := range cases {
		if got := evalConst(t, c.src, vars); got != c.want {
			t.Errorf("%s = %d, want %d", c.src, got, c.want)
		}
	}
}

// TestCanonicalString checks Expr.String's canonical form and that it parses
// back to itself.
func TestCanonicalString(t *testing.T) {
	cases := []struct{ src, want string }{
		{"random(1,100000*:scale)", "random(1, 100000 * :scale)"},
		{"RANDOM_Gaussian( 1 , :n , 5 )", "random_gaussian(1, :n, 5)"},
		{"(1+2)*3", "(1 + 2) * 3"},
		{"1-(2-3)", "1 - (2 - 3)"},
		{"(1-2)-3", "1 - 2 - 3"},
		{"1+(2*3)", "1 + 2 * 3"},
		{"(1*2)+3", "1 * 2 + 3"},
		{"8/(4/2)", "8 / (4 / 2)"},
		{"-(1+2)", "-(1 + 2)"},
		{"--5", "-(-5)"},
		{"-(-(5))", "-(-5)"},
		{"+5", "5"},
		{"-:x * 2", "-:x * 2"},
		{"1.5e3", "1500.0"},
		{"2.", "2.0"},
		{".25", "0.25"},
		{"1e-7", "1e-07"},
		{"permute(random_zipfian(1,:n,1.2),:n)", "permute(random_zipfian(1, :n, 1.2), :n)"},
		{"least(1,greatest(2,3),abs(-4))", "least(1, greatest(2, 3), abs(-4))"},
		{"-9223372036854775808", "-9223372036854775808"},
	}
	for _, c := range cases {
		e, err := Parse(c.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.src, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.src, got, c.want)
		}
		e2, err := Parse(e.String())
		if err != nil || e2.String() != e.String() {
			t.Errorf("%q does not parse back to itself: %v, %v", e.String(), e2, err)
		}
	}
}

// TestParseErrors checks that syntax errors name the column and what was
// expected or found. Messages follow pgbench where it has one ("unexpected
// function name", "unexpected character", "bigint constant overflow", "too
// many function arguments").
func TestParseErrors(t *testing.T) {
	cases := []struct {
		src  string
		col  int
		want string
	}{
		{"", 1, "empty expression"},
		{"random(1, 2", 12, `expected "," or ")"`},
		{"1 +", 4, "expected a number, :variable, function call"},
		{"1 2", 3, "expected an operator or the end of the expression, found number 2"},
		{"(1 + 2", 7, `expected ")" to close the "(" at column 1`},
		{"1 ; 2", 3, `unexpected character ";"`},
		{"1 < 2 < 3", 7, "comparisons do not chain"},
		{"1 & 2", 3, `bitwise operator "&" is not supported here`},
		{"1 << 2", 3, `bitwise operator "<<" is not supported here`},
		{":a is null", 4, "IS, ISNULL and NOTNULL are not supported here"},
		{"null", 1, "NULL is not supported here"},
		{"case when 1 then 2 end", 1, "CASE is not supported here"},
		{"1 !", 3, `unexpected character "!"`},
		{": x", 1, `expected a variable name after ":"`},
		{"foo(1)", 1, `unexpected function name "foo"`},
		{"noSuchFunction()", 1, "unexpected function name"},
		{"1 + sqrt(2.0)", 5, `pgbench function "sqrt" is not supported`},
		{"hash(10)", 1, `pgbench function "hash" is not supported`},
		{"random(1)", 1, "random expects 2 arguments, got 1"},
		{"random_gaussian(1, 10)", 1, "random_gaussian expects 3 arguments, got 2"},
		{"random_zipfian(1, 10, 1.5, 2)", 1, "random_zipfian expects 3 arguments, got 4"},
		{"permute(1)", 1, "permute expects 2 or 3 arguments, got 1"},
		{"permute(1, 2, 3, 4)", 1, "permute expects 2 or 3 arguments, got 4"},
		{"abs()", 1, "abs expects 1 arguments, got 0"},
		{"2 * least()", 5, "least expects at least 1 argument(s), got 0"},
		{"least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", 1, "too many function arguments for least, maximum is 16"},
		{"random", 7, `expected "(" after function name "random"`},
		{"random(1, scale)", 11, `unexpected name "scale" (a variable is written :scale)`},
		{"9223372036854775808", 1, "bigint constant overflow"},
		{"1 + 99999999999999999999", 5, "bigint constant overflow: 99999999999999999999"},
		{"1e999", 1, "double constant 1e999 is out of range"},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), 0, "nested more than 200 levels"},
		{strings.Repeat("-", 300) + "1", 0, "nested more than 200 levels"},
	}
	for _, c := range cases {
		_, err := Parse(c.src)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) error = %v, want *Error", c.src, err)
			continue
		}
		if !strings.Contains(pe.Msg, c.want) {
			t.Errorf("Parse(%q) message %q, want it to contain %q", c.src, pe.Msg, c.want)
		}
		if c.col != 0 && pe.Col != c.col {
			t.Errorf("Parse(%q) column %d, want %d (%v)", c.src, pe.Col, c.col, err)
		}
		if !strings.Contains(err.Error(), "column") && c.col != 0 {
			t.Errorf("Parse(%q) error %q does not name the column", c.src, err)
		}
	}
}

// TestUnsupportedListIsAccurate guards the two function lists against
// overlap: a function cannot be both supported and "not supported".
func TestUnsupportedListIsAccurate(t *testing.T) {
	for _, u := range unsupportedFuncs {
		if _, ok := lookupFunc(u); ok {
			t.Errorf("%q is listed as unsupported but is supported", u)
		}
	}
}

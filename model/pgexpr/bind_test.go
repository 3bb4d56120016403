package pgexpr

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestBindErrors checks Bind's refusals. Constant cases carry pgbench's own
// messages (pgbench.c evalStandardFunc; TAP "trigger many expression errors":
// "empty range given to random", "random range is too large", "gaussian
// param.* at least 2", "exponential parameter must be greater ", "zipfian
// parameter must be in range", "division by zero", "undefined variable").
// Random operands are refused when some draw would fail.
func TestBindErrors(t *testing.T) {
	vars := map[string]int64{"scale": 10, "n": 1000}
	cases := []struct {
		src  string
		col  int
		want string
	}{
		{":nosuchvariable", 1, `undefined variable "nosuchvariable" (defined: n, scale)`},
		{"random(1, :naccounts)", 11, `undefined variable "naccounts"`},
		{"random_gaussian(0, 10, 1.5)", 1, "gaussian parameter must be at least 2.000000 (not 1.500000)"},
		{"random_gaussian(0, 10, 1)", 1, "gaussian parameter must be at least 2.000000 (not 1.000000)"},
		{"random_zipfian(1, 100, 1.0)", 1, "zipfian parameter must be in range [1.001, 1000] (not 1.000000)"},
		{"random_zipfian(1, 100, 1000.5)", 1, "zipfian parameter must be in range [1.001, 1000] (not 1000.500000)"},
		{"random_exponential(0, 10, 0.0)", 1, "exponential parameter must be greater than zero (not 0.000000)"},
		{"random_exponential(0, 10, -1)", 1, "exponential parameter must be greater than zero"},
		{"random(5, 3)", 1, "empty range given to random"},
		{"1 + random_zipfian(10, 1, 1.5)", 5, "empty range given to random_zipfian"},
		{"random(-9223372036854775808, 9223372036854775807)", 1, "random range is too large"},
		{"random(0, 9223372036854775807)", 1, "random range is too large"},
		{"1 / 0", 3, "division by zero"},
		{"1 % (5 - 5)", 3, "division by zero"},
		{"10 / random(0, 3)", 4, "division by zero for some draws (random(0, 3) ranges over [0, 3])"},
		{"9223372036854775807 + 1", 21, "bigint add out of range"},
		{"-9223372036854775808 - 1", 22, "bigint sub out of range"},
		{"random(1, 10) * 1000000000000000000", 15, "bigint mul out of range for some draws"},
		{"-9223372036854775808 / -1", 22, "bigint div out of range"},
		{"-(-9223372036854775808)", 1, "bigint sub out of range"},
		{"abs(-9223372036854775808)", 1, "bigint abs out of range"},
		{"int(1.0 / 0)", 9, "double to int overflow for +Inf"},
		{"random(1, 1e19)", 11, "double to int overflow for 10000000000000000000.000000"},
		{"permute(1, 0)", 1, "permute size parameter must be greater than zero"},
		{"permute(1, random(0, 5))", 1, "permute size parameter must be greater than zero for some draws"},
		{"random(1, 10) / 2.0", 0, "yields a double, but a key must be an integer: wrap it in int(...)"},
		{"random_gaussian(1, 10, random(1, 3))", 1, "gaussian parameter must be at least 2.000000 (not 1.000000) for some draws"},
		{"random_gaussian(1, 10, 1.0 / 0)", 1, "gaussian parameter must be finite"},
		{"random(random(1, 5), random(3, 10))", 1, "empty range given to random for some draws"},
		{"random_zipfian(1, 10, 1.5 + random(0, 1000))", 1, "zipfian parameter must be in range [1.001, 1000] (not 1001.500000) for some draws"},
		{"int(random(1, 10) / 0.0)", 19, "double to int overflow possible"},
	}
	for _, c := range cases {
		e, err := Parse(c.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.src, err)
			continue
		}
		g, err := e.Bind(vars, 0)
		var be *Error
		if !errors.As(err, &be) {
			t.Errorf("Bind(%q) = %v, %v; want *Error containing %q", c.src, g, err, c.want)
			continue
		}
		if !strings.Contains(be.Msg, c.want) {
			t.Errorf("Bind(%q) message %q, want it to contain %q", c.src, be.Msg, c.want)
		}
		if be.Col != c.col {
			t.Errorf("Bind(%q) column %d, want %d", c.src, be.Col, c.col)
		}
	}
}

// TestBindAcceptsBoundaries: pgbench's limits are inclusive where it says so.
func TestBindAcceptsBoundaries(t *testing.T) {
	for _, src := range []string{
		"random_gaussian(0, 10, 2.0)",         // MIN_GAUSSIAN_PARAM itself
		"random_zipfian(1, 10, 1.001)",        // MIN_ZIPFIAN_PARAM
		"random_zipfian(1, 10, 1000)",         // MAX_ZIPFIAN_PARAM
		"random_exponential(0, 10, 1e-300)",   // any positive threshold
		"random(0, 9223372036854775806)",      // ub - lb + 1 = INT64_MAX
		"random(7, 7)",                        // lb = ub
		"10 / random(1, 3)",                   // divisor range excludes 0
		"random(random(1, 5), random(5, 10))", // lb <= ub for every draw
		"random_gaussian(1, 10, random(2, 3))",
		"permute(random(0, 9), random(1, 10))",
		"-9223372036854775808 % -1",
	} {
		mustGen(t, src, nil, 0)
	}
}

// TestGenStringFoldsConstants: Gen.String is the canonical form after
// substitution and folding; two-argument permute shows its seed.
func TestGenStringFoldsConstants(t *testing.T) {
	vars := map[string]int64{"scale": 5000, "n": 1000, "naccounts": 500000000}
	cases := []struct{ src, want string }{
		{"random_gaussian(1, 100000 * :scale, 5)", "random_gaussian(1, 500000000, 5)"},
		{"random(1, 100000 * :scale)", "random(1, 500000000)"},
		{"random_exponential(1, :naccounts, 2.5)", "random_exponential(1, 500000000, 2.5)"},
		{"permute(random_zipfian(1, :n, 1.2), :n)", "permute(random_zipfian(1, 1000, 1.2), 1000, 42)"},
		{"random(1, 10) + 2 * 3", "random(1, 10) + 6"},
		{"abs(-4) + random(1, 2)", "4 + random(1, 2)"},
		{"-(random(1, 2))", "-random(1, 2)"},
		{"random(1, 10) - (3 - 1)", "random(1, 10) - 2"},
		{"int(random(1, 10) * 1.5)", "int(random(1, 10) * 1.5)"},
		{"permute(3, 10, 5)", strconv.FormatInt(Permute(3, 10, 5), 10)},
		{"2 * (3 + 4)", "14"},
	}
	for _, c := range cases {
		g := mustGen(t, c.src, vars, 42)
		if got := g.String(); got != c.want {
			t.Errorf("Bind(%q).String() = %q, want %q", c.src, got, c.want)
		}
		// The canonical form is itself a valid expression with the same
		// meaning.
		if _, err := Parse(g.String()); err != nil {
			t.Errorf("canonical form %q does not parse: %v", g.String(), err)
		}
	}
}

// TestRangeAndBounds: Range reports the outermost random function's
// constant [lb, ub]; Bounds the proven range of the final value.
func TestRangeAndBounds(t *testing.T) {
	vars := map[string]int64{"scale": 10, "n": 1000}
	cases := []struct {
		src      string
		lo, hi   int64
		ok       bool
		blo, bhi int64
	}{
		{"random(1, 100000 * :scale)", 1, 1000000, true, 1, 1000000},
		{"permute(random_zipfian(1, :n, 1.2), :n)", 1, 1000, true, 0, 999},
		{"random(1, 10) + 5", 1, 10, true, 6, 15},
		{"random_gaussian(-5, 5, 3) * -2", -5, 5, true, -10, 10},
		{"random(random(1, 5), 10)", 0, 0, false, 1, 10},
		{"random(1, 10) % 4", 1, 10, true, 0, 3},
		{"-7 % random(2, 5)", 2, 5, true, -4, 0},
		{"100 / random(-4, -2)", -4, -2, true, -50, -25},
		{"least(random(1, 100), 50)", 1, 100, true, 1, 50},
		{"5", 0, 0, false, 5, 5},
		{"random(0.5, 10.5)", 0, 10, true, 0, 10}, // rint: half to even
		{"random(1, random(5, 9))", 0, 0, false, 1, 9},
	}
	for _, c := range cases {
		g := mustGen(t, c.src, vars, 1)
		lo, hi, ok := g.Range()
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("%s: Range() = %d, %d, %v; want %d, %d, %v", c.src, lo, hi, ok, c.lo, c.hi, c.ok)
		}
		blo, bhi := g.Bounds()
		if blo != c.blo || bhi != c.bhi {
			t.Errorf("%s: Bounds() = %d, %d; want %d, %d", c.src, blo, bhi, c.blo, c.bhi)
		}
		r := pcg(8)
		for range 5000 {
			if k := g.Next(r); k < blo || k > bhi {
				t.Fatalf("%s drew %d outside Bounds [%d, %d]", c.src, k, blo, bhi)
			}
		}
	}
}

// TestHeaderLines checks the 2014 pgbench run-header lines against the
// figures printed on pgsql-hackers: threshold 5 in Peter Geoghegan's report
// (seed 002) and threshold 10 in KONDO Mitsumasa's first "gaussian
// distribution pgbench" post; exponential values are the analytic
// (1 - e^(-p f)) / (1 - e^(-p)) of pgbench-docs/model.md (0.636 / 0.396 / 0.223).
func TestHeaderLines(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{"random_gaussian(1, 100000 * :scale, 5)", []string{
			"standard deviation threshold: 5.00000",
			"access probability of top 20%, 10% and 5% records: 0.68269 0.38293 0.19741",
		}},
		{"random_gaussian(1, 100000 * :scale, 10)", []string{
			"standard deviation threshold: 10.00000",
			"access probability of top 20%, 10% and 5% records: 0.95450 0.68269 0.38292",
		}},
		{"random_exponential(1, 100000 * :scale, 5.0)", []string{
			"exponential threshold: 5.00000",
			"access probability of top 20%, 10% and 5% records: 0.63641 0.39614 0.22270",
		}},
		{"random(1, 100000 * :scale)", nil},
		{"random_zipfian(1, 1000, 1.07)", nil},
		{"random_gaussian(1, 1000, random(2, 3))", nil},
	}
	for _, c := range cases {
		got := mustGen(t, c.src, map[string]int64{"scale": 5000}, 0).HeaderLines()
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") || (got == nil) != (c.want == nil) {
			t.Errorf("%s: HeaderLines() = %q, want %q", c.src, got, c.want)
		}
	}
}

// TestBindIsRepeatable: one Expr binds to independent Gens, and a failed
// Bind does not disturb later ones.
func TestBindIsRepeatable(t *testing.T) {
	e, err := Parse("random(1, :n)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Bind(map[string]int64{"n": 0}, 0); err == nil {
		t.Fatal("random(1, 0) bound without error")
	}
	g1, err1 := e.Bind(map[string]int64{"n": 10}, 0)
	g2, err2 := e.Bind(map[string]int64{"n": 20}, 0)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if g1.String() != "random(1, 10)" || g2.String() != "random(1, 20)" || e.String() != "random(1, :n)" {
		t.Errorf("got %q, %q from %q", g1, g2, e)
	}
}

// TestBindSlots checks variables set while a script runs: their values come
// from the slice given to NextVars, their bounds (the earlier expression's)
// take part in Bind's proofs, and they are never folded into constants.
func TestBindSlots(t *testing.T) {
	vars := map[string]int64{"scale": 10}
	slots := map[string]Slot{"aid": {Index: 1, Lo: 1, Hi: 1000}}
	e, err := Parse(":aid + 100 * :scale")
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.BindSlots(vars, slots, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, aid := range []int64{1, 17, 1000} {
		if got := g.NextVars(nil, []int64{0, aid}); got != aid+1000 {
			t.Errorf("aid %d: got %d, want %d", aid, got, aid+1000)
		}
	}
	if lo, hi := g.Bounds(); lo != 1001 || hi != 2000 {
		t.Errorf("bounds [%d, %d], want [1001, 2000]", lo, hi)
	}
	if g.String() != ":aid + 1000" {
		t.Errorf("String %q", g.String())
	}
	// A slot whose range includes 0 may divide by zero: refused, as a
	// random operand would be.
	e, _ = Parse("100 / :x")
	_, err = e.BindSlots(nil, map[string]Slot{"x": {Index: 0, Lo: 0, Hi: 5}}, 0)
	if err == nil || !strings.Contains(err.Error(), "division by zero for some draws (:x ranges over [0, 5])") {
		t.Errorf("division by a slot that may be 0: %v", err)
	}
	// The undefined-variable message lists constants and slots.
	e, _ = Parse(":nope")
	_, err = e.BindSlots(vars, slots, 0)
	if err == nil || !strings.Contains(err.Error(), "(defined: aid, scale)") {
		t.Errorf("undefined: %v", err)
	}
}

package pgexpr

import (
	"strings"
	"testing"
)

// TestConditions checks \if conditions against pgbench's rules
// (exprparse.y precedence; evalStandardFunc's comparisons: two ints as
// ints, otherwise as doubles; valueTruth: a number is true when non-zero).
func TestConditions(t *testing.T) {
	vars := map[string]int64{"scale": 10, "zero": 0}
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"true", true},
		{"FALSE", false},
		{"1 < 2", true},
		{"2 <= 2 and 3 >= 4", false},
		{"1 = 1.0", true},
		{"3 <> 3", false},
		{"3 != 4", true},
		{":scale > 5 or random(1, 10) > 100", true},
		{"not 1 = 2", true},
		{"not (1 = 1) or true", true},
		{"not true and false", false},
		{":scale", true},
		{":zero", false},
		{"0.0", false},
		{"0.5", true},
		{"-1 < -0.5", true},
		{"1 + 2 * 3 = 7", true},
	} {
		e, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		g, err := e.BindCond(vars, nil, 0)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if got := g.NextBool(pcg(1), nil); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.src, got, tc.want)
		}
		if _, err := Parse(g.String()); err != nil {
			t.Errorf("%s: canonical form %q does not parse: %v", tc.src, g.String(), err)
		}
	}
}

// AND and OR evaluate their right operand only when needed, as pgbench's
// evalLazyFunc, so its random draws happen only then.
func TestConditionsAreLazy(t *testing.T) {
	e, err := Parse("random(0, 1) = 1 or random(1, 100) > 0")
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.BindCond(nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Replay the draws: after each condition, the next uniform draw shows
	// how many words the condition consumed.
	r1, r2 := pcg(9), pcg(9)
	for range 200 {
		first := drawUniform(r2, 0, 1)
		if first != 1 {
			drawUniform(r2, 1, 100) // the right operand runs only now
		}
		if !g.NextBool(r1, nil) {
			t.Fatal("the condition is always true")
		}
		if r1.Uint64() != r2.Uint64() {
			t.Fatal("the condition drew more or fewer numbers than pgbench's lazy OR")
		}
	}
}

// A boolean is never a number (pgbench: "cannot coerce boolean to int"),
// and a condition is not a key.
func TestConditionTypes(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"(1 < 2) + 1", "cannot coerce boolean to a number"},
		{"abs(true)", "cannot coerce boolean to a number"},
		{"(1 < 2) = true", "cannot coerce boolean to a number"},
	} {
		e, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if _, err := e.BindCond(nil, nil, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.src, err, tc.want)
		}
	}
	e, _ := Parse("1 < 2")
	if _, err := e.Bind(nil, 0); err == nil || !strings.Contains(err.Error(), "is a condition, but a key must be an integer") {
		t.Errorf("a condition bound as a key: %v", err)
	}
}

package pgexpr

import (
	"testing"
)

// FuzzParseBindNext checks the package's contract on arbitrary input: Parse
// and Bind never panic, and whatever Bind accepts evaluates without panicking
// (Go panics on integer division by zero, so a hole in Bind's proofs shows
// up here) and stays inside Bounds. The seeds run in every `go test`; run
// `go test -fuzz FuzzParseBindNext ./model/pgexpr` to explore.
func FuzzParseBindNext(f *testing.F) {
	for _, s := range []string{
		"random(1, 100000 * :scale)",
		"random_gaussian(1, :n, 5) % 7",
		"random_exponential(-10, 10, 0.5) / random(1, 3)",
		"random_zipfian(1, :n, 1.5) - :n",
		"permute(random(0, :n), :n + 1, -3)",
		"least(random(-5, 5), 2.5, :scale) * -1",
		"int(greatest(random(1, 9) / 2.0, -1e18))",
		"abs(random(-9223372036854775807, 0))",
		"100 % random(-3, -1)",
		"int(double(random(1, 1000)) * 0.5 + 0.25)",
		"-(random(1, 2) - 3) * (4 - random(5, 6))",
		"random(1, 10) <= 3 and not (:scale = 1.5 or false)",
	} {
		f.Add(s)
	}
	vars := map[string]int64{"scale": 10, "n": 1000}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			return
		}
		if _, err := Parse(e.String()); err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", e.String(), src, err)
		}
		if c, err := e.BindCond(vars, nil, 7); err == nil {
			r := pcg(2)
			for range 20 {
				c.NextBool(r, nil) // must not panic
			}
		}
		g, err := e.Bind(vars, 7)
		if err != nil {
			return
		}
		lo, hi := g.Bounds()
		r := pcg(1)
		for range 50 {
			if v := g.Next(r); v < lo || v > hi {
				t.Fatalf("%q (bound as %q) drew %d outside [%d, %d]", src, g, v, lo, hi)
			}
		}
	})
}

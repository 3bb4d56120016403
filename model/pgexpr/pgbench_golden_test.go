package pgexpr

import (
	"math/rand/v2"
	"testing"
)

// Known answers from PostgreSQL's pgbench TAP suite,
// src/bin/pgbench/t/001_pgbench_with_server.pl ("pgbench expressions",
// run with --random-seed=5432 -t 1), PG15+ where pgbench uses pg_prng.

// TestPgPRNGSplitmix64Reference pins splitmix64 to the reference outputs of
// Vigna's splitmix64.c for state 0 (the seeding half of pg_prng_seed).
func TestPgPRNGSplitmix64Reference(t *testing.T) {
	var s uint64
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for i, w := range want {
		if got := splitmix64(&s); got != w {
			t.Errorf("splitmix64 output %d = %#x, want %#x", i, got, w)
		}
	}
}

// TestPgbenchSeededRandomValues replays pgbench's seeded client stream: with
// --random-seed=5432, base_random_sequence = pg_prng_seed(5432); the single
// client's cs_func_rs is seeded from its first output (main: "other CState
// initializations"); the script's four random draws then print 17, 104, 1498
// and 3 (commands 1-3 and 20 of 001_pgbench_expressions). This pins the
// uniform, exponential, gaussian and zipfian formulas, and the way each
// consumes 64-bit words, to pgbench's.
func TestPgbenchSeededRandomValues(t *testing.T) {
	base := NewPgPRNG(5432)
	client := rand.New(NewPgPRNG(base.Uint64()))
	cases := []struct {
		expr string
		want int64
	}{
		{"random(10, 19)", 17},
		{"random_exponential(100, 199, 10.0)", 104},
		{"random_gaussian(1000, 1999, 10.0)", 1498},
		{"random_zipfian(1, 9, 1.3)", 3},
	}
	for _, c := range cases {
		g := mustGen(t, c.expr, nil, 0)
		if got := g.Next(client); got != c.want {
			t.Errorf("%s = %d, want %d (pgbench TAP, seed 5432)", c.expr, got, c.want)
		}
	}
}

// TestPermutePgbenchPinned checks permute against the values pgbench's TAP
// suite pins "to check permute's portability across architectures", with
// size = 9223372036854775807 - 10 and seed 5432, and its small-size checks.
func TestPermutePgbenchPinned(t *testing.T) {
	const size = int64(9223372036854775807 - 10)
	want := []int64{
		520382784483822430,
		1143715004660802862,
		447293596416496998,
		916527772266572956,
		2763809008686028849,
		8648551549198294572,
		4542876852200565125,
	}
	for i, w := range want {
		v := size - int64(i+1)
		if got := Permute(v, size, 5432); got != w {
			t.Errorf("permute(size-%d, size, 5432) = %d, want %d", i+1, got, w)
		}
	}
	small := []struct{ val, size, seed, want int64 }{
		{0, 2, 5431, 0}, {1, 2, 5431, 1},
		{0, 2, 5433, 1}, {1, 2, 5433, 0},
	}
	for _, c := range small {
		if got := Permute(c.val, c.size, c.seed); got != c.want {
			t.Errorf("permute(%d, %d, %d) = %d, want %d", c.val, c.size, c.seed, got, c.want)
		}
	}
	// The same values through the expression path, where Bind precomputes
	// the permutation's constants.
	g := mustGen(t, "permute(:size - 1, :size, 5432)", map[string]int64{"size": size}, 0)
	if got := g.Next(nil); got != want[0] {
		t.Errorf("bound permute(:size-1, :size, 5432) = %d, want %d", got, want[0])
	}
}

package pgexpr

import (
	"math/rand/v2"
	"testing"
)

// TestPgPRNGRangeAndDouble checks pg_prng_uint64_range's contract (values in
// [rmin, rmax]; rmin for an empty range) and pg_prng_double's [0, 1).
func TestPgPRNGRangeAndDouble(t *testing.T) {
	p := NewPgPRNG(1)
	for _, c := range []struct{ lo, hi uint64 }{{0, 0}, {5, 5}, {9, 3}, {0, 1}, {10, 17}, {0, 1<<63 + 5}, {0, ^uint64(0)}} {
		for range 1000 {
			v := p.Uint64Range(c.lo, c.hi)
			if c.hi <= c.lo && v != c.lo || c.hi > c.lo && (v < c.lo || v > c.hi) {
				t.Fatalf("Uint64Range(%d, %d) = %d", c.lo, c.hi, v)
			}
		}
	}
	for range 10000 {
		if d := p.Double(); d < 0 || d >= 1 {
			t.Fatalf("Double() = %v, outside [0, 1)", d)
		}
	}
	if unitDouble(^uint64(0)) != 1-0x1p-52 || unitDouble(1<<12) != 0x1p-52 {
		t.Errorf("unitDouble does not use the top 52 bits as pg_prng_double")
	}
}

// TestPgPRNGAsSource: through rand.New, PgPRNG's stream is unchanged, which
// is what lets Gen.Next replay pgbench's draws.
func TestPgPRNGAsSource(t *testing.T) {
	direct := NewPgPRNG(5432)
	wrapped := rand.New(NewPgPRNG(5432))
	for i := range 100 {
		if a, b := direct.Uint64(), wrapped.Uint64(); a != b {
			t.Fatalf("word %d: %#x direct, %#x through rand.Rand", i, a, b)
		}
	}
	// Reseeding restarts the stream.
	p := NewPgPRNG(7)
	first := p.Uint64()
	p.Seed(7)
	if p.Uint64() != first {
		t.Error("Seed(7) did not restart the stream")
	}
}

package pgexpr

import (
	"math"
	"math/bits"
)

// PgPRNG is PostgreSQL's pg_prng (src/common/pg_prng.c, PG15+): Blackman and
// Vigna's xoroshiro128** 1.0 whose 128-bit state is filled from a 64-bit seed
// by splitmix64. pgbench's permute() seeds one of these from its seed argument
// on every call, so permute's output can only match pgbench's if this
// generator is bit-exact.
//
// PgPRNG implements math/rand/v2's Source, so rand.New(NewPgPRNG(s)) gives a
// *rand.Rand whose Uint64 stream is pg_prng's. Gen.Next consumes only Uint64
// from its *rand.Rand, so with such a source it reproduces pgbench's draws
// exactly (see the golden test against pgbench's TAP suite).
//
// The zero value is not a valid generator (all-zero state is a fixed point);
// use NewPgPRNG or Seed.
type PgPRNG struct {
	s0, s1 uint64
}

// NewPgPRNG returns a generator seeded as pg_prng_seed(state, seed).
func NewPgPRNG(seed uint64) *PgPRNG {
	p := &PgPRNG{}
	p.Seed(seed)
	return p
}

// splitmix64 advances *state and returns the next splitmix64 output
// (pg_prng.c splitmix64).
func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Seed re-initialises the state exactly as pg_prng_seed: two splitmix64
// outputs, with pg_prng_seed_check's replacement for the all-zero state.
func (p *PgPRNG) Seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		// pg_prng_seed_check: Knuth's LCG constants, as PostgreSQL does.
		p.s0 = 0x5851F42D4C957F2D
		p.s1 = 0x14057B7EF767814F
	}
}

// Uint64 returns the next xoroshiro128** output (pg_prng_uint64).
func (p *PgPRNG) Uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Uint64Range returns a uniform value in [rmin, rmax], or rmin when the range
// is empty, by pg_prng_uint64_range's bitmask rejection.
func (p *PgPRNG) Uint64Range(rmin, rmax uint64) uint64 {
	if rmax <= rmin {
		return rmin
	}
	span := rmax - rmin
	shift := uint(bits.LeadingZeros64(span)) // 63 - pg_leftmost_one_pos64(span)
	for {
		v := p.Uint64() >> shift
		if v <= span {
			return rmin + v
		}
	}
}

// Double returns a uniform double in [0, 1) built from the top 52 bits, as
// pg_prng_double does.
func (p *PgPRNG) Double() float64 {
	return unitDouble(p.Uint64())
}

// unitDouble maps a 64-bit random word to [0, 1) the way pg_prng_double does:
// ldexp(v >> 12, -52). Using the same mapping (rather than rand.Float64's
// 53-bit one) keeps the lattice of possible u values identical to pgbench's.
func unitDouble(v uint64) float64 {
	return float64(v>>12) * 0x1p-52
}

// normalFrom turns two 64-bit words into one standard normal deviate exactly as
// pg_prng_double_normal: basic Box-Muller with u1, u2 in (0, 1], keeping only
// the sine branch.
func normalFrom(w1, w2 uint64) float64 {
	u1 := 1.0 - unitDouble(w1)
	u2 := 1.0 - unitDouble(w2)
	return math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
}

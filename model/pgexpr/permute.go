package pgexpr

import "math/bits"

// permuteRounds is pgbench's fixed number of bijective rounds in permute().
const permuteRounds = 6

// permuteRound holds the pseudorandom constants one round of permute() draws:
// multiplier and xor mask for the lower half, the same for the upper half, and
// the offset added modulo size.
type permuteRound struct {
	mLow, rLow, mHigh, rHigh, offset uint64
}

// permutation is pgbench's permute() for one (size, seed) pair with its
// pseudorandom constants drawn ahead of time. In pgbench.c permute() every
// draw from the internal pg_prng depends only on the seed and the size (never
// on the value being permuted), so drawing them once at Bind time and
// replaying them per call gives bit-identical results at a fraction of the
// cost.
type permutation struct {
	size    uint64
	mask    uint64
	masklen uint
	rounds  [permuteRounds]permuteRound
}

// newPermutation prepares permute(., size, seed). size must be positive (the
// caller reports pgbench's "permute size parameter must be greater than zero").
func newPermutation(size, seed int64) permutation {
	p := permutation{size: uint64(size)}
	if size < 2 {
		return p // nothing to permute: every value maps to 0
	}
	p.masklen = uint(bits.Len64(p.size) - 1) // pg_leftmost_one_pos64(size)
	p.mask = (uint64(1) << p.masklen) - 1
	prng := NewPgPRNG(uint64(seed))
	for i := range p.rounds {
		r := &p.rounds[i]
		// The draw order matters: it is pgbench's.
		r.mLow = (prng.Uint64() & p.mask) | 1
		r.rLow = prng.Uint64() & p.mask
		r.mHigh = (prng.Uint64() & p.mask) | 1
		r.rHigh = prng.Uint64() & p.mask
		r.offset = prng.Uint64Range(0, p.size-1)
	}
	return p
}

// apply permutes val. Negative values wrap as in pgbench, which reduces
// (uint64) val modulo size.
func (p *permutation) apply(val int64) int64 {
	if p.size < 2 {
		return 0
	}
	size, mask, masklen := p.size, p.mask, p.masklen
	v := uint64(val) % size
	for i := range p.rounds {
		r := &p.rounds[i]
		// Multiply by an odd number, xor and rotate the lower part
		// [0, mask]: a bijection on that power-of-two block.
		if v <= mask {
			v = ((v * r.mLow) ^ r.rLow) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		// The same on the upper block, counted down from size-1, so that
		// the two overlapping blocks cover any size.
		t := size - 1 - v
		if t <= mask {
			t = ((t * r.mHigh) ^ r.rHigh) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		// pgbench computes (v + offset) % size; both terms are below
		// size <= 2^63, so one conditional subtraction is the same
		// value without a 64-bit division.
		v += r.offset
		if v >= size {
			v -= size
		}
	}
	return int64(v)
}

// Permute is pgbench's permute(val, size, seed) (PG15+, pg_prng based): a
// pseudorandom bijection of [0, size) selected by seed, applied to val modulo
// size. It returns 0 for size < 2. Callers must reject size <= 0 first, as
// pgbench does.
func Permute(val, size, seed int64) int64 {
	p := newPermutation(size, seed)
	return p.apply(val)
}

package sim

import "math/rand/v2"

// NewStream returns the random-number stream for one purpose of one run: a
// math/rand/v2 PCG generator whose 128-bit seed is derived from the
// scenario seed, the replicate number and the stream's name (for example
// "arrivals/client/3" or "service/disk/0").
//
// Giving every purpose its own stream is what makes comparisons fair
// (common random numbers): a policy that draws more or fewer numbers for its
// own purposes cannot shift the arrivals or keys every other policy sees.
// The derivation is fixed — changing it changes every run's output — and is
// pinned by golden values in the tests.
//
// The returned *rand.Rand also satisfies rand.Source, so it can be the Src of
// a gonum distuv distribution.
func NewStream(seed uint64, replicate int, name string) *rand.Rand {
	return rand.New(rand.NewPCG(StreamSeed(seed, replicate, name)))
}

// StreamSeed is the PCG seed pair NewStream uses. Each component is folded
// into the state through splitmix64's finaliser, a bijection with full
// avalanche (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014), so nearby seeds, consecutive replicates and
// similar names give unrelated streams.
func StreamSeed(seed uint64, replicate int, name string) (hi, lo uint64) {
	h := splitmix64(seed)
	h = splitmix64(h ^ uint64(int64(replicate)))
	h = splitmix64(h ^ fnv1a64(name))
	return h, splitmix64(h)
}

// splitmix64 advances x by the golden-ratio increment and mixes it; it is
// one step of the SplitMix64 generator (Vigna's reference splitmix64.c).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// fnv1a64 is the 64-bit FNV-1a hash of s (Fowler, Noll and Vo; the same
// function as hash/fnv's New64a, written out so hashing a name does not
// allocate).
func fnv1a64(s string) uint64 {
	const (
		offset = 0xcbf29ce484222325
		prime  = 0x100000001b3
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

package pgexpr

import (
	"fmt"
	"testing"
)

// TestPermuteIsBijection checks pgbench's defining property of permute: a
// bijection of [0, size) (TAP: sums of permute(i, n) over i equal n(n-1)/2;
// here the stronger "every value exactly once"), for sizes 1, powers of two,
// their neighbours and sizes 2 and 3 where pgbench's mask is 1.
func TestPermuteIsBijection(t *testing.T) {
	for _, size := range []int64{1, 2, 3, 4, 5, 7, 16, 17, 100, 255, 256, 257, 1000, 1023, 1025, 4099} {
		for _, seed := range []int64{0, 1, 5432, -77} {
			seen := make([]bool, size)
			for v := int64(0); v < size; v++ {
				p := Permute(v, size, seed)
				if p < 0 || p >= size {
					t.Fatalf("permute(%d, %d, %d) = %d, outside [0, %d)", v, size, seed, p, size)
				}
				if seen[p] {
					t.Fatalf("permute(., %d, %d) maps two values to %d", size, seed, p)
				}
				seen[p] = true
			}
		}
	}
}

// TestPermuteWrapsModuloSize checks pgbench's (uint64) val % size reduction,
// including for negative values (TAP: permute(:v + :size, :size) = permute(:v, :size)).
func TestPermuteWrapsModuloSize(t *testing.T) {
	const size, seed = 1000, 99
	for _, v := range []int64{0, 1, 499, 999} {
		if a, b := Permute(v, size, seed), Permute(v+size, size, seed); a != b {
			t.Errorf("permute(%d) = %d but permute(%d) = %d", v, a, v+size, b)
		}
	}
	// (uint64)(-1) = 2^64-1, and (2^64-1) mod 1000 = 615.
	if a, b := Permute(-1, size, seed), Permute(615, size, seed); a != b {
		t.Errorf("permute(-1) = %d, want permute(615) = %d", a, b)
	}
	if got := Permute(12345, 1, seed); got != 0 {
		t.Errorf("permute(12345, 1) = %d, want 0", got)
	}
}

// TestPermuteSeedMatters guards against a permutation that ignores its seed
// (identity for every seed would pass the bijection test).
func TestPermuteSeedMatters(t *testing.T) {
	const size = 1000
	same, identity := 0, 0
	for v := int64(0); v < size; v++ {
		if Permute(v, size, 1) == Permute(v, size, 2) {
			same++
		}
		if Permute(v, size, 1) == v {
			identity++
		}
	}
	// A random permutation has on average one fixed point; allow plenty.
	if same > 20 || identity > 20 {
		t.Errorf("seeds 1 and 2 agree on %d values and seed 1 fixes %d of %d", same, identity, size)
	}
}

// TestPermuteRuntimeOperands checks the evaluation path where size and seed
// are not constants (no precomputed permutation) against Permute.
func TestPermuteRuntimeOperands(t *testing.T) {
	g := mustGen(t, "permute(7, random(10, 20), random(0, 3))", nil, 0)
	r1, r2 := pcg(3), pcg(3)
	for range 200 {
		got := g.Next(r1)
		size := drawUniform(r2, 10, 20)
		seed := drawUniform(r2, 0, 3)
		if want := Permute(7, size, seed); got != want {
			t.Fatalf("permute(7, %d, %d) = %d via Gen, %d via Permute", size, seed, got, want)
		}
	}
}

// ExamplePermute shows one permutation of [0, 5); the values are a
// regression pin (pgbench's TAP suite pins only larger sizes).
func ExamplePermute() {
	for v := range int64(5) {
		fmt.Print(Permute(v, 5, 5432), " ")
	}
	fmt.Println()
	// Output: 0 3 4 1 2
}

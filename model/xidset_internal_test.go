package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// xidSet answers membership as a scan of its xids would, with the bitset
// (many xids close together) and without it (few, or spread thin), for
// xids below, inside and above its range.
func TestXidSetMembership(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := rng.IntN(600)
		span := uint32(1 + rng.IntN(3)*rng.IntN(20000))
		base := uint32(1000 + rng.IntN(1<<20))
		seen := map[uint32]bool{}
		var xids []uint32
		for len(xids) < n && len(xids) < int(span) {
			x := base + uint32(rng.IntN(int(span)))
			if !seen[x] {
				seen[x] = true
				xids = append(xids, x)
			}
		}
		slices.Sort(xids)
		s := newXidSet(xids)
		if k := len(xids); k > 16 {
			dense := int(xids[k-1]-xids[0])/64+1 <= 4*k
			if dense != (s.bits != nil) {
				t.Fatalf("trial %d: %d xids over %d: bitset %v, want %v", trial, k, xids[k-1]-xids[0], s.bits != nil, dense)
			}
		}
		for probe := 0; probe < 2000; probe++ {
			x := base - 100 + uint32(rng.IntN(int(span)+200))
			if got, want := s.has(x), slices.Contains(xids, x); got != want {
				t.Fatalf("trial %d (%d xids, bitset %v): has(%d) = %v, want %v", trial, len(xids), s.bits != nil, x, got, want)
			}
		}
		if s.has(0) || s.has(^uint32(0)) {
			t.Fatalf("trial %d: has an xid far outside", trial)
		}
	}
}

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
			dense := int(xids[k-1]-xids[0]&^63)/64+1 <= 4*k
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

// The sets cut from the live bitset (liveXids.set) answer as the running
// list does, as xids start in order and end in any order: under many
// clients, with a long transaction holding the oldest xid (the bitset
// dropped, then rebuilt when it ends), and when none is running.
func TestLiveXidSetsFollowTheProcArray(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 40; trial++ {
		var l liveXids
		var running []uint32
		next := uint32(3 + rng.IntN(1000))
		clients := 1 + rng.IntN(600)
		long := uint32(0) // a long transaction's xid, ended after a while
		for step := 0; step < 3000; step++ {
			if len(running) < clients && (len(running) == 0 || rng.IntN(2) == 0) {
				running = append(running, next)
				l.add(next, running)
				if long == 0 && trial%2 == 0 && step == 100 {
					long = next
				}
				next++
			} else {
				i := rng.IntN(len(running))
				if running[i] == long && step < 2500 {
					continue
				}
				x := running[i]
				running = slices.Delete(running, i, i+1)
				l.remove(x, running)
			}
			s := l.set(running)
			if s.n != len(running) || len(running) > 0 && s.lo != running[0] {
				t.Fatalf("trial %d step %d: set of %d xids from %d, want %d from %v", trial, step, s.n, s.lo, len(running), running[:min(1, len(running))])
			}
			for probe := 0; probe < 20; probe++ {
				x := next - uint32(rng.IntN(int(next-2))) + uint32(rng.IntN(3))
				if got, want := s.has(x), slices.Contains(running, x); got != want {
					t.Fatalf("trial %d step %d (bitset %v, live %v): has(%d) = %v, want %v", trial, step, s.bits != nil, l.valid, x, got, want)
				}
			}
		}
	}
}

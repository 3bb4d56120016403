package policies

import (
	"testing"
)

// Every policy under random pin patterns and invalidations: a victim is
// never pinned, -1 exactly when every slot is pinned, and Check holds
// throughout.
func TestRandomPinsAndRemovals(t *testing.T) {
	const slots, pages, n = 24, 80, 20000
	for _, name := range policyNames() {
		t.Run(name, func(t *testing.T) {
			pol := newPolicy(t, name)
			d := newDriver(pol, slots)
			r := seededRNG(99)
			trace := zipfTrace(r, pages, 0.8, n)
			next := nextUses(trace)
			pins := d.frames.Pins
			for i, p := range trace {
				// Other backends pin and unpin at random; sometimes
				// several pins on one slot.
				for range 3 {
					s := r.IntN(slots)
					if r.IntN(2) == 0 {
						pins[s]++
					} else if pins[s] > 0 {
						pins[s]--
					}
				}
				if i%1000 == 999 {
					// Everything pinned: no victim, and nothing changes.
					saved := append([]int32(nil), pins...)
					for s := range pins {
						pins[s] = 1
					}
					if v, _ := pol.Victim(d.now); v != -1 {
						t.Fatalf("request %d: all pinned, Victim returned %d", i, v)
					}
					copy(pins, saved)
				}
				if r.IntN(100) == 0 {
					d.remove(uint64(r.IntN(pages)))
				}
				allPinned := true
				for _, c := range pins {
					if c == 0 {
						allPinned = false
					}
				}
				if allPinned {
					for s := range pins {
						pins[s] = 0
					}
				}
				if _, err := d.access(p, next[i]); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if i%50 == 0 {
					if err := pol.Check(); err != nil {
						t.Fatalf("request %d: %v", i, err)
					}
				}
			}
			mustCheck(t, pol)
			if d.hits == 0 {
				t.Fatal("no hits at all: the driver is not exercising the policy")
			}
		})
	}
}

// With every slot pinned, on an empty and on a full pool, Victim returns
// -1; then releasing one slot makes exactly that slot the victim.
func TestAllPinnedEveryPolicy(t *testing.T) {
	const slots = 8
	for _, name := range policyNames() {
		pol := newPolicy(t, name)
		d := newDriver(pol, slots)
		for s := range d.frames.Pins {
			d.frames.Pins[s] = 1
		}
		if v, _ := pol.Victim(0); v != -1 {
			t.Errorf("%s: empty pool, all pinned: Victim = %d, want -1", name, v)
		}
		for s := range d.frames.Pins {
			d.frames.Pins[s] = 0
		}
		for p := range uint64(slots) {
			if _, err := d.access(p, int64(p)+100); err != nil {
				t.Fatal(err)
			}
		}
		for s := range d.frames.Pins {
			d.frames.Pins[s] = 2
		}
		if v, _ := pol.Victim(0); v != -1 {
			t.Errorf("%s: full pool, all pinned: Victim = %d, want -1", name, v)
		}
		d.frames.Pins[5] = 0
		if v, _ := pol.Victim(0); v != 5 {
			t.Errorf("%s: only slot 5 unpinned: Victim = %d, want 5", name, v)
		}
		if err := pol.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A pool without a free list (PostgreSQL 19 development) fills up through
// Victim: empty slots come first, lowest first for the list policies.
func TestVictimReturnsEmptySlotsFirst(t *testing.T) {
	for _, name := range policyNames() {
		pol := newPolicy(t, name)
		f := &Frames{Pins: make([]int32, 4)}
		pol.Init(f)
		for want := range int32(4) {
			v, _ := pol.Victim(0)
			if v != want {
				t.Fatalf("%s: Victim on a filling pool = %d, want %d", name, v, want)
			}
			pol.Loaded(v, uint64(100+want), 0, false)
			if c, ok := pol.(Clairvoyant); ok {
				c.NextUse(v, 1000)
			}
		}
		pol.Removed(2)
		// (clock-sweep: the hand, back at 0, decrements 0 and 1 first.)
		if v, _ := pol.Victim(0); v != 2 {
			t.Fatalf("%s: after Removed(2), Victim = %d, want the empty slot 2", name, v)
		}
		if err := pol.Check(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// Loaded on an occupied slot and Accessed on an empty one are caller
// bugs; every policy survives them and Check reports them.
func TestCheckReportsProtocolMisuse(t *testing.T) {
	for _, name := range policyNames() {
		pol := newPolicy(t, name)
		pol.Init(&Frames{Pins: make([]int32, 3)})
		pol.Loaded(0, 1, 0, false)
		pol.Loaded(0, 2, 0, false)
		if err := pol.Check(); err == nil {
			t.Errorf("%s: Check accepted Loaded on an occupied slot", name)
		}
		pol = newPolicy(t, name)
		pol.Init(&Frames{Pins: make([]int32, 3)})
		pol.Accessed(1, 0, false)
		if err := pol.Check(); err == nil {
			t.Errorf("%s: Check accepted Accessed on an empty slot", name)
		}
	}
}

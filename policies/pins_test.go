package policies

import "testing"

// Which slot each policy takes when its first choice is pinned.

func fillPool(t *testing.T, pol Replacement, slots int, next func(page uint64) int64) *driver {
	t.Helper()
	d := newDriver(pol, slots)
	for p := range uint64(slots) {
		if _, err := d.access(p, next(p)); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestLRUSkipsPinnedTail(t *testing.T) {
	d := fillPool(t, NewLRU(), 4, func(uint64) int64 { return NeverAgain })
	// Recency, oldest first: pages 0 1 2 3 in slots 0 1 2 3.
	d.frames.Pins[0], d.frames.Pins[1] = 1, 3
	if v, steps := d.pol.Victim(0); v != 2 || steps != 3 {
		t.Fatalf("Victim = (%d, %d), want slot 2 after inspecting 3", v, steps)
	}
	mustCheck(t, d.pol)
}

func TestOPTSkipsPinnedFarthest(t *testing.T) {
	// Page p is next used at 10*(p+1): page 5 is farthest, then 4, 3, ...
	d := fillPool(t, NewOPT(), 6, func(p uint64) int64 { return 10 * int64(p+1) })
	d.frames.Pins[5], d.frames.Pins[4] = 1, 1
	if v, _ := d.pol.Victim(0); v != 3 {
		t.Fatalf("Victim = %d, want 3 (farthest unpinned)", v)
	}
	d.frames.Pins[3] = 1 // slot 3 is empty now; pin it as the pool would
	d.pol.Loaded(3, 99, 0, false)
	d.pol.(Clairvoyant).NextUse(3, 5) // soonest of all
	if v, _ := d.pol.Victim(0); v != 2 {
		t.Fatalf("Victim = %d, want 2", v)
	}
	mustCheck(t, d.pol)
}

// ARC: REPLACE picks T1, whose pages are all pinned, so T2's LRU goes
// (to B2, since it came from T2).
func TestARCFallsBackToOtherList(t *testing.T) {
	a := NewARC()
	d := fillPool(t, a, 4, func(uint64) int64 { return NeverAgain })
	d.access(0, 0) // page 0 (slot 0) to T2
	d.access(1, 0) // page 1 (slot 1) to T2
	// T1 = [3 2], T2 = [1 0], p = 0: REPLACE wants T1.
	d.frames.Pins[2], d.frames.Pins[3] = 1, 1
	v, _ := a.Victim(0)
	if v != 0 {
		t.Fatalf("Victim = %d, want slot 0 (T2's LRU)", v)
	}
	if l, ok := a.b.find(0); !ok || l != arcB2 {
		t.Fatalf("page 0 should be a B2 ghost")
	}
	mustCheck(t, a)
}

// 2Q: A1in is over Kin but all pinned, so Am's LRU goes, unremembered.
func TestTwoQFallsBackToOtherList(t *testing.T) {
	q, _ := NewTwoQ(DefaultTwoQParams())
	d := newDriver(q, 4)
	l := newLettered()
	for _, p := range []string{"a", "b", "c", "d", "e", "a"} { // a goes to Am via A1out
		d.access(l.id(p), NeverAgain)
	}
	// A1in = [e d c] (slots of those pages), Am = [a], |A1in| = 3 > Kin = 1.
	for s, p := range d.pageOf {
		if p != l.id("a") {
			d.frames.Pins[s] = 1
		}
	}
	v, _ := q.Victim(0)
	if d.pageOf[v] != l.id("a") {
		t.Fatalf("Victim took page %s, want a", l.names[d.pageOf[v]])
	}
	if _, ok := q.a1out.find(l.id("a")); ok {
		t.Fatal("a page evicted from Am must not enter A1out")
	}
	mustCheck(t, q)
}

// Zero slots: no victim, no panic.
func TestZeroSlots(t *testing.T) {
	for _, name := range policyNames() {
		pol := newPolicy(t, name)
		pol.Init(&Frames{})
		if v, _ := pol.Victim(0); v != -1 {
			t.Errorf("%s: Victim on zero slots = %d", name, v)
		}
		if err := pol.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Same trace, same answers: every policy's hit/miss sequence and victims
// are identical across two runs (no map order or other hidden state).
func TestDeterministic(t *testing.T) {
	trace := zipfTrace(seededRNG(3), 500, 0.9, 20000)
	for _, name := range policyNames() {
		var runs [2][]int32
		for k := range runs {
			d := newDriver(newPolicy(t, name), 50)
			next := nextUses(trace)
			for i, p := range trace {
				hit, err := d.access(p, next[i])
				if err != nil {
					t.Fatal(err)
				}
				s := d.slotOf[p]
				if hit {
					s = -1 - s
				}
				runs[k] = append(runs[k], s)
			}
		}
		for i := range runs[0] {
			if runs[0][i] != runs[1][i] {
				t.Fatalf("%s: runs differ at reference %d", name, i)
			}
		}
	}
}

package policies

import (
	"testing"
)

// One test per PostgreSQL rule. "Facts" is docs/model.md.

func newClock(t *testing.T, p ClockSweepParams, slots int) (*ClockSweep, *Frames) {
	t.Helper()
	c, err := NewClockSweep(p)
	if err != nil {
		t.Fatal(err)
	}
	f := &Frames{Pins: make([]int32, slots)}
	c.Init(f)
	return c, f
}

func usages(c *ClockSweep) []int {
	out := make([]int, len(c.usage))
	for s := range out {
		out[s] = c.Usage(int32(s))
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func mustCheck(t *testing.T, p Replacement) {
	t.Helper()
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
}

// docs/model.md: a page just read in gets usage_count 1 (BufferAlloc sets
// BUF_USAGECOUNT_ONE with the tag), independent of strategy; the victim
// pin (PinBuffer_Locked) does not add to it.
func TestClockSweepNewPageStartsAtOne(t *testing.T) {
	c, _ := newClock(t, DefaultClockSweepParams(), 2)
	c.Loaded(0, 100, 0, false)
	c.Loaded(1, 101, 0, true)
	if got := usages(c); !equalInts(got, []int{1, 1}) {
		t.Fatalf("usage after Loaded (default, ring) = %v, want [1 1]", got)
	}
	mustCheck(t, c)
}

// docs/model.md: PinBuffer with the default strategy adds 1 per pin by a
// backend that did not already hold one.
func TestClockSweepPlusOnePerPin(t *testing.T) {
	c, _ := newClock(t, DefaultClockSweepParams(), 1)
	c.Loaded(0, 7, 0, false)
	for want := 2; want <= 5; want++ {
		c.Accessed(0, int64(want), false)
		if got := c.Usage(0); got != want {
			t.Fatalf("after %d pins usage = %d, want %d", want-1, got, want)
		}
	}
}

// docs/model.md/§1.4: usage_count is capped at BM_MAX_USAGE_COUNT = 5
// (buf_internals.h); max_usage_count changes the cap.
func TestClockSweepCap(t *testing.T) {
	for _, tc := range []struct{ cap, want int }{{5, 5}, {3, 3}, {1, 1}, {15, 15}} {
		p := DefaultClockSweepParams()
		p.MaxUsageCount = tc.cap
		c, _ := newClock(t, p, 1)
		c.Loaded(0, 7, 0, false)
		for i := range 40 {
			c.Accessed(0, int64(i), false)
		}
		if got := c.Usage(0); got != tc.want {
			t.Errorf("cap %d: usage after 40 pins = %d, want %d", tc.cap, got, tc.want)
		}
		if c.MaxUsage() != tc.cap {
			t.Errorf("MaxUsage() = %d, want %d", c.MaxUsage(), tc.cap)
		}
		mustCheck(t, c)
	}
}

// docs/model.md: a pin through a ring strategy only lifts usage 0 to 1 ("ring
// buffers shouldn't evict others from pool", bufmgr.c PinBuffer); higher
// counts are left alone.
func TestClockSweepRingPinOnlyLiftsZero(t *testing.T) {
	c, _ := newClock(t, DefaultClockSweepParams(), 3)
	c.Loaded(0, 10, 0, false) // usage 1
	c.Loaded(1, 11, 0, false) // usage 1
	c.Loaded(2, 12, 0, false)
	c.Accessed(2, 0, false) // usage 2
	// Sweep: 0: 1->0, 1: 1->0, 2: 2->1, 0: victim. Slot 1 stays resident at 0.
	if v, _ := c.Victim(0); v != 0 {
		t.Fatalf("victim %d, want 0", v)
	}
	c.Loaded(0, 13, 0, false)
	if got := usages(c); !equalInts(got, []int{1, 0, 1}) {
		t.Fatalf("setup usages %v, want [1 0 1]", got)
	}
	c.Accessed(1, 0, true) // ring pin on usage 0 -> 1
	c.Accessed(0, 0, true) // ring pin on usage 1 -> stays 1
	c.Accessed(2, 0, false)
	c.Accessed(2, 0, false)
	c.Accessed(2, 0, true) // ring pin on usage 3 -> stays 3
	if got := usages(c); !equalInts(got, []int{1, 1, 3}) {
		t.Fatalf("after ring pins usages %v, want [1 1 3]", got)
	}
	mustCheck(t, c)
}

// docs/model.md: since 8.3 (commit d526575f) the sweep skips pinned buffers
// without touching their usage_count (freelist.c StrategyGetBuffer).
func TestClockSweepSkipsPinnedWithoutDecrement(t *testing.T) {
	c, f := newClock(t, DefaultClockSweepParams(), 3)
	c.Loaded(0, 10, 0, false)
	c.Accessed(0, 0, false)
	c.Accessed(0, 0, false) // slot 0: usage 3
	c.Loaded(1, 11, 0, false)
	c.Loaded(2, 12, 0, false)
	c.Accessed(2, 0, false) // slot 2: usage 2
	f.Pins[0] = 1
	// Ticks: 0 pinned (skip), 1: 1->0, 2: 2->1, 0 pinned (skip), 1: victim.
	v, steps := c.Victim(0)
	if v != 1 || steps != 5 {
		t.Fatalf("Victim = (%d, %d steps), want (1, 5)", v, steps)
	}
	if got := usages(c); !equalInts(got, []int{3, 0, 1}) {
		t.Fatalf("usages %v, want [3 0 1]: the pinned slot must keep 3", got)
	}
	mustCheck(t, c)
}

// docs/model.md: a buffer at the cap survives that many passes and is taken
// on the next one, so a victim search can take BM_MAX_USAGE_COUNT+1
// passes (buf_internals.h comment): cap*N+1 ticks when every buffer is at
// the cap.
func TestClockSweepWorstCaseIsCapPlusOnePasses(t *testing.T) {
	for _, cap := range []int{5, 3} {
		const n = 8
		p := DefaultClockSweepParams()
		p.MaxUsageCount = cap
		c, _ := newClock(t, p, n)
		for s := range int32(n) {
			c.Loaded(s, uint64(s), 0, false)
			for range cap {
				c.Accessed(s, 0, false)
			}
		}
		v, steps := c.Victim(0)
		if v != 0 || steps != cap*n+1 {
			t.Errorf("cap %d: Victim = (%d, %d steps), want (0, %d)", cap, v, steps, cap*n+1)
		}
		next, passes := c.Hand()
		if next != 1 || passes != int64(cap) {
			t.Errorf("cap %d: Hand() = (%d, %d), want (1, %d): found on pass %d", cap, next, passes, cap, cap+1)
		}
		mustCheck(t, c)
	}
}

// docs/model.md: if NBuffers consecutive buffers are pinned the sweep gives
// up ("no unpinned buffers available"); Victim returns -1 and changes no
// usage count.
func TestClockSweepAllPinned(t *testing.T) {
	const n = 6
	c, f := newClock(t, DefaultClockSweepParams(), n)
	for s := range int32(n) {
		c.Loaded(s, uint64(s), 0, false)
		c.Accessed(s, 0, false)
		f.Pins[s] = 1
	}
	v, steps := c.Victim(0)
	if v != -1 || steps != n {
		t.Fatalf("Victim = (%d, %d steps), want (-1, %d)", v, steps, n)
	}
	if got := usages(c); !equalInts(got, []int{2, 2, 2, 2, 2, 2}) {
		t.Fatalf("usages %v, want all 2", got)
	}
	// One unpinned buffer: the sweep decrements it (resetting the try
	// counter) until it reaches 0, passing the pinned ones each time.
	f.Pins[3] = 0
	v, steps = c.Victim(0)
	// From hand 0: 0,1,2 pinned, 3: 2->1, 4,5,0,1,2 pinned, 3: 1->0, ..., 3: victim.
	if v != 3 || steps != 4+6+6 {
		t.Fatalf("Victim = (%d, %d steps), want (3, 16)", v, steps)
	}
	mustCheck(t, c)
}

// docs/model.md: the hand is a counter modulo NBuffers, and each wrap counts a
// complete pass (ClockSweepTick, StrategySyncStart): passes*N+next equals
// the number of ticks.
func TestClockSweepHandAndPasses(t *testing.T) {
	const n = 4
	c, _ := newClock(t, DefaultClockSweepParams(), n)
	for s := range int32(n) {
		c.Loaded(s, uint64(s), 0, false)
	}
	// All at 1: ticks 0..3 decrement, tick 4 (slot 0) is the victim.
	if v, steps := c.Victim(0); v != 0 || steps != 5 {
		t.Fatalf("first Victim = (%d, %d), want (0, 5)", v, steps)
	}
	if next, passes := c.Hand(); next != 1 || passes != 1 {
		t.Fatalf("Hand() = (%d, %d), want (1, 1)", next, passes)
	}
	c.Loaded(0, 9, 0, false)
	// Slot 1 is at 0 now: taken at once.
	if v, steps := c.Victim(0); v != 1 || steps != 1 {
		t.Fatalf("second Victim = (%d, %d), want (1, 1)", v, steps)
	}
	steps, passes := c.SweepCounters()
	next, hp := c.Hand()
	if steps != 6 || passes != 1 || next != 2 || hp != 1 {
		t.Fatalf("SweepCounters() = (%d, %d), Hand() = (%d, %d); want (6, 1), (2, 1)", steps, passes, next, hp)
	}
	if hp*n+int64(next) != steps {
		t.Fatalf("passes*N+next = %d, want total ticks %d", hp*n+int64(next), steps)
	}
}

// Empty slots (never loaded, or invalidated: InvalidateBuffer leaves
// usage 0 and no pin) are taken as soon as the hand reaches them.
func TestClockSweepEmptySlotsAreVictims(t *testing.T) {
	c, _ := newClock(t, DefaultClockSweepParams(), 3)
	if v, steps := c.Victim(0); v != 0 || steps != 1 {
		t.Fatalf("Victim on an empty pool = (%d, %d), want (0, 1)", v, steps)
	}
	c.Loaded(0, 1, 0, false)
	c.Loaded(1, 2, 0, false)
	c.Loaded(2, 3, 0, false)
	c.Accessed(2, 0, false)
	c.Accessed(2, 0, false)
	c.Removed(2)
	if c.Usage(2) != 0 {
		t.Fatalf("removed slot keeps usage %d", c.Usage(2))
	}
	// Hand at 1: slot 1 (1->0), slot 2 empty: victim.
	if v, steps := c.Victim(0); v != 2 || steps != 2 {
		t.Fatalf("Victim = (%d, %d), want (2, 2)", v, steps)
	}
	c.Removed(2) // already empty: no effect
	mustCheck(t, c)
}

// correlated_reference_period (the 2014 prototype, "3-sec-delay"): a
// slot's usage_count is bumped at most once per period; loading counts as
// a bump. Period 0 is PostgreSQL: every pin bumps.
func TestClockSweepCorrelatedReferencePeriod(t *testing.T) {
	const sec = int64(1e9)
	p := DefaultClockSweepParams()
	p.CorrelatedReferencePeriod = 3 * sec
	c, _ := newClock(t, p, 1)
	c.Loaded(0, 1, 10*sec, false)
	steps := []struct {
		at   int64
		want int
	}{
		{10*sec + 1, 1},  // within the period of the load
		{12 * sec, 1},    // still within
		{13*sec - 1, 1},  // one nanosecond short
		{13 * sec, 2},    // a full period after the load: bump
		{14 * sec, 2},    // within the period of that bump
		{16 * sec, 3},    // next period
		{100 * sec, 4},   // long gap: one bump, not several
		{100*sec + 1, 4}, // same burst
		{103 * sec, 5},   // cap
		{1000 * sec, 5},  // capped
	}
	for _, s := range steps {
		c.Accessed(0, s.at, false)
		if got := c.Usage(0); got != s.want {
			t.Fatalf("Accessed at %dns: usage %d, want %d", s.at, got, s.want)
		}
	}

	// Period 0: every pin bumps, even at the same instant.
	c0, _ := newClock(t, DefaultClockSweepParams(), 1)
	c0.Loaded(0, 1, 5, false)
	for i := 2; i <= 5; i++ {
		c0.Accessed(0, 5, false)
		if got := c0.Usage(0); got != i {
			t.Fatalf("period 0: usage %d after %d pins at one instant, want %d", got, i-1, i)
		}
	}

	// The ring rule still applies inside the period rule: a ring pin
	// lifts 0 to 1 only if a period has passed since the last bump.
	c2, _ := newClock(t, p, 2)
	c2.Loaded(0, 1, 0, false)
	c2.Loaded(1, 2, 0, false)
	c2.Accessed(1, 3*sec, false) // slot 1 -> 2
	c2.Victim(3 * sec)           // 0: 1->0, 1: 2->1, 0: victim
	c2.Loaded(0, 3, 3*sec, false)
	c2.Victim(3 * sec) // 1: 1->0, 0: 1->0, 1: victim ... take slot 1
	c2.Loaded(1, 4, 3*sec, false)
	if c2.Usage(0) != 0 {
		t.Fatalf("setup: slot 0 usage %d, want 0", c2.Usage(0))
	}
	c2.Accessed(0, 4*sec, true) // 1s after its load: no bump
	if c2.Usage(0) != 0 {
		t.Fatalf("ring pin within the period bumped usage to %d", c2.Usage(0))
	}
	c2.Accessed(0, 6*sec, true) // a period after: 0 -> 1
	if c2.Usage(0) != 1 {
		t.Fatalf("ring pin after the period: usage %d, want 1", c2.Usage(0))
	}
	mustCheck(t, c2)
}

// Accessed on an empty slot is a caller bug; Check reports it.
func TestClockSweepCheckCatchesMisuse(t *testing.T) {
	c, _ := newClock(t, DefaultClockSweepParams(), 2)
	c.Accessed(1, 0, false)
	if err := c.Check(); err == nil {
		t.Fatal("Check accepted usage on an empty slot")
	}
	c2, _ := newClock(t, DefaultClockSweepParams(), 2)
	c2.Loaded(1, 1, 0, false)
	c2.Loaded(1, 2, 0, false)
	if err := c2.Check(); err == nil {
		t.Fatal("Check accepted Loaded on an occupied slot")
	}
}

func TestClockSweepRejectsBadParams(t *testing.T) {
	for _, p := range []ClockSweepParams{
		{MaxUsageCount: 0},
		{MaxUsageCount: 16},
		{MaxUsageCount: 5, CorrelatedReferencePeriod: -1},
	} {
		if _, err := NewClockSweep(p); err == nil {
			t.Errorf("NewClockSweep(%+v) accepted", p)
		}
	}
}

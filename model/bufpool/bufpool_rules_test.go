package bufpool

import (
	"math/rand/v2"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
)

// Rules of PostgreSQL's free list, StrategyGetBuffer accounting and buffer
// rings (docs: docs/model.md), checked
// on the pool alone with the clock-sweep policy.

func newClockPool(t *testing.T, n int32, freeList bool) *Pool {
	t.Helper()
	cs, err := policies.NewClockSweep(policies.DefaultClockSweepParams())
	if err != nil {
		t.Fatal(err)
	}
	return New(n, cs, freeList)
}

// readIn runs BufferAlloc for gid on a miss: take a victim (through ring if
// given), write nothing, map the page, finish the read, unpin. It returns
// the slot.
func readIn(t *testing.T, p *Pool, ring *Ring, gid int32) int32 {
	t.Helper()
	s, _ := p.GetVictim(ring, 0)
	if s < 0 {
		t.Fatalf("no victim for gid %d", gid)
	}
	if p.Flags[s]&Dirty != 0 {
		p.MarkClean(s) // the caller would have written it
	}
	p.Assign(s, gid, 0, ring != nil)
	p.ReadDone(s)
	p.Unpin(s)
	return s
}

// docs/model.md (freelist.c StrategyInitialize, StrategyGetBuffer, PG <= 18):
// every buffer starts on the free list, firstFreeBuffer = 0, so a cold pool
// fills slots 0, 1, 2, ... without a single clock-sweep step; only then does
// the sweep run.
func TestFreeListPopsSlotsInOrder(t *testing.T) {
	const n = 16
	p := newClockPool(t, n, true)
	for i := int32(0); i < n; i++ {
		s, steps := p.GetVictim(nil, 0)
		if s != i || steps != 0 {
			t.Fatalf("allocation %d: got slot %d after %d sweep steps, want slot %d from the free list (0 steps)", i, s, steps, i)
		}
		p.Assign(s, 100+i, 0, false)
		p.ReadDone(s)
		p.Unpin(s)
	}
	if p.Stats.FreeListPops != n || p.Stats.SweepVictims != 0 || p.Stats.SweepSteps != 0 {
		t.Fatalf("after filling: %+v, want %d free-list pops and no sweep", p.Stats, n)
	}
	// Free list empty, every buffer at usage_count 1 (BUF_USAGECOUNT_ONE):
	// the sweep decrements all n (one pass) and takes slot 0 on the
	// (n+1)-th tick (freelist.c StrategyGetBuffer, docs/model.md).
	s, steps := p.GetVictim(nil, 0)
	if s != 0 || steps != n+1 {
		t.Fatalf("first sweep victim: slot %d after %d steps, want slot 0 after %d", s, steps, n+1)
	}
	if p.Stats.SweepVictims != 1 || p.Stats.Alloc != n+1 {
		t.Fatalf("stats %+v: want 1 sweep victim and %d allocations", p.Stats, n+1)
	}
}

// docs/model.md (master / PG19 development, freelist.c [ffe34b14]): the free
// list is gone and StrategyGetBuffer goes straight to the clock sweep,
// which finds the unpinned usage-0 (empty) buffers in index order.
func TestNoFreeListOnPG19(t *testing.T) {
	const n = 16
	p := newClockPool(t, n, false)
	for i := int32(0); i < n; i++ {
		s, steps := p.GetVictim(nil, 0)
		if s != i || steps != 1 {
			t.Fatalf("allocation %d: got slot %d after %d steps, want slot %d after 1 sweep step", i, s, steps, i)
		}
		p.Assign(s, 100+i, 0, false)
		p.ReadDone(s)
		p.Unpin(s)
	}
	if p.Stats.FreeListPops != 0 || p.Stats.SweepVictims != n {
		t.Fatalf("stats %+v: want no free-list pop and %d sweep victims", p.Stats, n)
	}
}

// docs/model.md and §3.3 (freelist.c StrategyGetBuffer): buffers_alloc counts
// the calls that reach the free list or the clock sweep; "buffers reused
// from a ring are deliberately not counted". A BULKREAD ring is 32 buffers
// (docs/model.md), so a scan of 100 pages through it allocates 32 and reuses
// them 68 times, touching only 32 distinct slots.
func TestBulkReadRingReusesItsBuffersAndAllocCountsOnlyStrategyCalls(t *testing.T) {
	p := newClockPool(t, 1024, true)
	ring := p.NewRing(BulkRead, 256*1024/8192)
	if ring.Size() != 32 {
		t.Fatalf("BULKREAD ring has %d buffers, want 32 (256 kB)", ring.Size())
	}
	used := map[int32]bool{}
	for b := int32(0); b < 100; b++ {
		used[readIn(t, p, ring, 1000+b)] = true
	}
	if len(used) != 32 {
		t.Fatalf("the scan used %d distinct slots, want the ring's 32", len(used))
	}
	if p.Stats.Alloc != 32 || p.Stats.RingReuses != 68 || p.Stats.FreeListPops != 32 {
		t.Fatalf("alloc %d, ring reuses %d, free-list pops %d; want 32, 68, 32", p.Stats.Alloc, p.Stats.RingReuses, p.Stats.FreeListPops)
	}
	// A ring pin only lifts usage_count 0 to 1 (bufmgr.c PinBuffer): the
	// ring's pages stay at 1 and never outrank the pool's other pages.
	for s := range used {
		if u := p.Usage(s); u != 1 {
			t.Fatalf("ring slot %d has usage %d, want 1", s, u)
		}
	}
}

// docs/model.md (freelist.c GetBufferFromRing): the ring slot is reused only if
// the buffer is unpinned and usage_count <= 1; if another backend used it
// (usage 2) or holds a pin, the ring falls through to StrategyGetBuffer
// (counted in buffers_alloc) and records the new victim in that slot.
func TestRingSkipsBufferUsedByOthers(t *testing.T) {
	p := newClockPool(t, 1024, true)
	ring := p.NewRing(BulkRead, 32)
	var slots []int32
	for b := int32(0); b < 32; b++ {
		slots = append(slots, readIn(t, p, ring, 2000+b))
	}
	// Another backend pins the ring's next buffer with the default
	// strategy (usage 1 -> 2) and unpins it.
	next := slots[0]
	p.Pin(next, 0, false)
	p.Unpin(next)
	// A third backend holds a pin on the one after.
	pinned := slots[1]
	p.Pin(pinned, 0, true)

	alloc := p.Stats.Alloc
	s1 := readIn(t, p, ring, 3000)
	s2 := readIn(t, p, ring, 3001)
	if s1 == next || s2 == pinned {
		t.Fatalf("ring reused slot %d (usage 2) or %d (pinned)", next, pinned)
	}
	if p.Stats.Alloc != alloc+2 {
		t.Fatalf("buffers_alloc rose by %d, want 2 (both fell through to the sweep)", p.Stats.Alloc-alloc)
	}
	if p.Lookup(2000) != next || p.Lookup(2001) != pinned {
		t.Fatalf("the skipped ring buffers lost their pages")
	}
	// The ring now remembers the replacement victims: reusing them next
	// time around costs no allocation.
	p.Unpin(pinned)
	for b := int32(0); b < 30; b++ {
		readIn(t, p, ring, 4000+b)
	}
	alloc = p.Stats.Alloc
	r1 := readIn(t, p, ring, 5000)
	r2 := readIn(t, p, ring, 5001)
	if r1 != s1 || r2 != s2 || p.Stats.Alloc != alloc {
		t.Fatalf("second lap: slots %d,%d (want %d,%d), alloc +%d (want 0)", r1, r2, s1, s2, p.Stats.Alloc-alloc)
	}
}

// docs/model.md (freelist.c GetAccessStrategyWithSize): every ring is capped
// at NBuffers/8; at shared_buffers = 128 MB the 16 MB BULKWRITE ring is
// exactly that cap.
func TestRingCappedAtOneEighthOfPool(t *testing.T) {
	cases := []struct {
		nbuf int32
		kind StrategyKind
		want int
		size int
	}{
		{128, BulkRead, 32, 16},
		{128, BulkWrite, 2048, 16},
		{1024, BulkRead, 32, 32},
		{1024, Vacuum, 256, 128},
		{16384, BulkWrite, 2048, 2048},
		{16384, Vacuum, 256, 256},
	}
	for _, c := range cases {
		p := newClockPool(t, c.nbuf, true)
		if got := p.NewRing(c.kind, c.want).Size(); got != c.size {
			t.Errorf("NBuffers %d, %v ring of %d: %d buffers, want %d", c.nbuf, c.kind, c.want, got, c.size)
		}
	}
}

// docs/model.md (freelist.c StrategyRejectBuffer; bufmgr.c GetVictimBuffer):
// a dirty victim whose write needs a WAL flush is rejected only by a
// BULKREAD ring and only if the buffer came from the ring slot; the slot
// is emptied. VACUUM and BULKWRITE rings, and the default strategy, keep
// the buffer (they flush WAL and write it).
func TestStrategyRejectBufferOnlyForBulkReadRingBuffers(t *testing.T) {
	for _, kind := range []StrategyKind{BulkRead, BulkWrite, Vacuum} {
		p := newClockPool(t, 1024, true)
		ring := p.NewRing(kind, 32)
		var slots []int32
		for b := int32(0); b < 32; b++ {
			s := readIn(t, p, ring, 100+b)
			p.MarkDirty(s, 10) // the scan dirtied it (hint bits)
			slots = append(slots, s)
		}
		// The ring comes round to its first buffer: dirty, from the ring.
		s, _ := p.GetVictim(ring, 0)
		if s != slots[0] {
			t.Fatalf("%v: ring offered slot %d, want its first buffer %d", kind, s, slots[0])
		}
		got := p.RejectFromRing(ring, s)
		if want := kind == BulkRead; got != want {
			t.Errorf("%v ring: RejectFromRing = %v, want %v", kind, got, want)
		}
		if kind == BulkRead {
			if p.Stats.RingRejects != 1 {
				t.Errorf("RingRejects = %d, want 1", p.Stats.RingRejects)
			}
			p.GiveBack(s, 0)
			if p.Lookup(100) != s || p.Frames.Pins[s] != 0 {
				t.Errorf("rejected buffer must stay resident and unpinned")
			}
			// The emptied slot is refilled from the sweep next lap, not
			// with the rejected buffer.
			for b := int32(0); b < 31; b++ {
				readIn(t, p, ring, 500+b)
			}
			alloc := p.Stats.Alloc
			if r := readIn(t, p, ring, 600); r == s || p.Stats.Alloc != alloc+1 {
				t.Errorf("after a rejection the ring slot must be refilled by StrategyGetBuffer (slot %d, alloc +%d)", r, p.Stats.Alloc-alloc)
			}
		}
	}
	// A sweep victim offered to a BULKREAD ring (the ring slot was empty)
	// is not rejected: only buffers that came from the ring are.
	p := newClockPool(t, 1024, true)
	ring := p.NewRing(BulkRead, 32)
	other := readIn(t, p, nil, 7)
	p.MarkDirty(other, 10)
	for s := int32(1); s < 1024; s++ { // leave slot `other` as the only victim
		readIn(t, p, nil, 1000+s)
	}
	s, _ := p.GetVictim(ring, 0)
	if p.RejectFromRing(ring, s) {
		t.Errorf("StrategyRejectBuffer rejected a victim that came from the clock sweep")
	}
	if p.RejectFromRing(nil, s) {
		t.Errorf("StrategyRejectBuffer rejected a default-strategy victim")
	}
}

// Counters add up (docs/model.md): every StrategyGetBuffer call takes its
// victim from the free list or from the sweep, so buffers_alloc =
// free-list pops + sweep victims; every sweep victim on a full pool evicts
// a valid page; dirtied counts clean -> dirty transitions only.
func TestPoolCountersAddUp(t *testing.T) {
	p := newClockPool(t, 256, true)
	ring := p.NewRing(BulkRead, 32)
	rng := rand.New(rand.NewPCG(1, 2))
	wantDirtied := uint64(0)
	for i := 0; i < 20000; i++ {
		gid := int32(rng.IntN(2000))
		var r *Ring
		if rng.IntN(4) == 0 {
			r = ring
		}
		s := p.Lookup(gid)
		if s >= 0 {
			p.Pin(s, int64(i), r != nil)
		} else {
			s, _ = p.GetVictim(r, int64(i))
			if p.Flags[s]&Dirty != 0 {
				p.MarkClean(s)
			}
			p.Assign(s, gid, int64(i), r != nil)
			p.ReadDone(s)
		}
		if rng.IntN(3) == 0 {
			if p.MarkDirty(s, int64(i)) {
				wantDirtied++
			}
		}
		p.Unpin(s)
	}
	st := p.Stats
	if st.Alloc != st.FreeListPops+st.SweepVictims {
		t.Errorf("alloc %d != free-list pops %d + sweep victims %d", st.Alloc, st.FreeListPops, st.SweepVictims)
	}
	if st.Evictions != st.SweepVictims+st.RingReuses {
		t.Errorf("evictions %d != sweep victims %d + ring reuses %d (the pool was full after the free list)", st.Evictions, st.SweepVictims, st.RingReuses)
	}
	if st.FreeListPops != 256 {
		t.Errorf("free-list pops %d, want 256 (each buffer once)", st.FreeListPops)
	}
	if st.Dirtied != wantDirtied {
		t.Errorf("dirtied %d, want %d clean->dirty transitions", st.Dirtied, wantDirtied)
	}
	dirty := int32(0)
	for s := int32(0); s < p.N; s++ {
		if p.Flags[s]&Dirty != 0 {
			dirty++
		}
	}
	if dirty != p.DirtyCount() {
		t.Errorf("DirtyCount %d, but %d slots carry BM_DIRTY", p.DirtyCount(), dirty)
	}
	if err := p.Policy.Check(); err != nil {
		t.Errorf("policy invariants: %v", err)
	}
}

// A server restart makes new shared memory (freelist.c StrategyInitialize):
// the free list holds every buffer again and the clock hand is back at
// buffer 0, so once the free list is used up the first sweep, like a cold
// start's, decrements every buffer once and takes buffer 0.
func TestRestartSweepStartsAtBufferZero(t *testing.T) {
	const n = 16
	p := newClockPool(t, n, true)
	fill := func(base int32) {
		for i := int32(0); i < n; i++ {
			s, _ := p.GetVictim(nil, 0)
			p.Assign(s, base+i, 0, false)
			p.ReadDone(s)
			p.Unpin(s)
		}
	}
	fill(100)
	for i := int32(0); i < 5; i++ { // the hand moves on to buffer 5
		s, _ := p.GetVictim(nil, 0)
		p.Assign(s, 200+i, 0, false)
		p.ReadDone(s)
		p.Unpin(s)
	}
	for s := int32(n - 1); s >= 0; s-- { // as the model's restart does
		p.Invalidate(s)
	}
	p.Restart()
	fill(300)
	if s, steps := p.GetVictim(nil, 0); s != 0 || steps != n+1 {
		t.Fatalf("first sweep victim after the restart: slot %d after %d steps, want slot 0 after %d", s, steps, n+1)
	}
}

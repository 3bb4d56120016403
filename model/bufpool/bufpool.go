// Package bufpool holds the state of PostgreSQL's shared buffer pool: NBuffers
// slots, the page-to-slot mapping (the buffer mapping hash table of
// buf_table.c, here a flat slice indexed by global page id), per-slot pins,
// flags and page LSN, the free list (freelist.c, PostgreSQL <= 18) and
// buffer access strategy rings (GetBufferFromRing, AddBufferToRing,
// StrategyRejectBuffer). The replacement decision itself belongs to a
// policies.Replacement.
//
// The pool is passive: it never waits. The model's backends drive the
// asynchronous parts of BufferAlloc (strategy lock, WAL flush, the victim's
// write, the read) and call into the pool at each step.
package bufpool

import (
	"fmt"
	"slices"

	"github.com/pgbufsim/pgbufsim/policies"
)

// Slot flags (BM_* in buf_internals.h).
const (
	Valid            = 1 << iota // BM_VALID: the page contents are usable
	Dirty                        // BM_DIRTY
	IOInProgress                 // BM_IO_IN_PROGRESS: being read in (or written out)
	CheckpointNeeded             // BM_CHECKPOINT_NEEDED
	Evicting                     // chosen as a victim; its old page is being written
	Permanent                    // BM_PERMANENT
)

// Strategy kinds (BufferAccessStrategyType).
type StrategyKind uint8

// Buffer access strategies.
const (
	Normal StrategyKind = iota
	BulkRead
	BulkWrite
	Vacuum
)

func (k StrategyKind) String() string {
	return [...]string{"normal", "bulkread", "bulkwrite", "vacuum"}[k]
}

// Ring is a backend-private buffer ring (BufferAccessStrategyData).
type Ring struct {
	Kind    StrategyKind
	buffers []int32
	current int
	// fromRing records whether the last victim came from the ring slot,
	// which StrategyRejectBuffer needs.
	fromRing bool
}

// NewRing creates a ring of n buffers, capped at NBuffers/8 as
// GetAccessStrategyWithSize does.
func (p *Pool) NewRing(kind StrategyKind, n int) *Ring {
	n = min(n, int(p.N)/8)
	if n < 1 {
		n = 1
	}
	r := &Ring{Kind: kind, buffers: make([]int32, n)}
	for i := range r.buffers {
		r.buffers[i] = -1
	}
	return r
}

// Reset empties the ring, as a fresh strategy (GetAccessStrategy) starts.
func (r *Ring) Reset() {
	for i := range r.buffers {
		r.buffers[i] = -1
	}
	r.current, r.fromRing = 0, false
}

// FromRing reports whether the last victim GetVictim returned for this ring
// was the ring's own buffer (a reuse, not an allocation).
func (r *Ring) FromRing() bool { return r.fromRing }

// Size returns the number of ring slots.
func (r *Ring) Size() int { return len(r.buffers) }

// Stats are the pool's cumulative counters.
type Stats struct {
	Hits         uint64 // accesses that found the page (shared_blks_hit)
	Reads        uint64 // accesses that read the page in (shared_blks_read)
	Extends      uint64 // accesses that added a new page (ReadBuffer(P_NEW))
	Alloc        uint64 // StrategyGetBuffer calls (pg_stat_bgwriter.buffers_alloc)
	FreeListPops uint64 // victims taken from the free list
	SweepVictims uint64 // victims chosen by the replacement policy
	RingReuses   uint64 // victims reused from a ring (not in Alloc)
	RingRejects  uint64 // StrategyRejectBuffer rejections
	Evictions    uint64 // valid pages evicted
	SweepSteps   uint64 // buffers inspected by the policy
	Dirtied      uint64 // clean -> dirty transitions
}

// Pool is the shared buffer pool.
type Pool struct {
	N      int32
	Frames policies.Frames
	Policy policies.Replacement
	usage  policies.UsageCounter

	Tag    []int32 // slot -> gid, -1 if empty
	Flags  []uint8
	LSN    []int64 // page LSN while resident
	slotOf []int32 // gid -> slot, -1 if not resident

	// OnAlloc, if set, is called on every StrategyGetBuffer allocation
	// (it wakes a hibernating background writer).
	OnAlloc func()

	useFreeList bool
	freeList    []int32 // stack; top = next victim
	nDirty      int32
	nEmpty      int32 // slots holding no page

	Stats Stats
}

// HaveFreeBuffer is freelist.c have_free_buffer: whether the free list
// holds a buffer. Without a free list (19) it reports whether some
// buffer holds no page.
func (p *Pool) HaveFreeBuffer() bool {
	if p.useFreeList {
		return len(p.freeList) > 0
	}
	return p.nEmpty > 0
}

// New creates a pool of n slots, all on the free list when useFreeList
// (PostgreSQL <= 18: StrategyInitialize links every buffer into it).
func New(n int32, policy policies.Replacement, useFreeList bool) *Pool {
	p := &Pool{
		N:           n,
		Frames:      policies.Frames{Pins: make([]int32, n)},
		Policy:      policy,
		Tag:         make([]int32, n),
		Flags:       make([]uint8, n),
		LSN:         make([]int64, n),
		useFreeList: useFreeList,
		nEmpty:      n,
	}
	p.usage, _ = policy.(policies.UsageCounter)
	for i := range p.Tag {
		p.Tag[i] = -1
	}
	if useFreeList {
		p.freeList = make([]int32, n)
		for i := range p.freeList {
			p.freeList[i] = n - 1 - int32(i) // pop order 0, 1, 2, ...
		}
	}
	policy.Init(&p.Frames)
	return p
}

// Usage returns the slot's usage count (0 if the policy has none).
func (p *Pool) Usage(slot int32) int {
	if p.usage == nil {
		return 0
	}
	return p.usage.Usage(slot)
}

// UsageCounter returns the policy's usage counter, if it has one.
func (p *Pool) UsageCounter() policies.UsageCounter { return p.usage }

// DirtyCount returns the number of dirty slots.
func (p *Pool) DirtyCount() int32 { return p.nDirty }

// Lookup returns the slot holding gid, or -1.
func (p *Pool) Lookup(gid int32) int32 {
	if int(gid) >= len(p.slotOf) {
		return -1
	}
	return p.slotOf[gid]
}

func (p *Pool) growMap(gid int32) {
	if int(gid) < len(p.slotOf) {
		return
	}
	n := max(int(gid)+1, len(p.slotOf)+len(p.slotOf)/4, 1024)
	m := make([]int32, n)
	copy(m, p.slotOf)
	for i := len(p.slotOf); i < n; i++ {
		m[i] = -1
	}
	p.slotOf = m
}

// Reserve sizes the page map for gids below n (avoids regrowth).
func (p *Pool) Reserve(n int32) { p.growMap(n - 1) }

// Pin pins a resident slot for a lookup hit and tells the policy, unless
// the slot is being evicted (then the evicting backend will notice the pin
// and give the page back).
func (p *Pool) Pin(slot int32, now int64, ring bool) {
	p.Frames.Pins[slot]++
	if p.Flags[slot]&Evicting == 0 {
		p.Policy.Accessed(slot, now, ring)
	}
}

// Unpin drops one pin.
func (p *Pool) Unpin(slot int32) {
	if p.Frames.Pins[slot] <= 0 {
		panic(fmt.Sprintf("bufpool: unpin of unpinned slot %d", slot))
	}
	p.Frames.Pins[slot]--
}

// MarkDirty sets BM_DIRTY and advances the page LSN (MarkBufferDirty).
// It reports whether the page was clean before.
func (p *Pool) MarkDirty(slot int32, lsn int64) bool {
	if lsn > p.LSN[slot] {
		p.LSN[slot] = lsn
	}
	if p.Flags[slot]&Dirty != 0 {
		return false
	}
	p.Flags[slot] |= Dirty
	p.nDirty++
	p.Stats.Dirtied++
	return true
}

// MarkClean clears BM_DIRTY and BM_CHECKPOINT_NEEDED after a write
// (TerminateBufferIO).
func (p *Pool) MarkClean(slot int32) {
	if p.Flags[slot]&Dirty != 0 {
		p.nDirty--
	}
	p.Flags[slot] &^= Dirty | CheckpointNeeded
}

// GetVictim is StrategyGetBuffer plus the pin of GetVictimBuffer: it
// returns an unpinned slot, pinned for the caller and marked Evicting if it
// holds a page. A ring, if given, is tried first (GetBufferFromRing: reuse
// the current ring slot if unpinned with usage_count <= 1); ring reuses are
// not counted in Alloc, everything else is (buffers_alloc). Then the free
// list (<= 18), then the replacement policy. steps is the number of buffers
// the policy inspected; slot is -1 if every buffer is pinned.
func (p *Pool) GetVictim(ring *Ring, now int64) (slot int32, steps int) {
	if ring != nil {
		ring.current = (ring.current + 1) % len(ring.buffers)
		ring.fromRing = false
		if b := ring.buffers[ring.current]; b >= 0 && p.Frames.Pins[b] == 0 && p.Flags[b]&Evicting == 0 && p.Usage(b) <= 1 && p.Tag[b] >= 0 {
			ring.fromRing = true
			p.Stats.RingReuses++
			p.Policy.Removed(b)
			p.take(b)
			return b, 0
		}
	}
	p.Stats.Alloc++
	if p.OnAlloc != nil {
		p.OnAlloc()
	}
	slot = -1
	for p.useFreeList && len(p.freeList) > 0 {
		b := p.freeList[len(p.freeList)-1]
		p.freeList = p.freeList[:len(p.freeList)-1]
		// Discard entries that became pinned or used meanwhile, as
		// StrategyGetBuffer does.
		if p.Frames.Pins[b] == 0 && p.Tag[b] < 0 {
			p.Stats.FreeListPops++
			slot = b
			break
		}
	}
	if slot < 0 {
		slot, steps = p.Policy.Victim(now)
		p.Stats.SweepSteps += uint64(steps)
		if slot < 0 {
			return -1, steps
		}
		p.Stats.SweepVictims++
	}
	if ring != nil {
		ring.buffers[ring.current] = slot // AddBufferToRing
	}
	p.take(slot)
	return slot, steps
}

func (p *Pool) take(slot int32) {
	p.Frames.Pins[slot]++
	if p.Tag[slot] >= 0 {
		p.Flags[slot] |= Evicting
	}
}

// RejectFromRing is StrategyRejectBuffer: a BULKREAD ring gives up a dirty
// ring buffer whose write would need a WAL flush, so the scan does not
// flush WAL; the caller unpins (GiveBack) and picks another victim. It
// returns false (keep the buffer) for other rings or sweep victims.
func (p *Pool) RejectFromRing(ring *Ring, slot int32) bool {
	if ring == nil || ring.Kind != BulkRead || !ring.fromRing || ring.buffers[ring.current] != slot {
		return false
	}
	ring.buffers[ring.current] = -1
	p.Stats.RingRejects++
	return true
}

// GiveBack undoes GetVictim for a slot that could not be used after all
// (rejected by the ring, or pinned by someone else while its old page was
// being written): the page stays resident and the policy re-admits it.
func (p *Pool) GiveBack(slot int32, now int64) {
	p.Frames.Pins[slot]--
	if p.Flags[slot]&Evicting != 0 {
		p.Flags[slot] &^= Evicting
		p.Policy.Loaded(slot, uint64(p.Tag[slot]), now, false)
	} else if p.Tag[slot] < 0 && p.useFreeList {
		p.freeList = append(p.freeList, slot)
	}
}

// Assign maps gid to a victim slot obtained from GetVictim (still pinned by
// the caller), dropping the slot's old page, and marks the slot
// IOInProgress, not yet valid. It reports whether a valid page was evicted.
func (p *Pool) Assign(slot, gid int32, now int64, ring bool) (evicted bool) {
	if old := p.Tag[slot]; old >= 0 {
		p.slotOf[old] = -1
		if p.Flags[slot]&Valid != 0 {
			evicted = true
			p.Stats.Evictions++
		}
		if p.Flags[slot]&Dirty != 0 {
			p.nDirty-- // the caller wrote it; defensive
		}
	} else {
		p.nEmpty--
	}
	p.growMap(gid)
	p.slotOf[gid] = slot
	p.Tag[slot] = gid
	p.Flags[slot] = IOInProgress | Permanent
	p.LSN[slot] = 0
	p.Policy.Loaded(slot, uint64(gid), now, ring)
	return evicted
}

// SetPageLSN records the LSN of a page read from disk.
func (p *Pool) SetPageLSN(slot int32, lsn int64) { p.LSN[slot] = lsn }

// ReadDone marks a slot's read complete (TerminateBufferIO): valid.
func (p *Pool) ReadDone(slot int32) {
	p.Flags[slot] = p.Flags[slot]&^IOInProgress | Valid
}

// Invalidate drops the page in an unpinned slot (InvalidateBuffer, relation
// drop/truncate) and returns the slot to the free list.
func (p *Pool) Invalidate(slot int32) {
	if old := p.Tag[slot]; old >= 0 {
		p.slotOf[old] = -1
		p.nEmpty++
	}
	if p.Flags[slot]&Dirty != 0 {
		p.nDirty--
	}
	p.Tag[slot] = -1
	p.Flags[slot] = 0
	p.Policy.Removed(slot)
	if p.useFreeList {
		p.freeList = append(p.freeList, slot)
	}
}

// Restart tells the policy that the server restarted, once every slot the
// restart empties is invalidated (policies.Restarter).
func (p *Pool) Restart() {
	if r, ok := p.Policy.(policies.Restarter); ok {
		r.Restart()
	}
}

// UsageHistogram counts resident slots by usage count (index = usage).
func (p *Pool) UsageHistogram() []int64 {
	if p.usage == nil {
		return nil
	}
	h := make([]int64, p.usage.MaxUsage()+1)
	if fast, ok := p.Policy.(policies.UsageHistogrammer); ok {
		fast.UsageHistogram(h)
		return h
	}
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] >= 0 {
			u := p.usage.Usage(s)
			if u >= len(h) {
				u = len(h) - 1
			}
			h[u]++
		}
	}
	return h
}

// CopyStateFrom makes p's state (pages in slots, flags, LSNs, pins, the
// free list, the counters and the replacement policy's own state) a copy
// of src's, leaving src untouched: a sweep warms one pool and copies it
// into each run's (model/prewarmshare.go). Both pools must have as many
// slots, the same policy with the same parameters, and the same free-list
// rule; OnAlloc stays p's.
func (p *Pool) CopyStateFrom(src *Pool) error {
	if p.N != src.N || p.useFreeList != src.useFreeList {
		return fmt.Errorf("cannot copy a pool of %d buffers (free list %v) into one of %d (free list %v)", src.N, src.useFreeList, p.N, p.useFreeList)
	}
	c, ok := p.Policy.(policies.StateCopier)
	if !ok {
		return fmt.Errorf("policy %s cannot copy its state", p.Policy.Name())
	}
	if err := c.CopyStateFrom(src.Policy); err != nil {
		return err
	}
	copy(p.Frames.Pins, src.Frames.Pins)
	copy(p.Tag, src.Tag)
	copy(p.Flags, src.Flags)
	copy(p.LSN, src.LSN)
	p.slotOf = slices.Clone(src.slotOf)
	p.freeList = slices.Clone(src.freeList)
	p.nDirty, p.nEmpty = src.nDirty, src.nEmpty
	p.Stats = src.Stats
	return nil
}

// HaveFreeList reports whether the pool keeps a free list (PostgreSQL <= 18).
func (p *Pool) HaveFreeList() bool { return p.useFreeList }

// EncodeState writes the pool's state and its policy's (a prewarm kept on
// disk: model/prewarmcache.go). It fails for a policy that cannot write
// its state (policies.StateEncoder).
func (p *Pool) EncodeState(w *policies.StateWriter) error {
	enc, ok := p.Policy.(policies.StateEncoder)
	if !ok {
		return fmt.Errorf("policy %s cannot write its state", p.Policy.Name())
	}
	// The page map is not written: it is the inverse of Tag.
	w.Put(p.N, p.useFreeList, p.Frames.Pins, p.Tag, p.Flags, p.LSN, p.freeList, p.nDirty, p.nEmpty)
	w.Put(p.Stats)
	enc.EncodeState(w)
	return w.Err()
}

// DecodeState replaces the state of a new pool of as many slots, with the
// same policy and free-list rule, by what EncodeState wrote; maxGid bounds
// the page ids it may map. A state that does not fit is an error and
// leaves the pool unusable.
func (p *Pool) DecodeState(r *policies.StateReader, maxGid int32) error {
	dec, ok := p.Policy.(policies.StateEncoder)
	if !ok {
		return fmt.Errorf("policy %s cannot read its state", p.Policy.Name())
	}
	var n, nDirty, nEmpty int32
	var freeList bool
	r.Get(0, &n, &freeList)
	if r.Err() == nil && (n != p.N || freeList != p.useFreeList) {
		return fmt.Errorf("a pool of %d buffers (free list %v) saved, one of %d (free list %v) wanted", n, freeList, p.N, p.useFreeList)
	}
	var pins, tag, free []int32
	var flags []uint8
	var lsn []int64
	m := int64(p.N)
	r.Get(m, &pins, &tag, &flags, &lsn, &free, &nDirty, &nEmpty)
	r.Get(0, &p.Stats)
	if err := r.Err(); err != nil {
		return err
	}
	if int64(len(pins)) != m || int64(len(tag)) != m || int64(len(flags)) != m || int64(len(lsn)) != m {
		return fmt.Errorf("the saved pool's slots do not match its size")
	}
	slotOf := make([]int32, int(maxGid)+1)
	for i := range slotOf {
		slotOf[i] = -1
	}
	for s, g := range tag {
		if g > maxGid || (g >= 0 && slotOf[g] >= 0) {
			return fmt.Errorf("the saved pool holds a page twice or one beyond the run's")
		}
		if g >= 0 {
			slotOf[g] = int32(s)
		}
	}
	for _, s := range free {
		if s < 0 || s >= p.N {
			return fmt.Errorf("the saved pool's free list names no slot")
		}
	}
	copy(p.Frames.Pins, pins)
	copy(p.Tag, tag)
	copy(p.Flags, flags)
	copy(p.LSN, lsn)
	p.slotOf, p.freeList, p.nDirty, p.nEmpty = slotOf, free, nDirty, nEmpty
	return dec.DecodeState(r)
}

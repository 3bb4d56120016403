// Package policies holds pgbufsim's pluggable policies: buffer replacement
// policies (PostgreSQL's clock sweep and its variants, plus the reference
// policies LRU, FIFO, CLOCK, LFU, 2Q, ARC, SIEVE, S3-FIFO and Belady's OPT) behind one small interface,
// and a registry that the configuration loader and the CLI consult.
//
// A replacement policy sees only slot numbers, page keys and virtual time; it
// never sees the model's internals. The buffer pool (model/bufpool) owns the
// slots, the page-to-slot mapping, pins, dirty flags, the free list and the
// buffer rings; the policy owns only its own bookkeeping and the choice of a
// victim. This mirrors PostgreSQL's split between bufmgr.c (BufferAlloc,
// PinBuffer) and freelist.c (StrategyGetBuffer, the clock sweep).
//
// The policies, one file each: clock-sweep (clocksweep.go; freelist.c
// StrategyGetBuffer, bufmgr.c PinBuffer), lru (lru.go), fifo (fifo.go),
// clock (clock.go; one-bit CLOCK), lfu (lfu.go; Shah et al. 2010), 2q
// (twoq.go; Johnson and Shasha, VLDB 1994), arc (arc.go; Megiddo and Modha,
// FAST 2003), sieve (sieve.go; Zhang et al., NSDI 2024), s3-fifo
// (s3fifo.go; Yang et al., SOSP 2023) and opt (opt.go; Belady 1966, trace
// replay only). Only clock-sweep distinguishes ring
// pins; the reference policies ignore the ring flag.
//
// Adding a policy touches its own file and one line of registry.go.
//
// This package imports no other package of the project.
package policies

// Frames is the buffer pool's per-slot state that a policy may read but never
// write. The slices are owned by the pool and have one entry per slot.
type Frames struct {
	// Pins[slot] > 0 means some backend holds a pin on the slot; a policy
	// must never return a pinned slot as a victim (PostgreSQL's sweep skips
	// pinned buffers without touching their usage_count, freelist.c
	// StrategyGetBuffer).
	Pins []int32
}

// Replacement is a buffer replacement policy.
//
// Slot numbers are dense, 0 .. len(Frames.Pins)-1. Page keys are opaque
// 64-bit identities (the model packs relation, fork and block; trace replay
// uses the trace's object id). Times are int64 nanoseconds of simulated time
// (trace replay passes the request index instead).
//
// The pool calls, per slot, Loaded once when a page enters the slot, then
// Accessed for every later pin, and finally Removed when the page leaves for
// a reason other than Victim (relation drop, ring slot reuse). A slot
// returned by Victim is considered empty until the next Loaded on it.
type Replacement interface {
	// Name is the policy name with every non-default parameter, e.g.
	// "clock-sweep(max_usage_count=3)". Reports use it as a label.
	Name() string
	// Init sizes the policy for len(f.Pins) slots, all empty. It is called
	// exactly once, before any other method.
	Init(f *Frames)
	// Loaded records that page now occupies slot (after a free-slot grab
	// or after Victim chose slot). ring reports whether the page came in
	// through a buffer access strategy (ring).
	Loaded(slot int32, page uint64, now int64, ring bool)
	// Accessed records a pin of a resident slot by a backend that did not
	// already hold a pin on it (PostgreSQL bumps usage_count only then,
	// bufmgr.c PinBuffer). ring reports a pin through a ring strategy.
	Accessed(slot int32, now int64, ring bool)
	// Victim chooses an occupied, unpinned slot to evict and forgets its
	// page. An empty unpinned slot (never loaded, or removed) is returned
	// first if there is one, so a pool without a free list (PostgreSQL 19
	// development) fills up through Victim. steps is the number of buffers the policy inspected to find it
	// (for the clock sweep: hand advances), which the model charges as CPU
	// and strategy-lock hold time. It returns slot -1 when every slot is
	// pinned (PostgreSQL: "no unpinned buffers available").
	Victim(now int64) (slot int32, steps int)
	// Removed forgets the page in slot without it having been chosen by
	// Victim (invalidation, or the pool reusing a ring slot). Policies with
	// history (2Q's A1out, ARC's ghosts) do not remember a removed page.
	// Removed on an empty slot (a victim the pool did not need after all,
	// bufmgr.c StrategyFreeBuffer) does nothing.
	Removed(slot int32)
	// Check verifies the policy's internal invariants (size never exceeds
	// capacity, bookkeeping consistent with Frames). It also reports the
	// first misuse of this protocol by the caller (Accessed on an empty
	// slot, Loaded on an occupied one), which policies survive but record.
	// Tests and debug runs call it; it may be slow.
	Check() error
}

// UsageCounter is implemented by clock-like policies that keep a per-slot
// usage count. The pool needs it for buffer rings (a ring slot is reused
// only if unpinned with usage_count <= 1, freelist.c GetBufferFromRing) and
// the background writer (only usage-0 buffers are written, bufmgr.c
// SyncOneBuffer); reports use it for the usage-count histogram.
type UsageCounter interface {
	// Usage returns the slot's usage count (0 for an empty slot).
	Usage(slot int32) int
	// MaxUsage returns the cap (PostgreSQL's BM_MAX_USAGE_COUNT, 5).
	MaxUsage() int
}

// ClockHand is implemented by policies with a clock hand. It exposes what
// StrategySyncStart returns to the background writer: the next slot the
// hand will examine and how many complete passes it has made.
type ClockHand interface {
	Hand() (next int32, completePasses int64)
}

// Restarter is implemented by policies with state that outlives the pages
// a server restart removes: PostgreSQL's clock-sweep hand, which a new
// shared memory segment starts at buffer 0 (freelist.c StrategyInitialize).
// The pool calls Restart once it has removed every page the restart
// empties.
type Restarter interface {
	Restart()
}

// SweepStats is implemented by policies that count their own sweep work.
type SweepStats interface {
	// Steps is the total number of buffers inspected by Victim so far;
	// Passes the number of complete passes of the hand.
	SweepCounters() (steps, passes int64)
}

// Clairvoyant is implemented by offline policies (Belady's OPT) that need to
// know when each page will be referenced next. Only trace replay can supply
// that; a live simulation refuses such policies (Spec.Offline).
type Clairvoyant interface {
	Replacement
	// NextUse tells the policy the time (request index in trace replay) of
	// the next reference to the page in slot, or NeverAgain. The replay
	// driver calls it right after Loaded or Accessed for the same request.
	NextUse(slot int32, next int64)
}

// NeverAgain is the NextUse value of a page that is not referenced again.
const NeverAgain = int64(1<<63 - 1)

// UsageHistogrammer is implemented by policies that can count their
// occupied slots by usage count faster than calling Usage per slot.
type UsageHistogrammer interface {
	// UsageHistogram adds the number of occupied slots at each usage count
	// into h (len(h) = MaxUsage()+1).
	UsageHistogram(h []int64)
}

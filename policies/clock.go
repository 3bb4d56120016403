package policies

import (
	"fmt"
	"slices"
)

// clock: the one-bit CLOCK (second chance) of F. J. Corbató, "A paging
// experiment with the Multics system" (MIT Project MAC, 1968), as
// libCacheSim's Clock with its defaults (one reference bit, new pages
// unreferenced). Pages sit in a FIFO queue; a reference sets the page's
// bit; to evict, the oldest page is taken: with its bit set it is
// reinserted at the newest end with the bit cleared, without it it is the
// victim. PostgreSQL's clock sweep is this with usage counts up to 5
// instead of one bit (clock-sweep with max_usage_count=1 and
// insert_usage_count=0 is the same policy up to pins).
//
// Pins: a pinned page at the oldest end is reinserted with its bit left
// alone; after a full queue of consecutive pinned pages Victim gives up
// with -1, as freelist.c StrategyGetBuffer does.

var clockSpec = Spec{
	BytesPerSlot: 10,
	Name:         "clock",
	Summary:      "CLOCK: one reference bit, second chance (libCacheSim's Clock)",
	Reference:    "F. J. Corbató, A paging experiment with the Multics system, MIT Project MAC MAC-M-384, 1968",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("clock: takes no parameters, got %T", params)
		}
		return NewClock(), nil
	},
}

// Clock is one-bit CLOCK over slots.
type Clock struct {
	pins     []int32
	k        links
	empty    slotList
	queue    slotList // head = newest
	occupied []bool
	ref      []bool
	bad      contract
}

// NewClock returns an uninitialised CLOCK policy.
func NewClock() *Clock { return &Clock{} }

// Name implements Replacement.
func (c *Clock) Name() string { return "clock" }

// Init implements Replacement.
func (c *Clock) Init(f *Frames) {
	n := len(f.Pins)
	c.pins = f.Pins
	c.k = newLinks(n)
	c.empty, c.queue = newSlotList(), newSlotList()
	c.occupied = make([]bool, n)
	c.ref = make([]bool, n)
	for s := range int32(n) {
		c.empty.pushTail(&c.k, s)
	}
}

// Loaded inserts the page at the newest end, unreferenced.
func (c *Clock) Loaded(slot int32, page uint64, now int64, ring bool) {
	if c.occupied[slot] {
		c.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		c.queue.remove(&c.k, slot)
	} else {
		c.empty.remove(&c.k, slot)
	}
	c.occupied[slot] = true
	c.ref[slot] = false
	c.queue.pushHead(&c.k, slot)
}

// Accessed sets the reference bit.
func (c *Clock) Accessed(slot int32, now int64, ring bool) {
	if !c.occupied[slot] {
		c.bad.violate("Accessed(slot %d) while the slot is empty", slot)
		return
	}
	c.ref[slot] = true
}

// Victim returns an empty slot if any, else gives the oldest pages their
// second chance until one has none left.
func (c *Clock) Victim(now int64) (int32, int) {
	s, steps := c.empty.firstUnpinned(&c.k, c.pins)
	if s != noSlot {
		return s, steps
	}
	tries := c.queue.n
	for c.queue.n > 0 {
		s = c.queue.tail
		steps++
		switch {
		case c.pins[s] > 0:
			if tries--; tries == 0 {
				return -1, steps
			}
			c.queue.moveToHead(&c.k, s)
		case c.ref[s]:
			c.ref[s] = false
			tries = c.queue.n
			c.queue.moveToHead(&c.k, s)
		default:
			c.queue.remove(&c.k, s)
			c.occupied[s] = false
			c.empty.pushTail(&c.k, s)
			return s, steps
		}
	}
	return -1, steps
}

// Removed forgets the page.
func (c *Clock) Removed(slot int32) {
	if !c.occupied[slot] {
		return
	}
	c.queue.remove(&c.k, slot)
	c.occupied[slot] = false
	c.empty.pushTail(&c.k, slot)
}

// Check implements Replacement.
func (c *Clock) Check() error {
	if err := c.bad.err(); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	if err := c.queue.verify(&c.k, "clock queue", func(s int32) bool { return c.occupied[s] }); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	if err := c.empty.verify(&c.k, "clock empty list", func(s int32) bool { return !c.occupied[s] }); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	if c.queue.n+c.empty.n != len(c.occupied) {
		return fmt.Errorf("clock: %d queued + %d empty slots, capacity %d", c.queue.n, c.empty.n, len(c.occupied))
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (c *Clock) CopyStateFrom(src Replacement) error {
	s, ok := src.(*Clock)
	if !ok || len(s.occupied) != len(c.occupied) {
		return copyMismatch(c, src)
	}
	pins := c.pins
	*c = *s
	c.pins = pins
	c.k = s.k.clone()
	c.occupied = slices.Clone(s.occupied)
	c.ref = slices.Clone(s.ref)
	return nil
}

package policies

import (
	"fmt"
	"slices"
)

// sieve: SIEVE, Zhang, Yang, Yue, Vigfusson and Rashmi, "SIEVE is Simpler
// than LRU: an Efficient Turn-Key Eviction Algorithm for Web Caches",
// NSDI 2024, Figure 2 and Algorithm 1.
//
// One FIFO queue (new pages enter at the head) with a visited bit per page,
// and a hand that moves from the tail toward the head. A hit only sets the
// visited bit; the queue order never changes. To evict, the hand clears
// visited bits until it reaches an unvisited page, evicts it, and stays
// where it stopped (pointing at the next newer page); past the head it
// wraps to the tail. Unlike CLOCK, survivors keep their place instead of
// being moved, so new pages and retained pages never mix.
//
// Pins: a pinned page under the hand is passed over with its visited bit
// left alone (as PostgreSQL's sweep leaves usage_count), and counts toward
// a try counter that, as in freelist.c StrategyGetBuffer, gives up with -1
// after a full queue of consecutive passes that changed nothing.

var sieveSpec = Spec{
	BytesPerSlot: 12,
	Name:         "sieve",
	Summary:      "SIEVE: FIFO queue with a visited bit and a hand moving from the tail toward the head",
	Reference:    "Y. Zhang, J. Yang, Y. Yue, Y. Vigfusson, K. V. Rashmi, SIEVE is Simpler than LRU, NSDI 2024",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("sieve: takes no parameters, got %T", params)
		}
		return NewSieve(), nil
	},
}

// Sieve is the SIEVE policy.
type Sieve struct {
	pins     []int32
	k        links
	empty    slotList // FIFO of empty slots
	queue    slotList // head = newest; the hand walks from tail to head (prev)
	occupied []bool
	visited  []bool
	hand     int32 // next slot to examine; noSlot means start at the tail
	bad      contract
}

// NewSieve returns an uninitialised SIEVE policy.
func NewSieve() *Sieve { return &Sieve{hand: noSlot} }

// Name implements Replacement.
func (v *Sieve) Name() string { return "sieve" }

// Init implements Replacement.
func (v *Sieve) Init(f *Frames) {
	n := len(f.Pins)
	v.pins = f.Pins
	v.k = newLinks(n)
	v.empty, v.queue = newSlotList(), newSlotList()
	v.occupied = make([]bool, n)
	v.visited = make([]bool, n)
	for s := range int32(n) {
		v.empty.pushTail(&v.k, s)
	}
}

// Loaded inserts the page at the head of the queue, unvisited.
func (v *Sieve) Loaded(slot int32, page uint64, now int64, ring bool) {
	if v.occupied[slot] {
		v.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		v.unlinkQueued(slot)
	} else {
		v.empty.remove(&v.k, slot)
	}
	v.occupied[slot] = true
	v.visited[slot] = false
	v.queue.pushHead(&v.k, slot)
}

// Accessed sets the visited bit.
func (v *Sieve) Accessed(slot int32, now int64, ring bool) {
	if !v.occupied[slot] {
		v.bad.violate("Accessed(slot %d) while the slot is empty", slot)
		return
	}
	v.visited[slot] = true
}

// toHead is the hand's step: toward the head, wrapping to the tail.
func (v *Sieve) toHead(s int32) int32 {
	if p := v.k.prev[s]; p != noSlot {
		return p
	}
	return v.queue.tail
}

// Victim returns an empty slot if any, else runs the hand.
func (v *Sieve) Victim(now int64) (int32, int) {
	s, steps := v.empty.firstUnpinned(&v.k, v.pins)
	if s != noSlot {
		return s, steps
	}
	if v.queue.n == 0 {
		return -1, steps
	}
	o := v.hand
	if o == noSlot {
		o = v.queue.tail
	}
	tries := v.queue.n
	for {
		steps++
		switch {
		case v.pins[o] > 0:
			if tries--; tries == 0 {
				v.hand = v.toHead(o)
				return -1, steps
			}
		case v.visited[o]:
			v.visited[o] = false
			tries = v.queue.n
		default:
			v.hand = o // unlinkQueued leaves it on the next newer page
			v.unlinkQueued(o)
			v.occupied[o] = false
			v.empty.pushTail(&v.k, o)
			return o, steps
		}
		o = v.toHead(o)
	}
}

// unlinkQueued takes s off the queue, first moving the hand off it to the
// next newer page (noSlot, i.e. "start at the tail", past the head), as
// the paper's eviction leaves it.
func (v *Sieve) unlinkQueued(s int32) {
	if v.hand == s {
		v.hand = v.k.prev[s]
	}
	v.queue.remove(&v.k, s)
}

// Removed forgets the page.
func (v *Sieve) Removed(slot int32) {
	if !v.occupied[slot] {
		return
	}
	v.unlinkQueued(slot)
	v.occupied[slot] = false
	v.visited[slot] = false
	v.empty.pushTail(&v.k, slot)
}

// Check implements Replacement.
func (v *Sieve) Check() error {
	if err := v.bad.err(); err != nil {
		return fmt.Errorf("sieve: %w", err)
	}
	if err := v.empty.verify(&v.k, "empty", func(s int32) bool { return !v.occupied[s] }); err != nil {
		return fmt.Errorf("sieve: %w", err)
	}
	if err := v.queue.verify(&v.k, "queue", func(s int32) bool { return v.occupied[s] }); err != nil {
		return fmt.Errorf("sieve: %w", err)
	}
	if n := len(v.occupied); v.empty.n+v.queue.n != n {
		return fmt.Errorf("sieve: %d empty + %d queued slots, pool has %d", v.empty.n, v.queue.n, n)
	}
	for s, occ := range v.occupied {
		if !occ && v.visited[s] {
			return fmt.Errorf("sieve: empty slot %d is marked visited", s)
		}
	}
	if v.hand != noSlot && !v.occupied[v.hand] {
		return fmt.Errorf("sieve: hand on empty slot %d", v.hand)
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (v *Sieve) CopyStateFrom(src Replacement) error {
	s, ok := src.(*Sieve)
	if !ok || len(s.occupied) != len(v.occupied) {
		return copyMismatch(v, src)
	}
	pins := v.pins
	*v = *s
	v.pins = pins
	v.k = s.k.clone()
	v.occupied = slices.Clone(s.occupied)
	v.visited = slices.Clone(s.visited)
	return nil
}

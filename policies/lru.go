package policies

import (
	"fmt"
	"slices"
)

// lru: exact least-recently-used replacement, the reference every other
// policy is compared with (and, for the record, PostgreSQL's own policy
// before 8.0). One intrusive doubly linked list holds every slot: occupied
// slots from most recently used at the head, empty slots at the tail, so
// an unfilled pool hands out its empty slots before evicting anything.

var lruSpec = Spec{
	BytesPerSlot: 12,
	Name:         "lru",
	Summary:      "exact LRU: evict the least recently used unpinned page",
	Reference:    "textbook LRU (e.g. Silberschatz, Operating System Concepts, 'LRU page replacement')",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("lru: takes no parameters, got %T", params)
		}
		return NewLRU(), nil
	},
}

// LRU is exact LRU over slots.
type LRU struct {
	pins     []int32
	k        links
	order    slotList // head = most recently used; empty slots at the tail
	occupied []bool
	resident int
	bad      contract
}

// NewLRU returns an uninitialised LRU policy.
func NewLRU() *LRU { return &LRU{} }

// Name implements Replacement.
func (l *LRU) Name() string { return "lru" }

// Init implements Replacement.
func (l *LRU) Init(f *Frames) {
	n := len(f.Pins)
	l.pins = f.Pins
	l.k = newLinks(n)
	l.order = newSlotList()
	l.occupied = make([]bool, n)
	// Pushed at the head in order, so slot 0 ends at the tail and a pool
	// filling up through Victim gets slots 0, 1, 2, ...
	for s := range int32(n) {
		l.order.pushHead(&l.k, s)
	}
}

// Loaded makes the slot the most recently used.
func (l *LRU) Loaded(slot int32, page uint64, now int64, ring bool) {
	if l.occupied[slot] {
		l.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
	} else {
		l.occupied[slot] = true
		l.resident++
	}
	l.order.moveToHead(&l.k, slot)
}

// Accessed makes the slot the most recently used.
func (l *LRU) Accessed(slot int32, now int64, ring bool) {
	if !l.occupied[slot] {
		l.bad.violate("Accessed(slot %d) while the slot is empty", slot)
		return
	}
	l.order.moveToHead(&l.k, slot)
}

// Victim returns the unpinned slot nearest the tail: an empty one if any,
// else the least recently used page.
func (l *LRU) Victim(now int64) (int32, int) {
	s, steps := l.order.lastUnpinned(&l.k, l.pins)
	if s == noSlot {
		return -1, steps
	}
	l.evict(s)
	return s, steps
}

// Removed forgets the page; the slot joins the empty end.
func (l *LRU) Removed(slot int32) {
	if l.occupied[slot] {
		l.evict(slot)
	}
}

func (l *LRU) evict(s int32) {
	if l.occupied[s] {
		l.occupied[s] = false
		l.resident--
	}
	l.order.remove(&l.k, s)
	l.order.pushTail(&l.k, s)
}

// Check implements Replacement.
func (l *LRU) Check() error {
	if err := l.bad.err(); err != nil {
		return fmt.Errorf("lru: %w", err)
	}
	n := len(l.occupied)
	if err := l.order.verify(&l.k, "lru list", func(int32) bool { return true }); err != nil {
		return fmt.Errorf("lru: %w", err)
	}
	if l.order.n != n {
		return fmt.Errorf("lru: list holds %d of %d slots", l.order.n, n)
	}
	// Occupied slots form a prefix of the list: once an empty slot is seen,
	// everything after it must be empty too.
	seenEmpty, resident := false, 0
	for s := l.order.head; s != noSlot; s = l.k.next[s] {
		if l.occupied[s] {
			if seenEmpty {
				return fmt.Errorf("lru: occupied slot %d behind an empty slot", s)
			}
			resident++
		} else {
			seenEmpty = true
		}
	}
	if resident != l.resident || resident > n {
		return fmt.Errorf("lru: %d slots occupied, count says %d, capacity %d", resident, l.resident, n)
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (l *LRU) CopyStateFrom(src Replacement) error {
	s, ok := src.(*LRU)
	if !ok || len(s.occupied) != len(l.occupied) {
		return copyMismatch(l, src)
	}
	pins := l.pins
	*l = *s
	l.pins = pins
	l.k = s.k.clone()
	l.occupied = slices.Clone(s.occupied)
	return nil
}
